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
-- else -1 - how long until the first holder's lease ends (0 when unknown or when earlier waiters come first), as a
-- plain integer, or, when this try joined the queue, {that, its score in the queue, the waiters of other clients
-- queued before it}.
local state, holders, queue, registrations = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token, permits, retention = ARGV[1], tonumber(ARGV[8]), tonumber(ARGV[12])
-- The caller's entry and, for a downgrade, the writer's: read at once with the rest of the state.
local read = read_state(state, holders, ARGV[11] ~= '' and {token, ARGV[11]} or {token})
local used = read.used
if read.expired then
  redis.call('HSET', state, 'used', int_text(used))
end
-- Only a waiter's later try can find its token granted already: a first try's token is new. A grant stands even if
-- the capacity changed since it queued (share-resize.lua): it was lent within the new one.
local mine
if ARGV[3] == '2' then
  mine = select(2, parse_holder(read.entries[1]))
end
if mine then
  return {1, mine, math.max(tonumber(redis.call('ZSCORE', holders, token)) - now_ms(), 0)}
end
local cap = settle_capacity(state, queue, registrations, ARGV[9], read.cap, used, retention)
if type(cap) == 'table' then return cap end
-- A writer that takes the read lock (a downgrade) comes before the queue, which waits for that writer anyway.
local companion = false
if ARGV[11] ~= '' then
  local held = parse_holder(read.entries[2])
  companion = held ~= nil and held >= cap
end
local first = companion
if not first then
  while true do
    local head = redis.call('ZRANGE', queue, '0', '0')[1]
    if not head or head == token then
      first = true
      break
    end
    local registered = redis.call('HGET', registrations, head)
    if live(registered) then break end
    redis.call('ZREM', queue, head)
    unregister(registrations, head, registered)
  end
end
if first and (companion or used + permits <= cap) then
  if ARGV[3] == '2' then
    dequeue(queue, registrations, token)
  end
  local lease = tonumber(ARGV[2])
  local ends = now_ms() + lease
  local last = lend(state, holders, token, permits, ARGV[8], ends, cap, ARGV[10], read.fence)
  local kept = retain(state, holders, ends, retention, read.kept, used == 0)
  -- Readers (or small requests) queued right behind this one may share the lock with it.
  used = grant_waiters(state, holders, queue, registrations, used + permits, cap, ARGV[10], last, retention, kept,
    ARGV[13], ARGV[14])
  return {1, last, lease}
end
local wait = -1
if first then wait = -1 - math.max(first_end(holders), 0) end
if ARGV[3] ~= '0' then
  local score, others = enqueue(state, queue, registrations, read.queue_kept, token, ARGV[6], ARGV[5], ARGV[4], ARGV[8],
    ARGV[7])
  if score then return {wait, score, others} end
end
return wait
