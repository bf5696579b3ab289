package trackerlab.probe;

import java.lang.reflect.Method;
import java.util.BitSet;
import java.util.TreeMap;

/**
 * PendingAcksMap layouts built on the JVM, to hold trackerlab's layout model against real
 * object sizes (trackerlab.models.pending_acks*).
 *
 * <p>pulsar-common's Long2LongOpenHashMap and the #26024 LedgerPendingAcks are not on this
 * class path, so they are stood in for by classes with the same field types (which is all an
 * object's size depends on) and the same growth rule: three parallel arrays of a power-of-two
 * capacity, 32 slots by default, doubled before inserting a new key once size reaches
 * (int) (capacity * 0.75f). The BitSet is the real java.util.BitSet and the fastutil maps are
 * the real classes from the fastutil jar, reached by reflection.
 */
public final class PendingAcksProbe {
  private PendingAcksProbe() {}

  /** Stand-in with the fields of pulsar-common Long2LongOpenHashMap. */
  static final class PrimitiveLongMap {
    long[] keys;
    long[] values;
    boolean[] used;
    int size;
    int capacity;
    int threshold;

    PrimitiveLongMap() {
      resize(32);
    }

    private void resize(int newCapacity) {
      long[] oldKeys = keys;
      long[] oldValues = values;
      boolean[] oldUsed = used;
      keys = new long[newCapacity];
      values = new long[newCapacity];
      used = new boolean[newCapacity];
      capacity = newCapacity;
      threshold = (int) (newCapacity * 0.75f);
      size = 0;
      if (oldUsed != null) {
        for (int i = 0; i < oldUsed.length; i++) {
          if (oldUsed[i]) {
            put(oldKeys[i], oldValues[i]);
          }
        }
      }
    }

    void put(long key, long value) {
      int slot = (int) (key * 0x9E3779B97F4A7C15L >>> 40) & (capacity - 1);
      while (used[slot]) {
        if (keys[slot] == key) {
          values[slot] = value;
          return;
        }
        slot = (slot + 1) & (capacity - 1);
      }
      if (size >= threshold) {
        resize(capacity * 2);
        put(key, value);
        return;
      }
      keys[slot] = key;
      values[slot] = value;
      used[slot] = true;
      size++;
    }
  }

  /** Stand-in with the fields of the #26024 draft's LedgerPendingAcks. */
  static final class LedgerBucket {
    final PrimitiveLongMap entries = new PrimitiveLongMap();
    final BitSet entryIdIndex = new BitSet();
    boolean entryIdIndexEnabled = true;
    long maxEntryId = Long.MIN_VALUE;

    void put(long entryId, long value) {
      entries.put(entryId, value);
      maxEntryId = Math.max(maxEntryId, entryId);
      if (!entryIdIndexEnabled) {
        return;
      }
      if (entryId >= 0 && entryId <= (1 << 20)) {
        entryIdIndex.set((int) entryId);
      } else {
        entryIdIndex.clear();
        entryIdIndexEnabled = false;
      }
    }
  }

  /**
   * TreeMap&lt;Long, bucket&gt;: with {@code indexed} a LedgerBucket per ledger (#26024), else
   * the bare map (seed 002's "primitive map"). Pair i is (ledgers[i], entries[i]).
   */
  public static TreeMap<Long, Object> openHash(long[] ledgers, long[] entries, boolean indexed) {
    TreeMap<Long, Object> outer = new TreeMap<>();
    for (int i = 0; i < ledgers.length; i++) {
      Object bucket = outer.computeIfAbsent(
          ledgers[i], k -> indexed ? new LedgerBucket() : new PrimitiveLongMap());
      if (indexed) {
        ((LedgerBucket) bucket).put(entries[i], i);
      } else {
        ((PrimitiveLongMap) bucket).put(entries[i], i);
      }
    }
    return outer;
  }

  /**
   * fastutil Long2ObjectRBTreeMap of {@code innerClass} (Long2LongRBTreeMap or
   * Long2LongAVLTreeMap) with packed long values: the #26030 / #26522 layouts.
   */
  public static Object packedSorted(String innerClass, long[] ledgers, long[] entries)
      throws ReflectiveOperationException {
    String pkg = "it.unimi.dsi.fastutil.longs.";
    Class<?> outerClass = Class.forName(pkg + "Long2ObjectRBTreeMap");
    Class<?> inner = Class.forName(pkg + innerClass);
    Object outer = outerClass.getConstructor().newInstance();
    Method get = outerClass.getMethod("get", long.class);
    Method putOuter = outerClass.getMethod("put", long.class, Object.class);
    Method putInner = inner.getMethod("put", long.class, long.class);
    Method defaultValue = inner.getMethod("defaultReturnValue", long.class);
    for (int i = 0; i < ledgers.length; i++) {
      Object bucket = get.invoke(outer, ledgers[i]);
      if (bucket == null) {
        bucket = inner.getConstructor().newInstance();
        defaultValue.invoke(bucket, -1L << 32);
        putOuter.invoke(outer, ledgers[i], bucket);
      }
      putInner.invoke(bucket, entries[i], (long) i);
    }
    return outer;
  }

  /**
   * PIP-379's first PendingAcksMap (4.0.0 - 4.2.x): Long2ObjectRBTreeMap of Long2ObjectRBTreeMap
   * of IntIntPair (IntIntPair.of gives an IntIntImmutablePair), every (ledger, entry) pair.
   */
  public static Object rbOfRbPairs(String fastutil, long[] ledgers, long[] entries)
      throws ReflectiveOperationException {
    Class<?> rb = Class.forName(fastutil + "longs.Long2ObjectRBTreeMap");
    Class<?> pairs = Class.forName(fastutil + "ints.IntIntPair");
    Method of = pairs.getMethod("of", int.class, int.class);
    Method put = rb.getMethod("put", long.class, Object.class);
    Object outer = rb.getConstructor().newInstance();
    for (long ledger : ledgers) {
      Object inner = rb.getConstructor().newInstance();
      put.invoke(outer, ledger, inner);
      for (long entry : entries) {
        put.invoke(inner, entry, of.invoke(null, 1, (int) entry));
      }
    }
    return outer;
  }
}
