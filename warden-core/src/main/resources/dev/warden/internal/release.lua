-- Release a lock if, and only if, the token still owns it; hand it to a waiter of this client where that is known
-- (fair mode has release-fair.lua).
-- KEYS[1] lock key, KEYS[2] waiters (see acquire.lua); ARGV[1] owner token, ARGV[2] fence retention ms,
-- ARGV[3] wake-up channel, ARGV[4] wake-up message (the releasing client's id), ARGV[5] the publish command:
-- PUBLISH, or SPUBLISH for sharded pub/sub in a Redis 7 cluster.
-- To hand over, also ARGV[6] the local waiter's token, ARGV[7] its lease ms, ARGV[8] how many waiters that client
-- has: the lock goes to that waiter unless other clients wait too.
-- Returns 0 if the token no longer owned the lock (expired or taken), 1 if released (the key keeps the last fence,
-- as the fencing counter, or goes if no fence was issued; a wake-up is published only while a waiter's registration
-- is live), -fence if handed to the local waiter with that new fence, or 2 if handed to it without a fence (none
-- was issued to this holder either: the new one gets its own when it asks).
if redis.replicate_commands then redis.replicate_commands() end
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local fence, owner = string.match(current, '^(%d*):(.+)$')
if owner ~= ARGV[1] then return 0 end
local now
local waiting = 0
if redis.call('EXISTS', KEYS[2]) == 1 then
  now = redis.call('TIME')
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now[1] * 1000 + math.floor(now[2] / 1000))
  waiting = redis.call('ZCARD', KEYS[2])
end
if ARGV[6] and waiting <= tonumber(ARGV[8]) then
  -- A holder without a fence hands over without one.
  local next = ''
  if fence ~= '' then
    now = now or redis.call('TIME')
    next = string.format('%.0f', math.max(tonumber(fence) + 1, now[1] * 1000000 + now[2]))
  end
  redis.call('SET', KEYS[1], next .. ':' .. ARGV[6], 'PX', ARGV[7])
  if redis.call('ZREM', KEYS[2], ARGV[6]) == 1 and redis.call('ZCARD', KEYS[2]) == 0 then
    redis.call('DEL', KEYS[2])
  end
  if next == '' then return 2 end
  return -tonumber(next)
end
if fence == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], fence, 'PX', ARGV[2])
end
if waiting > 0 then
  redis.call(ARGV[5], ARGV[3], ARGV[4])
end
return 1
