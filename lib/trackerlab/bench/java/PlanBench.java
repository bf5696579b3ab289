import it.unimi.dsi.fastutil.longs.Long2ObjectAVLTreeMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * The seeds' method, for `trackerlab bench plan`: build the time-bucketed delayed index of a
 * steady state message by message in a JVM, as Pulsar's InMemoryDelayedDeliveryTracker (#23611)
 * does, and time the loop (no py4j, no I/O inside it).
 *
 * Usage: java PlanBench ENTRIES_PER_MS WINDOW_MS DELAY_KIND DELAY_MS TICK_MS ENTRIES_PER_LEDGER
 * Entry i is published at i / rate ms; its delay is DELAY_MS (fixed) or uniform in [0, DELAY_MS)
 * (SplitMix64, Steele et al. 2014). Entries published in the last WINDOW_MS ms before the
 * snapshot are offered to addMessage; those due within a tick are dispatched, and the index
 * holds the ones whose bucket key is later than snapshot + tick. Prints one line:
 * "entries=N buckets=B loop_ms=T".
 */
public final class PlanBench {
  private PlanBench() {}

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public static void main(String[] args) {
    double rate = Double.parseDouble(args[0]);
    long window = Long.parseLong(args[1]);
    boolean uniform = args[2].equals("uniform");
    long delay = Long.parseLong(args[3]);
    long tick = Long.parseLong(args[4]);
    long perLedger = Long.parseLong(args[5]);
    int bits = 63 - Long.numberOfLeadingZeros(tick);
    long mask = -1L << bits;
    long snapshot = window;
    long count = (long) Math.floor(window * rate);
    long dueKey = (snapshot + tick) & mask;
    long start = System.nanoTime();
    Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>> map = new Long2ObjectAVLTreeMap<>();
    long seed = 0x9E3779B97F4A7C15L;
    long held = 0;
    for (long i = 0; i < count; i++) {
      long publish = (long) Math.floor(i / rate);
      long d = uniform ? (long) ((mix(seed + i * 0x9E3779B97F4A7C15L) >>> 11) * 0x1.0p-53 * delay) : delay;
      long deliverAt = publish + d;
      if (deliverAt <= publish + tick) {
        continue; // addMessage returns false: dispatched at once
      }
      long key = deliverAt & mask;
      if (key <= dueKey) {
        continue; // handed out by the snapshot time
      }
      long ledger = i / perLedger;
      long entry = i % perLedger;
      Long2ObjectOpenHashMap<Roaring64Bitmap> ledgers = map.get(key);
      if (ledgers == null) {
        ledgers = new Long2ObjectOpenHashMap<>();
        map.put(key, ledgers);
      }
      Roaring64Bitmap bitmap = ledgers.get(ledger);
      if (bitmap == null) {
        bitmap = new Roaring64Bitmap();
        ledgers.put(ledger, bitmap);
      }
      bitmap.addLong(entry);
      held++;
    }
    long loopNs = System.nanoTime() - start;
    System.out.println("entries=" + held + " buckets=" + map.size() + " loop_ms=" + loopNs / 1e6);
  }
}
