package trackerlab.trackercheck;

import java.util.NavigableSet;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.broker.delayed.DelayedDeliveryTracker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Latency of addMessage and getScheduledMessages(100), one call per sample (Mode.SampleTime),
 * for a tracker kind of {@link Trackers} at the broker's defaults (tick 1000 ms, not strict).
 *
 * <p>The stream: positions in publish order, a ledger rolls over every 50,000 entries
 * (managedLedgerMaxEntriesPerLedger's default, ServiceConfiguration.java:2444 at v4.2.4), the clock
 * moves 1 ms every 10 messages (10k msg/s).
 * <ul>
 *   <li>{@code addInOrder}: deliverAt = now + 60 s (a fixed delay: in order);
 *   <li>{@code addOutOfOrder}: deliverAt = now + tick + 1 + uniform[0, 1 h) (out of order);
 *   <li>{@code getScheduled100}: getScheduledMessages(100) from a tracker of {@code prefill}
 *       out-of-order messages, every one due; before each call (outside the timing, Level.Invocation)
 *       the 100 positions the last call returned are added back with new uniform delays, so the
 *       tracker keeps {@code prefill} messages.
 * </ul>
 * The add benchmarks start each iteration from {@code prefill} messages and clear the tracker
 * (one call, inside the timing, once per {@code prefill} adds) when it reaches 2 x prefill.
 */
public class TrackerBench {
    static final int ENTRIES_PER_LEDGER = 50_000;
    static final int MESSAGES_PER_MS = 10;
    static final long FIXED_DELAY_MS = 60_000;
    static final long SPAN_MS = 3_600_000;
    static final long T0_MS = 1_700_000_000_000L;

    /** What the three benchmarks share: one tracker, its clock and the position sequence. */
    @State(Scope.Thread)
    public abstract static class Base {
        @Param({"in-memory"})
        public String kind;
        @Param({"1000"})
        public long tickMs;
        @Param({"1000000"})
        public int prefill;

        ManualClock clock;
        DelayedDeliveryTracker tracker;
        long seq;
        long rng = 0x9E3779B97F4A7C15L;

        void start() throws Exception {
            clock = new ManualClock(T0_MS);
            tracker = Trackers.create(kind, tickMs, false, clock, new IdleTimer(), new Trackers.Options(),
                    Trackers.dispatcher());
            seq = 0;
        }

        /** xorshift64*: uniform in [0, bound). */
        long uniform(long bound) {
            rng ^= rng >>> 12;
            rng ^= rng << 25;
            rng ^= rng >>> 27;
            return Long.remainderUnsigned(rng * 0x2545F4914F6CDD1DL, bound);
        }

        long nowOf(long s) {
            return T0_MS + s / MESSAGES_PER_MS;
        }

        boolean add(long s, long deliverAt) {
            return tracker.addMessage(1 + s / ENTRIES_PER_LEDGER, s % ENTRIES_PER_LEDGER, deliverAt);
        }

        @TearDown(Level.Iteration)
        public void stop() {
            tracker.close();
        }
    }

    public static class InOrder extends Base {
        @Setup(Level.Iteration)
        public void setUp() throws Exception {
            start();
            for (int i = 0; i < prefill; i++) {
                next();
            }
        }

        boolean next() {
            long s = seq++;
            long now = nowOf(s);
            clock.set(now);
            return add(s, now + FIXED_DELAY_MS);
        }
    }

    public static class OutOfOrder extends Base {
        @Setup(Level.Iteration)
        public void setUp() throws Exception {
            start();
            for (int i = 0; i < prefill; i++) {
                next();
            }
        }

        boolean next() {
            long s = seq++;
            long now = nowOf(s);
            clock.set(now);
            return add(s, now + tickMs + 1 + uniform(SPAN_MS));
        }
    }

    public static class Scheduled extends Base {
        long addNowMs;
        long dueNowMs;
        NavigableSet<Position> last;

        @Setup(Level.Iteration)
        public void setUp() throws Exception {
            start();
            for (int i = 0; i < prefill; i++) {
                long s = seq++;
                clock.set(nowOf(s));
                add(s, nowOf(s) + tickMs + 1 + uniform(SPAN_MS));
            }
            addNowMs = nowOf(seq);
            dueNowMs = addNowMs + 2 * SPAN_MS;
            clock.set(dueNowMs);
            last = null;
        }

        @Setup(Level.Invocation)
        public void refill() {
            if (last != null && !last.isEmpty()) {
                clock.set(addNowMs);
                for (Position p : last) {
                    tracker.addMessage(p.getLedgerId(), p.getEntryId(), addNowMs + tickMs + 1 + uniform(SPAN_MS));
                }
                clock.set(dueNowMs);
            }
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean addInOrder(InOrder s) throws Exception {
        if (s.tracker.getNumberOfDelayedMessages() >= 2L * s.prefill) {
            s.tracker.clear().get();
        }
        return s.next();
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean addOutOfOrder(OutOfOrder s) throws Exception {
        if (s.tracker.getNumberOfDelayedMessages() >= 2L * s.prefill) {
            s.tracker.clear().get();
        }
        return s.next();
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public NavigableSet<Position> getScheduled100(Scheduled s) {
        NavigableSet<Position> got = s.tracker.getScheduledMessages(100);
        s.last = got;
        return got;
    }
}
