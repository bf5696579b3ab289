package trackerlab.delayed;

/**
 * One bounded, delta-coded run of the {@code sorted-chunks} index (docs/design/sorted-chunks.md,
 * "Chunk"). The key of a position is {@code (tick, ledgerId, entryId)}; the first UNREAD
 * position sits in the {@code first*} fields, every later one is a token in {@code data}
 * (see {@link ChunkCodec}), starting at {@code readOffset} and {@code length} bytes long.
 *
 * <p>The fields are exactly the design's (the JOL size depends on them): 12 B header, six
 * longs, three ints, one reference, padded to 8 (80 B under compressed oops and class
 * pointers). Chunks order by their first key ({@link Comparable}), which is what the
 * tracker's {@code TreeSet<Chunk>} sorts by.
 */
final class Chunk implements Comparable<Chunk> {
    /** CHUNK_MAX_BYTES: no chunk's {@code length} (nor data capacity) goes above it. */
    static final int MAX_BYTES = 4096;
    /** The capacity of a new chunk's {@code data}. */
    static final int MIN_CAPACITY = 32;

    long firstTick;
    long firstLedger;
    long firstEntry;
    long lastTick;
    long lastLedger;
    long lastEntry;
    /** Unread positions held, the first one included. */
    int count;
    /** Bytes of tokens in use, from {@code readOffset}. */
    int length;
    /** Bytes already consumed by the scan (the prefix, dropped when data is reallocated). */
    int readOffset;
    /** Token bytes; null only in the tracker's probe (whose key fields the tracker also uses as
     * the splice's scan cursor). */
    byte[] data;

    /** A chunk holding one position (no token): data of {@link #MIN_CAPACITY} bytes. */
    static Chunk single(long tick, long ledger, long entry) {
        Chunk c = new Chunk();
        c.firstTick = c.lastTick = tick;
        c.firstLedger = c.lastLedger = ledger;
        c.firstEntry = c.lastEntry = entry;
        c.count = 1;
        c.data = new byte[MIN_CAPACITY];
        return c;
    }

    /** Key order: tick, then ledger, then entry (all non-negative). */
    static int compareKeys(long t1, long l1, long e1, long t2, long l2, long e2) {
        if (t1 != t2) {
            return Long.compare(t1, t2);
        }
        if (l1 != l2) {
            return Long.compare(l1, l2);
        }
        return Long.compare(e1, e2);
    }

    @Override
    public int compareTo(Chunk other) {
        return compareKeys(firstTick, firstLedger, firstEntry,
                other.firstTick, other.firstLedger, other.firstEntry);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Chunk && compareTo((Chunk) o) == 0;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(firstTick) * 31 * 31 + Long.hashCode(firstLedger) * 31
                + Long.hashCode(firstEntry);
    }
}
