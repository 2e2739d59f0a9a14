-- Writes a client's identity record (IdentityRecord): a hash of its name, host, process id and the names of the
-- threads that acquired through it, "t:<thread id in base 36>". No prelude.
-- KEYS[1] the record, ARGV[1] how long it lives without being written again (ms), ARGV[2..] field, value, ...
-- Returns whether the record existed before, so that a client whose record was lost writes its threads again.
local existed = redis.call('EXISTS', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return existed
