-- Release a lock where waiters queue (fair mode, and the default mode without replica acknowledgements) if, and
-- only if, the token still owns it, granting it to the oldest live waiter. Preludes: lock.lua, queue.lua.
-- KEYS[1] lock key, KEYS[2] waiters of locks that do not queue (see acquire.lua), KEYS[3] queue, KEYS[4]
-- registrations (see queue.lua); ARGV[1] owner token, ARGV[2] fence retention ms, ARGV[3] wake-up channel,
-- ARGV[4] wake-up message (the releasing client's id), ARGV[5] the publish command: PUBLISH, or SPUBLISH for
-- sharded pub/sub in a Redis 7 cluster.
-- A token that does not own the lock leaves the queue (a waiter that gave up); one that does passes the lock to the
-- oldest live registration, announced as "<token>:<fence>:<arm>" on that waiter's client's own channel
-- ("<channel>:<client id>", so that no other client even receives it) unless it is the releasing client.
-- A registration in its last ARGV[6] ms (how long a renewing registration lives) is granted as long as it has not
-- ended; beyond them (a quiet registration, see queue.lua) only if the grant's publication reaches a receiver:
-- one nobody receives is taken back, the waiter is skipped, and the next one granted. A grant to a waiter of another
-- client also tells the next waiter, if quiet, how long the new holder's lease lasts until it is renewed.
-- Waiters of the releasing client that came while it held the lock may register here, as their first try would:
-- per waiter its token, arm and grant ms, from ARGV[7].
-- Returns 0 if the token no longer owned the lock (expired or taken), 1 if released (see free in lock.lua), 3 if
-- granted to a waiter of another client: plain integers, since a list costs Redis several times as much to
-- return. If granted to a waiter of the releasing client, {3, fence or 0, token, arm}: the registered waiter with
-- that token, as of its registration by attempt number arm, and a fifth element that lists the first (up to 8)
-- tokens of the queue after it.
local fence, owner = parse(redis.call('GET', KEYS[1]))
if owner ~= ARGV[1] then
  leave(KEYS[3], KEYS[4], ARGV[1])
  return 0
end
-- Nobody waits, the uncontended case: one call tells, for the queue and the waiters of locks that do not queue.
if not ARGV[7] and redis.call('EXISTS', KEYS[3], KEYS[2]) == 0 then
  free(KEYS[1], fence, ARGV[2])
  return 1
end
-- The holder's token is never queued (a grant pops it, a try that finds the lock free removes it), so only a token
-- that does not hold the lock needs to leave the queue: on an idle server that saves about a tenth of this script.
if ARGV[7] then
  -- Held-back waiters join the queue's tail in their order, behind everyone already waiting.
  board(KEYS[3], KEYS[4], tonumber(ARGV[6]), 7, ARGV[4])
end
-- Pop the queue's oldest waiters until a live one takes the lock (each redis.call counts: this runs between a
-- release and the next holder, so it pops rather than reads and removes).
local popped = false
while true do
  local head = redis.call('ZPOPMIN', KEYS[3])[1]
  if not head then break end
  popped = true
  local entry = redis.call('HGET', KEYS[4], head)
  redis.call('HDEL', KEYS[4], head)
  local until_ms, grant, arm, client = parse_registration(entry)
  if until_ms and until_ms > now_ms() then
    -- A holder without a fence (the default mode issues one only when asked) grants without one: the new holder
    -- gets its own when it asks (fence.lua), and a lock nobody asked a fence of leaves no key behind.
    local issued = 0
    if fence ~= '' then
      issued = next_fence(tonumber(fence))
    end
    hold(KEYS[1], issued, head, grant)
    if client ~= ARGV[4] then
      -- Where the receivers cannot be counted (plain PUBLISH in a cluster, Sentinel), no waiter registers quietly.
      if redis.call(ARGV[5], ARGV[3] .. ':' .. client, head .. ':' .. fence_text(issued) .. ':' .. arm) > 0
          or until_ms - now_ms() <= tonumber(ARGV[6]) then
        -- The next waiter, if quiet, sleeps until the TTL of the holder it saw: tell it that the new holder has a
        -- grant's lease until it renews, "+<token>:<grant ms>", so that it checks then if the new holder never
        -- takes the lock up (its client died unnoticed, a half-open connection) and lets it run out.
        local next = redis.call('ZRANGE', KEYS[3], '0', '0')[1]
        if next then
          local next_until, _, _, next_client = parse_registration(redis.call('HGET', KEYS[4], next))
          if next_until and next_until - now_ms() > tonumber(ARGV[6]) then
            redis.call(ARGV[5], ARGV[3] .. ':' .. next_client, '+' .. next .. ':' .. grant)
          end
        end
        return 3
      end
      -- A quiet registration whose client no longer listens (its process died, or its pub/sub connection
      -- closed): skipped, as an expired one is; the next waiter's grant overwrites the key, or the loop frees it.
    else
      -- A waiter of the releasing client: the reply also names the next waiters in the queue, so that while they
      -- are of this client too, each holder can pass the lock on without a request (consume-fair.lua).
      return {3, issued, head, tonumber(arm), redis.call('ZRANGE', KEYS[3], '0', '7')}
    end
  end
end
if popped or ARGV[7] then
  redis.call('DEL', KEYS[4])
end
-- Clients of locks that do not queue (replica acknowledgements) may wait on the same name: wake them as release.lua
-- does.
free_and_wake(KEYS[1], fence, ARGV[2], KEYS[2], ARGV[5], ARGV[3], ARGV[4])
return 1
