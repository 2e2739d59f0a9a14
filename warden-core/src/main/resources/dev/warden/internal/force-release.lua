-- Release a lock whoever holds it, keeping its fencing counter, and wake any waiter.
-- KEYS[1] lock key, KEYS[2] waiters (see acquire.lua) or the queue (see acquire-queued.lua), KEYS[3] with the
-- queue, its registrations;
-- ARGV[1] fence retention ms, ARGV[2] channel, ARGV[3] message, ARGV[4] the publish command: PUBLISH or SPUBLISH.
-- Queued waiters listen on their client's own channel ("<channel>:<client id>"): each client with a registration
-- is woken there.
-- Returns the removed holder's fence, -1 if it had none (the key goes), or 0 if the lock was free.
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local fence = string.match(current, '^(%d*):')
if not fence then
  if string.match(current, '^(%d+)$') then return 0 end
  return redis.error_reply('WARDEN key ' .. KEYS[1] .. ' holds a value that is not a Warden lock')
end
if fence == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], fence, 'PX', ARGV[1])
end
if KEYS[3] then
  local woken = {}
  for _, entry in ipairs(redis.call('HVALS', KEYS[3])) do
    local client = string.match(entry, '^%d+:%d+:%d+:(.*)$')
    if client and not woken[client] then
      woken[client] = true
      redis.call(ARGV[4], ARGV[2] .. ':' .. client, ARGV[3])
    end
  end
elseif redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call(ARGV[4], ARGV[2], ARGV[3])
end
return tonumber(fence) or -1
