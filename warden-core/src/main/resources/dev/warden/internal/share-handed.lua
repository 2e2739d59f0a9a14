-- After a local handover of a share (ShareLease): a waiter of the holder's client took the share over without a
-- request. Moves it from the holder's token to the waiter's, with the same end, the waiter's permits (no more than
-- the holder's: the rest goes to the queue) and, for a semaphore's permits or a writer, the next fence (a reader
-- gets the last one); and takes the waiter out of the queue. Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations; ARGV[1] the holder's token, ARGV[2] the
-- waiter's, ARGV[3] the waiter's permits, ARGV[4] the kind of lock, ARGV[5] fence retention ms, ARGV[6] grant
-- channel, ARGV[7] the publish command.
-- Returns the waiter's fence; or -1 if the holder's token held nothing (ended, or forced out): then both leases are
-- lost, and a share that a release granted the waiter meanwhile is given back.
local state, holders, old, new = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local used, freed = expire_holders(state, holders, tonumber(redis.call('HGET', state, 'used')) or 0)
dequeue(KEYS[3], KEYS[4], new)
local held = parse_holder(redis.call('HGET', state, old))
local granted, granted_fence = parse_holder(redis.call('HGET', state, new))
local cap = tonumber(redis.call('HGET', state, 'cap'))
local fence = -1
if held then
  local ends = tonumber(redis.call('ZSCORE', holders, old))
  redis.call('HDEL', state, old)
  redis.call('ZREM', holders, old)
  used = used - held
  if granted then
    -- A release granted the waiter a share meanwhile: it keeps that one, until the later of the two ends.
    if ends > tonumber(redis.call('ZSCORE', holders, new)) then
      redis.call('ZADD', holders, ends, new)
    end
    fence = granted_fence
    freed = true
  else
    local permits = tonumber(ARGV[3])
    fence = lend(state, holders, new, permits, ends, cap, ARGV[4], tonumber(redis.call('HGET', state, 'fence')) or 0)
    used = used + permits
    freed = freed or permits < held
  end
elseif granted then
  redis.call('HDEL', state, new)
  redis.call('ZREM', holders, new)
  used = used - granted
  freed = true
end
if freed and cap then
  used = grant_waiters(state, holders, KEYS[3], KEYS[4], used, cap, ARGV[4], nil, tonumber(ARGV[5]), ARGV[6],
    ARGV[7])
end
if held or freed then
  redis.call('HSET', state, 'used', used)
end
return fence
