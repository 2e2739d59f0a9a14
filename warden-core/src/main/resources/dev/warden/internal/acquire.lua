-- Acquire a lock in one atomic step.
-- KEYS[1] lock key: "<fence>:<token>" while held (PX lease), "<fence>" while free (PX retention).
-- KEYS[2] waiters: a sorted set of waiting tokens scored by when their registration expires (server ms).
-- ARGV[1] owner token, ARGV[2] lease ms, ARGV[3] "1" if the caller waits (registers when held),
-- ARGV[4] fence retention ms, ARGV[5] how much longer than the holder's TTL a registration lasts.
-- Returns {1, fence} when acquired, {0, holder's PTTL} when held by another token.
if redis.replicate_commands then redis.replicate_commands() end
local current = redis.call('GET', KEYS[1])
local last = 0
if current then
  local fence = string.match(current, '^(%d+):')
  if fence then
    local ttl = redis.call('PTTL', KEYS[1])
    if ARGV[3] == '1' then
      local now = redis.call('TIME')
      local life = math.max(ttl, 0) + tonumber(ARGV[5])
      redis.call('ZADD', KEYS[2], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + life, ARGV[1])
      if redis.call('PTTL', KEYS[2]) < life then
        redis.call('PEXPIRE', KEYS[2], life)
      end
    end
    return {0, ttl}
  end
  fence = string.match(current, '^(%d+)$')
  if not fence then
    return redis.error_reply('WARDEN key ' .. KEYS[1] .. ' holds a value that is not a Warden lock')
  end
  last = tonumber(fence)
end
-- A waiter that gets the lock stops waiting; the set goes with its last member.
if ARGV[3] == '1' and redis.call('ZREM', KEYS[2], ARGV[1]) == 1 and redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[2])
end
-- Fencing tokens: max(last + 1, server time in microseconds), so they keep rising even after the key was lost.
local now = redis.call('TIME')
local fence = math.max(last + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]))
redis.call('SET', KEYS[1], string.format('%.0f', fence) .. ':' .. ARGV[1], 'PX', ARGV[2])
return {1, fence}
