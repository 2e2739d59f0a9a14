-- Acquire a lock in one atomic step where waiters do not queue: with replica acknowledgements, and on a quorum's
-- servers (acquire-queued.lua otherwise). Prelude: lock.lua.
-- KEYS[1] lock key (see lock.lua).
-- KEYS[2] waiters: a sorted set of waiting tokens scored by when their registration expires (server ms).
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] the kind of try: "0" one try (never registers), "1" a waiter's
-- first try (registers when held), "2" a waiter's later try (may be registered already, so it also leaves the
-- waiters when it acquires); ARGV[4] "1" to issue a fence even where the key is missing (quorum and replica
-- locks), "0" to leave it to the holder's first request for one.
-- Returns the new fence (> 0) when acquired with one, 0 when acquired without, or -1 - the holder's PTTL (< 0)
-- when held by another token. A plain integer, which both sides handle faster than a list.
local current = redis.call('GET', KEYS[1])
local fence, owner = parse(current)
if fence == false then
  return not_a_lock(KEYS[1])
end
if owner then
  local ttl = redis.call('PTTL', KEYS[1])
  if ARGV[3] ~= '0' then
    -- A waiter's registration lasts 2 s longer than the holder's TTL, unless the waiter tries again.
    local ms = now_ms()
    local life = math.max(ttl, 0) + 2000
    redis.call('ZADD', KEYS[2], ms + life, ARGV[1])
    if redis.call('PTTL', KEYS[2]) < life then
      redis.call('PEXPIRE', KEYS[2], life)
    end
  end
  return -1 - ttl
end
if ARGV[3] == '2' and redis.call('ZREM', KEYS[2], ARGV[1]) == 1 and redis.call('ZCARD', KEYS[2]) == 0 then
  -- A waiter that gets the lock stops waiting; the set goes with its last member.
  redis.call('DEL', KEYS[2])
end
if not current and ARGV[4] == '0' then
  -- No fence to carry on: the holder gets one when it first asks (fence.lua), under the same clock minimum.
  hold(KEYS[1], 0, ARGV[1], ARGV[2])
  return 0
end
local issued = next_fence(tonumber(fence) or 0)
hold(KEYS[1], issued, ARGV[1], ARGV[2])
return issued
