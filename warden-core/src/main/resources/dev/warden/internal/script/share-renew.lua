-- Renew many shares in one round trip: each holder whose lease has not ended gets a new end, which the keys outlive
-- (retain). Preludes: lock.lua, share.lua.
-- KEYS[2i-1] a shared lock's state, KEYS[2i] its holders (see share.lua); ARGV[2i-1] the token, ARGV[2i] its lease
-- ms; ARGV[#ARGV] the fence retention ms.
-- Returns one integer per share: 1 renewed, 0 lost (ended, or forced out).
local result = {}
local retention = tonumber(ARGV[#ARGV])
for i = 1, #KEYS, 2 do
  local n = (i + 1) / 2
  -- pcall: a key of another type is a lost share, not an error for every share of the batch.
  local score = redis.pcall('ZSCORE', KEYS[i + 1], ARGV[2 * n - 1])
  result[n] = 0
  if type(score) == 'string' and tonumber(score) > now_ms() then
    -- Until when the keys live (share.lua's "kept"); a state of another type makes a lost share too.
    local kept = redis.pcall('HGET', KEYS[i], 'kept')
    if type(kept) ~= 'table' then
      local ends = now_ms() + tonumber(ARGV[2 * n])
      redis.call('ZADD', KEYS[i + 1], 'XX', int_text(ends), ARGV[2 * n - 1])
      -- The holders' expiry is written even while "kept" covers the new end: the ZADD changes nothing when the end
      -- is the same ms as before, and a renewal followed by WAIT (ShareScripts.expire) must write, so that the
      -- acknowledgements count every earlier write to the share, a grant by another client's release among them.
      retain(KEYS[i], KEYS[i + 1], ends, retention, tonumber(kept) or 0, true)
      result[n] = 1
    end
  end
end
return result
