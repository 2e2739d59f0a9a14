-- Acquire permits of a shared lock (share.lua) in one atomic step: a free share goes to the caller if no live
-- waiter queued before it, else the caller joins the queue. Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations (see share.lua).
-- ARGV[1] token, ARGV[2] lease ms, ARGV[3] the kind of try ("0" one try that never registers, "1" a waiter's first,
-- "2" a later one), ARGV[4] the try's arm, ARGV[5] the lease ms a release grants it, ARGV[6] how long a registration
-- lives, ARGV[7] the caller's client id, ARGV[8] the permits asked for, ARGV[9] the capacity, ARGV[10] the kind of
-- lock ("s" semaphore, "rw" read-write lock), ARGV[11] a token of the caller's that holds the whole capacity (a
-- writer taking the read lock: granted beside it, ahead of the queue) or "", ARGV[12] the fence retention ms,
-- ARGV[13] the grant channel, ARGV[14] the publish command (PUBLISH or SPUBLISH).
-- Returns {1, fence, lease ms} when acquired (also when a release lent to this token already, with the lease left);
-- else -1 - how long until the first holder's lease ends (0 when unknown or when earlier waiters come first).
local cap = capacity(KEYS[1], ARGV[9])
if type(cap) == 'table' then return cap end
local used = expire_holders(KEYS[1], KEYS[2])
local token, permits, retention = ARGV[1], tonumber(ARGV[8]), tonumber(ARGV[12])
local _, mine = parse_holder(redis.call('HGET', KEYS[1], token))
if mine then
  return {1, mine, math.max(tonumber(redis.call('ZSCORE', KEYS[2], token)) - now_ms(), 0)}
end
-- A writer that takes the read lock (a downgrade) comes before the queue, which waits for that writer anyway.
local companion = false
if ARGV[11] ~= '' then
  local held = parse_holder(redis.call('HGET', KEYS[1], ARGV[11]))
  companion = held ~= nil and held >= cap
end
local first = companion
if not first then
  while true do
    local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
    if not head or head == token then
      first = true
      break
    end
    if live(redis.call('HGET', KEYS[4], head)) then break end
    redis.call('ZREM', KEYS[3], head)
    redis.call('HDEL', KEYS[4], head)
  end
end
if first and (companion or used + permits <= cap) then
  if ARGV[3] == '2' then
    leave(KEYS[3], KEYS[4], token)
  end
  local lease = tonumber(ARGV[2])
  local fence = lend(KEYS[1], KEYS[2], token, permits, lease, cap, ARGV[10], retention)
  -- Readers (or small requests) queued right behind this one may share the lock with it.
  grant_waiters(KEYS[1], KEYS[2], KEYS[3], KEYS[4], used + permits, cap, ARGV[10], retention, ARGV[13], ARGV[14])
  return {1, fence, lease}
end
if ARGV[3] ~= '0' then
  register(KEYS[3], KEYS[4], token, tonumber(ARGV[6]), ARGV[5], ARGV[4], permits .. ':' .. ARGV[7])
end
if not first then return -1 end
return -1 - math.max(first_end(KEYS[2]), 0)
