-- Renews the quiet registrations of several waiters of one client for one lock in one step, when the holder TTL
-- they were told has run out and the lock is still held: what each waiter's own try would do then (register it
-- quietly again until the holder's TTL runs out, or its wait ends, plus `life`), for one request per client instead
-- of one per waiter. Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] queue, KEYS[3] registrations (see queue.lua). ARGV[1] the lock's channel, ARGV[2] the
-- publish command, ARGV[3] the client's id, ARGV[4] how long a registration lives (life ms); then four per waiter:
-- its token, the ms left of its wait (-1 for no limit), the lease ms a release grants it, its attempt (arm) number.
-- Returns {the holder's PTTL, then per waiter 1 when renewed, 0 when it is not registered (or holds the lock)}; or
-- {-1} when the lock is not held by another, or the client is not subscribed to its grant channel: then each waiter
-- tries on its own, as it would have.
local fence, owner = parse(redis.call('GET', KEYS[1]))
if not fence or not owner then
  return {-1}
end
if not subscribed(ARGV[1], ARGV[3], ARGV[2]) then
  return {-1}
end
local ttl = redis.call('PTTL', KEYS[1])
local life = tonumber(ARGV[4])
local ms = now_ms()
local longest = 0
local result = {ttl}
for i = 5, #ARGV, 4 do
  local token = ARGV[i]
  if token ~= owner and redis.call('ZSCORE', KEYS[2], token) then
    local wait = tonumber(ARGV[i + 1])
    local lives = life + ((wait >= 0 and wait < ttl) and wait or ttl)
    redis.call('HSET', KEYS[3], token, registration(ms + lives, ARGV[i + 2], ARGV[i + 3], ARGV[3]))
    longest = math.max(longest, lives)
    result[#result + 1] = 1
  else
    result[#result + 1] = 0
  end
end
if longest > 0 then
  outlive(KEYS[2], longest)
  outlive(KEYS[3], longest)
end
return result
