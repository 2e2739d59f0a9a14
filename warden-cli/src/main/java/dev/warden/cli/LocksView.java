package dev.warden.cli;

import dev.warden.cli.doctor.DoctorJson;

import dev.warden.Identity;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How {@code warden locks} shows a listing of locks of every kind: a table for people, plain or as a terminal's refreshing top-like view,
 * or JSON for scripts (docs/design.md, "Listing locks"). Rows come most contended first: the locks whose waiters
 * have waited longest, then (where no wait is known: nobody queues, or waiters that do not queue) the locks with the
 * most lease left, then by name.
 */
final class LocksView {
    /**
     * One row of the view: a lock of any kind, as the columns show it.
     *
     * @param kind        "lock", "read-write" or "semaphore"
     * @param name        the lock's name
     * @param holder      what holds it, in brief: a lock's holder's token start; "write", "N read", or both as
     *                    "write+Nr", for a read-write lock; "used/permits" for a semaphore; empty when free
     * @param heldFor     how long the holder has held it, where known
     * @param leaseLeft   the (longest) lease left, empty when free
     * @param waiters     how many wait
     * @param longestWait how long the longest waiter has waited, where known
     * @param fence       the last fencing token, 0 if none
     * @param holders     how many leases hold it
     * @param heldBy      who holds it, the first named holder where it has several
     * @param waiting     who waits, longest first, as far as named
     * @param extra       the kind's own fields for JSON, as {@code "name": value} pairs, or ""
     */
    record Row(String kind, String name, Optional<String> holder, Optional<Duration> heldFor,
               Optional<Duration> leaseLeft, int waiters, Optional<Duration> longestWait, long fence, int holders,
               Optional<Identity> heldBy, List<Identity> waiting, String extra) {
        static Row of(LockInfo info) {
            return new Row("lock", info.name(), info.holder(), info.heldFor(),
                    info.held() ? Optional.of(info.remainingLease()) : Optional.empty(), info.waiters(),
                    info.longestWait(), info.lastFencingToken(), info.held() ? 1 : 0, info.holderIdentity(),
                    info.waiting(), "");
        }

        static Row of(ReadWriteLockInfo info) {
            int holders = info.readers() + (info.writeLocked() ? 1 : 0);
            // "write", "3 read", or "write+1r" for a writer that downgraded (or is about to).
            String holder = !info.writeLocked() ? info.readers() + " read"
                    : info.readers() > 0 ? "write+" + info.readers() + "r" : "write";
            Optional<Identity> first = info.writer().or(() -> info.reading().stream().findFirst());
            return new Row("read-write", info.name(), holders > 0 ? Optional.of(holder) : Optional.empty(),
                    Optional.empty(), holders > 0 ? Optional.of(info.longestLease()) : Optional.empty(),
                    info.waiters(), info.longestWait(), info.lastFencingToken(), holders, first, info.waiting(),
                    "\"writeLocked\": " + info.writeLocked() + ", \"readers\": " + info.readers()
                            + ", \"writer\": " + info.writer().map(LocksView::json).orElse("null")
                            + ", \"reading\": " + json(info.reading()));
        }

        static Row of(SemaphoreInfo info) {
            return new Row("semaphore", info.name(),
                    info.holders() > 0 ? Optional.of((info.permits() - info.available()) + "/" + info.permits())
                            : Optional.empty(), Optional.empty(),
                    info.holders() > 0 ? Optional.of(info.longestLease()) : Optional.empty(), info.waiters(),
                    info.longestWait(), info.lastFencingToken(), info.holders(), info.holding().stream().findFirst(),
                    info.waiting(), "\"permits\": " + info.permits() + ", \"available\": " + info.available()
                            + ", \"holding\": " + json(info.holding()));
        }

        /** @return whether someone holds it */
        boolean held() {
            return holders > 0;
        }

        /** @return who holds it, for people: the first holder, and how many more there are */
        Optional<String> describeHolders() {
            return heldBy.map(who -> printable(who.describe()) + (holders > 1 ? " and " + (holders - 1) + " more"
                    : ""));
        }
    }

    /** Longest wait first; unknown waits after every known one, by lease left, longest first; then by name. */
    static final Comparator<Row> ORDER = Comparator
            .comparing((Row row) -> row.longestWait().orElse(null), Comparator.nullsLast(Comparator.reverseOrder()))
            .thenComparing(row -> row.leaseLeft().orElse(Duration.ZERO), Comparator.reverseOrder())
            .thenComparing(Row::name)
            .thenComparing(Row::kind);

    /**
     * The columns after the name: the holder's token's start, then the figures; who holds it comes last, where a
     * narrow terminal cuts it first.
     */
    private static final String COLUMNS = "  %-10s  %-9s  %8s  %10s  %7s  %12s  %-16s  %s";
    /** The widest a name's column grows; a longer name makes its row wider (in a table) or is cut (in a frame). */
    static final int MAX_NAME_WIDTH = 48;
    /** Clears a terminal and puts the cursor at its top left. */
    static final String CLEAR = "\u001b[H\u001b[2J";
    /** Moves the cursor to the top left, to redraw over the last frame. */
    private static final String HOME = "\u001b[H";
    /** Clears the rest of a line, the rest of the screen. */
    private static final String CLEAR_LINE = "\u001b[K";
    private static final String CLEAR_BELOW = "\u001b[J";

    private LocksView() {
    }

    /**
     * One listing, as {@code warden locks} shows it.
     *
     * @param locks        the locks of every kind, in any order
     * @param limitReached whether a listing stopped at its limit, so that more locks may match
     * @param took         how long the listing took
     * @param at           when it was taken
     */
    record Listing(String prefix, String pattern, List<Row> locks, boolean limitReached, Duration took,
                   Instant at) {
        /** @return the locks, most contended first ({@link #ORDER}) */
        List<Row> sorted() {
            List<Row> sorted = new ArrayList<>(locks);
            sorted.sort(ORDER);
            return sorted;
        }

        String summary() {
            return String.format(Locale.ROOT, "%d lock%s held or waited for under prefix '%s' matching '%s'%s "
                            + "(read in %s at %s)", locks.size(), locks.size() == 1 ? "" : "s", prefix, pattern,
                    limitReached ? ", the limit: there may be more" : "", duration(took), at);
        }
    }

    /** The listing as a table, a line per lock under a header, then a summary line; or the summary alone. */
    static String table(Listing listing) {
        StringBuilder out = new StringBuilder();
        List<Row> sorted = listing.sorted();
        if (!sorted.isEmpty()) {
            int width = nameWidth(sorted);
            out.append(header(width)).append('\n');
            for (Row info : sorted) {
                out.append(row(info, width, false)).append('\n');
            }
        }
        return out.append(listing.summary()).append('\n').toString();
    }

    /**
     * One frame of the refreshing view on a terminal of {@code rows} by {@code columns}: drawn over the last one
     * from the top left, every line cut to the width, as many locks as fit, and a line saying how many did not.
     */
    static String frame(Listing listing, Duration interval, int rows, int columns) {
        List<String> lines = new ArrayList<>();
        lines.add("warden locks: every " + duration(interval) + ", Ctrl-C to stop");
        lines.add(listing.summary());
        lines.add("");
        List<Row> sorted = listing.sorted();
        if (!sorted.isEmpty()) {
            int room = Math.max(1, rows - lines.size() - 2);
            int shown = sorted.size() <= room ? sorted.size() : room - 1;
            int width = nameWidth(sorted.subList(0, shown));
            lines.add(header(width));
            for (int i = 0; i < shown; i++) {
                lines.add(row(sorted.get(i), width, true));
            }
            if (shown < sorted.size()) {
                lines.add("... and " + (sorted.size() - shown) + " more");
            }
        }
        StringBuilder out = new StringBuilder(HOME);
        for (String line : lines) {
            out.append(line, 0, Math.min(line.length(), Math.max(1, columns - 1))).append(CLEAR_LINE).append('\n');
        }
        return out.append(CLEAR_BELOW).toString();
    }

    /** The listing as one line of JSON: one object, whose {@code locks} are sorted as the table's rows. */
    static String json(Listing listing) {
        StringBuilder out = new StringBuilder("{\"prefix\": ").append(DoctorJson.string(listing.prefix()))
                .append(", \"pattern\": ").append(DoctorJson.string(listing.pattern()))
                .append(", \"at\": ").append(DoctorJson.string(listing.at().toString()))
                .append(", \"tookMillis\": ").append(listing.took().toMillis())
                .append(", \"count\": ").append(listing.locks().size())
                .append(", \"limitReached\": ").append(listing.limitReached())
                .append(", \"locks\": [");
        String separator = "";
        for (Row info : listing.sorted()) {
            out.append(separator).append("{\"kind\": ").append(DoctorJson.string(info.kind()))
                    .append(", \"name\": ").append(DoctorJson.string(info.name()))
                    .append(", \"held\": ").append(info.held())
                    .append(", \"holders\": ").append(info.holders())
                    .append(", \"holder\": ").append(info.holder().map(DoctorJson::string).orElse("null"))
                    .append(", \"heldForMillis\": ").append(millis(info.heldFor()))
                    .append(", \"leaseLeftMillis\": ").append(millis(info.leaseLeft()))
                    .append(", \"waiters\": ").append(info.waiters())
                    .append(", \"longestWaitMillis\": ").append(millis(info.longestWait()))
                    .append(", \"fence\": ").append(info.fence() == 0 ? "null" : info.fence())
                    .append(", \"heldBy\": ").append(info.heldBy().map(LocksView::json).orElse("null"))
                    .append(", \"waiting\": ").append(json(info.waiting()))
                    .append(info.extra().isEmpty() ? "" : ", " + info.extra())
                    .append("}");
            separator = ", ";
        }
        return out.append("]}\n").toString();
    }

    /** One holder or waiter as a JSON object; what its client's record does not say is null. */
    static String json(Identity who) {
        return "{\"client\": " + DoctorJson.string(who.client())
                + ", \"clientName\": " + who.clientName().map(DoctorJson::string).orElse("null")
                + ", \"host\": " + who.host().map(DoctorJson::string).orElse("null")
                + ", \"pid\": " + (who.pid().isPresent() ? Long.toString(who.pid().getAsLong()) : "null")
                + ", \"threadId\": " + who.threadId()
                + ", \"thread\": " + who.threadName().map(DoctorJson::string).orElse("null") + "}";
    }

    /** Holders or waiters as a JSON array. */
    static String json(List<Identity> who) {
        return "[" + String.join(", ", who.stream().map(LocksView::json).toList()) + "]";
    }

    private static String millis(Optional<Duration> duration) {
        return duration.map(d -> Long.toString(d.toMillis())).orElse("null");
    }

    /** The name column's width: the longest name's, at most {@link #MAX_NAME_WIDTH}. */
    private static int nameWidth(List<Row> locks) {
        int width = "NAME".length();
        for (Row info : locks) {
            width = Math.max(width, Math.min(MAX_NAME_WIDTH, printable(info.name()).length()));
        }
        return width;
    }

    private static String header(int nameWidth) {
        return String.format(Locale.ROOT, "%-" + nameWidth + "s" + COLUMNS, "NAME", "KIND", "HOLDER", "HELD FOR",
                "LEASE LEFT", "WAITERS", "LONGEST WAIT", "FENCE", "HELD BY").stripTrailing();
    }

    /** A lock's row; with {@code cut}, a name wider than its column is cut to it, ending in "~". */
    private static String row(Row info, int nameWidth, boolean cut) {
        String name = printable(info.name());
        if (cut && name.length() > nameWidth) {
            name = name.substring(0, nameWidth - 1) + "~";
        }
        return String.format(Locale.ROOT, "%-" + nameWidth + "s" + COLUMNS, name, info.kind(),
                info.holder().orElse("-"), info.heldFor().map(LocksView::duration).orElse("-"),
                info.leaseLeft().map(LocksView::duration).orElse("-"), info.waiters(),
                info.longestWait().map(LocksView::duration).orElse("-"),
                info.fence() == 0 ? "-" : Long.toString(info.fence()), info.describeHolders().orElse("-"));
    }

    /**
     * A lock read as an election ({@code warden lead}, {@code LockClient.leadership}): its holder is the leader, the
     * holder's fencing token the term's epoch, its waiters the candidates. The token is the holder's only where it
     * has asked for one (a leader asks as it is elected; {@code heldFor} is known from then), else the epoch is not
     * known yet.
     *
     * @return {@code "leader <who>, epoch <fence>, <n> candidates waiting"}, or {@code "no leader (last epoch <fence>),
     *         <n> candidates waiting"}
     */
    static String election(LockInfo info) {
        String candidates = info.waiters() + (info.waiters() == 1 ? " candidate" : " candidates") + " waiting";
        if (!info.held()) {
            return "no leader" + (info.lastFencingToken() == 0 ? "" : " (last epoch " + info.lastFencingToken() + ")")
                    + ", " + candidates;
        }
        String leader = info.holderIdentity().map(Identity::describe).map(LocksView::printable)
                .orElse(info.holder().orElse("-"));
        String epoch = info.heldFor().isPresent() && info.lastFencingToken() > 0
                ? "epoch " + info.lastFencingToken() : "epoch not known yet (no fencing token asked)";
        return "leader " + leader + ", " + epoch + ", " + candidates;
    }

    /** A name with its control characters written as {@code \xNN}, so that each lock stays on its line. */
    static String printable(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** A duration for people: 850ms, 12.3s, 4m05s, 2h03m, 3d04h. */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms < 1_000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", Math.floor(ms / 100.0) / 10);
        }
        long s = ms / 1_000;
        if (s < 3_600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3_600, s % 3_600 / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3_600);
    }
}
