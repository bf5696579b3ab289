package trackerlab.delayed;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.Position;
import org.openjdk.jol.info.GraphLayout;
import trackerlab.pulsar.MeasureAccess;

/**
 * Replays {@code addMessage} on a {@link SortedChunksTracker} and prints the JOL deep size of its
 * index. Usage:
 * <pre>
 *   SizeCheck FILE TICK_MS STRICT [SCHEDULED_N NOW_MS] [--positions] [--chunks]
 *             [--contains=LEDGER:ENTRY,...]
 * </pre>
 * FILE holds big-endian longs, four per message: ledgerId, entryId, deliverAt (ms), now (ms).
 * A row whose ledgerId is -1 is a dispatch: {@code getScheduledMessages(entryId)} at its now
 * (deliverAt ignored), printed as {@code step K COUNT} and, with {@code --positions},
 * {@code stepposition K LEDGER ENTRY} lines (K counts dispatch rows from 0); so add and
 * dispatch can interleave as in a broker.
 * The tracker gets a null dispatcher (AbstractDelayedDeliveryTracker reads it only in debug
 * logs and in the timer's run), a no-op {@link Timer} and a clock set to each message's now;
 * the fixed-delay lookahead is 50000 (ServiceConfiguration.java:424 at v4.2.4; it does not
 * change the index). With SCHEDULED_N, {@code getScheduledMessages(SCHEDULED_N)} runs at
 * NOW_MS after the replay and the index is measured again; {@code --positions} prints what it
 * returned, in the returned set's order; {@code --chunks} prints every chunk of each phase in
 * index order; {@code --contains} asks {@code containsMessage} for each position in each phase.
 *
 * <p>Output, tab-separated: {@code jvm DETAILS}, {@code added TRACKED REFUSED}, then per phase
 * ({@code add}, {@code scheduled}): {@code size PHASE TOTAL TREESET PROBE MEMBERSHIP} (JOL
 * GraphLayout totalSize in bytes: the three roots together, then each alone),
 * {@code buffer PHASE BYTES} (getBufferMemoryUsage), {@code count PHASE N}
 * (getNumberOfDelayedMessages), {@code chunks PHASE CHUNKS MAX_LENGTH MAX_CAPACITY
 * CAPACITY_SUM}, {@code classes PHASE HISTOGRAM}, with {@code --chunks}
 * {@code chunk PHASE FIRST_TICK FIRST_LEDGER FIRST_ENTRY LAST_TICK LAST_LEDGER LAST_ENTRY COUNT
 * LENGTH READ_OFFSET CAPACITY} and {@code chunkdata PHASE HEX} (the unread token bytes, from
 * READ_OFFSET, LENGTH bytes, lower-case hex), with {@code --contains} {@code contains PHASE LEDGER ENTRY
 * true|false}; and {@code scheduled N} with {@code position LEDGER ENTRY} lines. Refuses to run without Instrumentation (exit 3); bad
 * arguments: one line on stderr, exit 2; a message outside the design's stated limits (a
 * negative id, a delta of 2^62 or more): one line, exit 4.
 */
public final class SizeCheck {
    /** The ledger id of a dispatch row (no real ledger id is negative). */
    static final long DISPATCH = -1;

    private SizeCheck() {
    }

    /** A clock the replay sets. */
    static final class ManualClock extends Clock {
        long now;

        @Override
        public long millis() {
            return now;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /** A timer that never fires: updateTimer() only needs newTimeout and cancel. */
    static final class NoopTimer implements Timer {
        @Override
        public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
            Timer timer = this;
            return new Timeout() {
                private boolean cancelled;

                @Override
                public Timer timer() {
                    return timer;
                }

                @Override
                public TimerTask task() {
                    return task;
                }

                @Override
                public boolean isExpired() {
                    return false;
                }

                @Override
                public boolean isCancelled() {
                    return cancelled;
                }

                @Override
                public boolean cancel() {
                    cancelled = true;
                    return true;
                }
            };
        }

        @Override
        public Set<Timeout> stop() {
            return Collections.emptySet();
        }
    }

    private static void usage(String message) {
        System.err.println(message);
        System.exit(2);
    }

    private static long parseLong(String text, String name, long min) {
        try {
            long v = Long.parseLong(text);
            if (v >= min) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        usage(name + " must be an integer >= " + min + ", got " + text);
        return 0;
    }

    public static void main(String[] args) throws Exception {
        boolean positions = false;
        List<String> rest = new ArrayList<>();
        List<long[]> contains = new ArrayList<>();
        for (String a : args) {
            if (a.equals("--positions")) {
                positions = true;
            } else if (a.equals("--chunks")) {
                listChunks = true;
            } else if (a.startsWith("--contains=")) {
                for (String pair : a.substring("--contains=".length()).split(",")) {
                    String[] le = pair.split(":");
                    if (le.length != 2) {
                        usage("--contains takes LEDGER:ENTRY pairs separated by commas, got " + pair);
                    }
                    contains.add(new long[] {parseLong(le[0], "LEDGER", 0), parseLong(le[1], "ENTRY", 0)});
                }
            } else {
                rest.add(a);
            }
        }
        if (rest.size() != 3 && rest.size() != 5) {
            usage("usage: SizeCheck FILE TICK_MS STRICT [SCHEDULED_N NOW_MS] [--positions] [--chunks] "
                    + "[--contains=LEDGER:ENTRY,...]");
        }
        long tick = parseLong(rest.get(1), "TICK_MS", 1);
        String strictText = rest.get(2);
        if (!strictText.equals("true") && !strictText.equals("false")) {
            usage("STRICT must be true or false, got " + strictText);
        }
        boolean strict = strictText.equals("true");
        long scheduled = -1;
        long scheduleAt = 0;
        if (rest.size() == 5) {
            scheduled = parseLong(rest.get(3), "SCHEDULED_N", 0);
            if (scheduled > Integer.MAX_VALUE) {
                usage("SCHEDULED_N must be at most " + Integer.MAX_VALUE + ", got " + scheduled);
            }
            scheduleAt = parseLong(rest.get(4), "NOW_MS", Long.MIN_VALUE);
        }
        String details;
        try {
            details = MeasureAccess.requireInstrumentation();
        } catch (Exception e) {
            System.err.println("SizeCheck refuses to measure: " + e.getMessage());
            System.exit(3);
            return;
        }
        System.out.println("jvm\t" + details.replace('\n', ' ').replace('\t', ' ').trim());

        ManualClock clock = new ManualClock();
        SortedChunksTracker tracker = new SortedChunksTracker(null, new NoopTimer(), tick, clock,
                strict, 50_000);
        long tracked = 0;
        long refused = 0;
        long steps = 0;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(
                new FileInputStream(rest.get(0)), 1 << 16))) {
            while (true) {
                long ledger;
                try {
                    ledger = in.readLong();
                } catch (EOFException end) {
                    break;
                }
                long entry = in.readLong();
                long deliverAt = in.readLong();
                clock.now = in.readLong();
                if (ledger == DISPATCH) {
                    if (entry < 0 || entry > Integer.MAX_VALUE) {
                        usage("a dispatch row's count must be in [0, 2^31), got " + entry);
                    }
                    NavigableSet<Position> out = tracker.getScheduledMessages((int) entry);
                    System.out.println("step\t" + steps + "\t" + out.size());
                    if (positions) {
                        for (Position p : out) {
                            System.out.println("stepposition\t" + steps + "\t" + p.getLedgerId() + "\t"
                                    + p.getEntryId());
                        }
                    }
                    steps++;
                    continue;
                }
                boolean kept;
                try {
                    kept = tracker.addMessage(ledger, entry, deliverAt);
                } catch (IllegalArgumentException e) {
                    System.err.println("message " + (tracked + refused) + ": " + e.getMessage());
                    System.exit(4);
                    return;
                }
                if (kept) {
                    tracked++;
                } else {
                    refused++;
                }
            }
        } catch (EOFException e) {
            usage("FILE must hold 4 big-endian longs per message: " + rest.get(0));
        } catch (IOException e) {
            usage("FILE cannot be read: " + e.getMessage());
        }
        System.out.println("added\t" + tracked + "\t" + refused);
        report("add", tracker, contains);
        if (scheduled >= 0) {
            clock.now = scheduleAt;
            NavigableSet<Position> out = tracker.getScheduledMessages((int) scheduled);
            System.out.println("scheduled\t" + out.size());
            if (positions) {
                for (Position p : out) {
                    System.out.println("position\t" + p.getLedgerId() + "\t" + p.getEntryId());
                }
            }
            report("scheduled", tracker, contains);
        }
        tracker.close();
    }

    private static boolean listChunks;

    private static void report(String phase, SortedChunksTracker tracker, List<long[]> contains) {
        Object set = tracker.index();
        Object probe = tracker.probe();
        Object map = tracker.membership();
        GraphLayout all = GraphLayout.parseInstance(set, probe, map);
        System.out.println("size\t" + phase + "\t" + all.totalSize()
                + "\t" + GraphLayout.parseInstance(set).totalSize()
                + "\t" + GraphLayout.parseInstance(probe).totalSize()
                + "\t" + GraphLayout.parseInstance(map).totalSize());
        System.out.println("buffer\t" + phase + "\t" + tracker.getBufferMemoryUsage());
        System.out.println("count\t" + phase + "\t" + tracker.getNumberOfDelayedMessages());
        long[] s = tracker.chunkStats();
        System.out.println("chunks\t" + phase + "\t" + s[0] + "\t" + s[1] + "\t" + s[2] + "\t" + s[3]);
        System.out.println("classes\t" + phase + "\t" + MeasureAccess.classes(all));
        if (listChunks) {
            NavigableSet<Chunk> index = tracker.index();
            for (Chunk c = index.isEmpty() ? null : index.first(); c != null; c = index.higher(c)) {
                System.out.println("chunk\t" + phase + "\t" + c.firstTick + "\t" + c.firstLedger + "\t"
                        + c.firstEntry + "\t" + c.lastTick + "\t" + c.lastLedger + "\t" + c.lastEntry
                        + "\t" + c.count + "\t" + c.length + "\t" + c.readOffset + "\t" + c.data.length);
                StringBuilder hex = new StringBuilder(2 * c.length);
                for (int i = c.readOffset; i < c.readOffset + c.length; i++) {
                    hex.append(Character.forDigit((c.data[i] >> 4) & 15, 16))
                            .append(Character.forDigit(c.data[i] & 15, 16));
                }
                System.out.println("chunkdata\t" + phase + "\t" + hex);
            }
        }
        for (long[] p : contains) {
            System.out.println("contains\t" + phase + "\t" + p[0] + "\t" + p[1] + "\t"
                    + tracker.containsMessage(p[0], p[1]));
        }
    }
}
