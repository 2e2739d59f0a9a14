-- Read a shared lock's state (share.lua) without changing it. Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations. ARGV[1] how many holders and waiters to name.
-- Returns {capacity (0 if unknown), permits lent, last fence, holders, holders of the whole capacity, live waiters,
-- longest lease left ms (0 with no holder), the server's time in us, the arrival (server us) of the longest-waiting
-- live waiter or -1, the origins of up to ARGV[1] holders of the whole capacity, the origins of up to ARGV[1] other
-- holders by lease end (soonest first), the origins of the first ARGV[1] live waiters in queue order}, counting
-- only holders whose lease has not ended. Tokens are not answered, only their origins (see lock.lua's origin_of).
local shown = tonumber(ARGV[1])
local state = redis.call('HGETALL', KEYS[1])
local fields = {}
for i = 1, #state, 2 do
  fields[state[i]] = state[i + 1]
end
local cap = tonumber(fields['cap']) or 0
local live_holders = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now_ms_text(), '+inf', 'WITHSCORES')
local used, count, whole, longest = 0, 0, 0, 0
local whole_origins, part_origins = {}, {}
for i = 1, #live_holders, 2 do
  local permits = parse_holder(fields[live_holders[i]])
  if permits then
    used = used + permits
    count = count + 1
    local named = origin_of(live_holders[i])
    if cap > 0 and permits >= cap then
      whole = whole + 1
      if named and #whole_origins < shown then whole_origins[#whole_origins + 1] = named end
    elseif named and #part_origins < shown then
      part_origins[#part_origins + 1] = named
    end
    longest = math.max(longest, tonumber(live_holders[i + 1]) - now_ms())
  end
end
-- Live registrations; the per-client counts ("#<client id>") are no waiters.
local waiters = 0
local live_tokens = {}
local registrations = redis.call('HGETALL', KEYS[4])
for i = 1, #registrations, 2 do
  if string.sub(registrations[i], 1, 1) ~= '#' and live(registrations[i + 1]) then
    live_tokens[registrations[i]] = true
    waiters = waiters + 1
  end
end
-- The queue is in arrival order: its first live token has waited longest.
local arrival, waiting = first_live(KEYS[3], live_tokens, waiters, shown)
return {cap, used, tonumber(fields['fence']) or 0, count, whole, waiters, longest, now_us(), arrival, whole_origins,
  part_origins, waiting}
