-- Prepended, after lock.lua and queue.lua, to the scripts of shared locks: the semaphore and the read-write lock.
-- Such a lock lends permits out of a capacity: a semaphore's limit; the read-write lock's fixed capacity, of which a
-- reader takes one permit and a writer all. Its four keys share the name's hash tag:
-- KEYS[1] the state, a hash: "cap" the capacity, "used" the permits its holders have, "fence" the last fencing
--   token issued, "kept" until when (server ms) the state and the holders live (retain), "queue_kept" until when the
--   queue and the registrations live (keep_queue), and per holder its token -> "<permits>:<fence>";
-- KEYS[2] the holders, a sorted set of tokens scored by when their lease ends (server ms): a holder whose score
--   has passed holds nothing, and the next script that changes the lock removes it;
-- KEYS[3] the queue and KEYS[4] its registrations, as in queue.lua, with "<permits>:<client id>" as the client;
--   the registrations also count each client's queued waiters, "#<client id>" -> count ('#' begins no token), so
--   that a waiter learns when it joins whether a waiter of another client is ahead of it (enqueue).
-- The state and holders live at least `retention` ms (a day) past the last lease's end, for the fencing counter, and
-- at most an eighth of that longer (retain); the queue and registrations as long as their newest registration, and
-- at most a registration's life longer (keep_queue).

-- A holder's permits and fence (numbers) from its entry in the state, or nothing.
local function parse_holder(entry)
  if not entry then return nil end
  local permits, fence = string.match(entry, '^(%d+):(%d+)$')
  return tonumber(permits), tonumber(fence)
end

-- Removes the holders whose lease ended by the server's clock; returns the permits they had, which the caller takes
-- off "used" and writes back, and whether any holder was removed.
local function expire_holders(state, holders)
  local ended = redis.call('ZRANGEBYSCORE', holders, '-inf', now_ms_text())
  if #ended == 0 then return 0, false end
  local removed = 0
  for _, token in ipairs(ended) do
    local permits = parse_holder(redis.call('HGET', state, token))
    if permits then
      removed = removed + permits
      redis.call('HDEL', state, token)
    end
  end
  redis.call('ZREMRANGEBYSCORE', holders, '-inf', now_ms_text())
  return removed, true
end

-- The state after expire_holders, read in one HMGET: `used` the permits still lent (a number), `cap` the stored
-- capacity (text, or false for none), `fence` the last fence issued (a number, 0 for none), `kept` and
-- `queue_kept` until when the keys live (numbers, 0 for unknown; see retain and keep_queue), `expired` whether a
-- holder was removed (the caller writes "used" back then), and `entries` the entries of `tokens` in their order (each
-- text, or false for a token that holds nothing).
local function read_state(state, holders, tokens)
  local removed, expired = expire_holders(state, holders)
  local got = redis.call('HMGET', state, 'used', 'cap', 'fence', 'kept', 'queue_kept', unpack(tokens))
  local entries = {}
  for i = 1, #tokens do entries[i] = got[i + 5] end
  return {used = (tonumber(got[1]) or 0) - removed, cap = got[2], fence = tonumber(got[3]) or 0,
          kept = tonumber(got[4]) or 0, queue_kept = tonumber(got[5]) or 0, expired = expired, entries = entries}
end

-- The fence of a new holder of `permits` of the capacity `cap`, after the fence `last` (a number), and whether it is
-- a new one: a semaphore's permits and a writer (the whole capacity) get the next fencing token; a reader gets the
-- last one issued, which the next writer's exceeds.
local function holder_fence(kind, permits, cap, last)
  if kind == 's' or permits >= cap then
    return next_fence(last), true
  end
  return last, false
end

-- Lends `permits` (a number; `permits_text` its text) of the capacity `cap` to `token` until `ends` (server ms),
-- after the fence `last` (a number). Returns the holder's fence (holder_fence), which is the last one issued after
-- it. The caller writes "used", and makes the keys outlive the lease (retain).
local function lend(state, holders, token, permits, permits_text, ends, cap, kind, last)
  local fence, issued = holder_fence(kind, permits, cap, last)
  local text = fence_text(fence)
  if issued then
    redis.call('HSET', state, 'fence', text, token, permits_text .. ':' .. text)
  else
    redis.call('HSET', state, token, permits_text .. ':' .. text)
  end
  redis.call('ZADD', holders, int_text(ends), token)
  return fence
end

-- Keeps the state and the holders at least `retention` ms past a lease that ends at `ends` (server ms). `kept` is
-- until when they live already (read_state's): while that covers the lease, nothing is written but the holders'
-- expiry, and that only if `write_holders`: where the grant created that key (it had no holder before, so it was
-- gone), or where the caller must write (share-renew.lua). Else both keys live an eighth of `retention` longer than
-- needed, and "kept" says until when: the grants of the next hours write nothing. Returns "kept" as it is now. Every
-- change to the keys' expiry goes through here.
local function retain(state, holders, ends, retention, kept, write_holders)
  local now = now_ms()
  if ends + retention <= kept then
    if write_holders then redis.call('PEXPIRE', holders, int_text(kept - now)) end
    return kept
  end
  kept = math.max(ends, now) + retention + math.floor(retention / 8)
  local ttl = int_text(kept - now)
  redis.call('PEXPIRE', state, ttl)
  redis.call('PEXPIRE', holders, ttl)
  redis.call('HSET', state, 'kept', int_text(kept))
  return kept
end

-- A registration's permits (a number, and its text) and client id, from queue.lua's client part.
local function split_client(client)
  local permits, id = string.match(client, '^(%d+):(.*)$')
  return tonumber(permits), id, permits
end

-- Keeps the queue and its registrations past `until_ms` (server ms), the end of a registration just written. `kept`
-- is until when they live already (read_state's queue_kept): while that covers it, nothing is written, but for their
-- expiry when the queue was empty before (`created`: both keys went with their last waiter). Else both live `life`
-- ms (a number) longer than needed, and the state's "queue_kept" says until when: the tries of the next `life` ms
-- write no expiry. Every change to these keys' expiry goes through here.
local function keep_queue(state, queue, registrations, until_ms, life, kept, created)
  if until_ms > kept then
    kept = until_ms + life
    redis.call('HSET', state, 'queue_kept', int_text(kept))
    created = true
  end
  if created then
    local ttl = int_text(kept - now_ms())
    redis.call('PEXPIRE', queue, ttl)
    redis.call('PEXPIRE', registrations, ttl)
  end
end

-- Joins `token` to the queue at its tail, counted for its client `id`, unless it is queued already (it keeps its
-- place), and proves it alive for `life` ms; `kept` is read_state's queue_kept. When it joined now, returns its score
-- and how many waiters of other clients were queued then, all of them ahead of it; nothing when it kept its place.
-- Every argument but `kept` is text, as the caller got it.
local function enqueue(state, queue, registrations, kept, token, life, grant, arm, permits, id)
  local ms, us = now_ms(), now_us()
  local tail = redis.call('ZRANGE', queue, '-1', '-1', 'WITHSCORES')
  local score = math.max(us, tail[2] and tonumber(tail[2]) + 1 or 0)
  local added = redis.call('ZADD', queue, 'NX', int_text(score), token) == 1
  local life_ms = tonumber(life)
  redis.call('HSET', registrations, token, registration(ms + life_ms, grant, arm, permits .. ':' .. id))
  keep_queue(state, queue, registrations, ms + life_ms, life_ms, kept, not tail[1])
  if not added then return nil end
  local own = redis.call('HINCRBY', registrations, '#' .. id, '1')
  return score, redis.call('ZCARD', queue) - own
end

-- The client id of a registration, `entry` as HGET read it (or nothing): what its count is kept under.
local function counted_as(entry)
  return entry and string.match(entry, '^%d+:%d+:%d+:%d+:(.*)$')
end

-- Removes a waiter's registration, `entry` as HGET read it (or nothing), and no longer counts it for its client.
-- The caller removes it from the queue.
local function unregister(registrations, token, entry)
  redis.call('HDEL', registrations, token)
  local id = counted_as(entry)
  if id and redis.call('HINCRBY', registrations, '#' .. id, '-1') <= 0 then
    redis.call('HDEL', registrations, '#' .. id)
  end
end

-- Removes `token` from the queue and its registration, if it is queued.
local function dequeue(queue, registrations, token)
  if redis.call('ZREM', queue, token) == 1 then
    unregister(registrations, token, redis.call('HGET', registrations, token))
  end
end

-- Whether a live waiter is queued; drops the dead ones at the queue's head on the way.
local function waiter_queued(queue, registrations)
  while true do
    local head = redis.call('ZRANGE', queue, '0', '0')[1]
    if not head then return false end
    local entry = redis.call('HGET', registrations, head)
    if live(entry) then return true end
    redis.call('ZREM', queue, head)
    unregister(registrations, head, entry)
  end
end

-- The lock's capacity as the caller names it, `cap` (text), with `used` permits lent and `stored` the capacity stored
-- (read_state's). It is stored if none is, and replaces a stored one that differs while the lock is not in use (no
-- live holder, no live waiter): nothing depends on the old number then. A new state lives `retention` ms. While in
-- use, a stored capacity that differs is an error reply "WARDEN-PERMITS <stored> <cap>".
local function settle_capacity(state, queue, registrations, cap, stored, used, retention)
  if stored ~= cap then
    if stored and (used > 0 or waiter_queued(queue, registrations)) then
      return redis.error_reply('WARDEN-PERMITS ' .. stored .. ' ' .. cap)
    end
    redis.call('HSET', state, 'cap', cap)
    if redis.call('PTTL', state) < 0 then redis.call('PEXPIRE', state, retention) end
  end
  return tonumber(cap)
end

-- Lends to the queue's oldest live waiters, in order, while their permits fit in `used` of `cap`, after the fence
-- `last` (a number); each is told "<token>:<fence>:<arm>" on its client's channel ("<channel>:<client id>"), but
-- a waiter of the client `mine` (nil: none) is listed instead, for the caller's reply.
-- A waiter that does not fit stops the grants, so that a large request is not passed by smaller ones, nor a writer
-- by readers. Writes "used" with the grants, and returns it and the grants listed. The keys outlive the grants'
-- leases by `retention` ms (retain, with `kept` as read_state's or as retain returned it).
-- The queue is read four waiters at a time (ZRANGE, HMGET), and what they change is written once per four: every
-- command a script calls costs Redis more than the work it does, and a release that grants often grants several.
local function grant_waiters(state, holders, queue, registrations, used, cap, kind, last, retention, kept, channel,
                             publish, mine)
  local now, latest, issued, created = now_ms(), 0, false, used == 0
  local listed, fields, left = {}, {}, {}
  -- The texts of the last fence and of the last lease end, made once each: readers granted together share both.
  local last_text, ends_at, ends_text
  local more = used < cap
  while more do
    local heads = redis.call('ZRANGE', queue, '0', '3')
    if #heads == 0 then break end
    local entries = redis.call('HMGET', registrations, unpack(heads))
    local removed, members = {}, {}
    more = #heads == 4
    for i, head in ipairs(heads) do
      local entry = entries[i]
      local until_ms, grant, arm, client = parse_registration(entry)
      if until_ms and until_ms > now then
        local permits, id, permits_text = split_client(client)
        if used + permits > cap then
          more = false
          break
        end
        local fresh
        last, fresh = holder_fence(kind, permits, cap, last)
        issued = issued or fresh
        if fresh or not last_text then last_text = fence_text(last) end
        local ends, fence = now + tonumber(grant), last_text
        if ends ~= ends_at then ends_at, ends_text = ends, int_text(ends) end
        fields[#fields + 1] = head
        fields[#fields + 1] = permits_text .. ':' .. fence
        members[#members + 1] = ends_text
        members[#members + 1] = head
        latest = math.max(latest, ends)
        used = used + permits
        left[id] = (left[id] or 0) + 1
        removed[#removed + 1] = head
        local message = head .. ':' .. fence .. ':' .. arm
        if id == mine then
          listed[#listed + 1] = message
        else
          redis.call(publish, channel .. ':' .. id, message)
        end
        if used >= cap then
          more = false
          break
        end
      else
        removed[#removed + 1] = head
        local id = counted_as(entry)
        if id then left[id] = (left[id] or 0) + 1 end
      end
    end
    if #removed > 0 then
      redis.call('ZREM', queue, unpack(removed))
      redis.call('HDEL', registrations, unpack(removed))
    end
    if #members > 0 then
      redis.call('ZADD', holders, unpack(members))
    end
    if more and #fields > 0 then
      redis.call('HSET', state, unpack(fields))
      fields = {}
    end
  end
  for id, count in pairs(left) do
    if redis.call('HINCRBY', registrations, '#' .. id, int_text(-count)) <= 0 then
      redis.call('HDEL', registrations, '#' .. id)
    end
  end
  fields[#fields + 1] = 'used'
  fields[#fields + 1] = int_text(used)
  if issued then
    fields[#fields + 1] = 'fence'
    fields[#fields + 1] = last_text
  end
  redis.call('HSET', state, unpack(fields))
  if latest > 0 then retain(state, holders, latest, retention, kept, created) end
  return used, listed
end

-- How long until the first holder's lease ends (ms), or -1 with no holder: when a waiter tries again unless a release
-- grants it first.
local function first_end(holders)
  local first = redis.call('ZRANGE', holders, '0', '0', 'WITHSCORES')[2]
  if not first then return -1 end
  return math.max(tonumber(first) - now_ms(), 0)
end
