-- Release the permits of a shared lock (share.lua) if, and only if, the token still holds them, and lend them on to
-- the queue's oldest live waiters that fit. A token that holds nothing leaves the queue (a waiter that gave up).
-- Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations; ARGV[1] token, ARGV[2] the kind of lock
-- ("s" or "rw"), ARGV[3] fence retention ms, ARGV[4] grant channel, ARGV[5] the publish command, ARGV[6] the
-- releasing client's id: its waiters' grants are answered rather than published.
-- Returns 1 if released, 0 if the token held nothing (expired, or forced out): plain integers; or, if it granted
-- waiters of the releasing client, {1, "<token>:<fence>:<arm>" per such grant}.
local read = read_state(KEYS[1], KEYS[2], {ARGV[1]})
local used = read.used
local permits = parse_holder(read.entries[1])
if not permits then
  if read.expired then redis.call('HSET', KEYS[1], 'used', int_text(used)) end
  dequeue(KEYS[3], KEYS[4], ARGV[1])
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
used = used - permits
local cap = tonumber(read.cap)
local listed = {}
if cap then
  used, listed = grant_waiters(KEYS[1], KEYS[2], KEYS[3], KEYS[4], used, cap, ARGV[2], read.fence, tonumber(ARGV[3]),
    read.kept, ARGV[4], ARGV[5], ARGV[6])
else
  redis.call('HSET', KEYS[1], 'used', int_text(used))
end
if #listed == 0 then return 1 end
table.insert(listed, 1, 1)
return listed
