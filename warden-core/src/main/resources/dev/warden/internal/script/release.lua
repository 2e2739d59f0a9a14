-- Release a lock if, and only if, the token still owns it, where waiters do not queue (see acquire.lua;
-- release-queued.lua otherwise). Prelude: lock.lua.
-- KEYS[1] lock key, KEYS[2] waiters (see acquire.lua); ARGV[1] owner token, ARGV[2] fence retention ms,
-- ARGV[3] wake-up channel, ARGV[4] wake-up message (the releasing client's id), ARGV[5] the publish command:
-- PUBLISH, or SPUBLISH for sharded pub/sub in a Redis 7 cluster.
-- Returns 0 if the token no longer owned the lock (expired or taken), 1 if released (see free_and_wake in
-- lock.lua: a wake-up is published only while a waiter's registration is live).
local fence, owner = parse(redis.call('GET', KEYS[1]))
if owner ~= ARGV[1] then return 0 end
free_and_wake(KEYS[1], fence, ARGV[2], KEYS[2], ARGV[5], ARGV[3], ARGV[4])
return 1
