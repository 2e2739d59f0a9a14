-- Release a lock whoever holds it, keeping its fencing counter, and wake any waiter. Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] waiters (see acquire.lua) or the queue (see queue.lua), KEYS[3] with the queue, its
-- registrations; ARGV[1] fence retention ms, ARGV[2] channel, ARGV[3] message, ARGV[4] the publish command:
-- PUBLISH or SPUBLISH.
-- Queued waiters listen on their client's own channel ("<channel>:<client id>"): each client with a registration
-- is woken there.
-- Returns the removed holder's fence (issued now if it had none, as fence.lua would have: the fencing counter then
-- stays for the retention), or 0 if the lock was free.
local fence, owner = parse(redis.call('GET', KEYS[1]))
if fence == false then
  return not_a_lock(KEYS[1])
end
if not owner then return 0 end
if fence == '' then
  fence = fence_text(next_fence(0))
end
free(KEYS[1], fence, ARGV[1])
if KEYS[3] then
  local woken = {}
  for _, entry in ipairs(redis.call('HVALS', KEYS[3])) do
    local _, _, _, client = parse_registration(entry)
    if client and not woken[client] then
      woken[client] = true
      redis.call(ARGV[4], ARGV[2] .. ':' .. client, ARGV[3])
    end
  end
elseif redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call(ARGV[4], ARGV[2], ARGV[3])
end
return tonumber(fence)
