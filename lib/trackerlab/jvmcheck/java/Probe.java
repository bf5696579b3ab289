package trackerlab.probe;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.BitSet;
import java.util.HashMap;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64Bitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;
import shaded.parquet.it.unimi.dsi.fastutil.ints.IntIntImmutablePair;

/**
 * Builds the structures that trackerlab's JVM layout model describes, on the JVM side, so that
 * one py4j call (about 66 us) builds a whole case. Values travel as long[] made by seq/fromBytes.
 * fastutil is reached by reflection so this file compiles without the fastutil jar.
 */
public final class Probe {
  private Probe() {}

  /** start, start + step, ... (count values). */
  public static long[] seq(long start, int count, long step) {
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = start + i * step;
    }
    return out;
  }

  /** Big-endian 8-byte values, e.g. numpy astype('>i8').tobytes(). */
  public static long[] fromBytes(byte[] bytes) {
    java.nio.LongBuffer lb = java.nio.ByteBuffer.wrap(bytes).asLongBuffer();
    long[] out = new long[lb.remaining()];
    lb.get(out);
    return out;
  }

  /** RoaringBitmap built by add(int) in the given order (values are taken modulo 2^32). */
  public static RoaringBitmap roaring(long[] values, boolean runOptimize, boolean trim) {
    RoaringBitmap rb = new RoaringBitmap();
    for (long v : values) {
      rb.add((int) v);
    }
    if (runOptimize) {
      rb.runOptimize();
    }
    if (trim) {
      rb.trim();
    }
    return rb;
  }

  /** Roaring64Bitmap built by addLong in the given order. */
  public static Roaring64Bitmap roaring64(long[] values, boolean runOptimize, boolean trim) {
    Roaring64Bitmap rb = new Roaring64Bitmap();
    for (long v : values) {
      rb.addLong(v);
    }
    if (runOptimize) {
      rb.runOptimize();
    }
    if (trim) {
      rb.trim();
    }
    return rb;
  }

  /** Roaring64NavigableMap built by addLong; cacheCardinalities calls getLongCardinality(). */
  public static Roaring64NavigableMap navigable(
      long[] values, boolean runOptimize, boolean cardinality) {
    Roaring64NavigableMap rb = new Roaring64NavigableMap();
    for (long v : values) {
      rb.addLong(v);
    }
    if (runOptimize) {
      rb.runOptimize();
    }
    if (cardinality) {
      rb.getLongCardinality();
    }
    return rb;
  }

  /** java.util.TreeMap<Long, Long>, value = key boxed separately. */
  public static TreeMap<Long, Long> treeMap(long[] keys) {
    TreeMap<Long, Long> map = new TreeMap<>();
    for (long k : keys) {
      map.put(k, k);
    }
    return map;
  }

  /** java.util.HashMap<Long, Long>, value = key boxed separately. */
  public static HashMap<Long, Long> hashMap(long[] keys) {
    HashMap<Long, Long> map = new HashMap<>();
    for (long k : keys) {
      map.put(k, k);
    }
    return map;
  }

  /** java.util.BitSet() with these bits set, in this order. */
  public static BitSet bitSet(long[] bits) {
    BitSet set = new BitSet();
    for (long b : bits) {
      set.set((int) b);
    }
    return set;
  }

  /** PendingAcksMap: TreeMap<Long ledger, TreeMap<Long entry, IntIntPair>>, every pair. */
  public static TreeMap<Long, TreeMap<Long, Object>> treeMapOfTreeMaps(
      long[] ledgers, long[] entries) {
    TreeMap<Long, TreeMap<Long, Object>> outer = new TreeMap<>();
    for (long ledger : ledgers) {
      TreeMap<Long, Object> inner = new TreeMap<>();
      outer.put(ledger, inner);
      for (long entry : entries) {
        inner.put(entry, new IntIntImmutablePair(1, (int) entry));
      }
    }
    return outer;
  }

  /** A fastutil Long2Object map (values null) or Long2Long map (value = key) with these keys. */
  public static Object fastutilMap(String className, long[] keys)
      throws ReflectiveOperationException {
    Class<?> c = Class.forName(className);
    Object map = c.getConstructor().newInstance();
    boolean longValues = className.contains("Long2Long");
    Method put = c.getMethod("put", long.class, longValues ? long.class : Object.class);
    for (long k : keys) {
      put.invoke(map, k, longValues ? (Object) k : null);
    }
    return map;
  }

  /**
   * The TimeBucket blog's test (seed 001): {@code Long2ObjectSortedMap<Long2ObjectSortedMap<
   * Roaring64Bitmap>> map = new Long2ObjectAVLTreeMap<>()}, message i at timestamp {@code
   * startMs + i / perMs} with the low {@code trimBits} bits cleared, in ledger {@code firstLedger
   * + i / perLedger} at entry {@code i % perLedger}, added in order with {@code addLong}. The
   * current bucket and bitmap are kept between messages, so fastutil is called by reflection
   * only when the bucket or the ledger changes.
   */
  public static Object blogTimeBuckets(
      String mapClass, long startMs, int count, int perMs, int trimBits, int perLedger,
      long firstLedger)
      throws ReflectiveOperationException {
    Class<?> c = Class.forName(mapClass);
    Constructor<?> newMap = c.getConstructor();
    Method put = c.getMethod("put", long.class, Object.class);
    Object outer = newMap.newInstance();
    long mask = ~((1L << trimBits) - 1);
    long bucket = Long.MIN_VALUE;
    long ledger = Long.MIN_VALUE;
    Object inner = null;
    Roaring64Bitmap bm = null;
    for (int i = 0; i < count; i++) {
      long ts = (startMs + i / perMs) & mask;
      long l = firstLedger + i / perLedger;
      if (ts != bucket) {
        bucket = ts;
        inner = newMap.newInstance();
        put.invoke(outer, ts, inner);
        ledger = Long.MIN_VALUE;
      }
      if (l != ledger) {
        ledger = l;
        bm = new Roaring64Bitmap();
        put.invoke(inner, l, bm);
      }
      bm.addLong(i % perLedger);
    }
    return outer;
  }

  /**
   * PIP-393 NegativeAcksTracker / #23611 InMemoryDelayedDeliveryTracker layout:
   * outer (Long2ObjectAVLTreeMap) timestamp -> inner (Long2ObjectOpenHashMap) ledger ->
   * Roaring64Bitmap of entries; every timestamp holds every ledger with every entry.
   */
  public static Object timeBuckets(
      String outerClass, String innerClass, long[] timestamps, long[] ledgers, long[] entries)
      throws ReflectiveOperationException {
    Class<?> oc = Class.forName(outerClass);
    Class<?> ic = Class.forName(innerClass);
    Constructor<?> newInner = ic.getConstructor();
    Object outer = oc.getConstructor().newInstance();
    Method outerPut = oc.getMethod("put", long.class, Object.class);
    Method innerPut = ic.getMethod("put", long.class, Object.class);
    for (long ts : timestamps) {
      Object inner = newInner.newInstance();
      outerPut.invoke(outer, ts, inner);
      for (long ledger : ledgers) {
        Roaring64Bitmap bm = new Roaring64Bitmap();
        innerPut.invoke(inner, ledger, bm);
        for (long e : entries) {
          bm.addLong(e);
        }
      }
    }
    return outer;
  }
}
