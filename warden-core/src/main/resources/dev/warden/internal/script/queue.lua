-- Prepended, after lock.lua, to the scripts of locks whose waiters queue: what they share about the queue.
-- The queue (KEYS[2] or KEYS[3] of those scripts) is a sorted set of waiting tokens scored by arrival (server us,
-- kept unique); the registrations, a hash of token -> "<live until ms>:<grant ms>:<arm>:<client id>": how long
-- the waiter may be alive, the lease a release grants it, the attempt (arm) it registered with, and the client
-- whose channel ("<lock key>:c:<client id>") hears of its grant. Both keys live as long as their longest
-- registration.
-- A registration is renewing or quiet. A renewing one lives `life` ms (3 s) and its waiter renews it with a try
-- every second. A quiet one is written by a try of a waiter whose client listens on its grant channel at that
-- moment: it lives until the holder's TTL has run out (or the waiter's wait ends, if sooner), plus `life` ms, and
-- its waiter sends nothing meanwhile; then it is written again by the waiter's try, or with its client's other
-- quiet waiters of the lock by refresh.lua. Beyond its last `life` ms a registration is live only while its client
-- listens on its grant channel (listens), which a client whose process died, or whose pub/sub connection closed,
-- does not; within them it is live until its end, as a renewing one is.

-- A registration's value, until_ms a number, the others text.
local function registration(until_ms, grant, arm, client)
  return int_text(until_ms) .. ':' .. grant .. ':' .. arm .. ':' .. client
end

-- A registration's parts: live until (a number), grant, arm and client (text); nothing for no registration.
local function parse_registration(entry)
  if not entry then return nil end
  local until_ms, grant, arm, client = string.match(entry, '^(%d+):(%d+):(%d+):(.*)$')
  return tonumber(until_ms), grant, arm, client
end

-- Whether a registration is live at the server's time by its end alone (see live_waiter).
local function live(entry)
  local ms = now_ms()
  return entry ~= nil and tonumber(string.match(entry, '^(%d+)')) > ms
end

-- Whether the client listens on its grant channel on this server ("<channel>:<client>"): whether a publication
-- there (by `publish`: PUBLISH, or SPUBLISH for sharded pub/sub) reaches a receiver. What it publishes is a wake-up,
-- `message`: a client id, which the client ignores if it is its own and which wakes its first waiter of the lock
-- otherwise (Notifier).
local function listens(channel, client, publish, message)
  return redis.call(publish, channel .. ':' .. client, message) > 0
end

-- Whether the client is subscribed to its grant channel on this server, as `listens` tells but without publishing:
-- PUBSUB NUMSUB counts the subscribers (SHARDNUMSUB, where `publish` is SPUBLISH), and delivers nothing. What a
-- waiter asks of its own client, which has no use for a wake-up.
local function subscribed(channel, client, publish)
  local counts = redis.call('PUBSUB', publish == 'SPUBLISH' and 'SHARDNUMSUB' or 'NUMSUB', channel .. ':' .. client)
  return counts[2] > 0
end

-- Whether a registration is live at the server's time: until its end, and beyond its last `life` ms (a quiet one)
-- only while its client listens on its grant channel, which is then woken by `caller`'s id unless it is the
-- caller's own client (see listens).
local function live_waiter(entry, life, channel, publish, caller)
  local until_ms, _, _, client = parse_registration(entry)
  if not until_ms then return false end
  local left = until_ms - now_ms()
  return left > 0 and (left <= life or client == caller or listens(channel, client, publish, caller))
end

-- Makes `key` live at least `ms` (a number) more: a registration never shortens the life of a longer one.
local function outlive(key, ms)
  if redis.call('PTTL', key) < ms then
    redis.call('PEXPIRE', key, int_text(ms))
  end
end

-- Joins `token` to the queue at its tail, once (a waiter that is queued already keeps its place), and proves it
-- alive for another `life` ms.
local function register(queue, registrations, token, life, grant, arm, client)
  local ms, us = now_ms(), now_us()
  local tail = redis.call('ZRANGE', queue, '-1', '-1', 'WITHSCORES')
  redis.call('ZADD', queue, 'NX', int_text(math.max(us, tail[2] and tonumber(tail[2]) + 1 or 0)), token)
  redis.call('HSET', registrations, token, registration(ms + life, grant, arm, client))
  outlive(queue, life)
  outlive(registrations, life)
end

-- Registers waiters of one client that were held back for its lease at the queue's tail, in their order, behind
-- everyone already waiting. first: the index in ARGV of the first waiter's token, each waiter being a token, an
-- arm and a grant in ms; client: the waiters' client id.
local function board(queue, registrations, life, first, client)
  local ms, us = now_ms(), now_us()
  local tail = redis.call('ZRANGE', queue, '-1', '-1', 'WITHSCORES')
  local score = math.max(us, tail[2] and tonumber(tail[2]) + 1 or 0)
  for i = first, #ARGV, 3 do
    if redis.call('ZADD', queue, 'NX', int_text(score), ARGV[i]) == 1 then
      score = score + 1
    end
    redis.call('HSET', registrations, ARGV[i], registration(ms + life, ARGV[i + 2], ARGV[i + 1], client))
  end
  outlive(queue, life)
  outlive(registrations, life)
end

-- Removes `token` from the queue and its registration, if it is queued.
local function leave(queue, registrations, token)
  if redis.call('ZREM', queue, token) == 1 then
    redis.call('HDEL', registrations, token)
  end
end

-- Reads the queue in arrival order, a chunk at a time, for its live tokens (the set `live_tokens`, `count` of them):
-- returns the arrival (server us) of the first, or -1 with none, and the origins (origin_of) of the first `shown`.
-- Dead heads are few (every acquire and release pops them), so this reads a chunk or two.
local function first_live(queue, live_tokens, count, shown)
  local arrival, origins = -1, {}
  local from, found = 0, 0
  while found < count and (arrival < 0 or #origins < shown) do
    local chunk = redis.call('ZRANGE', queue, from, from + 15, 'WITHSCORES')
    if #chunk == 0 then break end
    for i = 1, #chunk, 2 do
      if live_tokens[chunk[i]] then
        if arrival < 0 then arrival = tonumber(chunk[i + 1]) end
        found = found + 1
        local named = origin_of(chunk[i])
        if named and #origins < shown then origins[#origins + 1] = named end
      end
    end
    from = from + 16
  end
  return arrival, origins
end
