-- The protected resource: accept a write only if its fencing token is not lower than the highest accepted so far.
-- KEYS[1] highest accepted token, KEYS[2] log of accepted writes; ARGV[1] token, ARGV[2] writer's operation id.
-- Returns 1 if accepted, 0 if rejected as stale.
local highest = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) < highest then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2])
return 1
