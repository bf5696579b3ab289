package trackerlab.pulsar;

import io.netty.buffer.ByteBuf;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jol.vm.VM;
import org.openjdk.jol.vm.VirtualMachine;

/**
 * The deep size of any delayed-delivery tracker: every object reachable from the tracker
 * through instance fields and array elements, each sized by JOL's {@code VM.sizeOf}
 * (Instrumentation), read with JOL's {@code VM.getObject} (no field is written: the tracker
 * runs on while it is walked, under the dispatcher's lock and the tracker's own monitor).
 *
 * <p>Not walked (not the tracker's own memory: they are shared with the broker or reach all
 * of it), each counted once in the answer's {@code excluded} list by type:
 * <ul>
 *   <li>the {@code Dispatcher} ({@code AbstractDelayedDeliveryTracker.dispatcher}: the
 *       subscription, its cursor, its consumers);
 *   <li>{@code ManagedCursor} ({@code Bucket.cursor}: the managed ledger and its cache);
 *   <li>{@code BucketSnapshotStorage} ({@code Bucket.bucketSnapshotStorage}: the factory's one
 *       BookKeeper client, shared by every bucket tracker);
 *   <li>netty {@code Timer} and {@code Timeout} (the factory's one {@code HashedWheelTimer}
 *       and the wheel's slot of the tracker's next tick);
 *   <li>{@code java.time.Clock}, {@code Executor}, {@code Thread}, {@code ClassLoader},
 *       {@code Class} (shared by the broker);
 *   <li>{@code CompletableFuture} (a pending snapshot write or load: its callbacks capture
 *       broker objects; its own bytes are a few dozen per operation in flight).
 * </ul>
 * A netty {@code ByteBuf} (the triple heap's direct buffers) is counted by its object's own
 * size and its capacity as direct bytes, and not walked (its pool reaches the whole heap).
 * Fields JOL cannot give an offset for (hidden classes: lambdas) are read by reflection.
 */
final class TrackerGraph {
    private static final List<Class<?>> EXCLUDED = new ArrayList<>();

    static {
        for (String name : new String[] {
            "org.apache.pulsar.broker.service.Dispatcher",
            "org.apache.bookkeeper.mledger.ManagedCursor",
            "org.apache.pulsar.broker.delayed.bucket.BucketSnapshotStorage",
            "io.netty.util.Timer", "io.netty.util.Timeout", "java.time.Clock",
            "java.util.concurrent.Executor", "java.lang.Thread", "java.lang.ClassLoader",
            "java.lang.Class", "java.util.concurrent.CompletableFuture"}) {
            Class<?> c = Reflect.optionalClass(name);
            if (c != null) {
                EXCLUDED.add(c);
            }
        }
    }

    private TrackerGraph() {
    }

    private static Class<?> excluded(Object o) {
        for (Class<?> c : EXCLUDED) {
            if (c.isInstance(o)) {
                return c;
            }
        }
        return null;
    }

    /** {@code ok<TAB>class<TAB>Class.<graph><TAB>heap<TAB>direct capacity<TAB>0<TAB>buffers
     * <TAB>delayed messages<TAB>walk ms<TAB>classes (name*count=bytes, most bytes first)
     * <TAB>excluded (type*count)}. */
    static String measure(Object tracker) throws Exception {
        VirtualMachine vm = VM.current();
        long t0 = System.nanoTime();
        IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
        ArrayDeque<Object> queue = new ArrayDeque<>();
        Map<Class<?>, long[]> hist = new HashMap<>();
        Map<String, Integer> skipped = new TreeMap<>();
        Map<Class<?>, List<Field>> fieldsOf = new HashMap<>();
        seen.put(tracker, Boolean.TRUE);
        queue.add(tracker);
        long heap = 0;
        long capacity = 0;
        int buffers = 0;
        while (!queue.isEmpty()) {
            Object o = queue.poll();
            Class<?> c = o.getClass();
            long size = vm.sizeOf(o);
            heap += size;
            long[] h = hist.computeIfAbsent(c, k -> new long[2]);
            h[0]++;
            h[1] += size;
            if (o instanceof ByteBuf) {
                capacity += ((ByteBuf) o).capacity();
                buffers++;
                continue;
            }
            if (c.isArray()) {
                if (!c.getComponentType().isPrimitive()) {
                    for (int i = 0, n = Array.getLength(o); i < n; i++) {
                        offer(Array.get(o, i), seen, queue, skipped);
                    }
                }
                continue;
            }
            for (Field f : fieldsOf.computeIfAbsent(c, TrackerGraph::referenceFields)) {
                offer(read(vm, o, f), seen, queue, skipped);
            }
        }
        long walkMs = (System.nanoTime() - t0) / 1_000_000;
        Method count = Reflect.method(tracker.getClass(), "getNumberOfDelayedMessages", 0);
        long delayed = ((Number) count.invoke(tracker)).longValue();
        StringBuilder excluded = new StringBuilder();
        skipped.forEach((k, v) -> excluded.append(excluded.length() > 0 ? "," : "")
                .append(k).append('*').append(v));
        return String.join("\t", "ok", tracker.getClass().getSimpleName(),
                tracker.getClass().getSimpleName() + ".<graph>", Long.toString(heap),
                Long.toString(capacity), "0", Integer.toString(buffers),
                Long.toString(delayed), Long.toString(walkMs), classes(hist),
                excluded.toString());
    }

    private static void offer(Object v, IdentityHashMap<Object, Boolean> seen,
                              ArrayDeque<Object> queue, Map<String, Integer> skipped) {
        if (v == null || seen.containsKey(v)) {
            return;
        }
        seen.put(v, Boolean.TRUE);
        Class<?> why = excluded(v);
        if (why != null) {
            skipped.merge(why.getSimpleName(), 1, Integer::sum);
            return;
        }
        queue.add(v);
    }

    private static Object read(VirtualMachine vm, Object o, Field f) {
        try {
            return vm.getObject(o, vm.fieldOffset(f));
        } catch (RuntimeException e) {
            try {
                f.setAccessible(true);
                return f.get(o);
            } catch (ReflectiveOperationException | RuntimeException e2) {
                return null;
            }
        }
    }

    private static List<Field> referenceFields(Class<?> type) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    private static String classes(Map<Class<?>, long[]> hist) {
        List<Map.Entry<Class<?>, long[]>> rows = new ArrayList<>(hist.entrySet());
        rows.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Class<?>, long[]> e : rows) {
            Class<?> c = e.getKey();
            String name = c.getName();
            name = c.isArray() ? c.getSimpleName() : name.substring(name.lastIndexOf('.') + 1);
            out.append(out.length() > 0 ? "," : "").append(name).append('*')
                    .append(e.getValue()[0]).append('=').append(e.getValue()[1]);
        }
        return out.toString();
    }
}
