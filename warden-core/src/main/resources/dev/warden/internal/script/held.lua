-- Whether a lease still holds its lock, changing nothing (Lease.confirm). Prelude: lock.lua.
-- KEYS[1] lock key; ARGV[1] owner token.
-- Returns 1 if the key carries the token, else 0 (expired, taken, or no longer a Warden lock).
-- pcall: a key of another type is a lock this token does not hold, not an error.
if held_by(redis.pcall('GET', KEYS[1]), ARGV[1]) then return 1 end
return 0
