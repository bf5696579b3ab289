package trackerlab.pulsar;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;
import static org.mockito.Mockito.withSettings;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.RedeliveryBackoff;
import org.apache.pulsar.client.impl.ConsumerImpl;
import org.apache.pulsar.client.impl.MessageIdImpl;
import org.apache.pulsar.client.impl.PulsarClientImpl;
import org.apache.pulsar.client.impl.conf.ConsumerConfigurationData;
import org.apache.pulsar.common.util.collections.ConcurrentLongLongPairHashMap;
import org.apache.pulsar.common.util.collections.TripleLongPriorityQueue;

/**
 * Builds Pulsar's own structures through Pulsar's own methods from rows of longs, and
 * measures them. Each builder names the Java method it calls; rows come in insertion order.
 */
final class Structures {
    private Structures() {
    }

    /** One measured structure: JOL heap bytes and the figures beside it (-1: not applicable). */
    static final class Result {
        long heapBytes = -1;
        long bufferMemoryUsage = -1;
        long directPoolDelta = -1;
        long directCapacity = -1;
        long directReserved = -1;
        /** heap bytes once the broker's metric has run (its views stay cached); -1: same */
        long heapAfterMetric = -1;
        long added;
        int tries = 1;
        String root = "";
        String classes = "";

        void heap(org.openjdk.jol.info.GraphLayout layout) {
            heapBytes = layout.totalSize();
            classes = Measure.classes(layout);
        }
    }

    interface Builder {
        Result build(long[][] rows, Map<String, String> params) throws Exception;
    }

    static Builder forKind(String kind) {
        switch (kind) {
            case "triple-queue":
                return Structures::tripleQueue;
            case "pair-map":
                return Structures::pairMap;
            case "consumer-pending-acks":
                return Structures::consumerPendingAcks;
            case "pending-acks-map":
                return Structures::pendingAcksMap;
            case "delayed-tracker":
                return Structures::delayedTracker;
            case "nack-tracker":
                return Structures::nackTracker;
            case "roaring64":
                return Structures::roaring64;
            case "bucket-tracker":
                return Structures::bucketTracker;
            default:
                throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    // ------------------------------------------------------------------ pulsar-common

    /** {@code TripleLongPriorityQueue.add(n1, n2, n3)} on a default queue; rows (n1, n2, n3). */
    static Result tripleQueue(long[][] rows, Map<String, String> params) throws Exception {
        long poolBefore = Measure.poolDirectBytes();
        TripleLongPriorityQueue queue = new TripleLongPriorityQueue();
        for (long[] r : rows) {
            queue.add(r[0], r[1], r[2]);
        }
        Result result = measureWithBuffers(queue, poolBefore);
        Method capacity = Reflect.method(queue.getClass(), "bytesCapacity", 0);
        result.bufferMemoryUsage = capacity != null ? ((Number) capacity.invoke(queue)).longValue() : -1;
        result.added = rows.length;
        result.root = "TripleLongPriorityQueue";
        return result;
    }

    /** {@code ConcurrentLongLongPairHashMap.newBuilder()...build().put(k1, k2, v1, v2)};
     * params expected, concurrency, autoshrink; rows (k1, k2, v1, v2). */
    static Result pairMap(long[][] rows, Map<String, String> params) throws Exception {
        ConcurrentLongLongPairHashMap map = ConcurrentLongLongPairHashMap.newBuilder()
                .expectedItems(Integer.parseInt(params.getOrDefault("expected", "16")))
                .concurrencyLevel(Integer.parseInt(params.getOrDefault("concurrency", "16")))
                .autoShrink(Boolean.parseBoolean(params.getOrDefault("autoshrink", "false")))
                .build();
        for (long[] r : rows) {
            map.put(r[0], r[1], r[2], r[3]);
        }
        Result result = new Result();
        result.heap(Measure.heap(map, Collections.emptyList()));
        result.added = map.size();
        result.root = "ConcurrentLongLongPairHashMap";
        return result;
    }

    /** Before 4.0, {@code Consumer.pendingAcks} as Consumer's constructor builds it:
     * {@code newBuilder().autoShrink(conf.isAutoShrinkForConsumerPendingAcksMap())
     * .expectedItems(256).concurrencyLevel(1)}, the flag read from this release's
     * ServiceConfiguration; {@code put(ledgerId, entryId, batchSize, stickyKeyHash)}. */
    static Result consumerPendingAcks(long[][] rows, Map<String, String> params) throws Exception {
        Class<?> consumer = Class.forName("org.apache.pulsar.broker.service.Consumer");
        Field field = Reflect.findField(consumer, "pendingAcks");
        if (field == null || field.getType() != ConcurrentLongLongPairHashMap.class) {
            throw new IllegalStateException("this release's Consumer.pendingAcks is "
                    + (field == null ? "absent" : field.getType().getName()));
        }
        Object conf = Class.forName("org.apache.pulsar.broker.ServiceConfiguration")
                .getConstructor().newInstance();
        boolean autoShrink = (Boolean) Reflect.method(conf.getClass(),
                "isAutoShrinkForConsumerPendingAcksMap", 0).invoke(conf);
        params.put("expected", "256");
        params.put("concurrency", "1");
        params.put("autoshrink", Boolean.toString(autoShrink));
        Result result = pairMap(rows, params);
        result.root = "Consumer.pendingAcks (ConcurrentLongLongPairHashMap, autoShrink "
                + autoShrink + ")";
        return result;
    }

    /** {@code Roaring64Bitmap.addLong(value)} of the RoaringBitmap release this Pulsar
     * release pins; rows (value). */
    static Result roaring64(long[][] rows, Map<String, String> params) throws Exception {
        Class<?> type = Class.forName("org.roaringbitmap.longlong.Roaring64Bitmap");
        Object bitmap = type.getConstructor().newInstance();
        Method add = type.getMethod("addLong", long.class);
        for (long[] r : rows) {
            add.invoke(bitmap, r[0]);
        }
        Result result = new Result();
        result.heap(Measure.heap(bitmap, Collections.emptyList()));
        try {
            result.bufferMemoryUsage = ((Number) type.getMethod("getLongSizeInBytes")
                    .invoke(bitmap)).longValue();
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (!(e.getCause() instanceof UnsupportedOperationException)) {
                throw e;
            }
            result.bufferMemoryUsage = -1;  // RoaringBitmap 0.9.15 (Pulsar 2.11.0) lacks it
        }
        result.added = ((Number) type.getMethod("getLongCardinality").invoke(bitmap)).longValue();
        result.root = "Roaring64Bitmap";
        return result;
    }

    // ------------------------------------------------------------------ pulsar-broker

    /** 4.0+: {@code PendingAcksMap.addPendingAckIfAllowed(ledgerId, entryId, batchSize,
     * stickyKeyHash)} on a map of a stub-only mocked Consumer; rooted at {@code pendingAcks}. */
    static Result pendingAcksMap(long[][] rows, Map<String, String> params) throws Exception {
        Class<?> type = Class.forName("org.apache.pulsar.broker.service.PendingAcksMap");
        Class<?> consumerType = Class.forName("org.apache.pulsar.broker.service.Consumer");
        Object consumer = mock(consumerType, withSettings().stubOnly());
        Supplier<Object> none = () -> null;
        Constructor<?> c3 = Reflect.constructor(type, consumerType, Supplier.class, Supplier.class);
        Object map;
        if (c3 != null) {
            map = c3.newInstance(consumer, none, none);
        } else {
            Constructor<?> c4 = Reflect.constructor(type, consumerType, Supplier.class,
                    Supplier.class, boolean.class);
            if (c4 == null) {
                throw new IllegalStateException("no known PendingAcksMap constructor");
            }
            map = c4.newInstance(consumer, none, none, false);
        }
        Method add = type.getMethod("addPendingAckIfAllowed", long.class, long.class, int.class,
                int.class);
        long added = 0;
        for (long[] r : rows) {
            if ((Boolean) add.invoke(map, r[0], r[1], (int) r[2], (int) r[3])) {
                added++;
            }
        }
        Result result = new Result();
        result.heap(Measure.heap(Reflect.get(map, "pendingAcks"), Collections.emptyList()));
        result.added = added;
        result.root = "PendingAcksMap.pendingAcks";
        return result;
    }

    /** {@code InMemoryDelayedDeliveryTracker.addMessage(ledgerId, entryId, deliverAt)} with a
     * mocked dispatcher and Timer and a fixed Clock (as Pulsar's InMemoryDeliveryTrackerTest),
     * the clock pinned at {@code clock_ms} so that nothing is cut off; params tick_ms, strict,
     * lookahead, clock_ms; rows (deliverAt, ledgerId, entryId). Rooted at {@code priorityQueue}
     * (heap form) or {@code delayedMessageMap} (time-bucket form). */
    static Result delayedTracker(long[][] rows, Map<String, String> params) throws Exception {
        Class<?> type = Class.forName("org.apache.pulsar.broker.delayed.InMemoryDelayedDeliveryTracker");
        Constructor<?> ctor = null;
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 6 && p[1] == Timer.class && p[3] == Clock.class) {
                ctor = c;
            }
        }
        if (ctor == null) {
            throw new IllegalStateException("no (dispatcher, Timer, long, Clock, boolean, long) "
                    + "constructor");
        }
        ctor.setAccessible(true);
        Object dispatcher = mock(ctor.getParameterTypes()[0]);
        Timer timer = mock(Timer.class);
        when(timer.newTimeout(org.mockito.ArgumentMatchers.any(), org.mockito.ArgumentMatchers.anyLong(),
                org.mockito.ArgumentMatchers.any())).thenReturn(mock(Timeout.class));
        Clock clock = Clock.fixed(Instant.ofEpochMilli(Long.parseLong(params.getOrDefault("clock_ms",
                "0"))), ZoneOffset.UTC);
        long poolBefore = Measure.poolDirectBytes();
        Object tracker = ctor.newInstance(dispatcher, timer,
                Long.parseLong(params.getOrDefault("tick_ms", "1000")), clock,
                Boolean.parseBoolean(params.getOrDefault("strict", "false")),
                Long.parseLong(params.getOrDefault("lookahead", "50000")));
        Method add = type.getMethod("addMessage", long.class, long.class, long.class);
        long added = 0;
        for (long[] r : rows) {
            if ((Boolean) add.invoke(tracker, r[1], r[2], r[0])) {
                added++;
            }
        }
        String rootField = Reflect.firstField(tracker, "priorityQueue", "delayedMessageMap");
        Object root = Reflect.get(tracker, rootField);
        // measured before getBufferMemoryUsage(), whose values() views the fastutil maps cache
        Result result = rootField.equals("priorityQueue")
                ? measureWithBuffers(root, poolBefore) : new Result();
        if (!rootField.equals("priorityQueue")) {
            result.heap(Measure.heap(root, Collections.emptyList()));
        }
        Method metric = Reflect.method(type, "getBufferMemoryUsage", 0);  // 2.11+ (#15867)
        result.bufferMemoryUsage = metric == null ? -1
                : ((Number) metric.invoke(tracker)).longValue();
        if (metric != null && !rootField.equals("priorityQueue")) {
            result.heapAfterMetric = Measure.heap(root, Collections.emptyList()).totalSize();
        }
        result.added = added;
        result.root = "InMemoryDelayedDeliveryTracker." + rootField;
        return result;
    }

    /** PIP-195 (3.0+): {@code BucketDelayedDeliveryTracker.addMessage(ledgerId, entryId,
     * deliverAt)} with a mocked dispatcher whose cursor has no properties (nothing to
     * recover), a mocked {@code BucketSnapshotStorage} kept in memory, a mocked Timer and a
     * fixed Clock; params tick_ms, min_index_count (minIndexCountPerBucket), clock_ms; rows
     * (deliverAt, ledgerId, entryId). Rooted at the mutable bucket's {@code priorityQueue} and
     * {@code delayedIndexBitMap} and the tracker's {@code sharedBucketPriorityQueue}: what the
     * tracker holds in memory, immutable buckets apart. */
    static Result bucketTracker(long[][] rows, Map<String, String> params) throws Exception {
        Class<?> type = Class.forName(
                "org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTracker");
        Class<?> storageType = Class.forName(
                "org.apache.pulsar.broker.delayed.bucket.BucketSnapshotStorage");
        Constructor<?> ctor = null;
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 10 && p[3] == Clock.class) {
                ctor = c;
            }
        }
        if (ctor == null) {
            throw new IllegalStateException("no BucketDelayedDeliveryTracker constructor with a "
                    + "Clock and 10 parameters");
        }
        ctor.setAccessible(true);
        Class<?> dispatcherType = ctor.getParameterTypes()[0];
        Object dispatcher = mock(dispatcherType);
        Class<?> cursorType = Class.forName("org.apache.bookkeeper.mledger.ManagedCursor");
        Object cursor = mock(cursorType);
        when(dispatcherType.getMethod("getCursor").invoke(dispatcher)).thenReturn(cursor);
        when(dispatcherType.getMethod("getName").invoke(dispatcher)).thenReturn("trackerlab");
        Timer timer = mock(Timer.class);
        Clock clock = Clock.fixed(Instant.ofEpochMilli(Long.parseLong(params.getOrDefault("clock_ms",
                "0"))), ZoneOffset.UTC);
        long poolBefore = Measure.poolDirectBytes();
        Object tracker = ctor.newInstance(dispatcher, timer,
                Long.parseLong(params.getOrDefault("tick_ms", "1000")), clock, false,
                mock(storageType), Long.parseLong(params.getOrDefault("min_index_count", "50000")),
                300_000L, 5000, -1);
        Method add = type.getMethod("addMessage", long.class, long.class, long.class);
        long added = 0;
        for (long[] r : rows) {
            if ((Boolean) add.invoke(tracker, r[1], r[2], r[0])) {
                added++;
            }
        }
        Object mutable = Reflect.get(tracker, "lastMutableBucket");
        Object[] roots = {Reflect.get(mutable, "priorityQueue"),
            Reflect.get(mutable, "delayedIndexBitMap"), Reflect.get(tracker, "sharedBucketPriorityQueue")};
        List<Measure.Slot> buffers = new java.util.ArrayList<>();
        for (Object root : roots) {
            buffers.addAll(Measure.byteBufs(root));
        }
        Result result = new Result();
        result.heap(Measure.heap(roots, buffers));
        long objects = Measure.bufferObjects(buffers);
        result.heapBytes += objects;
        result.classes += "," + "ByteBuf*" + buffers.size() + "=" + objects;
        result.directPoolDelta = Measure.poolDirectBytes() - poolBefore;
        result.directCapacity = Measure.bufferCapacity(buffers);
        result.directReserved = Measure.bufferReserved(buffers);
        result.bufferMemoryUsage = ((Number) type.getMethod("getBufferMemoryUsage")
                .invoke(tracker)).longValue();
        Object immutable = Reflect.get(tracker, "immutableBuckets");
        int sealed = ((Map<?, ?>) immutable.getClass().getMethod("asMapOfRanges")
                .invoke(immutable)).size();
        if (sealed != 0) {
            throw new IllegalStateException(sealed + " bucket(s) sealed: the case must stay "
                    + "below minIndexCountPerBucket");
        }
        result.added = added;
        result.root = "BucketDelayedDeliveryTracker (mutable bucket + shared queue)";
        return result;
    }

    // ------------------------------------------------------------------ pulsar-client

    /** A RedeliveryBackoff that makes the tracker's {@code System.currentTimeMillis() +
     * backoff} equal the row's deliverAt (PIP-393 form only; earlier forms store nanoTime
     * values whose size does not depend on them). */
    static final class TargetBackoff implements RedeliveryBackoff {
        volatile long targetMs;

        @Override
        public long next(int redeliveryCount) {
            return targetMs - System.currentTimeMillis();
        }
    }

    /** {@code NegativeAcksTracker.add(MessageId)} of {@code MessageIdImpl(ledgerId, entryId,
     * partition)} with a mocked ConsumerImpl whose client's timer is a mock; params
     * precision_bits (negativeAckPrecisionBitCnt, 4.0.2+), partition; rows (deliverAt,
     * ledgerId, entryId). Rooted at {@code nackedMessages} (and, on 4.2+, the
     * {@code nackedMessageIds} map beside it). The PIP-393 form keys by wall
     * time: a row lands at its deliverAt unless the millisecond turns inside add(), so its
     * content is checked after the build and the build repeated (up to 5 tries). */
    static Result nackTracker(long[][] rows, Map<String, String> params) throws Exception {
        Class<?> type = Class.forName("org.apache.pulsar.client.impl.NegativeAcksTracker");
        Field mapField = Reflect.findField(type, "nackedMessages");
        boolean timeKeyed = mapField.getGenericType().getTypeName().contains("Long2Object");
        int bits = Integer.parseInt(params.getOrDefault("precision_bits", "8"));
        int partition = Integer.parseInt(params.getOrDefault("partition", "-1"));
        for (int attempt = 1; ; attempt++) {
            ConsumerImpl<?> consumer = mock(ConsumerImpl.class);
            PulsarClientImpl client = mock(PulsarClientImpl.class);
            Timer timer = mock(Timer.class);
            when(consumer.getClient()).thenReturn(client);
            when(client.timer()).thenReturn(timer);
            ConsumerConfigurationData<?> conf = new ConsumerConfigurationData<>();
            TargetBackoff backoff = new TargetBackoff();
            if (timeKeyed) {
                Reflect.set(conf, "negativeAckPrecisionBitCnt", bits);
                Reflect.set(conf, "negativeAckRedeliveryBackoff", backoff);
            }
            Constructor<?> ctor = Reflect.constructor(type, ConsumerImpl.class,
                    ConsumerConfigurationData.class);
            Object tracker = ctor.newInstance(consumer, conf);
            Method add = type.getDeclaredMethod("add", MessageId.class);
            add.setAccessible(true);
            for (long[] r : rows) {
                backoff.targetMs = r[0];
                add.invoke(tracker, new MessageIdImpl(r[1], r[2], partition));
            }
            Object root = mapField.get(tracker);
            // 4.2+: nackedMessageIds, allocated by the constructor (traced or chunked ids only)
            Field idsField = Reflect.findField(type, "nackedMessageIds");
            Object ids = idsField == null ? null : idsField.get(tracker);
            Result result = new Result();
            if (root == null && ids == null) {
                result.heapBytes = 0;
            } else {  // measured before the check below, whose entrySet() views the maps cache
                Object[] roots = root == null ? new Object[] {ids}
                        : ids == null ? new Object[] {root} : new Object[] {root, ids};
                result.heap(Measure.heap(roots, Collections.emptyList()));
            }
            result.added = rows.length;
            result.tries = attempt;
            result.root = ids == null ? "NegativeAcksTracker.nackedMessages"
                    : "NegativeAcksTracker.nackedMessages+nackedMessageIds";
            if (timeKeyed && !Content.sameBuckets(root, rows, bits)) {
                if (attempt < 5) {
                    continue;
                }
                throw new IllegalStateException("the nack tracker's buckets differ from the rows' "
                        + "deliverAt after 5 tries");
            }
            return result;
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Result measureWithBuffers(Object root, long poolBefore) throws Exception {
        Result result = new Result();
        List<Measure.Slot> buffers = Measure.byteBufs(root);
        result.heap(Measure.heap(root, buffers));
        long objects = Measure.bufferObjects(buffers);
        result.heapBytes += objects;
        if (!buffers.isEmpty()) {
            result.classes += "," + buffers.get(0).buf.getClass().getSimpleName() + "*"
                    + buffers.size() + "=" + objects;
        }
        result.directPoolDelta = Measure.poolDirectBytes() - poolBefore;
        result.directCapacity = Measure.bufferCapacity(buffers);
        result.directReserved = Measure.bufferReserved(buffers);
        return result;
    }
}
