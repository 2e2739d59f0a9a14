------------------------------- MODULE Warden -------------------------------
(***************************************************************************)
(* Warden's lock protocol on one Redis, for one lock name: the Lua scripts *)
(* of warden-core (each one atomic step) and what the client does around   *)
(* them (RedisLease, Acquisition, LeaseBase, Watchdog, Notifier).          *)
(* See docs/model.md for what is modelled, what is abstracted, and how.    *)
(*                                                                         *)
(* Time is discrete. Every timer is kept as "ticks left" (the key's PX,    *)
(* a registration's life, a lease's local deadline), so the state space    *)
(* stays finite without a bound on time. The server clock that no fence    *)
(* is below (`now`, TIME in us) only has to rise between two scripts       *)
(* that read it, so it rises by one at each script that issues a fence.    *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    NThreads,          \* threads (acquirers); thread t is of client ClientOf(t)
    SameClientThreads, \* threads 1..SameClientThreads share client 1; each other thread is a client of its own
    MaxAcq,            \* acquisitions per thread
    Lease,             \* the lease renewals set, in ticks
    Grant,             \* the short first lease a release grants (min(lease, 5 s))
    RegLife,           \* how long a queue registration lives (3 s)
    Drift,             \* the margin taken off every local deadline (LeaseBase.drift)
    MaxLag,            \* how many ticks a client clock may fall behind the server's (at most Drift)
    Fair,              \* fair mode (TRUE) or the default mode (FALSE)
    MaxRestarts,       \* Redis restarts that lose all data
    MaxCrashes,        \* client processes that die
    MaxLocalHandovers, \* RedisLease.MAX_LOCAL_HANDOVERS
    GiveUps,           \* whether a waiter may give up
    Writes,            \* whether holders ask for fences and write to the fenced resource
    HoldBack,          \* the default mode: whether a waiter holds back for a hold of its own client
    Mutation           \* "none", "noTokenCheck", "noHalfLease", "noClockMinimum", "noDrift", "noPrune", "noListenCheck",
                       \* "lateReply", "noWakeOnLoss"

ASSUME Mutation \in {"none", "noTokenCheck", "noHalfLease", "noClockMinimum", "noDrift", "noPrune", "noListenCheck",
                     "lateReply", "noWakeOnLoss"}
ASSUME Grant <= Lease /\ Drift < Grant /\ MaxLag <= Drift

Threads == 1..NThreads
ClientOf(t) == IF t <= SameClientThreads THEN 1 ELSE t - SameClientThreads + 1
Clients == {ClientOf(t) : t \in Threads}
Tokens == Threads \X (1..MaxAcq)       \* an acquisition's token: its thread and its number
NoTok == <<0, 0>>
Max(a, b) == IF a >= b THEN a ELSE b
Dec(x) == IF x > 0 THEN x - 1 ELSE 0
Margin == IF Mutation = "noDrift" THEN 0 ELSE Drift   \* LeaseBase.drift
Half == Grant \div 2                                 \* RedisLease.halfLeft: half the lease a grant sets

VARIABLES
    kstate,   \* the lock key: "none" (missing), "free" ("<fence>", the counter) or "held" ("<fence>:<token>")
    kfence,   \* the key's fence, 0 for none ('' in ":<token>")
    kowner,   \* the holder's token while held
    kttl,     \* the key's PX left while held (a free key keeps its counter for 24 h: never expires here)
    kep,      \* ghost: the number of the hold the key's holder began (see epochs)
    queue,    \* the queue <key>:q, tokens by arrival
    reg,      \* the registrations <key>:r: token -> ticks of life left (0: none, or no longer live)
    quiet,    \* token -> whether its registration is quiet: live while its client listens, then RegLife more
    now,      \* the server's clock as next_fence reads it
    msgs,     \* grants in flight to waiters: [tok, left, fence, up, here]
    pass,     \* tokens whose grant their client passes on (they no longer wait)
    alive,    \* client -> whether its process runs
    lag,      \* client -> ticks its clock has lagged the server's (at most Drift)
    th,       \* thread -> its state (see Idle)
    lastFence, lastEpoch, \* the fenced resource: highest fence accepted, and the hold that wrote it
    epochs,   \* holds so far: each hold (by Redis or local handover) is numbered in the order it began
    restarts, crashes,
    staleWrite,   \* history: the resource accepted a write of an older hold after one of a newer hold
    handoverLost, \* history: a local handover's check found the key lost although Redis kept its data
    outOfOrder    \* history: a hold began while a live registration was queued ahead of it

vars == <<kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, pass, alive, lag, th, lastFence, lastEpoch, epochs,
          restarts, crashes, staleWrite, handoverLost, outOfOrder>>

NoReply == [kind |-> "none", ok |-> FALSE, left |-> 0, fence |-> 0, ep |-> 0]
NoRenew == [on |-> FALSE, ok |-> FALSE, left |-> 0]
NoCheck == [on |-> FALSE, holder |-> NoTok, waiter |-> NoTok, succ |-> 0]
NoWrite == [on |-> FALSE, f |-> 0, e |-> 0]

(* A thread's state. pc: "idle" (between acquisitions), "trying" (a try's reply in flight), "waiting" (queued,   *)
(* no try in flight), "heldback" (the default mode: its first try held back for the hold of its own client     *)
(* with token hb, Notifier.defer), "holding" (a lease in state HELD; believed valid only while left > 0),        *)
(* "releasing" (a local handover's check in flight), "done". acq: acquisitions begun; the current one's token is <<t, acq>>.    *)
(* tok: the lease's token (a successor keeps its predecessor's). left: ticks to the local deadline. fence:      *)
(* the lease's fence (0: not issued yet); predFence: RedisLease.predecessorFence. up: fair mode's upcoming.     *)
(* hc: local handovers in a row. ep: the hold's number. age: ticks since the acquisition's last try was         *)
(* sent (its arm). rp: the try's reply in flight; rn: the renewal's; ck: a handover's check; pw: a write on     *)
(* its way.                                                                                                     *)
Idle(acq) == [pc |-> IF acq < MaxAcq THEN "idle" ELSE "done", acq |-> acq, tok |-> NoTok, left |-> 0,
              fence |-> 0, predFence |-> 0, up |-> <<>>, hc |-> 0, ep |-> 0, age |-> 0, hb |-> NoTok,
              rp |-> NoReply, rn |-> NoRenew, ck |-> NoCheck, pw |-> NoWrite]

Own(t) == <<t, th[t].acq>>

\* Holds are numbered only where the fenced resource needs it (a smaller state space elsewhere).
NextEpoch == IF Writes THEN epochs + 1 ELSE 0

(***************************************************************************)
(* Redis: its state as one record, and each script as a function of it.    *)
(***************************************************************************)
RS == [ks |-> kstate, kf |-> kfence, ko |-> kowner, kt |-> kttl, ep |-> kep, n |-> epochs, q |-> queue, reg |-> reg,
       qt |-> quiet, now |-> now, msgs |-> msgs]
SetRS(r) == /\ kstate' = r.ks /\ kfence' = r.kf /\ kowner' = r.ko /\ kttl' = r.kt /\ kep' = r.ep /\ epochs' = r.n
            /\ queue' = r.q /\ reg' = r.reg /\ quiet' = r.qt /\ now' = r.now /\ msgs' = r.msgs

InQ(q, tk) == \E i \in 1..Len(q) : q[i] = tk
Without(q, tk) == SelectSeq(q, LAMBDA x : x # tk)

\* lock.lua next_fence: max(last + 1, server time); the mutant drops the clock minimum.
NextFence(r, last) == IF Mutation = "noClockMinimum" THEN last + 1 ELSE Max(last + 1, r.now + 1)

\* lock.lua hold
Hold(r, tk, f, ttl, readClock) ==
    [r EXCEPT !.ks = "held", !.kf = f, !.ko = tk, !.kt = ttl, !.now = IF readClock THEN r.now + 1 ELSE r.now,
              !.ep = IF Writes THEN r.n + 1 ELSE 0, !.n = IF Writes THEN r.n + 1 ELSE 0]

\* lock.lua free: the key keeps its fence as the counter, or goes if none was issued
Free(r) == [r EXCEPT !.ks = IF r.kf = 0 THEN "none" ELSE "free", !.ko = NoTok, !.kt = 0]

\* queue.lua register: joins the tail once (a queued token keeps its place), and is live for RegLife; a quiet
\* registration (q: the try found its client listening) stays live while its client listens (see Tick).
Register(r, tk, q) == [r EXCEPT !.q = IF InQ(r.q, tk) THEN r.q ELSE Append(r.q, tk), !.reg[tk] = RegLife,
                                !.qt[tk] = q]

\* queue.lua leave
Leave(r, tk) == IF InQ(r.q, tk) THEN [r EXCEPT !.q = Without(r.q, tk), !.reg[tk] = 0] ELSE r

\* acquire-queued.lua's loop: drop dead heads until the head is the caller, a live one, or none. The mutant noPrune
\* takes every queued registration for live: a dead head (its client crashed) stays ahead of the live waiters.
RECURSIVE Prune(_, _, _)
Prune(q, rg, tk) ==
    IF q = <<>> \/ Head(q) = tk \/ rg[Head(q)] > 0 \/ Mutation = "noPrune" THEN [q |-> q, reg |-> rg]
    ELSE Prune(Tail(q), [rg EXCEPT ![Head(q)] = 0], tk)

\* release-queued.lua's loop: ZPOPMIN until a live registration; head = NoTok if none
RECURSIVE PopLive(_, _)
PopLive(q, rg) ==
    IF q = <<>> THEN [q |-> q, reg |-> rg, head |-> NoTok]
    ELSE IF rg[Head(q)] > 0 THEN [q |-> Tail(q), reg |-> [rg EXCEPT ![Head(q)] = 0], head |-> Head(q)]
    ELSE PopLive(Tail(q), [rg EXCEPT ![Head(q)] = 0])

\* The plain SET key ":<token>" NX PX lease of a default-mode first try.
SetNX(r, tk) ==
    IF r.ks = "none" THEN LET r1 == Hold(r, tk, 0, Lease, FALSE)
                          IN [rs |-> r1, ok |-> TRUE, left |-> Lease, fence |-> 0, ep |-> r1.ep]
    ELSE [rs |-> r, ok |-> FALSE, left |-> 0, fence |-> 0, ep |-> 0]

\* acquire-queued.lua, kind "first" (ARGV[3] = 1) or "again" (2); ARGV[8] = 1 in fair mode. A waiter's later
\* tries come after its client subscribed: one that finds the lock held registers it quietly.
AcquireQueued(r, tk, kind) ==
    IF r.ks = "held" THEN
        IF r.ko = tk THEN [rs |-> r, ok |-> TRUE, left |-> r.kt, fence |-> r.kf, ep |-> r.ep]
        ELSE [rs |-> Register(r, tk, kind = "again"), ok |-> FALSE, left |-> 0, fence |-> 0, ep |-> 0]
    ELSE LET p  == Prune(r.q, r.reg, tk)
             r1 == [r EXCEPT !.q = p.q, !.reg = p.reg]
         IN IF r1.q # <<>> /\ Head(r1.q) # tk
            THEN [rs |-> Register(r1, tk, FALSE), ok |-> FALSE, left |-> 0, fence |-> 0, ep |-> 0]
            ELSE LET r2    == IF kind = "again" THEN Leave(r1, tk) ELSE r1
                     issue == r.ks = "free" \/ Fair
                     f     == IF issue THEN NextFence(r2, r.kf) ELSE 0
                     r3    == Hold(r2, tk, f, Lease, issue)
                 IN [rs |-> r3, ok |-> TRUE, left |-> Lease, fence |-> f, ep |-> r3.ep]

\* release-queued.lua by token tk of client c: frees the lock, or grants it to the oldest live registration
\* (PX Grant, the next fence if the holder had one); m is the announcement of the grant to the waiter's client
\* (here: the releasing client, which learns it from the script's reply). res: 0 not held, 1 freed, 3 granted.
\* The mutant noTokenCheck releases whoever holds the lock.
NoMsg == [tok |-> NoTok, left |-> 0, fence |-> 0, up |-> <<>>, here |-> FALSE, ep |-> 0]
ReleaseQueued(r, tk, c) ==
    IF r.ks # "held" \/ (r.ko # tk /\ Mutation # "noTokenCheck") THEN [rs |-> Leave(r, tk), res |-> 0, m |-> NoMsg]
    ELSE LET p == PopLive(r.q, r.reg)
         IN IF p.head = NoTok THEN [rs |-> Free([r EXCEPT !.q = <<>>, !.reg = p.reg]), res |-> 1, m |-> NoMsg]
            ELSE LET h    == p.head
                     ht   == h[1]
                     f    == IF r.kf # 0 THEN NextFence(r, r.kf) ELSE 0
                     \* The waiter dates its lease from when the try its registration names was sent.
                     r1   == Hold([r EXCEPT !.q = p.q, !.reg = p.reg], h, f, Grant, r.kf # 0)
                     m    == [tok |-> h, left |-> Max(0, Grant - Margin - th[ht].age), fence |-> f,
                              up |-> IF ClientOf(ht) = c THEN p.q ELSE <<>>, here |-> ClientOf(ht) = c, ep |-> r1.ep]
                 IN [rs |-> r1, res |-> 3, m |-> m]

\* renew.lua
Renew(r, tk) == IF r.ks = "held" /\ r.ko = tk THEN [rs |-> [r EXCEPT !.kt = Lease], ok |-> TRUE]
                ELSE [rs |-> r, ok |-> FALSE]

\* fence.lua with the lease's predecessor's fence
FenceScript(r, tk, above) ==
    IF r.ks # "held" \/ r.ko # tk THEN [rs |-> r, ok |-> FALSE, f |-> 0]
    ELSE IF r.kf > above THEN [rs |-> r, ok |-> TRUE, f |-> r.kf]
    ELSE LET f == NextFence(r, Max(r.kf, above))
         IN [rs |-> [r EXCEPT !.kf = f, !.now = r.now + 1], ok |-> TRUE, f |-> f]

(***************************************************************************)
(* The client.                                                             *)
(***************************************************************************)
\* Requests of one client share one connection: nothing it sends after a handover's check reaches Redis first.
NoCheckOf(c) == \A u \in Threads : ClientOf(u) = c => ~th[u].ck.on
Up(t) == alive[ClientOf(t)]

\* A thread's state once it holds: by Redis (own token) or by a local handover (the predecessor's token).
Holding(s, tk, left, f, pf, up, hc, e) ==
    [s EXCEPT !.pc = "holding", !.tok = tk, !.left = left, !.fence = f, !.predFence = pf, !.up = up, !.hc = hc,
              !.ep = e, !.age = 0, !.rn = NoRenew, !.hb = NoTok]

\* The lease ends (released or lost); a write on its way stays on its way.
Ended(s) == [Idle(s.acq) EXCEPT !.pw = s.pw, !.rp = s.rp]

\* (A try that finds the lock granted to its own token already begins no hold: the grant did.)
\* Fair mode: a hold of token tk begins while a live registration is queued ahead of it (or, if tk is not queued,
\* anywhere).
Jumps(r, tk) == \E i \in 1..Len(r.q) : /\ r.q[i] # tk /\ r.reg[r.q[i]] > 0
                                       /\ \A j \in 1..i : r.q[j] # tk

\* What follows a release script run by client c, with the threads' states th1 after it: a grant to a waiter of
\* another client goes out on that client's channel (msgs); one to a waiter of c is in the reply, which c hands to
\* the waiter at once: its handling is attached before the script is sent and runs as the answer is read, and
\* replies on one connection come in order, so before the answer to any later try of that waiter
\* (RedisLock.releaseQueued, Link.dispatch). If that token no longer waits, c passes the lock on. The mutant
\* lateReply handles the reply in a later step of its own (DeliverGrant), as when the handling was attached after
\* sending and the answer came first.
After(a, th1) ==
    LET m == a.m
        w == m.tok[1]
    IN IF a.res # 3 THEN [rs |-> a.rs, th |-> th1, pass |-> pass]
       ELSE IF ~m.here \/ Mutation = "lateReply" THEN [rs |-> [a.rs EXCEPT !.msgs = @ \cup {m}], th |-> th1, pass |-> pass]
       ELSE IF th1[w].pc \in {"waiting", "trying"} /\ <<w, th1[w].acq>> = m.tok
       THEN [rs |-> a.rs, th |-> [th1 EXCEPT ![w] = Holding(th1[w], m.tok, m.left, m.fence, 0, m.up, 0, m.ep)],
             pass |-> pass]
       ELSE [rs |-> a.rs, th |-> th1, pass |-> pass \cup {m.tok}]

SetAfter(x) == SetRS(x.rs) /\ th' = x.th /\ pass' = x.pass

\* A release of the default mode registers the waiters of its client held back for its hold (RedisLock.releaseQueued,
\* queue.lua board), as their first tries would, dated from the release's sending.
RECURSIVE BoardAll(_, _)
BoardAll(r, riders) == IF riders = {} THEN r
                       ELSE LET u == CHOOSE u \in riders : TRUE
                            IN BoardAll(Register(r, <<u, th[u].acq>>, FALSE), riders \ {u})

\* The default mode's hold-back (Acquisition, Notifier.defer): a new waiter whose client holds the lock (with a
\* renewed lease, as every lease here) sends no try while that hold lasts. Its client may not have waited for the
\* lock lately (no channel, no hold-back), so Start may also try at once.
HoldersHere(t) == IF Fair \/ ~HoldBack THEN {}
                  ELSE {u \in Threads : u # t /\ ClientOf(u) = ClientOf(t) /\ th[u].pc = "holding"}

\* The waiters of t's client held back for its hold, which its release through Redis registers (none where the
\* run has no hold-back).
Riders(t) == IF ~HoldBack THEN {}
             ELSE {u \in Threads : ClientOf(u) = ClientOf(t) /\ th[u].pc = "heldback" /\ th[u].hb = th[t].tok}

\* The hold a held-back waiter waits for has ended: no lease of its client holds with that token any more (it was
\* lost; a release through Redis registers the waiter instead, a local handover keeps the token).
HoldEnded(t) == ~\E u \in Threads : ClientOf(u) = ClientOf(t) /\ th[u].pc = "holding" /\ th[u].tok = th[t].hb

\* An acquisition begins: the default mode's first try may be the plain SET NX; fair mode's is always a script.
Start(t) ==
    /\ th[t].pc = "idle" /\ th[t].rp.kind = "none" /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ LET tk == <<t, th[t].acq + 1>>
           s  == th[t]
       IN \/ /\ ~Fair
             /\ LET a == SetNX(RS, tk)
                IN /\ SetRS(a.rs)
                   /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "trying", !.acq = s.acq + 1, !.age = 0,
                               !.rp = [kind |-> "setnx", ok |-> a.ok, left |-> Max(0, a.left - Margin), fence |-> 0, ep |-> a.ep]]]
             /\ UNCHANGED outOfOrder
          \/ LET a == AcquireQueued(RS, tk, "first")
             IN /\ SetRS(a.rs)
                /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "trying", !.acq = s.acq + 1, !.age = 0,
                            !.rp = [kind |-> "try", ok |-> a.ok, left |-> Max(0, a.left - Margin), fence |-> a.fence, ep |-> a.ep]]]
                /\ outOfOrder' = (outOfOrder \/ (a.ok /\ kowner # tk /\ Jumps(RS, tk)))
          \/ \E u \in HoldersHere(t) :
                /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "heldback", !.acq = s.acq + 1, !.age = 0, !.hb = th[u].tok]]
                /\ UNCHANGED <<kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, epochs, outOfOrder>>
    /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost>>

\* A held-back waiter tries on its own: its hold-back's bound ran out (any time: a timer), or the end of the hold
\* woke it (Notifier.ended, from RedisLease.afterLoss; see Fairness). Its channel exists: a script try, not SET NX.
Unhold(t) ==
    LET s == th[t] IN
    /\ s.pc = "heldback" /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ LET a == AcquireQueued(RS, Own(t), "first")
       IN /\ SetRS(a.rs)
          /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "trying", !.age = 0, !.hb = NoTok,
                      !.rp = [kind |-> "try", ok |-> a.ok, left |-> Max(0, a.left - Margin), fence |-> a.fence, ep |-> a.ep]]]
          /\ outOfOrder' = (outOfOrder \/ (a.ok /\ kowner # Own(t) /\ Jumps(RS, Own(t))))
    /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost>>

\* A held-back waiter gives up: it never registered, so it leaves without a request.
GiveUpHeldBack(t) ==
    /\ GiveUps /\ th[t].pc = "heldback" /\ Up(t)
    /\ th' = [th EXCEPT ![t] = Ended(th[t])]
    /\ UNCHANGED <<pass, kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, alive, lag, lastFence, lastEpoch,
                   epochs, restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* A try's reply arrives: the lease (dated from the try's sending), a wait, or after a failed SET NX the first
\* script try. A reply to an acquisition that a grant already settled is dropped.
DeliverTry(t) ==
    LET s == th[t] IN
    /\ s.rp.kind # "none" /\ Up(t)
    /\ IF s.pc # "trying" THEN
          /\ th' = [th EXCEPT ![t].rp = NoReply]
          /\ UNCHANGED <<kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, epochs, outOfOrder>>
       ELSE IF s.rp.kind = "setnx" /\ ~s.rp.ok THEN
          /\ NoCheckOf(ClientOf(t))
          /\ LET a == AcquireQueued(RS, Own(t), "first")
             IN /\ SetRS(a.rs)
                /\ th' = [th EXCEPT ![t].rp = [kind |-> "try", ok |-> a.ok,
                                              left |-> Max(0, a.left - Margin), fence |-> a.fence, ep |-> a.ep]]
                /\ outOfOrder' = (outOfOrder \/ (a.ok /\ kowner # Own(t) /\ Jumps(RS, Own(t))))
       ELSE IF s.rp.ok THEN
          /\ th' = [th EXCEPT ![t] = [Holding(s, Own(t), s.rp.left, s.rp.fence, 0, <<>>, 0, s.rp.ep)
                                      EXCEPT !.rp = NoReply]]
          /\ UNCHANGED <<kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, epochs, outOfOrder>>
       ELSE
          /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "waiting", !.rp = NoReply]]
          /\ UNCHANGED <<kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, epochs, outOfOrder>>
    /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost>>

\* A queued waiter tries again (once a second, or woken): renews its registration, or takes a free lock.
Rearm(t) ==
    LET s == th[t] IN
    /\ s.pc = "waiting" /\ s.rp.kind = "none" /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ LET a == AcquireQueued(RS, Own(t), "again")
       IN /\ SetRS(a.rs)
          /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "trying", !.age = 0,
                      !.rp = [kind |-> "try", ok |-> a.ok, left |-> Max(0, a.left - Margin), fence |-> a.fence, ep |-> a.ep]]]
          /\ outOfOrder' = (outOfOrder \/ (a.ok /\ kowner # Own(t) /\ Jumps(RS, Own(t))))
    /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost>>

\* A waiter gives up: a release by its token leaves the queue, or passes on a grant that reached it meanwhile.
GiveUp(t) ==
    LET s == th[t] IN
    /\ GiveUps /\ s.pc = "waiting" /\ s.rp.kind = "none" /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ LET a == ReleaseQueued(RS, Own(t), ClientOf(t))
           x == After(a, [th EXCEPT ![t] = Ended(s)])
       IN SetAfter(x)
    /\ UNCHANGED <<alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* A grant arrives on the client's channel. One for a token that no longer waits is ignored (Notifier): the
\* waiter it named is gone, and the lock expires after the grant's short lease. Only the mutant lateReply puts a
\* release's reply here (here): one whose token no longer waits is passed on, as the releasing thread does.
DeliverGrant(m) ==
    LET t == m.tok[1]
        s == th[t]
    IN /\ m \in msgs
       /\ msgs' = msgs \ {m}
       /\ IF Up(t) /\ s.pc \in {"waiting", "trying"} /\ Own(t) = m.tok THEN
             /\ th' = [th EXCEPT ![t] = Holding(s, Own(t), m.left, m.fence, 0, m.up, 0, m.ep)]
             /\ UNCHANGED pass
          ELSE /\ UNCHANGED th
               /\ pass' = IF m.here /\ Up(t) THEN pass \cup {m.tok} ELSE pass
       /\ UNCHANGED <<epochs, kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, alive, lag, lastFence, lastEpoch,
                      restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* A client passes on a grant to a token of its own that no longer waits: a release by that token.
PassOn(tk) ==
    /\ tk \in pass /\ alive[ClientOf(tk[1])] /\ NoCheckOf(ClientOf(tk[1]))
    /\ LET a == ReleaseQueued(RS, tk, ClientOf(tk[1]))
           x == After(a, th)
       IN SetAfter([x EXCEPT !.pass = @ \ {tk}])
    /\ UNCHANGED <<alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* The watchdog renews a held lease before its local deadline (a tick that finds the deadline passed reports the
\* lease lost instead, Watchdog.tick); its schedule (a third of the lease) is not modelled: any time before.
SendRenew(t) ==
    LET s == th[t] IN
    /\ s.pc = "holding" /\ ~s.rn.on /\ s.left > 0 /\ s.left < Lease - Margin /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ LET a == Renew(RS, s.tok)
       IN /\ SetRS(a.rs)
          /\ th' = [th EXCEPT ![t].rn = [on |-> TRUE, ok |-> a.ok, left |-> Lease - Margin]]
    /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* Its reply: the local deadline moves to the renewal's send time + lease - drift, or the lease is lost.
DeliverRenew(t) ==
    LET s == th[t] IN
    /\ s.rn.on /\ Up(t)
    /\ th' = [th EXCEPT ![t] = IF s.rn.ok THEN [s EXCEPT !.left = Max(s.left, s.rn.left), !.rn = NoRenew]
                               ELSE Ended(s)]
    /\ UNCHANGED <<pass, kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, alive, lag, lastFence, lastEpoch, epochs,
                   restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* The watchdog finds the local deadline passed: the lease is lost.
RunOut(t) ==
    /\ th[t].pc = "holding" /\ th[t].left = 0 /\ Up(t)
    /\ th' = [th EXCEPT ![t] = Ended(th[t])]
    /\ UNCHANGED <<pass, kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, alive, lag, lastFence, lastEpoch, epochs,
                   restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* RedisLease.halfLeft; the mutant noHalfLease hands over whatever is left.
HalfLeft(s) == Mutation = "noHalfLease" \/ s.left >= Half

\* The waiters of t's client that may take t's lease over: default mode, the head of the client's local queue
\* (any queued waiter here); fair mode, only the waiter whose token heads the lease's upcoming.
Takers(t) ==
    LET s == th[t] IN
    IF ~HalfLeft(s) THEN {}
    ELSE {w \in Threads : /\ w # t /\ ClientOf(w) = ClientOf(t)
                          /\ \/ th[w].pc = "waiting" /\ th[w].rp.kind = "none"
                             \/ th[w].pc = "heldback" /\ th[w].hb = s.tok   \* default mode: no request of its own
                          /\ IF Fair THEN s.up # <<>> /\ Head(s.up) = Own(w)
                             ELSE s.hc < MaxLocalHandovers}

\* A release (of a lease in state HELD: its local deadline may have passed unnoticed, e.g. after a stall).
\* Local handover (RedisLease.handOverLocally / passOnFair): the waiter takes the lease over with the token and
\* deadline, its fence to come above this lease's; the check (handed.lua / consume-fair.lua) is sent first.
Release(t) ==
    LET s == th[t] IN
    /\ s.pc = "holding" /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ IF Takers(t) # {} THEN
          \E w \in Takers(t) :
             /\ th' = [th EXCEPT
                  ![w] = Holding(th[w], s.tok, s.left, 0, Max(s.fence, s.predFence),
                                 IF Fair THEN Tail(s.up) ELSE <<>>, s.hc + 1, NextEpoch),
                  ![t] = [s EXCEPT !.pc = "releasing", !.rn = NoRenew,
                                   !.ck = [on |-> TRUE, holder |-> s.tok, waiter |-> Own(w), succ |-> w]]]
             /\ epochs' = NextEpoch
             /\ outOfOrder' = (outOfOrder \/ (Fair /\ Jumps(RS, Own(w))))
             /\ kep' = NextEpoch   \* ghost: the key's hold now is the successor's
             /\ UNCHANGED <<kstate, kfence, kowner, kttl, queue, reg, quiet, now, msgs, pass>>
       ELSE
          /\ LET riders == Riders(t)
                 owns   == RS.ks = "held" /\ (RS.ko = s.tok \/ Mutation = "noTokenCheck")
                 \* Riders register in the script, once it found the token holding, behind everyone queued.
                 a      == ReleaseQueued(IF owns THEN BoardAll(RS, riders) ELSE RS, s.tok, ClientOf(t))
                 th1    == [u \in Threads |-> IF u = t THEN Ended(s)
                                              ELSE IF owns /\ u \in riders
                                              THEN [th[u] EXCEPT !.pc = "waiting", !.hb = NoTok, !.age = 0]
                                              ELSE th[u]]
             \* Without riders, the release as it was before the hold-back: the liveness runs' fairness evaluates
             \* this action at every step, and the general form made them 2.5 to 6 times slower (one form with IFs
             \* inside, about twice as slow as this).
             IN IF riders = {} THEN SetAfter(After(ReleaseQueued(RS, s.tok, ClientOf(t)), [th EXCEPT ![t] = Ended(s)]))
                ELSE SetAfter(After(a, th1))
          /\ UNCHANGED outOfOrder
    /\ UNCHANGED <<alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost>>

\* The handover's check reaches Redis (before anything its client sent later): handed.lua / consume-fair.lua
\* remove the waiter's registration and say whether the key still holds the token. If not, both leases are lost.
Check(t) ==
    LET s  == th[t]
        ck == s.ck
        w  == ck.succ
        r  == Leave(RS, ck.waiter)
        held == kstate = "held" /\ kowner = ck.holder
        succHolds == th[w].pc = "holding" /\ th[w].tok = ck.holder
    IN /\ ck.on
       /\ SetRS(r)
       /\ th' = [th EXCEPT
             ![t] = Ended(s),
             ![w] = IF ~held /\ succHolds THEN Ended(th[w])
                    ELSE IF Fair /\ held /\ succHolds THEN [th[w] EXCEPT !.up = r.q]
                    ELSE th[w]]
       /\ handoverLost' = (handoverLost \/ (~held /\ restarts = 0))
       /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, outOfOrder>>

\* Lease.fencingToken() of a lease without one: fence.lua above the lease's predecessor's fence, or the lease is lost.
GetFence(t) ==
    LET s == th[t] IN
    /\ Writes /\ s.pc = "holding" /\ s.fence = 0 /\ Up(t) /\ NoCheckOf(ClientOf(t))
    /\ LET a == FenceScript(RS, s.tok, s.predFence)
       IN /\ SetRS(a.rs)
          \* The fence belongs to the hold the key now records (the ghost kep).
          /\ th' = [th EXCEPT ![t] = IF a.ok THEN [s EXCEPT !.fence = a.f, !.ep = kep] ELSE Ended(s)]
    /\ UNCHANGED <<pass, alive, lag, lastFence, lastEpoch, restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* A holder that believes its lease valid sends a write with its fence; it may reach the resource much later.
SendWrite(t) ==
    LET s == th[t] IN
    /\ Writes /\ s.pc = "holding" /\ s.left > 0 /\ s.fence > 0 /\ ~s.pw.on /\ Up(t)
    /\ th' = [th EXCEPT ![t].pw = [on |-> TRUE, f |-> s.fence, e |-> s.ep]]
    /\ UNCHANGED <<pass, kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, alive, lag, lastFence, lastEpoch, epochs,
                   restarts, crashes, staleWrite, handoverLost, outOfOrder>>

\* The resource accepts a write whose fence is not below the highest it accepted.
Write(t) ==
    LET w == th[t].pw IN
    /\ w.on
    /\ th' = [th EXCEPT ![t].pw = NoWrite]
    /\ IF w.f >= lastFence
       THEN /\ lastFence' = w.f /\ lastEpoch' = Max(lastEpoch, w.e)
            /\ staleWrite' = (staleWrite \/ w.e < lastEpoch)
       ELSE UNCHANGED <<lastFence, lastEpoch, staleWrite>>
    /\ UNCHANGED <<pass, kstate, kfence, kowner, kttl, kep, queue, reg, quiet, now, msgs, alive, lag, epochs, restarts, crashes,
                   handoverLost, outOfOrder>>

\* A client's process dies: its threads stop; its registrations and its lease expire in Redis. Redis closes its
\* connections, so nobody listens on its grant channel: its quiet registrations either are no longer live at once
\* (a release or a try finds nobody listening while more than RegLife of them is left) or live out their last
\* RegLife ticks as renewing ones do.
Crash(c) ==
    /\ crashes < MaxCrashes /\ alive[c]
    /\ alive' = [alive EXCEPT ![c] = FALSE]
    /\ crashes' = crashes + 1
    /\ \E atOnce \in BOOLEAN :
          reg' = [k \in Tokens |-> IF atOnce /\ quiet[k] /\ ClientOf(k[1]) = c /\ Mutation # "noListenCheck"
                                   THEN 0 ELSE reg[k]]
    /\ queue' = IF \A k \in Tokens : reg'[k] = 0 THEN <<>> ELSE queue
    /\ UNCHANGED <<pass, kstate, kfence, kowner, kttl, kep, quiet, now, msgs, lag, th, lastFence, lastEpoch, epochs,
                   restarts, staleWrite, handoverLost, outOfOrder>>

\* Redis restarts without its data: the key (and its fence counter), the queue and the registrations are gone.
Restart ==
    /\ restarts < MaxRestarts
    /\ kstate' = "none" /\ kfence' = 0 /\ kowner' = NoTok /\ kttl' = 0 /\ kep' = 0
    /\ queue' = <<>> /\ reg' = [k \in Tokens |-> 0] /\ quiet' = [k \in Tokens |-> FALSE]
    /\ restarts' = restarts + 1
    /\ UNCHANGED <<pass, now, msgs, alive, lag, th, lastFence, lastEpoch, epochs, crashes, staleWrite, handoverLost,
                   outOfOrder>>

\* Time passes by one tick on the server, and on every client clock but those in `slow`, which lag one tick
\* (at most Drift ticks in all). A request reaches Redis within a tick: no tick while a handover's check is on
\* its way (the half lease left is the margin for that).
TickClient(s) ==
    [s EXCEPT !.left = Dec(s.left), !.age = IF s.age < Grant /\ s.pc \in {"trying", "waiting"} THEN s.age + 1 ELSE s.age,
              !.rp.left = Dec(s.rp.left), !.rn.left = Dec(s.rn.left)]
Tick(slow) ==
    /\ \A t \in Threads : ~th[t].ck.on
    /\ \A c \in slow : lag[c] < MaxLag
    /\ lag' = [c \in Clients |-> IF c \in slow THEN lag[c] + 1 ELSE lag[c]]
    /\ IF kstate = "held" /\ kttl <= 1
       THEN kstate' = "none" /\ kfence' = 0 /\ kowner' = NoTok /\ kttl' = 0 /\ kep' = 0   \* PX: the key goes, fence and all
       ELSE kttl' = Dec(kttl) /\ UNCHANGED <<kstate, kfence, kowner, kep>>
    \* A quiet registration does not age while its client listens (its waiter sends nothing); the mutant
    \* noListenCheck takes it for live whether or not anybody listens.
    /\ reg' = [k \in Tokens |-> IF quiet[k] /\ (alive[ClientOf(k[1])] \/ Mutation = "noListenCheck")
                                THEN reg[k] ELSE Dec(reg[k])]
    /\ quiet' = [k \in Tokens |-> quiet[k] /\ reg'[k] > 0]
    \* The queue's keys live as long as their last registration (PEXPIRE life at each register).
    /\ queue' = IF \A k \in Tokens : reg'[k] = 0 THEN <<>> ELSE queue
    /\ th' = [t \in Threads |-> IF ClientOf(t) \in slow THEN th[t] ELSE TickClient(th[t])]
    /\ msgs' = {IF ClientOf(m.tok[1]) \in slow THEN m ELSE [m EXCEPT !.left = Dec(m.left)] : m \in msgs}
    /\ UNCHANGED <<pass, now, alive, lastFence, lastEpoch, epochs, restarts, crashes, staleWrite, handoverLost,
                   outOfOrder>>

Init ==
    /\ kstate = "none" /\ kfence = 0 /\ kowner = NoTok /\ kttl = 0 /\ kep = 0
    /\ queue = <<>> /\ reg = [k \in Tokens |-> 0] /\ quiet = [k \in Tokens |-> FALSE] /\ now = 0 /\ msgs = {} /\ pass = {}
    /\ alive = [c \in Clients |-> TRUE] /\ lag = [c \in Clients |-> 0]
    /\ th = [t \in Threads |-> Idle(0)]
    /\ lastFence = 0 /\ lastEpoch = 0 /\ epochs = 0 /\ restarts = 0 /\ crashes = 0
    /\ staleWrite = FALSE /\ handoverLost = FALSE /\ outOfOrder = FALSE

ThreadStep(t) ==
    \/ Start(t) \/ DeliverTry(t) \/ Rearm(t) \/ GiveUp(t) \/ SendRenew(t) \/ DeliverRenew(t) \/ RunOut(t)
    \/ Release(t) \/ Check(t) \/ GetFence(t) \/ SendWrite(t) \/ Write(t) \/ Unhold(t) \/ GiveUpHeldBack(t)

Next ==
    \/ \E t \in Threads : ThreadStep(t)
    \/ \E m \in msgs : DeliverGrant(m)
    \/ \E tk \in pass : PassOn(tk)
    \/ \E c \in Clients : Crash(c)
    \/ Restart
    \/ \E slow \in SUBSET Clients : Tick(slow)

(* Weak fairness: live threads go on (try again, take replies, release what they hold), grants and checks    *)
(* arrive, and time passes. Not fair: giving up, crashes, restarts, renewals, writes.                        *)
Fairness ==
    /\ WF_vars(Tick({}))
    /\ \A t \in Threads : /\ WF_vars(Start(t)) /\ WF_vars(DeliverTry(t)) /\ WF_vars(Rearm(t))
                          /\ WF_vars(Release(t)) /\ WF_vars(Check(t)) /\ WF_vars(RunOut(t))
                          /\ WF_vars(DeliverRenew(t))
    /\ WF_vars(\E m \in msgs : DeliverGrant(m))
    /\ WF_vars(\E tk \in pass : PassOn(tk))

Spec == Init /\ [][Next]_vars
LiveSpec == Spec /\ Fairness

\* The end of the hold wakes its held-back waiters; the mutant noWakeOnLoss leaves them to their bound's timer, which
\* need never fire first (RedisLease.afterLoss without Notifier.ended in the default mode). In a spec of its own, so
\* that the runs without the hold-back keep the fairness they had.
HoldBackFairness == \A t \in Threads : WF_vars(HoldEnded(t) /\ Unhold(t))
LiveSpecHoldBack == LiveSpec /\ (IF Mutation = "noWakeOnLoss" THEN TRUE ELSE HoldBackFairness)

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
\* A lease its client believes valid: held, before its local deadline, in a live process.
Valid(t) == Up(t) /\ th[t].pc = "holding" /\ th[t].left > 0

\* 1. No two valid leases at once, while Redis kept its data.
MutualExclusion == restarts = 0 => \A t1, t2 \in Threads : Valid(t1) /\ Valid(t2) => t1 = t2

\* The reason it holds: a valid lease's key carries its token and outlives its local deadline.
KeyOutlivesDeadline == restarts = 0 => \A t \in Threads :
    Valid(t) => kstate = "held" /\ kowner = th[t].tok /\ kttl >= th[t].left

\* 2. The resource never accepts a write of a hold after one of a later hold: fences rise in the order of the
\* holds, across expiries and restarts.
Fencing == ~staleWrite

\* The half-lease condition: a local handover's check finds the key still holding the token unless Redis lost it.
HandoverFindsKey == ~handoverLost

\* 4. Fair mode: no hold begins while a live registration is queued ahead of it.
FairOrder == Fair => ~outOfOrder

\* 3. A queued or held-back waiter of a live client is eventually granted the lock.
WaiterGetsLock == \A t \in Threads :
    (th[t].pc \in {"waiting", "heldback"}) ~> (th[t].pc = "holding" \/ ~Up(t))

TypeOK ==
    /\ kstate \in {"none", "free", "held"} /\ kttl \in 0..Lease
    /\ \A k \in Tokens : reg[k] \in 0..RegLife /\ quiet[k] \in BOOLEAN
    /\ \A t \in Threads : th[t].pc \in {"idle", "trying", "waiting", "heldback", "holding", "releasing", "done"}
=============================================================================
