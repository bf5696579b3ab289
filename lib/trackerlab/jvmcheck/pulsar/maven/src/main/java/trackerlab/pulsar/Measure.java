package trackerlab.pulsar;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.openjdk.jol.info.GraphLayout;
import org.openjdk.jol.vm.VM;

/**
 * Deep sizes by JOL's {@link GraphLayout}, which must run with Instrumentation: without it JOL
 * falls back to its own layout model, and the check would hold one model against another.
 *
 * <p>Netty's direct {@code ByteBuf}s are pool objects: a walk from one reaches its chunk, its
 * arena, its recycler's thread and, through class loaders, most of the heap, which also
 * changes while it is walked. So the ByteBufs are detached for the walk (each slot holding one
 * is set to null and restored after), and each ByteBuf object is added by its own size. Their
 * off-heap memory is read from the pool's metric and from the buffers themselves.
 */
final class Measure {
    private Measure() {
    }

    /** Where a ByteBuf sits: an element of an Object[] or a field of an object. */
    static final class Slot {
        final Object holder;
        final Field field;
        final int index;
        final ByteBuf buf;

        Slot(Object holder, Field field, int index, ByteBuf buf) {
            this.holder = holder;
            this.field = field;
            this.index = index;
            this.buf = buf;
        }

        void put(Object value) throws IllegalAccessException {
            if (field != null) {
                field.set(holder, value);
            } else {
                Array.set(holder, index, value);
            }
        }
    }

    /** Fails unless JOL sizes objects with Instrumentation; returns JOL's VM description. */
    static String requireInstrumentation() throws Exception {
        VM.current().sizeOf(new long[3]);
        Class<?> support = Class.forName("org.openjdk.jol.vm.InstrumentationSupport");
        Field instance = support.getDeclaredField("INSTRUMENTATION");
        instance.setAccessible(true);
        if (instance.get(null) == null) {
            throw new IllegalStateException("JOL has no Instrumentation (start the JVM with "
                    + "-Djdk.attach.allowAttachSelf=true): its sizes would be a layout model");
        }
        return VM.current().details();
    }

    /** JOL's graph of the roots with the ByteBufs of these slots detached (not counted). */
    static GraphLayout heap(Object root, List<Slot> slots) throws IllegalAccessException {
        return heap(new Object[] {root}, slots);
    }

    static GraphLayout heap(Object[] roots, List<Slot> slots) throws IllegalAccessException {
        for (Slot s : slots) {
            s.put(null);
        }
        try {
            return GraphLayout.parseInstance(roots);
        } finally {
            for (Slot s : slots) {
                s.put(s.buf);
            }
        }
    }

    /** The slots holding a ByteBuf reachable from root without passing through a ByteBuf. */
    static List<Slot> byteBufs(Object root) throws IllegalAccessException {
        List<Slot> found = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Object> queue = new ArrayDeque<>();
        queue.add(root);
        seen.add(root);
        while (!queue.isEmpty()) {
            Object o = queue.poll();
            Class<?> c = o.getClass();
            if (c.isArray()) {
                if (!c.getComponentType().isPrimitive()) {
                    for (int i = 0, n = Array.getLength(o); i < n; i++) {
                        visit(Array.get(o, i), new Slot(o, null, i, null), seen, queue, found);
                    }
                }
                continue;
            }
            for (Field f : referenceFields(c)) {
                visit(f.get(o), new Slot(o, f, -1, null), seen, queue, found);
            }
        }
        return found;
    }

    private static void visit(Object value, Slot where, Set<Object> seen, ArrayDeque<Object> queue,
                              List<Slot> found) {
        if (value instanceof ByteBuf) {
            found.add(new Slot(where.holder, where.field, where.index, (ByteBuf) value));
        } else if (value != null && seen.add(value)) {
            queue.add(value);
        }
    }

    /** Reference fields a structure's ByteBufs can sit behind: every field of a non-JDK class,
     * and {@code ArrayList.elementData} (needs --add-opens java.base/java.util). */
    private static List<Field> referenceFields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c == ArrayList.class) {
                try {
                    Field f = ArrayList.class.getDeclaredField("elementData");
                    f.setAccessible(true);
                    fields.add(f);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new IllegalStateException("cannot read ArrayList.elementData; start the "
                            + "JVM with --add-opens=java.base/java.util=ALL-UNNAMED", e);
                }
                continue;
            }
            if (c.getName().startsWith("java.")) {
                continue;
            }
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                    f.setAccessible(true);
                    fields.add(f);
                }
            }
        }
        return fields;
    }

    /** The heap bytes of the ByteBuf objects themselves (shallow, by JOL's VM). */
    static long bufferObjects(List<Slot> slots) {
        long total = 0;
        for (Slot s : slots) {
            total += VM.current().sizeOf(s.buf);
        }
        return total;
    }

    /** The classes of a layout with their instance counts and bytes, most bytes first:
     * {@code Name*count=bytes,...} (names without the package; arrays as {@code long[]}). */
    static String classes(GraphLayout layout) {
        List<Class<?>> types = new ArrayList<>(layout.getClasses());
        types.sort((a, b) -> Long.compare(layout.getClassSizes().count(b),
                layout.getClassSizes().count(a)));
        StringBuilder out = new StringBuilder();
        for (Class<?> c : types) {
            if (out.length() > 0) {
                out.append(',');
            }
            String name = c.getName();
            name = c.isArray() ? c.getSimpleName() : name.substring(name.lastIndexOf('.') + 1);
            out.append(name).append('*').append(layout.getClassCounts().count(c))
                    .append('=').append(layout.getClassSizes().count(c));
        }
        return out.toString();
    }

    /** The default pool's used direct memory (whole chunks, as Netty counts it). */
    static long poolDirectBytes() {
        return PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    }

    /** Sum of the buffers' capacities (what bytesCapacity() reports). */
    static long bufferCapacity(List<Slot> slots) {
        long total = 0;
        for (Slot s : slots) {
            total += s.buf.capacity();
        }
        return total;
    }

    /** Sum of the bytes the pool reserved for the buffers: each pooled buffer's size class
     * ({@code PooledByteBuf.maxLength}); a buffer outside the pool reserves its capacity. */
    static long bufferReserved(List<Slot> slots) throws IllegalAccessException {
        long total = 0;
        for (Slot s : slots) {
            Field f = Reflect.findField(s.buf.getClass(), "maxLength");
            total += f != null ? ((Number) f.get(s.buf)).longValue() : s.buf.capacity();
        }
        return total;
    }
}
