package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Identity;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** How {@code warden locks} orders and draws a listing, and how {@code warden inspect} reads a lock as an election. */
class LocksViewTest {
    private static LockInfo lock(String name, long leaseSeconds, Long waitMillis) {
        return new LockInfo(name, leaseSeconds > 0, Duration.ofSeconds(leaseSeconds), 0, waitMillis == null ? 0 : 1,
                leaseSeconds > 0 ? Optional.of("abcdefgh") : Optional.empty(), Optional.empty(),
                Optional.ofNullable(waitMillis).map(Duration::ofMillis));
    }

    private static LocksView.Listing listing(List<LockInfo> locks) {
        return rows(locks.stream().map(LocksView.Row::of).toList());
    }

    private static LocksView.Listing rows(List<LocksView.Row> rows) {
        return new LocksView.Listing("warden:", "*", rows, false, Duration.ofMillis(12),
                Instant.parse("2026-01-02T03:04:05Z"));
    }

    @Test
    void theLongestWaitComesFirstThenTheMostLeaseLeftThenTheName() {
        List<LockInfo> locks = List.of(lock("b", 10, null), lock("a", 10, null), lock("short-wait", 5, 200L),
                lock("long-wait", 1, 9_000L), lock("long-lease", 50, null), lock("free-waited", 0, 100L));
        assertThat(listing(locks).sorted()).extracting(LocksView.Row::name)
                .containsExactly("long-wait", "short-wait", "free-waited", "long-lease", "a", "b");
    }

    @Test
    void durationsReadAsPeopleWriteThem() {
        assertThat(LocksView.duration(Duration.ofMillis(850))).isEqualTo("850ms");
        assertThat(LocksView.duration(Duration.ofMillis(12_349))).isEqualTo("12.3s");
        assertThat(LocksView.duration(Duration.ofSeconds(245))).isEqualTo("4m05s");
        assertThat(LocksView.duration(Duration.ofMinutes(123))).isEqualTo("2h03m");
        assertThat(LocksView.duration(Duration.ofHours(76))).isEqualTo("3d04h");
    }

    @Test
    void aTableRowPerLockUnderAHeaderAndControlCharactersEscaped() {
        String table = LocksView.table(listing(List.of(lock("two\nlines", 30, null))));
        assertThat(table.lines()).hasSize(3);
        assertThat(table).startsWith("NAME          KIND        HOLDER     HELD FOR  LEASE LEFT  WAITERS  LONGEST WAIT"
                + "  FENCE             HELD BY\n"
                + "two\\x0alines  lock        abcdefgh          -       30.0s        0             -  -                 -\n"
                + "1 lock held or waited for under prefix 'warden:' matching '*' (read in 12ms at "
                + "2026-01-02T03:04:05Z)\n");
        assertThat(LocksView.table(listing(List.of()))).startsWith("0 locks held");
    }

    @Test
    void whoHoldsComesLastAndInJsonEveryPartOfAnIdentity() {
        Identity holder = new Identity("AbC123", 31, Optional.of("orders"), Optional.of("host-a"),
                OptionalLong.of(4211), Optional.of("scheduler 3"));
        Identity bare = new Identity("XyZ789", 7, Optional.empty(), Optional.empty(), OptionalLong.empty(),
                Optional.empty());
        LockInfo info = new LockInfo("n", true, Duration.ofSeconds(30), 1732L, 1, Optional.of("abcdefgh"),
                Optional.empty(), Optional.empty(), Optional.of(holder), List.of(bare));
        String table = LocksView.table(listing(List.of(info)));
        assertThat(table.lines().toList().get(1)).endsWith("  1732              orders-AbC123 (host-a, pid 4211, "
                + "thread scheduler 3)");
        assertThat(LocksView.json(listing(List.of(info)))).contains("\"heldBy\": {\"client\": \"AbC123\", "
                + "\"clientName\": \"orders\", \"host\": \"host-a\", \"pid\": 4211, \"threadId\": 31, "
                + "\"thread\": \"scheduler 3\"}, \"waiting\": [{\"client\": \"XyZ789\", \"clientName\": null, "
                + "\"host\": null, \"pid\": null, \"threadId\": 7, \"thread\": null}]}");
    }

    @Test
    void aFrameFitsTheTerminalAndSaysHowManyLocksDidNotFit() {
        List<LockInfo> locks = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            locks.add(lock("lock-" + i + "-with-a-rather-long-name-that-does-not-fit-in-forty-columns", 30, null));
        }
        String frame = LocksView.frame(listing(locks), Duration.ofSeconds(2), 12, 40);
        List<String> lines = frame.lines().toList();
        assertThat(frame).startsWith("\u001b[H").endsWith("\u001b[J");
        assertThat(lines).hasSize(12);
        assertThat(lines.get(lines.size() - 2)).startsWith("... and 44 more");
        assertThat(lines.subList(0, lines.size() - 1))
                .allSatisfy(line -> assertThat(line.replace("\u001b[K", "").replace("\u001b[H", ""))
                        .hasSizeLessThan(40));
        assertThat(LocksView.frame(listing(locks.subList(0, 3)), Duration.ofSeconds(2), 12, 200))
                .doesNotContain("more");
    }

    @Test
    void readWriteLocksAndSemaphoresAreRowsOfTheirKindNamingTheirFirstHolder() {
        Identity writer = new Identity("AbC123", 31, Optional.of("orders"), Optional.of("host-a"),
                OptionalLong.of(4211), Optional.of("writer-1"));
        Identity reader = new Identity("XyZ789", 7, Optional.empty(), Optional.empty(), OptionalLong.empty(),
                Optional.of("reader-1"));
        ReadWriteLockInfo readWrite = new ReadWriteLockInfo("orders", 2, true, Duration.ofSeconds(20), 1732L, 1,
                Optional.of(Duration.ofSeconds(3)), Optional.of(writer), List.of(reader, reader), List.of(reader));
        SemaphoreInfo semaphore = new SemaphoreInfo("pool", 5, 2, 2, Duration.ofSeconds(9), 1733L, 0,
                Optional.empty(), List.of(reader, writer), List.of());
        LocksView.Listing listing = rows(List.of(LocksView.Row.of(semaphore), LocksView.Row.of(readWrite)));

        List<String> lines = LocksView.table(listing).lines().toList();
        assertThat(lines).hasSize(4);
        // The waited-for read-write lock first; its holders: the writer and two readers.
        assertThat(lines.get(1)).startsWith("orders  read-write  write+2r").contains("3.0s")
                .endsWith("orders-AbC123 (host-a, pid 4211, thread writer-1) and 2 more");
        assertThat(lines.get(2)).startsWith("pool    semaphore   3/5").contains("9.0s", "1733")
                .endsWith("client XyZ789 (thread reader-1) and 1 more");
        assertThat(lines.get(3)).startsWith("2 locks held");
        String json = LocksView.json(listing);
        assertThat(json).contains("{\"kind\": \"read-write\", \"name\": \"orders\", \"held\": true, "
                + "\"holders\": 3, ");
        assertThat(json).contains("\"writeLocked\": true, \"readers\": 2, \"writer\": {\"client\": \"AbC123\"");
        assertThat(json).contains("{\"kind\": \"semaphore\", \"name\": \"pool\"");
        assertThat(json).contains("\"permits\": 5, \"available\": 2, \"holding\": [{\"client\": \"XyZ789\"");
    }

    @Test
    void aLockReadsAsAnElectionItsHolderLeadingWithItsTokenAsTheEpoch() {
        Identity leader = new Identity("AbC123", 31, Optional.of("warden-cli"), Optional.of("host-a"),
                OptionalLong.of(4211), Optional.of("main"));
        Identity candidate = new Identity("XyZ789", 7, Optional.empty(), Optional.empty(), OptionalLong.empty(),
                Optional.empty());
        LockInfo led = new LockInfo("billing", true, Duration.ofSeconds(30), 1732L, 1, Optional.of("abcdefgh"),
                Optional.of(Duration.ofSeconds(4)), Optional.of(Duration.ofSeconds(2)), Optional.of(leader),
                List.of(candidate));
        assertThat(LocksView.election(led)).isEqualTo("leader warden-cli-AbC123 (host-a, pid 4211, thread main), "
                + "epoch 1732, 1 candidate waiting");
        // A holder that has not asked for its token: the last one issued is an earlier holder's, not its epoch.
        LockInfo unasked = new LockInfo("billing", true, Duration.ofSeconds(30), 1732L, 2, Optional.of("abcdefgh"),
                Optional.empty(), Optional.empty(), Optional.of(leader), List.of());
        assertThat(LocksView.election(unasked)).isEqualTo("leader warden-cli-AbC123 (host-a, pid 4211, thread main), "
                + "epoch not known yet (no fencing token asked), 2 candidates waiting");
        assertThat(LocksView.election(new LockInfo("billing", false, Duration.ZERO, 1732L, 0)))
                .isEqualTo("no leader (last epoch 1732), 0 candidates waiting");
        assertThat(LocksView.election(new LockInfo("billing", false, Duration.ZERO, 0L, 0)))
                .isEqualTo("no leader, 0 candidates waiting");
    }
}
