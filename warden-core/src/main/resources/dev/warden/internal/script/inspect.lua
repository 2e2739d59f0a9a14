-- Read a lock's state atomically, for inspect and for listing locks. Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] waiters of locks that do not queue (see acquire.lua), KEYS[3] the queue's
-- registrations, KEYS[4] the queue (see queue.lua): both kinds of waiters are counted, whichever the caller uses.
-- Returns {held 0/1, remaining ms of the holder's lease or 0, last fence or 0 (also while the holder has none yet),
-- live waiter registrations, the holder's token or '', the server's time in us, the arrival (server us) of the
-- longest-waiting live queued waiter or -1, the origins of the first ARGV[1] live waiters}. Fences are issued as the
-- server's time in us (next_fence), so the caller can tell how long ago the holder's fence was issued; waiters that
-- do not queue have no arrival. Waiters' tokens are not answered, only their origins: a waiter's token becomes its
-- lease's when it is granted.
local ms = now_ms()
local waiting = redis.call('ZCOUNT', KEYS[2], ms, '+inf')
local live_tokens = {}
local queued = 0
local entries = redis.call('HGETALL', KEYS[3])
for i = 1, #entries, 2 do
  if live(entries[i + 1]) then
    live_tokens[entries[i]] = true
    queued = queued + 1
  end
end
-- The origins ("<client tag>.<thread id>", see Tokens) of the first live waiters, longest first: the queued ones in
-- queue order, then those that do not queue, by when their registrations end.
local shown = tonumber(ARGV[1])
local arrival, origins = first_live(KEYS[4], live_tokens, queued, shown)
if waiting > 0 and #origins < shown then
  for _, token in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], ms, '+inf', 'LIMIT', '0', shown - #origins)) do
    local named = origin_of(token)
    if named then origins[#origins + 1] = named end
  end
end
local fence, owner = parse(redis.call('GET', KEYS[1]))
if fence == false then
  return not_a_lock(KEYS[1])
end
if owner then
  return {1, math.max(redis.call('PTTL', KEYS[1]), 0), tonumber(fence) or 0, waiting + queued, owner, now_us(),
    arrival, origins}
end
return {0, 0, tonumber(fence) or 0, waiting + queued, '', now_us(), arrival, origins}
