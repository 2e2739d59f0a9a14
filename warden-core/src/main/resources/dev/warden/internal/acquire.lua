-- Acquire a lock in one atomic step where waiters do not queue: with replica acknowledgements, and on a quorum's
-- servers (acquire-queued.lua otherwise).
-- KEYS[1] lock key: "<fence>:<token>" while held (PX lease), with an empty fence until one is issued (fence.lua);
-- "<fence>" while free (PX retention), or no key when no fence was issued since the key was last missing.
-- KEYS[2] waiters: a sorted set of waiting tokens scored by when their registration expires (server ms).
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] the kind of try: "0" one try (never registers), "1" a waiter's
-- first try (registers when held), "2" a waiter's later try (may be registered already, so it also leaves the
-- waiters when it acquires); ARGV[4] "1" to issue a fence even where the key is missing (quorum and replica
-- locks), "0" to leave it to the holder's first request for one.
-- Returns the new fence (> 0) when acquired with one, 0 when acquired without, or -1 - the holder's PTTL (< 0)
-- when held by another token. A plain integer, which both sides handle faster than a list.
if redis.replicate_commands then redis.replicate_commands() end
local current = redis.call('GET', KEYS[1])
local last = 0
if current then
  local fence = string.match(current, '^(%d+)$')
  if not fence then
    if not string.find(current, '^%d*:') then
      return redis.error_reply('WARDEN key ' .. KEYS[1] .. ' holds a value that is not a Warden lock')
    end
    local ttl = redis.call('PTTL', KEYS[1])
    if ARGV[3] ~= '0' then
      -- A waiter's registration lasts 2 s longer than the holder's TTL, unless the waiter tries again.
      local now = redis.call('TIME')
      local life = math.max(ttl, 0) + 2000
      redis.call('ZADD', KEYS[2], now[1] * 1000 + math.floor(now[2] / 1000) + life, ARGV[1])
      if redis.call('PTTL', KEYS[2]) < life then
        redis.call('PEXPIRE', KEYS[2], life)
      end
    end
    return -1 - ttl
  end
  last = tonumber(fence)
end
if ARGV[3] == '2' and redis.call('ZREM', KEYS[2], ARGV[1]) == 1 and redis.call('ZCARD', KEYS[2]) == 0 then
  -- A waiter that gets the lock stops waiting; the set goes with its last member.
  redis.call('DEL', KEYS[2])
end
if not current and ARGV[4] == '0' then
  -- No fence to carry on: the holder gets one when it first asks (fence.lua), at the same server-time floor.
  redis.call('SET', KEYS[1], ':' .. ARGV[1], 'PX', ARGV[2])
  return 0
end
-- Fencing tokens: max(last + 1, server time in microseconds), so they keep rising even after the key was lost.
local now = redis.call('TIME')
local fence = math.max(last + 1, now[1] * 1000000 + now[2])
redis.call('SET', KEYS[1], string.format('%.0f', fence) .. ':' .. ARGV[1], 'PX', ARGV[2])
return fence
