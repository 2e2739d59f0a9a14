-- Read a lock's state atomically.
-- KEYS[1] lock key, KEYS[2] waiters; where waiters queue KEYS[3], the registrations of the queue (see
-- acquire-queued.lua).
-- Returns {held 0/1, remaining ms of the holder's lease or 0, last fence or 0 (also while the holder has none
-- yet), live waiter registrations}.
if redis.replicate_commands then redis.replicate_commands() end
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local waiting = redis.call('ZCOUNT', KEYS[2], ms, '+inf')
if KEYS[3] then
  for _, entry in ipairs(redis.call('HVALS', KEYS[3])) do
    if tonumber(string.match(entry, '^(%d+)')) > ms then waiting = waiting + 1 end
  end
end
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0, 0, waiting} end
local fence = string.match(current, '^(%d*):')
if fence then
  return {1, math.max(redis.call('PTTL', KEYS[1]), 0), tonumber(fence) or 0, waiting}
end
fence = string.match(current, '^(%d+)$')
if not fence then
  return redis.error_reply('WARDEN key ' .. KEYS[1] .. ' holds a value that is not a Warden lock')
end
return {0, 0, tonumber(fence), waiting}
