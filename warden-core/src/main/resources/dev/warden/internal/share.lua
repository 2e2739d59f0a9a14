-- Prepended, after lock.lua and queue.lua, to the scripts of shared locks: the semaphore and the read-write lock.
-- Such a lock lends permits out of a capacity: a semaphore's limit; the read-write lock's fixed capacity, of which a
-- reader takes one permit and a writer all. Its four keys share the name's hash tag:
-- KEYS[1] the state, a hash: "cap" the capacity, "used" the permits its holders have, "fence" the last fencing
--   token issued, and per holder its token -> "<permits>:<fence>";
-- KEYS[2] the holders, a sorted set of tokens scored by when their lease ends (server ms): a holder whose score
--   has passed holds nothing, and the next script that changes the lock removes it;
-- KEYS[3] the queue and KEYS[4] its registrations, as in queue.lua, with "<permits>:<client id>" as the client.
-- The state and holders live `retention` ms (a day) past their last change, for the fencing counter; the queue and
-- registrations as long as their newest registration.

-- The capacity stored with the lock, stored now if it has none; an error reply if it differs from `cap` (text).
local function capacity(state, cap)
  local stored = redis.call('HGET', state, 'cap')
  if not stored then
    redis.call('HSET', state, 'cap', cap)
    return tonumber(cap)
  end
  if stored ~= cap then
    return redis.error_reply('WARDEN ' .. state .. ' has ' .. stored .. ' permits, not ' .. cap)
  end
  return tonumber(stored)
end

-- A holder's permits and fence (numbers) from its entry in the state, or nothing.
local function parse_holder(entry)
  if not entry then return nil end
  local permits, fence = string.match(entry, '^(%d+):(%d+)$')
  return tonumber(permits), tonumber(fence)
end

-- Removes the holders whose lease ended by the server's clock; returns the permits still lent.
local function expire_holders(state, holders)
  local used = tonumber(redis.call('HGET', state, 'used')) or 0
  local ended = redis.call('ZRANGEBYSCORE', holders, '-inf', now_ms())
  if #ended > 0 then
    for _, token in ipairs(ended) do
      local permits = parse_holder(redis.call('HGET', state, token))
      if permits then
        used = used - permits
        redis.call('HDEL', state, token)
      end
    end
    redis.call('ZREMRANGEBYSCORE', holders, '-inf', now_ms())
    redis.call('HSET', state, 'used', used)
  end
  return used
end

-- Lends `permits` of the capacity `cap` to `token` for `lease` ms. A semaphore's permits and a writer (the whole
-- capacity) get the next fencing token; a reader gets the last one issued, which the next writer's exceeds.
local function lend(state, holders, token, permits, lease, cap, kind, retention)
  local fence = tonumber(redis.call('HGET', state, 'fence')) or 0
  if kind == 's' or permits >= cap then
    fence = next_fence(fence)
    redis.call('HSET', state, 'fence', fence_text(fence))
  end
  redis.call('HSET', state, token, permits .. ':' .. fence_text(fence))
  redis.call('HINCRBY', state, 'used', permits)
  redis.call('ZADD', holders, now_ms() + lease, token)
  redis.call('PEXPIRE', state, retention + lease)
  redis.call('PEXPIRE', holders, retention + lease)
  return fence
end

-- A registration's permits and client id, from queue.lua's client part.
local function split_client(client)
  local permits, id = string.match(client, '^(%d+):(.*)$')
  return tonumber(permits), id
end

-- Lends to the queue's oldest live waiters, in order, while their permits fit; each is told on its client's channel
-- ("<channel>:<client id>") as "<token>:<fence>:<arm>". A waiter that does not fit stops the grants, so that a
-- large request is not passed by smaller ones, nor a writer by readers. Returns the permits lent after.
local function grant_waiters(state, holders, queue, registrations, used, cap, kind, retention, channel, publish)
  while true do
    local head = redis.call('ZRANGE', queue, 0, 0)[1]
    if not head then break end
    local until_ms, grant, arm, client = parse_registration(redis.call('HGET', registrations, head))
    if until_ms and until_ms > now_ms() then
      local permits, id = split_client(client)
      if used + permits > cap then break end
      redis.call('ZREM', queue, head)
      redis.call('HDEL', registrations, head)
      local fence = lend(state, holders, head, permits, tonumber(grant), cap, kind, retention)
      used = used + permits
      redis.call(publish, channel .. ':' .. id, head .. ':' .. fence_text(fence) .. ':' .. arm)
    else
      redis.call('ZREM', queue, head)
      redis.call('HDEL', registrations, head)
    end
  end
  return used
end

-- How long until the first holder's lease ends (ms), or -1 with no holder: when a waiter tries again unless a release
-- grants it first.
local function first_end(holders)
  local first = redis.call('ZRANGE', holders, 0, 0, 'WITHSCORES')[2]
  if not first then return -1 end
  return math.max(tonumber(first) - now_ms(), 0)
end
