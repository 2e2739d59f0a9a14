-- Renew many leases in one round trip: PEXPIRE each key whose value still carries its token. Prelude: lock.lua.
-- KEYS[i] lock keys; ARGV[2i-1] the token for KEYS[i], ARGV[2i] its lease ms.
-- Returns one integer per key: 1 renewed, 0 lost (expired, taken, or no longer a Warden lock).
local result = {}
for i, key in ipairs(KEYS) do
  -- pcall: a key that became another type (not a string) is a lost lease, not an error for every key of the batch.
  result[i] = 0
  if held_by(redis.pcall('GET', key), ARGV[2 * i - 1]) then
    redis.call('PEXPIRE', key, ARGV[2 * i])
    result[i] = 1
  end
end
return result
