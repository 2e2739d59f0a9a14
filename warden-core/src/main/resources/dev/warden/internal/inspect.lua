-- Read a lock's state atomically. Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] waiters (see acquire.lua); where waiters queue KEYS[3], the registrations of the queue
-- (see queue.lua).
-- Returns {held 0/1, remaining ms of the holder's lease or 0, last fence or 0 (also while the holder has none
-- yet), live waiter registrations}.
local ms = now_ms()
local waiting = redis.call('ZCOUNT', KEYS[2], ms, '+inf')
if KEYS[3] then
  for _, entry in ipairs(redis.call('HVALS', KEYS[3])) do
    if live(entry) then waiting = waiting + 1 end
  end
end
local fence, owner = parse(redis.call('GET', KEYS[1]))
if fence == false then
  return not_a_lock(KEYS[1])
end
if owner then
  return {1, math.max(redis.call('PTTL', KEYS[1]), 0), tonumber(fence) or 0, waiting}
end
return {0, 0, tonumber(fence) or 0, waiting}
