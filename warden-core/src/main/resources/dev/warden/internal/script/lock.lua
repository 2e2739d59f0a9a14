-- Prepended to every script (Script.load): what they share about the server's clock and a lock key's value.
-- A lock key (KEYS[1] of the lock's scripts) holds "<fence>:<token>" while held (PX lease), with an empty fence
-- until one is issued (fence.lua); "<fence>" while free (PX retention), kept as the fencing counter; or no value
-- when no fence was issued since the key was last missing.
-- Scripts replicate their effects, not their source: they read the server's clock, which a replica must not
-- read again (the default since Redis 5; this line keeps older configurations right).
if redis.replicate_commands then redis.replicate_commands() end

-- The server's time in us, read once per call: a script runs atomically, so one reading holds for all of it.
local clock_us
local function now_us()
  if not clock_us then
    local now = redis.call('TIME')
    clock_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
  end
  return clock_us
end

-- The server's time in ms. Like now_us it returns one value, so either may end an argument list.
local function now_ms()
  return math.floor(now_us() / 1000)
end

-- An integer's text, without an exponent. A number passed to redis.call is written by Redis with '%.17g', and a
-- number joined to a string by Lua with '%.14g': each costs Redis 7.0 about twice what '%d' does, which scripts
-- that write several numbers per call feel (docs/bench/changes-measured.md). A 32-bit build of Redis would cut '%d'
-- to 32 bits, so the first call checks, and such a build gets '%.0f'.
local integer_format
local function int_text(n)
  if not integer_format then
    integer_format = string.format('%d', 4294967296) == '4294967296' and '%d' or '%.0f'
  end
  return string.format(integer_format, n)
end

-- The server's time in ms as text (int_text), made once per call: where a command takes it, such as a score range.
local clock_ms_text
local function now_ms_text()
  if not clock_ms_text then clock_ms_text = int_text(now_ms()) end
  return clock_ms_text
end

-- The instant a lease of lease_ms (a number or its text) ends, as PEXPIREAT takes it: the server's time plus the
-- lease, as an integer's text.
local function lease_end(lease_ms)
  return int_text(now_ms() + tonumber(lease_ms))
end

-- A lock key's value, parsed: the fence ('' while a holder has none) and the holder's token while held; the fence
-- and no token while free; nothing for no value; false for a value that is not a Warden lock (see not_a_lock).
local function parse(value)
  if not value then return nil end
  local fence, owner = string.match(value, '^(%d*):(.+)$')
  if fence then return fence, owner end
  fence = string.match(value, '^(%d+)$')
  if fence then return fence, nil end
  return false
end

-- Whether a lock key's value (any Redis reply) says that `token` holds the lock: it ends with ':' and the token
-- (tokens never contain ':'). Where only the holder matters this costs less than parse, and it makes no string:
-- a renewal runs it once per lease, and a substring and a concatenation per lease cost Redis 7 about a tenth of a
-- renewal's CPU (docs/bench/changes-measured.md).
local function held_by(value, token)
  if type(value) ~= 'string' then return false end
  local at = #value - #token
  return at > 0 and string.byte(value, at) == 58 and string.find(value, token, at + 1, true) == at + 1
end

-- The origin of a token ("<client tag>.<thread id>" after its random part, see Tokens), or nil for a token without
-- one: what inspections answer to name a holder or waiter, instead of the token itself.
local function origin_of(token)
  return string.match(token, '%.(.+)$')
end

-- The error a script answers with where its key holds a value that is not a Warden lock.
local function not_a_lock(key)
  return redis.error_reply('WARDEN key ' .. key .. ' holds a value that is not a Warden lock')
end

-- The next fencing token after the fence `last` (a number, 0 for none): max(last + 1, server time in us), the clock
-- minimum, so that fences keep rising even after the key was lost. Fences exceed 2^53 only in the year 2255; until
-- then a double holds them exactly, and int_text writes them without an exponent.
local function next_fence(last)
  return math.max(last + 1, now_us())
end

local function fence_text(fence)
  return int_text(fence)
end

-- Holds the lock for `token` with the fence (a number, 0 for none yet) for `lease` ms (a number or its text).
local function hold(key, fence, token, lease)
  redis.call('SET', key, (fence > 0 and int_text(fence) or '') .. ':' .. token, 'PX', lease)
end

-- Frees a held lock whose fence is `fence` (text, '' for none): the key keeps the fence for `retention` ms, as the
-- fencing counter, or goes if no fence was issued.
local function free(key, fence, retention)
  if fence == '' then
    redis.call('DEL', key)
  else
    redis.call('SET', key, fence, 'PX', retention)
  end
end

-- Frees a held lock (see free) and wakes the clients that wait on it where waiters do not queue (replica
-- acknowledgements; their registrations are the sorted set `waiters`, see acquire.lua): a wake-up, `message` on
-- `channel` by the command `publish` (PUBLISH, or SPUBLISH in a Redis 7 cluster), is published only while one of
-- their registrations is live, and the ended ones are removed.
local function free_and_wake(key, fence, retention, waiters, publish, channel, message)
  local waiting = 0
  if redis.call('EXISTS', waiters) == 1 then
    redis.call('ZREMRANGEBYSCORE', waiters, '-inf', now_ms_text())
    waiting = redis.call('ZCARD', waiters)
  end
  free(key, fence, retention)
  if waiting > 0 then
    redis.call(publish, channel, message)
  end
end
