-- Release a lock if, and only if, the token still owns it.
-- KEYS[1] lock key, KEYS[2] waiters; ARGV[1] owner token, ARGV[2] fence retention ms,
-- ARGV[3] wake-up channel, ARGV[4] wake-up message.
-- The key keeps the last fence (the fencing counter) for ARGV[2] ms. A wake-up is published only when a waiter's
-- registration is still live.
-- Returns 1 if released, 0 if the token no longer owned the lock (expired or taken).
if redis.replicate_commands then redis.replicate_commands() end
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local fence, owner = string.match(current, '^(%d+):(.+)$')
if owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], fence, 'PX', ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then
  local now = redis.call('TIME')
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
  if redis.call('ZCARD', KEYS[2]) > 0 then
    redis.call('PUBLISH', ARGV[3], ARGV[4])
  end
end
return 1
