-- After a local handover in the default mode (the waiter took the lock over with the holder's token): removes the
-- waiter's registration, and reports whether the key still holds the token, which settles the old holder's release.
-- Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] the queue, KEYS[3] its registrations (see queue.lua).
-- ARGV[1] the holder's token, ARGV[2] the waiter's token.
-- Returns 1 if the key holds the token, else 0 (Redis lost the lock, or another token has it).
leave(KEYS[2], KEYS[3], ARGV[2])
if held_by(redis.call('GET', KEYS[1]), ARGV[1]) then
  return 1
end
return 0
