-- Read a shared lock's state (share.lua) without changing it. Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[4] registrations.
-- Returns {capacity (0 if unknown), permits lent, last fence, holders, holders of the whole capacity, live waiters,
-- longest lease left ms (0 with no holder)}, counting only holders whose lease has not ended.
local state = redis.call('HGETALL', KEYS[1])
local fields = {}
for i = 1, #state, 2 do
  fields[state[i]] = state[i + 1]
end
local cap = tonumber(fields['cap']) or 0
local live_holders = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now_ms(), '+inf', 'WITHSCORES')
local used, count, whole, longest = 0, 0, 0, 0
for i = 1, #live_holders, 2 do
  local permits = parse_holder(fields[live_holders[i]])
  if permits then
    used = used + permits
    count = count + 1
    if cap > 0 and permits >= cap then whole = whole + 1 end
    longest = math.max(longest, tonumber(live_holders[i + 1]) - now_ms())
  end
end
local waiters = 0
local registrations = redis.call('HVALS', KEYS[4])
for _, entry in ipairs(registrations) do
  if live(entry) then waiters = waiters + 1 end
end
return {cap, used, tonumber(fields['fence']) or 0, count, whole, waiters, longest}
