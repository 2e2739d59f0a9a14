-- Remove holders of a shared lock (share.lua) whoever they are, for administration, and lend their permits on to
-- the queue. Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations; ARGV[1] which: "all", "whole" (holders of
-- the whole capacity: writers) or "part" (the others: readers); ARGV[2] the kind of lock, ARGV[3] fence retention
-- ms, ARGV[4] grant channel, ARGV[5] the publish command.
-- Returns the highest fence of the holders removed (0 if none had one), or -1 if none was removed.
local read = read_state(KEYS[1], KEYS[2], {})
local used = read.used
local cap = tonumber(read.cap)
if not cap then return -1 end
local removed = -1
for _, token in ipairs(redis.call('ZRANGE', KEYS[2], '0', '-1')) do
  local permits, fence = parse_holder(redis.call('HGET', KEYS[1], token))
  if permits and (ARGV[1] == 'all' or (ARGV[1] == 'whole') == (permits >= cap)) then
    redis.call('HDEL', KEYS[1], token)
    redis.call('ZREM', KEYS[2], token)
    used = used - permits
    removed = math.max(removed, fence)
  end
end
used = grant_waiters(KEYS[1], KEYS[2], KEYS[3], KEYS[4], used, cap, ARGV[2], read.fence, tonumber(ARGV[3]), read.kept,
  ARGV[4], ARGV[5])
return removed
