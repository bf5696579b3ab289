package trackerlab.trackercheck;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.netty.util.Timer;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.bookkeeper.mledger.ManagedCursor;
import org.apache.pulsar.broker.delayed.DelayedDeliveryTracker;
import org.apache.pulsar.broker.delayed.InMemoryDelayedDeliveryTracker;
import org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTracker;
import org.apache.pulsar.broker.service.persistent.AbstractPersistentDispatcherMultipleConsumers;

/**
 * Builds the delayed-delivery trackers by kind, each through its public constructor with a
 * {@link ManualClock} and an {@link IdleTimer}:
 * <ul>
 *   <li>{@code in-memory}: InMemoryDelayedDeliveryTracker of the release on the class path
 *       (4.2.4: the time buckets of #23611; 4.0.8: the triple heap, #23611 reverted in 4.0.6);
 *   <li>{@code bucket}: PIP-195's BucketDelayedDeliveryTracker, with {@link MemorySnapshotStorage}
 *       and a mocked ManagedCursor whose cursor properties live in a map;
 *   <li>{@code sorted-chunks}: trackerlab.delayed.SortedChunksTracker, loaded by name when it is
 *       on the class path (constructor (dispatcher, Timer, long tick, Clock, boolean strict, long
 *       fixedDelayDetectionLookahead), as InMemoryDelayedDeliveryTracker's).
 * </ul>
 */
public final class Trackers {
    /** The project's own tracker, looked up by name (compiled from ../tracker when present). */
    public static final String SORTED_CHUNKS = "trackerlab.delayed.SortedChunksTracker";
    /** delayedDeliveryFixedDelayDetectionLookahead's default (ServiceConfiguration.java:424 at v4.2.4). */
    public static final long DEFAULT_LOOKAHEAD = 50_000;
    /** delayedDeliveryMinIndexCountPerBucket's default (ServiceConfiguration.java:401 at v4.2.4). */
    public static final long DEFAULT_MIN_INDEX_COUNT_PER_BUCKET = 50_000;
    /** delayedDeliveryMaxTimeStepPerBucketSnapshotSegmentSeconds's default, 300 s (:406 at v4.2.4). */
    public static final long DEFAULT_TIME_STEP_PER_SEGMENT_MS = 300_000;
    /** delayedDeliveryMaxIndexesPerBucketSnapshotSegment's default (:411 at v4.2.4). */
    public static final int DEFAULT_MAX_INDEXES_PER_SEGMENT = 5_000;
    /** delayedDeliveryMaxNumBuckets's default (:417 at v4.2.4). */
    public static final int DEFAULT_MAX_NUM_BUCKETS = -1;

    public static final String TOPIC = "persistent://public/default/trackercheck";
    public static final String SUBSCRIPTION = "sub";

    private Trackers() {
    }

    /** Options of {@link #create}; the defaults are the broker's. */
    public static final class Options {
        public long lookahead = DEFAULT_LOOKAHEAD;
        public long minIndexCountPerBucket = DEFAULT_MIN_INDEX_COUNT_PER_BUCKET;
        public long timeStepPerSegmentMs = DEFAULT_TIME_STEP_PER_SEGMENT_MS;
        public int maxIndexesPerSegment = DEFAULT_MAX_INDEXES_PER_SEGMENT;
        public int maxNumBuckets = DEFAULT_MAX_NUM_BUCKETS;

        public void set(String key, String value) {
            switch (key) {
                case "lookahead" -> lookahead = Long.parseLong(value);
                case "minIndexCountPerBucket" -> minIndexCountPerBucket = Long.parseLong(value);
                case "timeStepPerSegmentMs" -> timeStepPerSegmentMs = Long.parseLong(value);
                case "maxIndexesPerSegment" -> maxIndexesPerSegment = Integer.parseInt(value);
                case "maxNumBuckets" -> maxNumBuckets = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown option " + key);
            }
        }
    }

    /** A dispatcher with a name and a cursor, as the trackers read them (getName, getCursor). */
    public static AbstractPersistentDispatcherMultipleConsumers dispatcher() {
        Map<String, String> properties = new ConcurrentHashMap<>();
        ManagedCursor cursor = mock(ManagedCursor.class);
        when(cursor.getName()).thenReturn(SUBSCRIPTION);
        when(cursor.getCursorProperties()).thenReturn(properties);
        when(cursor.getMarkDeletedPosition()).thenReturn(null); // nothing acknowledged: no pruning
        when(cursor.putCursorProperty(org.mockito.ArgumentMatchers.anyString(),
                org.mockito.ArgumentMatchers.anyString())).thenAnswer(inv -> {
                    properties.put(inv.getArgument(0), inv.getArgument(1));
                    return CompletableFuture.completedFuture(null);
                });
        when(cursor.removeCursorProperty(org.mockito.ArgumentMatchers.anyString())).thenAnswer(inv -> {
            properties.remove(inv.getArgument(0));
            return CompletableFuture.completedFuture(null);
        });
        AbstractPersistentDispatcherMultipleConsumers dispatcher =
                mock(AbstractPersistentDispatcherMultipleConsumers.class);
        when(dispatcher.getName()).thenReturn(TOPIC + " / " + SUBSCRIPTION);
        when(dispatcher.getCursor()).thenReturn(cursor);
        return dispatcher;
    }

    /** Whether the project's own tracker is on the class path. */
    public static boolean sortedChunksPresent() {
        try {
            Class.forName(SORTED_CHUNKS);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    public static DelayedDeliveryTracker create(String kind, long tickMs, boolean strict, Clock clock, Timer timer,
            Options o, AbstractPersistentDispatcherMultipleConsumers dispatcher) throws Exception {
        switch (kind) {
            case "in-memory":
                return new InMemoryDelayedDeliveryTracker(dispatcher, timer, tickMs, clock, strict, o.lookahead);
            case "bucket": {
                MemorySnapshotStorage storage = new MemorySnapshotStorage();
                storage.start();
                return new BucketDelayedDeliveryTracker(dispatcher, timer, tickMs, clock, strict, storage,
                        o.minIndexCountPerBucket, o.timeStepPerSegmentMs, o.maxIndexesPerSegment, o.maxNumBuckets);
            }
            case "sorted-chunks": {
                Class<?> cls;
                try {
                    cls = Class.forName(SORTED_CHUNKS);
                } catch (ClassNotFoundException e) {
                    throw new IllegalArgumentException(SORTED_CHUNKS + " is not on the class path");
                }
                Constructor<?> c = cls.getConstructor(AbstractPersistentDispatcherMultipleConsumers.class,
                        Timer.class, long.class, Clock.class, boolean.class, long.class);
                return (DelayedDeliveryTracker) c.newInstance(dispatcher, timer, tickMs, clock, strict,
                        o.lookahead);
            }
            default:
                throw new IllegalArgumentException("kind must be in-memory, bucket or sorted-chunks, got " + kind);
        }
    }

    /** containsMessage(ledger, entry), where the tracker has one (PIP-195, SortedChunks). */
    public static boolean contains(DelayedDeliveryTracker tracker, long ledgerId, long entryId) throws Exception {
        Method m;
        try {
            m = tracker.getClass().getMethod("containsMessage", long.class, long.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(tracker.getClass().getSimpleName() + " has no containsMessage");
        }
        return (Boolean) m.invoke(tracker, ledgerId, entryId);
    }
}
