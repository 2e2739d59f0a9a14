package dev.warden.cli;

import dev.warden.Identity;
import dev.warden.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How {@code warden locks} shows a listing: a table for people, plain or as a terminal's refreshing top-like view,
 * or JSON for scripts (docs/design.md, "Listing locks"). Rows come most contended first: the locks whose waiters
 * have waited longest, then (where no wait is known: nobody queues, or waiters that do not queue) the locks with the
 * most lease left, then by name.
 */
final class LocksView {
    /** Longest wait first; unknown waits after every known one, by lease left, longest first; then by name. */
    static final Comparator<LockInfo> ORDER = Comparator
            .comparing((LockInfo info) -> info.longestWait().orElse(null),
                    Comparator.nullsLast(Comparator.reverseOrder()))
            .thenComparing(LockInfo::remainingLease, Comparator.reverseOrder())
            .thenComparing(LockInfo::name);

    /**
     * The columns after the name: the holder's token's start, then the figures; who holds it comes last, where a
     * narrow terminal cuts it first.
     */
    private static final String COLUMNS = "  %-8s  %8s  %10s  %7s  %12s  %-16s  %s";
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
     * @param locks        the locks, in any order
     * @param limitReached whether the listing stopped at its limit, so that more locks may match
     * @param took         how long the listing took
     * @param at           when it was taken
     */
    record Listing(String prefix, String pattern, List<LockInfo> locks, boolean limitReached, Duration took,
                   Instant at) {
        /** @return the locks, most contended first ({@link #ORDER}) */
        List<LockInfo> sorted() {
            List<LockInfo> sorted = new ArrayList<>(locks);
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
        List<LockInfo> sorted = listing.sorted();
        if (!sorted.isEmpty()) {
            int width = nameWidth(sorted);
            out.append(header(width)).append('\n');
            for (LockInfo info : sorted) {
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
        List<LockInfo> sorted = listing.sorted();
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
        for (LockInfo info : listing.sorted()) {
            out.append(separator).append("{\"name\": ").append(DoctorJson.string(info.name()))
                    .append(", \"held\": ").append(info.held())
                    .append(", \"holder\": ").append(info.holder().map(DoctorJson::string).orElse("null"))
                    .append(", \"heldForMillis\": ").append(millis(info.heldFor()))
                    .append(", \"leaseLeftMillis\": ").append(info.held() ? info.remainingLease().toMillis() : "null")
                    .append(", \"waiters\": ").append(info.waiters())
                    .append(", \"longestWaitMillis\": ").append(millis(info.longestWait()))
                    .append(", \"fence\": ").append(info.lastFencingToken() == 0 ? "null" : info.lastFencingToken())
                    .append(", \"heldBy\": ").append(info.holderIdentity().map(LocksView::json).orElse("null"))
                    .append(", \"waiting\": [")
                    .append(String.join(", ", info.waiting().stream().map(LocksView::json).toList()))
                    .append("]}");
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

    private static String millis(Optional<Duration> duration) {
        return duration.map(d -> Long.toString(d.toMillis())).orElse("null");
    }

    /** The name column's width: the longest name's, at most {@link #MAX_NAME_WIDTH}. */
    private static int nameWidth(List<LockInfo> locks) {
        int width = "NAME".length();
        for (LockInfo info : locks) {
            width = Math.max(width, Math.min(MAX_NAME_WIDTH, printable(info.name()).length()));
        }
        return width;
    }

    private static String header(int nameWidth) {
        return String.format(Locale.ROOT, "%-" + nameWidth + "s" + COLUMNS, "NAME", "HOLDER", "HELD FOR",
                "LEASE LEFT", "WAITERS", "LONGEST WAIT", "FENCE", "HELD BY").stripTrailing();
    }

    /** A lock's row; with {@code cut}, a name wider than its column is cut to it, ending in "~". */
    private static String row(LockInfo info, int nameWidth, boolean cut) {
        String name = printable(info.name());
        if (cut && name.length() > nameWidth) {
            name = name.substring(0, nameWidth - 1) + "~";
        }
        return String.format(Locale.ROOT, "%-" + nameWidth + "s" + COLUMNS, name,
                info.holder().orElse("-"), info.heldFor().map(LocksView::duration).orElse("-"),
                info.held() ? duration(info.remainingLease()) : "-", info.waiters(),
                info.longestWait().map(LocksView::duration).orElse("-"),
                info.lastFencingToken() == 0 ? "-" : Long.toString(info.lastFencingToken()),
                info.holderIdentity().map(Identity::describe).map(LocksView::printable).orElse("-"));
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
