-- Acquire a lock in one atomic step where waiters queue (fair mode, and the default mode without replica
-- acknowledgements): a waiter joins the lock's queue, and a free lock goes to the queue's oldest live waiter.
-- KEYS[1] lock key (see acquire.lua).
-- KEYS[2] queue: a sorted set of waiting tokens by arrival; KEYS[3] registrations: a hash of
-- token -> "<live until ms>:<grant ms>:<arm>:<client>".
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] the kind of try: "0" one try (never registers), "1" a waiter's
-- first try (registers when held), "2" a waiter's later try (may be registered already, so it also leaves the
-- queue when it acquires); ARGV[4] the caller's arm (attempt) number, ARGV[5] the lease ms a release grants it,
-- ARGV[6] how long a registration lives, ARGV[7] the caller's client id, ARGV[8] "1" to issue a fence even where
-- the key is missing (fair mode), "0" to leave it to the holder's first request for one (fence.lua).
-- Returns {1, fence, lease ms} when acquired, also when a release granted it to this token already (with the lease
-- left); when not, a plain integer (a list costs Redis several times as much to return): -1 - the holder's PTTL
-- when held by another token, 0 when free but earlier waiters come first.
if redis.replicate_commands then redis.replicate_commands() end

-- Server time in ms and in us, read once per call: the script runs atomically.
local now_ms, now_us
local function clock()
  if not now_ms then
    local now = redis.call('TIME')
    now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
  end
  return now_ms, now_us
end

-- Join the queue at its tail (once), and prove this waiter alive for another registration life.
local function register()
  local ms, us = clock()
  -- NX keeps the place of a waiter that is queued already.
  local tail = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  redis.call('ZADD', KEYS[2], 'NX', math.max(us, tail[2] and tonumber(tail[2]) + 1 or 0), ARGV[1])
  local life = tonumber(ARGV[6])
  redis.call('HSET', KEYS[3], ARGV[1], (ms + life) .. ':' .. ARGV[5] .. ':' .. ARGV[4] .. ':' .. ARGV[7])
  redis.call('PEXPIRE', KEYS[2], life)
  redis.call('PEXPIRE', KEYS[3], life)
end

local current = redis.call('GET', KEYS[1])
local last = 0
if current then
  local fence, owner = string.match(current, '^(%d*):(.+)$')
  if fence then
    local ttl = redis.call('PTTL', KEYS[1])
    if owner == ARGV[1] then
      return {1, tonumber(fence) or 0, ttl}
    end
    if ARGV[3] ~= '0' then
      register()
    end
    return -1 - ttl
  end
  fence = string.match(current, '^(%d+)$')
  if not fence then
    return redis.error_reply('WARDEN key ' .. KEYS[1] .. ' holds a value that is not a Warden lock')
  end
  last = tonumber(fence)
end
-- The lock is free, which with waiters queued means its holder expired: the oldest live registration takes it next.
local ms = clock()
while true do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not head or head == ARGV[1] then break end
  local entry = redis.call('HGET', KEYS[3], head)
  if entry and tonumber(string.match(entry, '^(%d+)')) > ms then
    if ARGV[3] ~= '0' then register() end
    return 0
  end
  redis.call('ZREM', KEYS[2], head)
  redis.call('HDEL', KEYS[3], head)
end
if ARGV[3] == '2' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
end
if not current and ARGV[8] == '0' then
  redis.call('SET', KEYS[1], ':' .. ARGV[1], 'PX', ARGV[2])
  return {1, 0, tonumber(ARGV[2])}
end
-- Fencing tokens: max(last + 1, server time in microseconds), so they keep rising even after the key was lost.
local _, us = clock()
local fence = math.max(last + 1, us)
redis.call('SET', KEYS[1], string.format('%.0f', fence) .. ':' .. ARGV[1], 'PX', ARGV[2])
return {1, fence, tonumber(ARGV[2])}
