-- Change a semaphore's number of permits (share.lua) while leases may be held: to ARGV[2] if it has ARGV[1], the
-- number the caller names, or none, or is not in use (the rule of settle_capacity). Holders keep their permits, also
-- above a lowered number: nothing more is lent, by a release or a local handover, until the permits in use are
-- below it. A raised number lends the new permits to the queue's oldest waiters at once.
-- Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations; ARGV[1] the number named, ARGV[2] the new
-- number, ARGV[3] the kind of lock ("s"), ARGV[4] fence retention ms, ARGV[5] grant channel, ARGV[6] the publish
-- command.
-- Returns {the number it had (0 if none was stored), the permits in use after}; or the error reply of
-- settle_capacity.
local state, holders, queue, registrations = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local retention = tonumber(ARGV[4])
local read = read_state(state, holders, {})
local before = tonumber(read.cap) or 0
local used = read.used
if read.expired then redis.call('HSET', state, 'used', int_text(used)) end
local cap = settle_capacity(state, queue, registrations, ARGV[1], read.cap, used, retention)
if type(cap) == 'table' then return cap end
local new = tonumber(ARGV[2])
redis.call('HSET', state, 'cap', ARGV[2])
if new > cap then
  used = grant_waiters(state, holders, queue, registrations, used, new, ARGV[3], read.fence, retention, read.kept,
    ARGV[5], ARGV[6])
end
return {before, used}
