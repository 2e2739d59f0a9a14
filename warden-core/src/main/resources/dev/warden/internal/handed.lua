-- After a local handover in the default mode (the waiter took the lock over with the holder's token): removes the
-- waiter's registration, and reports whether the key still holds the token, which settles the old holder's release.
-- KEYS[1] lock key, KEYS[2] the queue, KEYS[3] its registrations (see acquire-queued.lua).
-- ARGV[1] the holder's token, ARGV[2] the waiter's token.
-- Returns 1 if the key holds the token, else 0 (Redis lost the lock, or another token has it).
if redis.call('ZREM', KEYS[2], ARGV[2]) == 1 then
  redis.call('HDEL', KEYS[3], ARGV[2])
end
local current = redis.call('GET', KEYS[1])
if current and string.match(current, '^%d*:(.+)$') == ARGV[1] then
  return 1
end
return 0
