-- Prepended to release-queued.lua and consume-fair.lua: registers waiters of one client that were held back for its
-- lease at the queue's tail, in their order, behind everyone already waiting.
-- queue, registrations: the queue's keys (see acquire-queued.lua); now: a TIME reply; life: how long a registration
-- lives (ms); first: the index in ARGV of the first waiter's token, each waiter being a token, an arm and a grant
-- in ms; client: the waiters' client id.
local function board(queue, registrations, now, life, first, client)
  local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local tail = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')
  local score = math.max(tonumber(now[1]) * 1000000 + tonumber(now[2]), tail[2] and tonumber(tail[2]) + 1 or 0)
  for i = first, #ARGV, 3 do
    if redis.call('ZADD', queue, 'NX', score, ARGV[i]) == 1 then
      score = score + 1
    end
    redis.call('HSET', registrations, ARGV[i], (ms + life) .. ':' .. ARGV[i + 2] .. ':' .. ARGV[i + 1] .. ':' .. client)
  end
  redis.call('PEXPIRE', queue, life)
  redis.call('PEXPIRE', registrations, life)
end
