-- Renew many leases in one round trip: PEXPIRE each key whose value still carries its token.
-- KEYS[i] lock keys; ARGV[2i-1] the token for KEYS[i], ARGV[2i] its lease ms.
-- Returns one integer per key: 1 renewed, 0 lost (expired, taken, or no longer a Warden lock).
local result = {}
for i, key in ipairs(KEYS) do
  local current = redis.pcall('GET', key)
  local token = ARGV[2 * i - 1]
  result[i] = 0
  if type(current) == 'string' and string.sub(current, -#token - 1) == ':' .. token then
    redis.call('PEXPIRE', key, ARGV[2 * i])
    result[i] = 1
  end
end
return result
