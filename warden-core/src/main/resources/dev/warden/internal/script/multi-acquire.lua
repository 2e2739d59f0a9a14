-- Acquire several locks of one hash slot (or one server) in one atomic step, all or none, for a multi-lock's first
-- try (MultiLock). A lock counts as free only if no live waiter is queued for it, so a multi-lock never passes a
-- queue. Preludes: lock.lua, queue.lua.
-- KEYS[3i-2], KEYS[3i-1], KEYS[3i]: lock key, queue and registrations of the i-th lock (see lock.lua, queue.lua).
-- ARGV[i] the token for the i-th lock; ARGV[#KEYS / 3 + 1] the lease ms; ARGV[#KEYS / 3 + 2] "1" to issue fences
-- even where a key is missing, "0" to leave them to the holders' first request (fence.lua).
-- Returns {1, fence...} with one fence per lock (0: none issued) when acquired, or {0, i} where the i-th lock is
-- held or has a live waiter, and then no lock was taken.
local n = #KEYS / 3
local lease, fenced = ARGV[n + 1], ARGV[n + 2]
local fences = {}
for i = 1, n do
  local current = redis.call('GET', KEYS[3 * i - 2])
  local fence, owner = parse(current)
  if fence == false then
    return not_a_lock(KEYS[3 * i - 2])
  end
  if owner then return {0, i} end
  -- Dead registrations at the queue's head are removed, as a lock's own try does.
  while true do
    local head = redis.call('ZRANGE', KEYS[3 * i - 1], '0', '0')[1]
    if not head then break end
    if live(redis.call('HGET', KEYS[3 * i], head)) then return {0, i} end
    redis.call('ZREM', KEYS[3 * i - 1], head)
    redis.call('HDEL', KEYS[3 * i], head)
  end
  if current or fenced == '1' then
    fences[i] = next_fence(tonumber(fence) or 0)
  else
    fences[i] = 0
  end
end
local reply = {1}
for i = 1, n do
  hold(KEYS[3 * i - 2], fences[i], ARGV[i], lease)
  reply[i + 1] = fences[i]
end
return reply
