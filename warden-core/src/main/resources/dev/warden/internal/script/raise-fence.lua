-- Raise the fence of a held lock to the quorum's agreed fence, so that the next holder on this server gets more.
-- Prelude: lock.lua.
-- KEYS[1] lock key; ARGV[1] owner token, ARGV[2] the agreed fence.
-- Returns 1 if the token holds the lock (fence now at least ARGV[2]), 0 if it does not.
local fence, owner = parse(redis.call('GET', KEYS[1]))
if owner ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > (tonumber(fence) or 0) then
  redis.call('SET', KEYS[1], ARGV[2] .. ':' .. owner, 'KEEPTTL')
end
return 1
