------------------------------- MODULE Share -------------------------------
(***************************************************************************)
(* Warden's shared locks on one Redis, for one lock name: the read-write   *)
(* lock and the semaphore (share.lua and the share-*.lua scripts, each one *)
(* atomic step) and what the client does around them (ShareAcquisition,    *)
(* ShareLease, ShareWaiters, the watchdog). See docs/model.md.             *)
(*                                                                         *)
(* A shared lock lends permits out of a capacity: a semaphore's permits,   *)
(* or the read-write lock's, of which a reader takes one and a writer all. *)
(* Time is discrete and every timer is kept as "ticks left", as in         *)
(* Warden.tla. Fences are not modelled: a share's fence comes from one     *)
(* counter in the state hash, in the step that lends it, and what a lost   *)
(* counter does is Warden.tla's Fencing run.                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    NThreads,          \* threads (acquirers); thread t is of client ClientOf(t)
    SameClientThreads, \* threads 1..SameClientThreads share client 1; each other thread is a client of its own
    Writers,           \* the threads that ask for the whole capacity; the others ask for one permit
    Cap,               \* the capacity
    MaxAcq,            \* acquisitions per thread
    Lease,             \* the lease renewals set, in ticks
    Grant,             \* the first lease a release grants a waiter (min(lease, 5 s))
    RegLife,           \* how long a registration lives after its client's last try (3 s; a try a second)
    Drift,             \* the margin taken off every local deadline (LeaseBase.drift)
    MaxCrashes,        \* client processes that die
    GiveUps,           \* whether a waiter may give up
    Handovers,         \* whether a release may hand its share over locally (ShareLease.handOverLocally)
    Prompt,            \* whether replies and grants to a live client arrive, and its waiters try again, within a tick
    Mutation           \* "none", "noFitStop", "noClear", "noUnplacedCheck", "noHalfLease", "noTokenCheck",
                       \* "noTryExpiry"

ASSUME Mutation \in {"none", "noFitStop", "noClear", "noUnplacedCheck", "noHalfLease", "noTokenCheck", "noTryExpiry"}
ASSUME Grant <= Lease /\ Drift < Grant /\ Writers \subseteq 1..NThreads /\ Cap >= 1

Threads == 1..NThreads
ClientOf(t) == IF t <= SameClientThreads THEN 1 ELSE t - SameClientThreads + 1
Clients == {ClientOf(t) : t \in Threads}
Tokens == Threads \X (1..MaxAcq)       \* an acquisition's token: its thread and its number
Asks == [t \in Threads |-> IF t \in Writers THEN Cap ELSE 1]
Ask(k) == Asks[k[1]]
Max(a, b) == IF a >= b THEN a ELSE b
Dec(x) == IF x > 0 THEN x - 1 ELSE 0
Half == Grant \div 2                   \* LeaseBase.halfLeft: half the lease a grant sets

RECURSIVE SumOf(_, _)
SumOf(f, S) == IF S = {} THEN 0 ELSE LET x == CHOOSE x \in S : TRUE IN f[x] + SumOf(f, S \ {x})

VARIABLES
    hp,       \* the state hash: token -> the permits it holds (0: no entry)
    he,       \* the holders' sorted set: token -> ticks until its lease ends by the server's clock (0: ended)
    used,     \* the state's "used": the permits lent, as the scripts keep it
    queue,    \* the queue, tokens by arrival
    reg,      \* the registrations: token -> ticks of life left (0: none, or no longer live)
    msgs,     \* grants in flight on a client's channel: [tok, left]
    pass,     \* tokens whose grant their client gives back (they no longer wait)
    alive,    \* client -> whether its process runs
    th,       \* thread -> its state (see Idle)
    crashes,
    overtaken,    \* history: a hold began while a live registration was queued ahead of it
    handoverLost  \* history: a local handover's script found the holder's share gone

vars == <<hp, he, used, queue, reg, msgs, pass, alive, th, crashes, overtaken, handoverLost>>

NoReply == [on |-> FALSE, ok |-> FALSE, left |-> 0, queued |-> FALSE, clear |-> FALSE]
NoRenew == [on |-> FALSE, ok |-> FALSE, left |-> 0]

(* A thread's state. pc: "idle", "trying" (a try's reply in flight), "waiting" (no try in flight), "holding"     *)
(* (believed valid only while left > 0), "done". acq: acquisitions begun; the current one's token is <<t, acq>>. *)
(* left: ticks to the local deadline. age: ticks since the last try was sent (a grant's lease counts from it).   *)
(* placed: a try of it joined the queue and its reply came (ShareAcquisition.placed); clear: no waiter of        *)
(* another client was queued then; before: the tokens of its client whose first try was sent, and not placed,   *)
(* when its place became known. rp: the try's reply in flight; rn: the renewal's. ab (a ghost): the tokens     *)
(* that waited when it asked.                                                                                    *)
Idle(acq) == [pc |-> IF acq < MaxAcq THEN "idle" ELSE "done", acq |-> acq, left |-> 0, age |-> 0,
              placed |-> FALSE, clear |-> FALSE, before |-> {}, ab |-> {}, rp |-> NoReply, rn |-> NoRenew]

Own(t) == <<t, th[t].acq>>
Up(t) == alive[ClientOf(t)]

(***************************************************************************)
(* Redis: its state as one record, and each script as a function of it.    *)
(***************************************************************************)
\* q0 and reg0 keep the queue as the script found it, out the tokens it took out of the queue so far (lent to,
\* handed a share, or left): for InOrder (Jumps).
RS == [hp |-> hp, he |-> he, used |-> used, q |-> queue, reg |-> reg, msgs |-> msgs, over |-> overtaken,
       q0 |-> queue, reg0 |-> reg, out |-> {}]
SetRS(r) == /\ hp' = r.hp /\ he' = r.he /\ used' = r.used /\ queue' = r.q /\ reg' = r.reg /\ msgs' = r.msgs
            /\ overtaken' = r.over

InQ(q, k) == \E i \in 1..Len(q) : q[i] = k
Without(q, k) == SelectSeq(q, LAMBDA x : x # k)

\* A hold of token k begins while a registration that was live when the step began is queued ahead of it, and
\* the step did not take it out of the queue before; if k is not queued, while one is queued whose waiter asked before
\* k did (a ghost, ab: a waiter whose grant ran out before it arrived is queued no more, but asked first). A waiter
\* that lost its place so, and joins the queue again, is behind those queued then. The queue as the step found it
\* (q0), so that a script that dropped a live waiter on its way would be seen.
AskedBefore(k) == IF th[k[1]].acq = k[2] THEN th[k[1]].ab
                  ELSE {<<u, th[u].acq>> : u \in {u \in Threads \ {k[1]} : th[u].pc \in {"trying", "waiting"}}}
Jumps(r, k) == \E i \in 1..Len(r.q0) :
    LET w == r.q0[i] IN
    /\ w # k /\ w \notin r.out /\ r.reg0[w] > 0
    /\ IF InQ(r.q0, k) THEN \A j \in 1..i : r.q0[j] # k ELSE w \in AskedBefore(k)

\* share.lua expire_holders: the holders whose lease ended go, and their permits come off "used".
Expire(r) ==
    LET ended == {k \in Tokens : r.hp[k] > 0 /\ r.he[k] = 0}
    IN [r EXCEPT !.hp = [k \in Tokens |-> IF k \in ended THEN 0 ELSE r.hp[k]], !.used = r.used - SumOf(r.hp, ended)]

\* share.lua lend: token k holds p permits for `ends` ticks; the hold begins here (overtaken: see Jumps).
Lend(r, k, p, ends) ==
    [r EXCEPT !.hp[k] = p, !.he[k] = ends, !.used = r.used + p, !.over = r.over \/ Jumps(r, k),
              !.q = Without(r.q, k), !.reg[k] = 0, !.out = @ \cup {k}]

\* share.lua dequeue
Leave(r, k) == IF InQ(r.q, k) THEN [r EXCEPT !.q = Without(r.q, k), !.reg[k] = 0, !.out = @ \cup {k}] ELSE r

\* The grant a waiter's client hears of: its lease counts from its last try's sending.
GrantMsg(k) == [tok |-> k, left |-> Max(0, Grant - Drift - th[k[1]].age)]

(* share.lua grant_waiters: lends to the queue's oldest live waiters, in order, while their permits fit; a dead  *)
(* registration on the way goes. A waiter that does not fit stops the grants, so that a writer is not passed by  *)
(* readers; the mutant noFitStop goes on past it. Grants to waiters of the client `mine` go into `listed` (the   *)
(* release's reply), the others on their client's channel.                                                      *)
RECURSIVE GrantWaiters(_, _, _)
GrantWaiters(r, mine, listed) ==
    IF r.q = <<>> \/ r.used >= Cap THEN [r |-> r, listed |-> listed]
    ELSE LET k == Head(r.q) IN
         IF r.reg[k] = 0 THEN GrantWaiters([r EXCEPT !.q = Tail(r.q)], mine, listed)
         ELSE IF r.used + Ask(k) > Cap THEN
            IF Mutation = "noFitStop"
            THEN LET x == GrantWaiters([r EXCEPT !.q = Tail(r.q)], mine, listed)
                 IN [r |-> [x.r EXCEPT !.q = <<k>> \o x.r.q],
                     listed |-> x.listed]
            ELSE [r |-> r, listed |-> listed]
         ELSE LET r1 == Lend(r, k, Ask(k), Grant)
              IN IF ClientOf(k[1]) = mine THEN GrantWaiters(r1, mine, listed \cup {k})
                 ELSE GrantWaiters([r1 EXCEPT !.msgs = @ \cup {GrantMsg(k)}], mine, listed)

\* share-acquire.lua's loop: drops dead heads until the head is the caller, a live one, or none.
RECURSIVE Prune(_, _)
Prune(r, k) == IF r.q = <<>> \/ Head(r.q) = k \/ r.reg[Head(r.q)] > 0 THEN r
               ELSE Prune([r EXCEPT !.q = Tail(r.q), !.reg[Head(r.q)] = 0], k)

(* share-acquire.lua, a waiter's first try ("first") or a later one ("again"): a later try finds a grant made to *)
(* it; a try that is first in line (no live registration ahead) takes the permits if they fit, and lends on to    *)
(* the waiters behind it that fit; else it joins the queue's tail (a queued token keeps its place) and learns     *)
(* whether a waiter of another client was queued then. The mutant noTryExpiry leaves the holders whose lease     *)
(* ended in place (only a release would remove them).                                                             *)
Acquire(r0, k, kind) ==
    LET r == IF Mutation = "noTryExpiry" THEN r0 ELSE Expire(r0) IN
    IF kind = "again" /\ r.hp[k] > 0 THEN [rs |-> r, ok |-> TRUE, left |-> r.he[k], queued |-> FALSE, clear |-> FALSE]
    ELSE LET r1 == Prune(r, k) IN
         IF (r1.q = <<>> \/ Head(r1.q) = k) /\ r1.used + Ask(k) <= Cap
         THEN LET g == GrantWaiters(Lend(r1, k, Ask(k), Lease), 0, {})
              IN [rs |-> g.r, ok |-> TRUE, left |-> Lease, queued |-> FALSE, clear |-> FALSE]
         ELSE LET added  == ~InQ(r1.q, k)
                  others == Cardinality({i \in 1..Len(r1.q) : ClientOf(r1.q[i][1]) # ClientOf(k[1])})
              IN [rs |-> [r1 EXCEPT !.q = IF added THEN Append(r1.q, k) ELSE r1.q, !.reg[k] = RegLife],
                  ok |-> FALSE, left |-> 0, queued |-> added, clear |-> others = 0]

(* share-release.lua by token k of client c: frees its permits and lends them on; a token that holds nothing      *)
(* leaves the queue. The mutant noTokenCheck takes the permits off "used" even when k holds none.                 *)
Release(r0, k, c) ==
    LET r == Expire(r0) IN
    IF r.hp[k] = 0
    THEN [rs |-> [Leave(r, k) EXCEPT !.used = IF Mutation = "noTokenCheck" THEN Max(0, r.used - Ask(k)) ELSE r.used],
          res |-> 0, listed |-> {}]
    ELSE LET g == GrantWaiters([r EXCEPT !.hp[k] = 0, !.he[k] = 0, !.used = r.used - r.hp[k]], c, {})
         IN [rs |-> g.r, res |-> 1, listed |-> g.listed]

\* share-renew.lua: a holder whose lease has not ended gets a new end.
Renew(r, k) == IF r.hp[k] > 0 /\ r.he[k] > 0 THEN [rs |-> [r EXCEPT !.he[k] = Lease], ok |-> TRUE]
               ELSE [rs |-> r, ok |-> FALSE]

(* share-handed.lua after a local handover from token old to the tokens `takers` (in order): they leave the      *)
(* queue; each takes its permits with the holder's end, or keeps a grant a release made it meanwhile (until the    *)
(* later end); what is left of the holder's permits, or freed by expiry, goes on to the queue. If the holder's    *)
(* share is gone, every taker's lease is lost and the grants they had are given back.                             *)
RECURSIVE MoveTo(_, _, _, _)
MoveTo(r, ts, ends, left) ==
    IF ts = <<>> THEN [r |-> r, left |-> left]
    ELSE LET k == Head(ts) IN
         IF r.hp[k] > 0 THEN MoveTo([r EXCEPT !.he[k] = Max(@, ends)], Tail(ts), ends, left)
         ELSE MoveTo([r EXCEPT !.hp[k] = Ask(k), !.he[k] = ends, !.used = r.used + Ask(k)], Tail(ts), ends,
                     left - Ask(k))

RECURSIVE LeaveAll(_, _)
LeaveAll(r, ts) == IF ts = <<>> THEN r ELSE LeaveAll(Leave(r, Head(ts)), Tail(ts))

Handed(r0, old, takers) ==
    LET r    == [LeaveAll(Expire(r0), takers) EXCEPT !.out = @ \cup {takers[i] : i \in 1..Len(takers)}]
        held == r.hp[old]
        expired == r.used # r0.used
    IN IF held = 0
       THEN LET granted == {takers[i] : i \in 1..Len(takers)} \cap {k \in Tokens : r.hp[k] > 0}
                r1 == [r EXCEPT !.hp = [k \in Tokens |-> IF k \in granted THEN 0 ELSE r.hp[k]],
                                !.he = [k \in Tokens |-> IF k \in granted THEN 0 ELSE r.he[k]],
                                !.used = r.used - SumOf(r.hp, granted)]
            IN [rs |-> IF granted # {} \/ expired THEN GrantWaiters(r1, 0, {}).r ELSE r1, held |-> FALSE]
       ELSE LET m == MoveTo([r EXCEPT !.hp[old] = 0, !.he[old] = 0, !.used = r.used - held], takers, r.he[old], held)
                \* (As the script: permits were left after a taker that took some, or a grant or a holder went.)
                took  == SelectSeq(takers, LAMBDA k : r.hp[k] = 0)
                freed == \/ expired \/ \E i \in 1..Len(takers) : r.hp[takers[i]] > 0
                         \/ took # <<>> /\ held - Ask(Head(took)) > 0
            IN [rs |-> IF freed THEN GrantWaiters(m.r, 0, {}).r ELSE m.r, held |-> TRUE]

(***************************************************************************)
(* The client.                                                             *)
(***************************************************************************)
Holding(s, left) == [s EXCEPT !.pc = "holding", !.left = left, !.age = 0, !.rp = NoReply, !.rn = NoRenew]
Ended(s) == Idle(s.acq)
Waits(s) == s.pc \in {"trying", "waiting"}

\* The grants a release of client c listed in its reply: handled as the reply is read, before any later reply to
\* the waiter's own tries (ShareLease, Link.dispatch); a token that no longer waits is given back.
Listed(th1, listed) ==
    [u \in Threads |-> IF Own(u) \in listed /\ Waits(th1[u]) THEN Holding(th1[u], GrantMsg(Own(u)).left) ELSE th1[u]]
GiveBack(th1, listed) == {k \in listed : ~Waits(th1[k[1]]) \/ <<k[1], th1[k[1]].acq>> # k}

\* The step after a release script's answer a, with the threads' states th1 and the tokens kept to pass on.
AfterRelease(a, th1, kept) == SetRS(a.rs) /\ th' = Listed(th1, a.listed) /\ pass' = kept \cup GiveBack(th1, a.listed)

\* A try's answer a, on its way back: the lease dated from the try's sending.
TryReply(a) == [on |-> TRUE, ok |-> a.ok, left |-> Max(0, a.left - Drift), queued |-> a.queued, clear |-> a.clear]

\* Its first try was sent and no place is known yet (ShareWaiters.reserveNext: unplaced).
Unplaced(k) == th[k[1]].acq = k[2] /\ Waits(th[k[1]]) /\ ~th[k[1]].placed

Start(t) ==
    /\ th[t].pc = "idle" /\ ~th[t].rp.on /\ Up(t)
    /\ LET k == <<t, th[t].acq + 1>>
           a == Acquire(RS, k, "first")
       IN /\ SetRS(a.rs)
          /\ th' = [th EXCEPT ![t] = [Idle(k[2]) EXCEPT !.pc = "trying", !.ab = AskedBefore(k),
                     !.rp = TryReply(a)]]
    /\ UNCHANGED <<pass, alive, crashes, handoverLost>>

\* A try's reply: the lease (dated from the try's sending), or a wait; where it joined the queue, its place.
\* A reply to an acquisition that a grant or a handover settled already is dropped.
DeliverTry(t) ==
    LET s == th[t] IN
    /\ s.rp.on /\ Up(t)
    /\ th' = [th EXCEPT ![t] =
           IF s.pc # "trying" THEN [s EXCEPT !.rp = NoReply]
           ELSE IF s.rp.ok THEN Holding(s, s.rp.left)
           ELSE IF s.rp.queued
           THEN [s EXCEPT !.pc = "waiting", !.rp = NoReply, !.placed = TRUE, !.clear = s.rp.clear,
                          !.before = {Own(u) : u \in {u \in Threads \ {t} : ClientOf(u) = ClientOf(t) /\ Unplaced(Own(u))}}]
           ELSE [s EXCEPT !.pc = "waiting", !.rp = NoReply]]
    /\ UNCHANGED <<hp, he, used, queue, reg, msgs, pass, alive, crashes, overtaken, handoverLost>>

\* A waiter tries again (once a second, or when the first holder's lease ends).
Rearm(t) ==
    LET s == th[t] IN
    /\ s.pc = "waiting" /\ Up(t) /\ (Prompt => s.age > 0)   \* (Prompt: once a tick, not more often)
    /\ LET a == Acquire(RS, Own(t), "again")
       IN /\ SetRS(a.rs)
          /\ th' = [th EXCEPT ![t] = [s EXCEPT !.pc = "trying", !.age = 0,
                     !.rp = TryReply(a)]]
    /\ UNCHANGED <<pass, alive, crashes, handoverLost>>

\* A waiter gives up: one release by its token leaves the queue, or gives back a grant that came meanwhile.
GiveUp(t) ==
    LET s == th[t] IN
    /\ GiveUps /\ s.pc = "waiting" /\ Up(t)
    /\ LET a   == Release(RS, Own(t), ClientOf(t))
           th1 == [th EXCEPT ![t] = Ended(s)]
       IN AfterRelease(a, th1, pass)
    /\ UNCHANGED <<alive, crashes, handoverLost>>

\* A grant arrives on the client's channel; one for a token that no longer waits is ignored (its acquisition's
\* release, or its lease's, gives the permits back; a dead client's expire).
DeliverGrant(m) ==
    LET t == m.tok[1] IN
    /\ m \in msgs
    /\ msgs' = msgs \ {m}
    /\ th' = IF Up(t) /\ Waits(th[t]) /\ Own(t) = m.tok THEN [th EXCEPT ![t] = Holding(th[t], m.left)] ELSE th
    /\ UNCHANGED <<hp, he, used, queue, reg, pass, alive, crashes, overtaken, handoverLost>>

PassOn(k) ==
    /\ k \in pass /\ alive[ClientOf(k[1])]
    /\ LET a == Release(RS, k, ClientOf(k[1]))
       IN AfterRelease(a, th, pass \ {k})
    /\ UNCHANGED <<alive, crashes, handoverLost>>

\* The watchdog renews a held share before its local deadline (a batch is one renewal per share here).
SendRenew(t) ==
    LET s == th[t] IN
    /\ s.pc = "holding" /\ ~s.rn.on /\ s.left > 0 /\ s.left < Lease - Drift /\ Up(t)
    /\ LET a == Renew(RS, Own(t))
       IN /\ SetRS(a.rs)
          /\ th' = [th EXCEPT ![t].rn = [on |-> TRUE, ok |-> a.ok, left |-> Lease - Drift]]
    /\ UNCHANGED <<pass, alive, crashes, handoverLost>>

DeliverRenew(t) ==
    LET s == th[t] IN
    /\ s.rn.on /\ Up(t)
    /\ th' = [th EXCEPT ![t] = IF s.rn.ok THEN [s EXCEPT !.left = Max(s.left, s.rn.left), !.rn = NoRenew]
                               ELSE Ended(s)]
    /\ UNCHANGED <<hp, he, used, queue, reg, msgs, pass, alive, crashes, overtaken, handoverLost>>

RunOut(t) ==
    /\ th[t].pc = "holding" /\ th[t].left = 0 /\ Up(t)
    /\ th' = [th EXCEPT ![t] = Ended(th[t])]
    /\ UNCHANGED <<hp, he, used, queue, reg, msgs, pass, alive, crashes, overtaken, handoverLost>>

\* ShareWaiters.reserveNext for a release by thread t: its client's placed waiters, in the order of their places
\* (those a release granted already were ahead of those still queued), as long as each has no try in flight, is
\* clear, fits in what is left, and no waiter of its client whose first try was sent before its place became known
\* is still unplaced. Mutants: noClear ignores the clear condition, noUnplacedCheck the last.
RECURSIVE SetSeq(_)
SetSeq(S) == IF S = {} THEN <<>>
             ELSE LET x == CHOOSE x \in S : \A y \in S : x[1] <= y[1] IN <<x>> \o SetSeq(S \ {x})

Candidates(t) == {Own(w) : w \in {w \in Threads \ {t} : ClientOf(w) = ClientOf(t) /\ Waits(th[w]) /\ th[w].placed}}

\* (A waiter with a try in flight cannot be reserved, ShareAcquisition.reserve: it stops the handover.)
Fits(k, left) == /\ th[k[1]].pc = "waiting"
                 /\ Ask(k) <= left
                 /\ th[k[1]].clear \/ Mutation = "noClear"
                 /\ (\A u \in th[k[1]].before : ~Unplaced(u)) \/ Mutation = "noUnplacedCheck"

RECURSIVE Reserve(_, _)
Reserve(ks, left) == IF ks = <<>> \/ ~Fits(Head(ks), left) THEN <<>>
                     ELSE <<Head(ks)>> \o Reserve(Tail(ks), left - Ask(Head(ks)))

Takers(t) ==
    IF ~Handovers \/ (th[t].left < Half /\ Mutation # "noHalfLease") THEN <<>>
    ELSE LET c == Candidates(t)
         IN Reserve(SetSeq({k \in c : ~InQ(queue, k)}) \o SelectSeq(queue, LAMBDA k : k \in c), Asks[t])

\* Whether taker i of ts jumps the queue: a live registration ahead of it that is not an earlier taker.
\* (A taker that a release granted already, and whose grant has not ended, began its hold then.)
TakerJumps(ts, i) == ~(hp[ts[i]] > 0 /\ he[ts[i]] > 0) /\ Jumps([RS EXCEPT !.out = {ts[j] : j \in 1..i - 1}], ts[i])

(* A release (of a lease in state HELD; its local deadline may have passed unnoticed). With takers, they take    *)
(* the share over at once, each with this lease's deadline, and the script that moves the share runs first of   *)
(* anything their client sends (one connection); its answer settles the takers' leases, or loses them.          *)
Free(t) ==
    LET s  == th[t]
        ts == Takers(t)
    IN /\ s.pc = "holding" /\ Up(t)
       /\ IF ts # <<>> THEN
             LET a   == Handed(RS, Own(t), ts)
                 ws  == {ts[i][1] : i \in 1..Len(ts)}
                 jmp == \E i \in 1..Len(ts) : TakerJumps(ts, i)
             IN /\ SetRS([a.rs EXCEPT !.over = @ \/ (a.held /\ jmp)])
                /\ th' = [u \in Threads |-> IF u = t THEN Ended(s)
                                            ELSE IF u \in ws THEN (IF a.held THEN Holding(th[u], s.left) ELSE Ended(th[u]))
                                            ELSE th[u]]
                /\ handoverLost' = (handoverLost \/ ~a.held)
                /\ UNCHANGED pass
          ELSE LET a   == Release(RS, Own(t), ClientOf(t))
                   th1 == [th EXCEPT ![t] = Ended(s)]
               IN AfterRelease(a, th1, pass) /\ UNCHANGED handoverLost
       /\ UNCHANGED <<alive, crashes>>

\* A client's process dies: its threads stop; its shares end by their leases, its registrations by their life.
Crash(c) ==
    /\ crashes < MaxCrashes /\ alive[c]
    /\ alive' = [alive EXCEPT ![c] = FALSE]
    /\ crashes' = crashes + 1
    /\ UNCHANGED <<hp, he, used, queue, reg, msgs, pass, th, overtaken, handoverLost>>

(* Time passes by one tick. A live client's waiters try once a second, well within their registrations' life     *)
(* (three seconds): here they do not age while their client runs; a dead client's live out their life. In the    *)
(* liveness runs (Prompt), the client's replies and grants arrive, and its waiters try again, within the tick:    *)
(* every grant it hears of is still valid then, so that "granted" means a lease it may use.                      *)
Tick ==
    /\ Prompt => \A t \in Threads : Up(t) => ~th[t].rp.on /\ ~(th[t].pc = "waiting" /\ th[t].age > 0)
    /\ Prompt => \A m \in msgs : ~Up(m.tok[1])
    /\ he' = [k \in Tokens |-> Dec(he[k])]
    /\ reg' = [k \in Tokens |-> IF alive[ClientOf(k[1])] THEN reg[k] ELSE Dec(reg[k])]
    /\ queue' = IF \A k \in Tokens : reg'[k] = 0 THEN <<>> ELSE queue
    /\ th' = [t \in Threads |-> [th[t] EXCEPT !.left = Dec(@), !.rp.left = Dec(@), !.rn.left = Dec(@),
                                  !.age = IF @ < Grant /\ Waits(th[t]) THEN @ + 1 ELSE @]]
    /\ msgs' = {[m EXCEPT !.left = Dec(m.left)] : m \in msgs}
    /\ UNCHANGED <<hp, used, pass, alive, crashes, overtaken, handoverLost>>

Init ==
    /\ hp = [k \in Tokens |-> 0] /\ he = [k \in Tokens |-> 0] /\ used = 0
    /\ queue = <<>> /\ reg = [k \in Tokens |-> 0] /\ msgs = {} /\ pass = {}
    /\ alive = [c \in Clients |-> TRUE] /\ th = [t \in Threads |-> Idle(0)] /\ crashes = 0
    /\ overtaken = FALSE /\ handoverLost = FALSE

ThreadStep(t) ==
    \/ Start(t) \/ DeliverTry(t) \/ Rearm(t) \/ GiveUp(t) \/ SendRenew(t) \/ DeliverRenew(t) \/ RunOut(t) \/ Free(t)

Next ==
    \/ \E t \in Threads : ThreadStep(t)
    \/ \E m \in msgs : DeliverGrant(m)
    \/ \E k \in pass : PassOn(k)
    \/ \E c \in Clients : Crash(c)
    \/ Tick

(* Weak fairness: live threads go on (try, try again, take replies, release what they hold), grants arrive, and  *)
(* time passes. Not fair: giving up, crashes, renewals.                                                           *)
Fairness ==
    /\ WF_vars(Tick)
    /\ \A t \in Threads : /\ WF_vars(Start(t)) /\ WF_vars(DeliverTry(t)) /\ WF_vars(Rearm(t))
                          /\ WF_vars(Free(t)) /\ WF_vars(RunOut(t)) /\ WF_vars(DeliverRenew(t))
    /\ WF_vars(\E m \in msgs : DeliverGrant(m))
    /\ WF_vars(\E k \in pass : PassOn(k))

Spec == Init /\ [][Next]_vars
LiveSpec == Spec /\ Fairness

(***************************************************************************)
(* Properties.                                                             *)
(***************************************************************************)
\* A share its client believes valid: held, before its local deadline, in a live process.
Valid(t) == Up(t) /\ th[t].pc = "holding" /\ th[t].left > 0

\* 1. The permits of the valid shares stay within the capacity: a writer (all of them) excludes everyone else.
PermitLimit == SumOf([t \in Threads |-> IF Valid(t) THEN Asks[t] ELSE 0], Threads) <= Cap

\* The reason: a valid share's entry holds its permits and outlives its local deadline, and "used" counts them.
EntryOutlivesDeadline == \A t \in Threads :
    Valid(t) => hp[Own(t)] = Asks[t] /\ he[Own(t)] >= th[t].left

UsedCounts == used = SumOf(hp, Tokens)

\* 2. No hold begins while a live registration is queued ahead of it: a queued writer is passed by no reader
\* that asked after it, across clients, whether Redis grants it or a local handover does.
InOrder == ~overtaken

\* 3. The half-lease condition: the script that settles a local handover finds the holder's share.
HandoverFindsShare == ~handoverLost

\* 4. A waiter of a live client eventually holds a share it believes valid.
WaiterGetsShare == \A t \in Threads : Waits(th[t]) ~> (Valid(t) \/ ~Up(t))

TypeOK ==
    /\ \A k \in Tokens : hp[k] \in 0..Cap /\ he[k] \in 0..Lease /\ reg[k] \in 0..RegLife
    /\ used \in 0..Cap
    /\ \A t \in Threads : th[t].pc \in {"idle", "trying", "waiting", "holding", "done"}
=============================================================================
