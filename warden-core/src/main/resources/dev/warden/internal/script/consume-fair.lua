-- Fair mode: a waiter of the holding client took the lock over without a request, keeping the holder's token
-- (the waiter headed the queue). Removes its registration, registers behind the queue the waiters of that client
-- held back for the holder, and lists the queue's first waiters, so that the new holder knows whether it may pass
-- the lock on the same way. Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] queue, KEYS[3] registrations (see queue.lua); ARGV[1] the holder's token (the key's),
-- ARGV[2] the token of the waiter that took over, ARGV[3] the client's id, ARGV[4] how long a registration lives,
-- then per waiter to register its token, arm and grant ms.
-- Returns {1, the first (up to 8) tokens of the queue} if the key still holds the token, else {0, {}}; the
-- registration goes and the waiters are registered either way.
leave(KEYS[2], KEYS[3], ARGV[2])
if ARGV[5] then
  board(KEYS[2], KEYS[3], tonumber(ARGV[4]), 5, ARGV[3])
end
if not held_by(redis.call('GET', KEYS[1]), ARGV[1]) then
  return {0, {}}
end
return {1, redis.call('ZRANGE', KEYS[2], '0', '7')}
