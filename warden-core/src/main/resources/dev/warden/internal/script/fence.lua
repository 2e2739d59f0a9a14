-- Issue the fencing token of a lease acquired without one, the first time its holder asks (acquire.lua), or of a
-- lease that took the lock over from another lease of the same client, with the same token (ARGV[2] > 0).
-- Prelude: lock.lua.
-- KEYS[1] lock key; ARGV[1] owner token; ARGV[2] a fence the answer must exceed: the predecessor's fence (that of
-- the previous holder), or 0.
-- Returns the holder's fence, issued now if it had none above ARGV[2], or 0 if the token does not hold the lock.
-- A fence is issued only to the current holder, so fences rise in the order of the holds. Where the key was missing
-- when this token acquired, no fence was kept to carry on, and the clock minimum (next_fence: no fence is below the
-- server's time in microseconds) puts every fence issued after a key was lost above the ones before.
local fence, owner = parse(redis.call('GET', KEYS[1]))
if owner ~= ARGV[1] then return 0 end
local above = tonumber(ARGV[2])
local last = tonumber(fence) or 0
if last > above then return last end
local issued = next_fence(math.max(last, above))
redis.call('SET', KEYS[1], fence_text(issued) .. ':' .. owner, 'KEEPTTL')
return issued
