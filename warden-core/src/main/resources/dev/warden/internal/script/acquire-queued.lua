-- Acquire a lock in one atomic step where waiters queue (fair mode, and the default mode without replica
-- acknowledgements): a waiter joins the lock's queue, and a free lock goes to the queue's oldest live waiter.
-- Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key (see lock.lua); KEYS[2] queue, KEYS[3] registrations (see queue.lua).
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] the kind of try: "0" one try (never registers), "1" a waiter's
-- first try (registers when held), "2" a waiter's later try (may be registered already, so it also leaves the
-- queue when it acquires); ARGV[4] the caller's arm (attempt) number, ARGV[5] the lease ms a release grants it,
-- ARGV[6] how long a renewing registration lives (see queue.lua), ARGV[7] the caller's client id, ARGV[8] "1" to
-- issue a fence even where the key is missing (fair mode), "0" to leave it to the holder's first request for one
-- (fence.lua); ARGV[9] the lock's channel, whose "<channel>:<client id>" carry grants, ARGV[10] the publish command
-- (PUBLISH, or SPUBLISH for sharded pub/sub); ARGV[11], if given, lets the waiter register quietly where its client
-- is subscribed to its grant channel (see subscribed in queue.lua): the ms left of its wait, -1 for no limit.
-- A free lock whose queue's head is a quiet registration of another client wakes that client (see live_waiter in
-- queue.lua), or skips the head if nobody hears.
-- Returns {1, fence, lease ms} when acquired, also when a release granted it to this token already (with the lease
-- left); when not, a plain integer (a list costs Redis several times as much to return): -1 - the holder's PTTL
-- when held by another token and the waiter's registration is renewing (or it has none), 0 when free but earlier
-- waiters come first; or {2, the holder's PTTL} when held and the waiter is registered quietly.
local current = redis.call('GET', KEYS[1])
local fence, owner = parse(current)
if fence == false then
  return not_a_lock(KEYS[1])
end
if owner then
  local ttl = redis.call('PTTL', KEYS[1])
  if owner == ARGV[1] then
    return {1, tonumber(fence) or 0, ttl}
  end
  if ARGV[3] ~= '0' then
    local life = tonumber(ARGV[6])
    if ARGV[11] and subscribed(ARGV[9], ARGV[7], ARGV[10]) then
      -- Quiet: the waiter sends nothing until the holder's TTL runs out, or its wait ends if sooner.
      local wait = tonumber(ARGV[11])
      register(KEYS[2], KEYS[3], ARGV[1], life + ((wait >= 0 and wait < ttl) and wait or ttl), ARGV[5], ARGV[4],
        ARGV[7])
      return {2, ttl}
    end
    register(KEYS[2], KEYS[3], ARGV[1], life, ARGV[5], ARGV[4], ARGV[7])
  end
  return -1 - ttl
end
-- The lock is free, which with waiters queued means its holder expired: the oldest live registration takes it next.
while true do
  local head = redis.call('ZRANGE', KEYS[2], '0', '0')[1]
  if not head or head == ARGV[1] then break end
  if live_waiter(redis.call('HGET', KEYS[3], head), tonumber(ARGV[6]), ARGV[9], ARGV[10], ARGV[7]) then
    if ARGV[3] ~= '0' then
      register(KEYS[2], KEYS[3], ARGV[1], tonumber(ARGV[6]), ARGV[5], ARGV[4], ARGV[7])
    end
    return 0
  end
  redis.call('ZREM', KEYS[2], head)
  redis.call('HDEL', KEYS[3], head)
end
if ARGV[3] == '2' then
  leave(KEYS[2], KEYS[3], ARGV[1])
end
local issued = 0
if current or ARGV[8] ~= '0' then
  issued = next_fence(tonumber(fence) or 0)
end
hold(KEYS[1], issued, ARGV[1], ARGV[2])
return {1, issued, tonumber(ARGV[2])}
