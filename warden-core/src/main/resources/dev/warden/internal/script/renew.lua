-- Renew many leases in one round trip: extend each key whose value still carries its token. Prelude: lock.lua.
-- KEYS[i] lock keys. ARGV[1] the lease ms of every key, then ARGV[i + 1] the token for KEYS[i]; or, where the leases
-- differ, ARGV[1] "" and then ARGV[2i] the token and ARGV[2i + 1] the lease ms for KEYS[i]. One lease for the batch
-- spares Redis a string per key: the usual batch renews leases of one length.
-- Returns one integer per key: 1 renewed, 0 lost (expired, taken, or no longer a Warden lock).
-- Each lease ends at the server's time plus its ms, given as that instant (PEXPIREAT): a relative PEXPIRE would
-- have Redis compute the instant and make a string of it per key, for its replicas and its append-only file.
local result = {}
local ms = ARGV[1]
local stride = ms == '' and 2 or 1
local batch_end = stride == 1 and lease_end(ms)
for i, key in ipairs(KEYS) do
  local at = stride * (i - 1) + 2
  -- pcall: a key that became another type (not a string) is a lost lease, not an error for every key of the batch.
  result[i] = 0
  if held_by(redis.pcall('GET', key), ARGV[at]) then
    redis.call('PEXPIREAT', key, batch_end or lease_end(ARGV[at + 1]))
    result[i] = 1
  end
end
return result
