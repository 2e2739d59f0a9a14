-- After a local handover of a share (ShareLease): waiters of the holder's client, the queue's next in line, took the
-- share over without a request. Moves it from the holder's token to theirs, each with the same end, its own permits
-- (together no more than the holder's: the rest goes on to the queue) and, for a semaphore's permits or a writer,
-- the next fence (a reader gets the last one); and takes them out of the queue. A waiter that a release granted a
-- share meanwhile keeps that one, until the later of the two ends. Preludes: lock.lua, queue.lua, share.lua.
-- KEYS[1] state, KEYS[2] holders, KEYS[3] queue, KEYS[4] registrations; ARGV[1] the holder's token, ARGV[2] the
-- kind of lock, ARGV[3] fence retention ms, ARGV[4] grant channel, ARGV[5] the publish command, ARGV[6] the
-- client's id, then per waiter its token and permits.
-- Returns the waiters' fences, in their order, -2 for a waiter that did not take its share over because the permits
-- in use are above a semaphore's lowered number (share-resize.lua); or -1 if the holder's token held nothing (ended,
-- or forced out): then every lease is lost, and what a release granted the waiters meanwhile is given back.
local state, holders, queue, registrations, old = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
-- The waiters' tokens; the state, the holder's entry and the waiters' are read at once.
local tokens = {}
for i = 7, #ARGV, 2 do
  tokens[#tokens + 1] = ARGV[i]
end
local read = read_state(state, holders, {old, unpack(tokens)})
local used, freed = read.used, read.expired
local held = parse_holder(read.entries[1])
local cap = tonumber(read.cap)
-- The waiters leave the queue, all at once: every one is of this client.
local left = redis.call('ZREM', queue, unpack(tokens))
if left > 0 then
  redis.call('HDEL', registrations, unpack(tokens))
  if redis.call('HINCRBY', registrations, '#' .. ARGV[6], int_text(-left)) <= 0 then
    redis.call('HDEL', registrations, '#' .. ARGV[6])
  end
end
-- The holder's lease end: a number, and the text ZSCORE answered, which the takers' entries are written with.
local ends, ends_text, last
if held then
  ends_text = redis.call('ZSCORE', holders, old)
  ends = tonumber(ends_text)
  redis.call('HDEL', state, old)
  used = used - held
  last = read.fence
end
local fences, entries, members = {}, {}, {}
local issued = false
for i = 7, #ARGV, 2 do
  local new, permits = ARGV[i], tonumber(ARGV[i + 1])
  local granted, fence = parse_holder(read.entries[(i - 5) / 2 + 1])
  if granted and held then
    if ends > tonumber(redis.call('ZSCORE', holders, new)) then
      redis.call('ZADD', holders, ends_text, new)
    end
    freed = true
  elseif granted then
    redis.call('HDEL', state, new)
    redis.call('ZREM', holders, new)
    used = used - granted
    freed = true
  elseif held and used + permits > cap then
    -- The semaphore's number of permits was lowered below those in use: no more is lent, here either.
    fence = -2
    freed = true
  elseif held then
    local fresh
    last, fresh = holder_fence(ARGV[2], permits, cap, last)
    issued = issued or fresh
    fence = last
    entries[#entries + 1] = new
    entries[#entries + 1] = ARGV[i + 1] .. ':' .. fence_text(fence)
    members[#members + 1] = ends_text
    members[#members + 1] = new
    used = used + permits
    held = held - permits
    freed = freed or held > 0
  end
  fences[#fences + 1] = fence
end
if #entries > 0 then
  if issued then
    entries[#entries + 1] = 'fence'
    entries[#entries + 1] = fence_text(last)
  end
  redis.call('HSET', state, unpack(entries))
  redis.call('ZADD', holders, unpack(members))
end
-- The holder leaves the holders after its takers joined them: had it been the only one, the key would have gone
-- with it and come back without an expiry. The takers' ends are the holder's, which the keys outlive already.
if held then redis.call('ZREM', holders, old) end
if freed and cap then
  used = grant_waiters(state, holders, queue, registrations, used, cap, ARGV[2], last or read.fence, tonumber(ARGV[3]),
    read.kept, ARGV[4], ARGV[5])
elseif held or freed then
  redis.call('HSET', state, 'used', int_text(used))
end
if not held then return -1 end
return fences
