-- Whether a share (a read or write lease, or permits) still holds its lock, changing nothing (Lease.confirm).
-- Prelude: lock.lua.
-- KEYS[1] the shared lock's holders (see share.lua); ARGV[1] the share's token.
-- Returns 1 if the token holds a share whose lease has not ended by the server's clock, else 0.
-- pcall: a key of another type is a share this token does not hold, not an error.
local score = redis.pcall('ZSCORE', KEYS[1], ARGV[1])
if type(score) == 'string' and tonumber(score) > now_ms() then return 1 end
return 0
