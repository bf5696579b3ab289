package trackerlab.probe;

import java.util.Arrays;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * The design lab's proposals (trackerlab.models.proposals) built on the JVM from real objects:
 * the fastutil Long2ObjectAVLTreeMap (by reflection, so this file compiles without the fastutil
 * jar), RoaringBitmap 1.6.10, long[], int[], byte[] and Object[]. Each builder replays
 * addMessage for every message (ledger, entry, deliverAt, now) as the Python model does and
 * returns Object[] {index map, slot ledger ids long[], slot counts int[]}.
 */
public final class LabProbe {
  private LabProbe() {}

  private static final String AVL = "it.unimi.dsi.fastutil.longs.Long2ObjectAVLTreeMap";
  private static final int SPILL_AT = 23;
  private static final int NEAR_SHIFT = 8;
  private static final int FAR_SHIFT = 16;
  private static final int HEADER = 24;

  /** The slot table: ledger ordinal -> ring position, counts per ordinal. */
  static final class Slots {
    long origin;
    boolean empty = true;
    int first;
    int end;
    long[] ids = new long[0];
    int[] live = new int[0];

    int slot(long ledger) {
      if (empty) {
        origin = ledger;
        empty = false;
        first = 0;
        end = 1;
      }
      int ordinal = (int) (ledger - origin);
      first = Math.min(first, ordinal);
      end = Math.max(end, ordinal + 1);
      int cap = Math.max(ids.length, 16);
      while (cap < end - first) {
        cap *= 2;
      }
      if (cap != ids.length) {
        long[] newIds = new long[cap];
        int[] newLive = new int[cap];
        for (int o = first; o < end; o++) {
          if (ids.length > 0) {
            newIds[o & (cap - 1)] = ids[o & (ids.length - 1)];
            newLive[o & (cap - 1)] = live[o & (ids.length - 1)];
          }
        }
        ids = newIds;
        live = newLive;
      }
      ids[ordinal & (ids.length - 1)] = ledger;
      return ordinal & 0xFFFF;
    }

    void hold(long ledger) {
      live[(int) (ledger - origin) & (live.length - 1)]++;
    }

    int order(int slot) {
      return first + ((slot - first) & 0xFFFF);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<Long, Object> avl() throws ReflectiveOperationException {
    return (Map<Long, Object>) Class.forName(AVL).getConstructor().newInstance();
  }

  private static int bits(int tick) {
    return 31 - Integer.numberOfLeadingZeros(Math.max(tick, 1));
  }

  private static boolean tracked(long at, long now, int tick) {
    return at >= 0 && at > now + tick;
  }

  /** time-buckets-flat, or -sealed when fixedDelay >= 0 (runOptimize once sealed). */
  public static Object[] flat(
      long[] ledger, long[] entry, long[] at, long[] now, int tick, long fixedDelay)
      throws ReflectiveOperationException {
    Map<Long, Object> map = avl();
    Slots slots = new Slots();
    int b = bits(tick);
    long lastNow = Long.MIN_VALUE;
    long[] keys = new long[ledger.length]; // a local list: entrySet() would cache a view
    int nKeys = 0;
    for (int i = 0; i < ledger.length; i++) {
      if (!tracked(at[i], now[i], tick)) {
        continue;
      }
      long key = at[i] & (-1L << b);
      RoaringBitmap bitmap = (RoaringBitmap) map.get(key);
      if (bitmap == null) {
        bitmap = new RoaringBitmap();
        map.put(key, bitmap);
        keys[nKeys++] = key;
      }
      int value = slots.slot(ledger[i]) << 16 | (int) entry[i];
      if (bitmap.checkedAdd(value)) {
        slots.hold(ledger[i]);
      }
      lastNow = now[i];
    }
    if (fixedDelay >= 0 && lastNow != Long.MIN_VALUE) {
      long bound = (lastNow + tick + fixedDelay) & (-1L << b);
      for (int k = 0; k < nKeys; k++) {
        if (keys[k] < bound) {
          ((RoaringBitmap) map.get(keys[k])).runOptimize();
        }
      }
    }
    return new Object[] {map, slots.ids, slots.live};
  }

  /** time-buckets-adaptive: int[] {count, values...} and an Object[] {int[], spill} holder. */
  public static Object[] adaptive(long[] ledger, long[] entry, long[] at, long[] now, int tick)
      throws ReflectiveOperationException {
    Map<Long, Object> map = avl();
    Slots slots = new Slots();
    int b = bits(tick);
    for (int i = 0; i < ledger.length; i++) {
      if (!tracked(at[i], now[i], tick)) {
        continue;
      }
      long key = at[i] & (-1L << b);
      Object leaf = map.get(key);
      int[] packed;
      RoaringBitmap spill = null;
      if (leaf == null) {
        packed = new int[8];
      } else if (leaf instanceof int[]) {
        packed = (int[]) leaf;
      } else {
        packed = (int[]) ((Object[]) leaf)[0];
        spill = (RoaringBitmap) ((Object[]) leaf)[1];
      }
      int slot = slots.slot(ledger[i]);
      int value = slot << 16 | (int) entry[i];
      long order = (long) slots.order(slot) << 16 | entry[i];
      int n = packed[0];
      long lastOrder =
          n == 0
              ? Long.MIN_VALUE
              : (long) slots.order(packed[n] >>> 16) << 16 | (packed[n] & 0xFFFF);
      boolean added;
      if (order == lastOrder) {
        added = false;
      } else if (order > lastOrder && sameLedgerAtTail(packed, slot) < SPILL_AT) {
        if (n + 2 > packed.length) {
          int length = packed.length;
          while (length < n + 2) {
            length += Math.max(length >> 3, 4);
          }
          packed = Arrays.copyOf(packed, length);
        }
        packed[n + 1] = value;
        packed[0] = n + 1;
        added = true;
      } else {
        if (spill == null) {
          spill = new RoaringBitmap();
        }
        added = spill.checkedAdd(value);
      }
      map.put(key, spill == null ? packed : new Object[] {packed, spill});
      if (added) {
        slots.hold(ledger[i]);
      }
    }
    return new Object[] {map, slots.ids, slots.live};
  }

  private static int sameLedgerAtTail(int[] packed, int slot) {
    int k = 0;
    for (int j = packed[0]; j >= 1 && (packed[j] >>> 16) == slot; j--) {
      k++;
    }
    return k;
  }

  // ---------------------------------------------------------------- time-buckets-hier

  private static int getInt(byte[] s, int at) {
    return (s[at] & 0xFF) << 24 | (s[at + 1] & 0xFF) << 16 | (s[at + 2] & 0xFF) << 8 | s[at + 3] & 0xFF;
  }

  private static void putInt(byte[] s, int at, int v) {
    s[at] = (byte) (v >>> 24);
    s[at + 1] = (byte) (v >>> 16);
    s[at + 2] = (byte) (v >>> 8);
    s[at + 3] = (byte) v;
  }

  private static int varintLength(long x) {
    int n = 1;
    while ((x >>>= 7) != 0) {
      n++;
    }
    return n;
  }

  private static int putVarint(byte[] s, int at, long x) {
    while ((x & ~0x7FL) != 0) {
      s[at++] = (byte) ((x & 0x7F) | 0x80);
      x >>>= 7;
    }
    s[at++] = (byte) x;
    return at;
  }

  private static long readVarint(byte[] s, int[] pos) {
    long x = 0;
    int shift = 0;
    while (true) {
      byte b = s[pos[0]++];
      x |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return x;
      }
      shift += 7;
    }
  }

  private static byte[] ensure(byte[] s, int used, int extra) {
    if (used + extra <= s.length) {
      return s;
    }
    int length = s.length;
    while (length < used + extra) {
      length += Math.max(length >> 3, 16);
    }
    return Arrays.copyOf(s, length);
  }

  /**
   * Header: used, count, lastValue, lastTokenAt, valueStart (ints), lastOffset (char), flags
   * (bit 0: the last token is a run; bit 1: its run count is at the tail).
   */
  static byte[] append(byte[] s, int w, int slot, int entry, int offset) {
    int used = getInt(s, 0);
    int count = getInt(s, 4);
    int last = getInt(s, 8);
    int lastTokenAt = getInt(s, 12);
    int valueStart = getInt(s, 16);
    int lastOffset = (s[20] & 0xFF) << 8 | s[21] & 0xFF;
    int flags = s[23];
    int lastSlot = last >>> 16;
    int lastEntry = last & 0xFFFF;
    boolean sameSlot = count > 0 && slot == lastSlot;
    if (sameSlot && entry == lastEntry) {
      if (hasOffset(s, w, valueStart, used, offset)) {
        return s;
      }
      s = token(s, w, used, 0, offset, false, 0);
      lastTokenAt = used;
      used = getInt(s, 0);
      flags = 0;
    } else if (sameSlot && entry == lastEntry + 1 && offset == lastOffset) {
      if ((flags & 1) == 0) {
        s[lastTokenAt] |= 1;
        s = ensure(s, used, 1);
        used = putVarint(s, used, 1);
        flags = 1;
      } else {
        int[] pos = {lastTokenAt};
        readVarint(s, pos);
        if ((s[lastTokenAt] & 2) != 0) {
          pos[0] += 2;
        }
        int runAt = pos[0];
        long extra = readVarint(s, pos) + 1;
        s = ensure(s, runAt, varintLength(extra));
        used = putVarint(s, runAt, extra);
      }
      valueStart = lastTokenAt;
    } else {
      int before = used;
      s = sameSlot ? token(s, w, used, entry - lastEntry, offset, false, 0)
          : token(s, w, used, entry, offset, true, slot);
      lastTokenAt = before;
      valueStart = before;
      used = getInt(s, 0);
      flags = 0;
    }
    putInt(s, 0, used);
    putInt(s, 4, count + 1);
    putInt(s, 8, slot << 16 | entry);
    putInt(s, 12, lastTokenAt);
    putInt(s, 16, valueStart);
    s[20] = (byte) (offset >>> 8);
    s[21] = (byte) offset;
    s[23] = (byte) flags;
    return s;
  }

  private static byte[] token(
      byte[] s, int w, int used, long gap, int offset, boolean sw, int slot) {
    long head = ((gap << w | offset) << 2) | (sw ? 2 : 0);
    s = ensure(s, used, varintLength(head) + (sw ? 2 : 0));
    int at = putVarint(s, used, head);
    if (sw) {
      s[at++] = (byte) (slot >>> 8);
      s[at++] = (byte) slot;
    }
    putInt(s, 0, at);
    return s;
  }

  /** Whether the tokens of the last value (from valueStart) hold this offset. */
  private static boolean hasOffset(byte[] s, int w, int from, int used, int offset) {
    int[] pos = {from};
    while (pos[0] < used) {
      long head = readVarint(s, pos);
      if ((head & 2) != 0) {
        pos[0] += 2;
      }
      if ((head & 1) != 0) {
        readVarint(s, pos);
      }
      if (((head >>> 2) & ((1L << w) - 1)) == offset) {
        return true;
      }
    }
    return false;
  }

  /** time-buckets-hier: map key (start | level) -> byte[] stream; positions arrive in order. */
  public static Object[] hier(long[] ledger, long[] entry, long[] at, long[] now, int tick)
      throws ReflectiveOperationException {
    Map<Long, Object> map = avl();
    Slots slots = new Slots();
    int b = bits(tick);
    for (int i = 0; i < ledger.length; i++) {
      if (!tracked(at[i], now[i], tick)) {
        continue;
      }
      int level = at[i] - now[i] < 1L << (b + NEAR_SHIFT) ? 0 : 1;
      int w = level == 0 ? NEAR_SHIFT : FAR_SHIFT;
      long key = (at[i] >> (b + w) << (b + w)) | level;
      int offset = (int) ((at[i] >> b) & ((1L << w) - 1));
      byte[] s = (byte[]) map.get(key);
      if (s == null) {
        s = new byte[32];
        putInt(s, 0, HEADER);
      }
      int count = getInt(s, 4);
      byte[] after = append(s, w, slots.slot(ledger[i]), (int) entry[i], offset);
      if (getInt(after, 4) != count) {
        slots.hold(ledger[i]);
      }
      map.put(key, after);
    }
    return new Object[] {map, slots.ids, slots.live};
  }

  /** The token bytes of one stream built from these elements (a cross-check of the encoding). */
  public static byte[] stream(long[] slot, long[] entry, long[] offset, int w) {
    byte[] s = new byte[32];
    putInt(s, 0, HEADER);
    for (int i = 0; i < slot.length; i++) {
      s = append(s, w, (int) slot[i], (int) entry[i], (int) offset[i]);
    }
    return Arrays.copyOfRange(s, HEADER, getInt(s, 0));
  }
}
