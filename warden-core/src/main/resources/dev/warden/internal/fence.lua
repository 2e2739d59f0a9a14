-- Issue the fencing token of a lease acquired without one, the first time its holder asks (acquire.lua), or of a
-- lease that took the lock over from another lease of the same client, with the same token (ARGV[2] > 0).
-- KEYS[1] lock key; ARGV[1] owner token; ARGV[2] a fence the answer must exceed: the previous holder's, or 0.
-- Returns the holder's fence, issued now if it had none above the floor, or 0 if the token does not hold the lock.
-- A fence is issued only to the current holder, so fences rise in the order of the holds. Where the key was missing
-- when this token acquired, no fence was kept to carry on, and the server's time in microseconds is the floor
-- every fence has after a key was lost.
if redis.replicate_commands then redis.replicate_commands() end
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local fence, owner = string.match(current, '^(%d*):(.+)$')
if owner ~= ARGV[1] then return 0 end
local floor = tonumber(ARGV[2])
if fence ~= '' and tonumber(fence) > floor then return tonumber(fence) end
local now = redis.call('TIME')
local next = math.max(now[1] * 1000000 + now[2], floor + 1)
if fence ~= '' then next = math.max(next, tonumber(fence) + 1) end
fence = string.format('%.0f', next)
redis.call('SET', KEYS[1], fence .. ':' .. owner, 'KEEPTTL')
return tonumber(fence)
