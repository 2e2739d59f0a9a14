-- Issue the fencing token of a lease acquired without one, the first time its holder asks (acquire.lua).
-- KEYS[1] lock key; ARGV[1] owner token.
-- Returns the holder's fence, issued now if it had none, or 0 if the token does not hold the lock.
-- The key was missing when this holder acquired it, so no fence was kept to carry on: the token is the server's
-- time in microseconds, the floor every fence has after a key was lost.
if redis.replicate_commands then redis.replicate_commands() end
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local fence, owner = string.match(current, '^(%d*):(.+)$')
if owner ~= ARGV[1] then return 0 end
if fence ~= '' then return tonumber(fence) end
local now = redis.call('TIME')
fence = string.format('%.0f', now[1] * 1000000 + now[2])
redis.call('SET', KEYS[1], fence .. ':' .. owner, 'KEEPTTL')
return tonumber(fence)
