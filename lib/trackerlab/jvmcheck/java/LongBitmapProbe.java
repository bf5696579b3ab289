package trackerlab.probe;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Pulsar's LongBitmap leaf (pulsar-common ConcurrentRoaringBitmap) and the structures around it,
 * built from the real parts: the RoaringBitmap 1.6.10 jar pyspark ships, the JDK's StampedLock,
 * and the fastutil maps of Debian's jar (by reflection). The Pulsar class itself is not on this
 * class path, so the three stand-ins below declare the same fields in Pulsar's order and replay
 * what its methods do to the object graph: checkedAdd, remove with the 10,000-removal trim rule,
 * and drainTo (andNot of the smallest values, then the same rule).
 */
public final class LongBitmapProbe {
  private LongBitmapProbe() {}

  static final long TRIM_AFTER_REMOVES = 10000;

  /** The replayed operations of one shape. */
  interface Leaf {
    boolean checkedAdd(long value);

    void remove(long value);

    long drainTo(long limit);
  }

  /** Shape "extends-roaring": class ConcurrentRoaringBitmap extends RoaringBitmap + lock. */
  static final class ExtendsRoaring extends RoaringBitmap implements Leaf {
    private final StampedLock lock = new StampedLock();

    public boolean checkedAdd(long value) {
      return super.checkedAdd((int) value);
    }

    public void remove(long value) {
      super.remove((int) value);
    }

    public long drainTo(long limit) {
      RoaringBitmap toRemove = new RoaringBitmap();
      long collected = 0;
      IntIterator it = getIntIterator();
      while (collected < limit && it.hasNext()) {
        toRemove.add(it.next());
        collected++;
      }
      andNot(toRemove);
      return collected;
    }
  }

  /** Shape "wraps-mutable" (#26117): MutableRoaringBitmap bitmap, StampedLock, removesSinceTrim. */
  static final class WrapsMutable implements Leaf {
    private final MutableRoaringBitmap bitmap;
    private final StampedLock lock;
    private long removesSinceTrim;

    WrapsMutable() {
      this.bitmap = new MutableRoaringBitmap();
      this.lock = new StampedLock();
    }

    public boolean checkedAdd(long value) {
      return bitmap.checkedAdd((int) value);
    }

    public void remove(long value) {
      if (bitmap.checkedRemove((int) value)) {
        removesSinceTrim++;
        maybeTrim();
      }
    }

    public long drainTo(long limit) {
      MutableRoaringBitmap toRemove = new MutableRoaringBitmap();
      long collected = 0;
      IntIterator it = bitmap.getIntIterator();
      while (collected < limit && it.hasNext()) {
        toRemove.add(it.next());
        collected++;
      }
      if (collected == 0) {
        return 0;
      }
      bitmap.andNot(toRemove);
      removesSinceTrim = Math.min(removesSinceTrim + collected, TRIM_AFTER_REMOVES);
      maybeTrim();
      return collected;
    }

    private void maybeTrim() {
      if (removesSinceTrim >= TRIM_AFTER_REMOVES || bitmap.isEmpty()) {
        bitmap.trim();
        removesSinceTrim = 0;
      }
    }
  }

  /** Shape "wraps-roaring" (#26500): RoaringBitmap bitmap, StampedLock, removesSinceTrim. */
  static final class WrapsRoaring implements Leaf {
    private final RoaringBitmap bitmap;
    private final StampedLock lock;
    private long removesSinceTrim;

    WrapsRoaring() {
      this.bitmap = new RoaringBitmap();
      this.lock = new StampedLock();
    }

    public boolean checkedAdd(long value) {
      return bitmap.checkedAdd((int) value);
    }

    public void remove(long value) {
      if (bitmap.checkedRemove((int) value)) {
        removesSinceTrim++;
        maybeTrim();
      }
    }

    public long drainTo(long limit) {
      RoaringBitmap toRemove = new RoaringBitmap();
      long collected = 0;
      IntIterator it = bitmap.getIntIterator();
      while (collected < limit && it.hasNext()) {
        toRemove.add(it.next());
        collected++;
      }
      if (collected == 0) {
        return 0;
      }
      bitmap.andNot(toRemove);
      removesSinceTrim = Math.min(removesSinceTrim + collected, TRIM_AFTER_REMOVES);
      maybeTrim();
      return collected;
    }

    private void maybeTrim() {
      if (removesSinceTrim >= TRIM_AFTER_REMOVES || bitmap.isEmpty()) {
        bitmap.trim();
        removesSinceTrim = 0;
      }
    }
  }

  static Leaf newLeaf(String shape) {
    switch (shape) {
      case "extends-roaring":
        return new ExtendsRoaring();
      case "wraps-mutable":
        return new WrapsMutable();
      case "wraps-roaring":
        return new WrapsRoaring();
      default:
        throw new IllegalArgumentException(shape);
    }
  }

  /** One leaf: checkedAdd of adds, then remove of removes, then drainTo(drain) if drain > 0. */
  public static Object leaf(String shape, long[] adds, long[] removes, long drain) {
    Leaf leaf = newLeaf(shape);
    for (long v : adds) {
      leaf.checkedAdd(v);
    }
    for (long v : removes) {
      leaf.remove(v);
    }
    if (drain > 0) {
      leaf.drainTo(drain);
    }
    return leaf;
  }

  /**
   * The current InMemoryDelayedDeliveryTracker index (form c): Long2ObjectAVLTreeMap of
   * Long2ObjectRBTreeMap of leaves; the i-th message goes to (timestamps[i], ledgers[i]) with
   * entry id entries[i].
   */
  public static Object timeBucketsLongBitmap(
      String fastutil, String shape, long[] timestamps, long[] ledgers, long[] entries)
      throws ReflectiveOperationException {
    Class<?> oc = Class.forName(fastutil + "Long2ObjectAVLTreeMap");
    Class<?> ic = Class.forName(fastutil + "Long2ObjectRBTreeMap");
    Object outer = oc.getConstructor().newInstance();
    Method oget = oc.getMethod("get", long.class);
    Method oput = oc.getMethod("put", long.class, Object.class);
    Method iget = ic.getMethod("get", long.class);
    Method iput = ic.getMethod("put", long.class, Object.class);
    Constructor<?> newInner = ic.getConstructor();
    for (int i = 0; i < entries.length; i++) {
      Object inner = oget.invoke(outer, timestamps[i]);
      if (inner == null) {
        inner = newInner.newInstance();
        oput.invoke(outer, timestamps[i], inner);
      }
      Object leaf = iget.invoke(inner, ledgers[i]);
      if (leaf == null) {
        leaf = newLeaf(shape);
        iput.invoke(inner, ledgers[i], leaf);
      }
      ((Leaf) leaf).checkedAdd(entries[i]);
    }
    return outer;
  }

  /**
   * PIP-448's topic-level index (InMemoryTopicDelayedDeliveryTrackerManager, newest stored
   * form): ConcurrentSkipListMap of Long2ObjectRBTreeMap of Roaring64Bitmap, plus its per-bucket
   * ReentrantLocks in a ConcurrentHashMap. Returned as Object[] {index, bucketLocks}.
   */
  public static Object[] topicIndex(
      String fastutil, long[] timestamps, long[] ledgers, long[] entries)
      throws ReflectiveOperationException {
    Class<?> ic = Class.forName(fastutil + "Long2ObjectRBTreeMap");
    Method iget = ic.getMethod("get", long.class);
    Method iput = ic.getMethod("put", long.class, Object.class);
    Constructor<?> newInner = ic.getConstructor();
    ConcurrentSkipListMap<Long, Object> index = new ConcurrentSkipListMap<>();
    ConcurrentHashMap<Long, ReentrantLock> locks = new ConcurrentHashMap<>();
    for (int i = 0; i < entries.length; i++) {
      locks.computeIfAbsent(timestamps[i], k -> new ReentrantLock());
      Object inner = index.get(timestamps[i]);
      if (inner == null) {
        inner = newInner.newInstance();
        index.put(timestamps[i], inner);
      }
      Roaring64Bitmap bm = (Roaring64Bitmap) iget.invoke(inner, ledgers[i]);
      if (bm == null) {
        bm = new Roaring64Bitmap();
        iput.invoke(inner, ledgers[i], bm);
      }
      bm.addLong(entries[i]);
    }
    return new Object[] {index, locks};
  }

  /** Index objects of a ConcurrentSkipListMap, head levels included (random by design). */
  public static long skipListIndexNodes(ConcurrentSkipListMap<?, ?> map)
      throws ReflectiveOperationException {
    Field headField = ConcurrentSkipListMap.class.getDeclaredField("head");
    headField.setAccessible(true);
    Object head = headField.get(map);
    if (head == null) {
      return 0;
    }
    Class<?> indexClass = head.getClass();
    Field down = indexClass.getDeclaredField("down");
    Field right = indexClass.getDeclaredField("right");
    down.setAccessible(true);
    right.setAccessible(true);
    long count = 0;
    for (Object level = head; level != null; level = down.get(level)) {
      for (Object x = level; x != null; x = right.get(x)) {
        count++;
      }
    }
    return count;
  }

  /** Object[2] of two fresh AtomicLong, StampedLock or ReentrantLock objects. */
  public static Object[] two(String what) {
    Object[] out = new Object[2];
    for (int i = 0; i < 2; i++) {
      switch (what) {
        case "atomicLong":
          out[i] = new AtomicLong();
          break;
        case "stampedLock":
          out[i] = new StampedLock();
          break;
        case "reentrantLock":
          out[i] = new ReentrantLock();
          break;
        default:
          throw new IllegalArgumentException(what);
      }
    }
    return out;
  }

  public static AtomicLong atomicLong() {
    return new AtomicLong();
  }

  public static StampedLock stampedLock() {
    return new StampedLock();
  }

  public static ReentrantLock reentrantLock() {
    return new ReentrantLock();
  }
}
