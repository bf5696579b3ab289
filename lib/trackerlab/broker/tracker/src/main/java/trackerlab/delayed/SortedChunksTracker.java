package trackerlab.delayed;

import io.netty.util.Timer;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.bookkeeper.mledger.Position;
import org.apache.bookkeeper.mledger.PositionFactory;
import org.apache.pulsar.broker.delayed.AbstractDelayedDeliveryTracker;
import org.apache.pulsar.broker.service.persistent.AbstractPersistentDispatcherMultipleConsumers;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * The proposal {@code sorted-chunks} (issue 27; docs/design/sorted-chunks.md): a delayed
 * delivery index that is one sorted sequence of bounded, delta-coded {@link Chunk}s keyed by
 * {@code (tickKey, ledgerId, entryId)}, {@code tickKey = deliverAt >> bits},
 * {@code bits = floor(log2(tickTimeMillis))} (the tick given to the constructor; fixed, as
 * InMemoryDelayedDeliveryTracker.java:86 at v4.2.4 fixes its precision bits).
 *
 * <p>Object graph (what SizeCheck measures): {@code TreeSet<Chunk> chunks} ordered by the
 * chunks' first keys, one {@code Chunk probe} (data null) reused for every lookup, and
 * {@code HashMap<Long, Object> membership}, ledgerId to a {@code RoaringBitmap} of its entry
 * ids, switched to a {@code Roaring64Bitmap} for good (until it empties) when an entry id
 * &gt;= 2^32 arrives in that ledger.
 *
 * <p>Timing: {@code getCutoffTime()} of AbstractDelayedDeliveryTracker.java:85-87 at v4.2.4
 * ({@code now}, or {@code now + tick} when not strict); {@code addMessage} refuses
 * {@code deliverAt < 0 || deliverAt <= cutoff} (as InMemoryDelayedDeliveryTracker.java:120);
 * a position is due when the LAST millisecond of its tick is within the cutoff,
 * {@code ((tickKey << bits) | (2^bits - 1)) <= cutoff} ({@link #lastMillis}), so a position is
 * handed out only when every deliverAt of its tick would be refused by {@code addMessage}.
 * The earlier rule {@code tickKey << bits <= cutoff} handed out positions that
 * {@code addMessage} then accepted again when the dispatcher replayed them (deliverAt above the
 * cutoff but inside a due tick): a replay loop until the clock passed deliverAt. When not
 * strict this is InMemory 4.2.4's rule exactly (key rounded down, compared with
 * {@code getBucketCutoffTime() = cutoff - 2^bits + 1}, InMemoryDelayedDeliveryTracker.java:
 * 172-174 at v4.2.4); when strict 4.2.4 rounds the key UP (:163-170) and compares it with
 * {@code now}, buckets {@code (k - 2^bits, k]}, while here the key stays rounded down (the
 * design's encoding is unchanged) and its bucket {@code [k, k + 2^bits - 1]} is due at its last
 * ms: the same guarantee (never early when strict, at most {@code 2^bits - 1} ms late), the
 * bucket edges 1 ms apart. {@link #nextDeliveryTime()} is that last ms, so the timer fires
 * when the first tick becomes due.
 *
 * <p>Add: a position already in {@code membership} returns true and counts nothing. A key
 * above the last key of the last chunk is appended to the last chunk (the append path);
 * every other key goes to {@code floor(probe(k))} (the first chunk when there is none) and is
 * spliced into that chunk's tokens ({@link #splice}: in place when it fits {@code data}, else
 * into the capacity rule's array, else a split). Append path, in this order (the simplest
 * reading of the design, stated): (1) the token fits behind {@code readOffset + length}:
 * written in place; (2) else {@code length + token > 4096}: a new chunk holding k alone
 * follows it (the full chunk stays full, so in-order traffic never leaves half-empty chunks);
 * (3) else {@code data} is reallocated to the smallest power of two &gt;= 32 holding
 * {@code length + token} (a doubling when nothing was consumed) and the unread bytes are
 * copied to offset 0. A split cuts the unread positions plus the new one into
 * {@code count/2} (this object) and {@code count - count/2} (a new chunk) positions, each with
 * exact capacity ({@link #split}). runOptimize rule: on the append path, when the new position's ledger differs from the last chunk's last ledger and that ledger has
 * no bitmap yet, the last ledger's bitmap gets {@code runOptimize()}.
 *
 * <p>{@link #getBufferMemoryUsage()} = sum over chunks of {@code (72 + 16 + data.length)}
 * + {@code 40} per TreeSet node + the bitmaps' {@code getLongSizeInBytes()} (the design's
 * formula, as stated; the JOL size of a Chunk object is 80 B, not 72).
 *
 * <p>{@link #shouldPauseAllDeliveries()}: InMemory 4.2.4's fixed-delay detection
 * (InMemoryDelayedDeliveryTracker.java:121, 144, 180-186, 255-258, 300-306), with the
 * lookahead of {@code delayedDeliveryFixedDelayDetectionLookahead}. {@link #clear()} resets
 * neither that state nor the timer, as InMemoryDelayedDeliveryTracker.java:270-274.
 *
 * <p>Not thread-safe, as InMemoryDelayedDeliveryTracker: the dispatcher serializes calls.
 * The dispatcher may be null outside a broker while debug logging is off: the abstract class
 * reads it only in debug logs and in {@code run(Timeout)} (AbstractDelayedDeliveryTracker.java:
 * 155, 166, 183-185 at v4.2.4).
 */
public class SortedChunksTracker extends AbstractDelayedDeliveryTracker {
    /** TreeSet node bytes in the buffer metric (TreeMap.Entry: 12 + 5 refs + boolean, padded). */
    static final long TREE_NODE_BYTES = 40;
    /** Chunk bytes in the buffer metric, as the design states them. */
    static final long CHUNK_METRIC_BYTES = 72;
    /** byte[] header bytes in the buffer metric. */
    static final long ARRAY_HEADER_BYTES = 16;
    private static final long INT_RANGE = 1L << 32;

    private final TreeSet<Chunk> chunks = new TreeSet<>();
    private final Chunk probe = new Chunk();
    private final HashMap<Long, Object> membership = new HashMap<>();
    private final int bits;
    private final long fixedDelayDetectionLookahead;
    private long delayedMessages;
    private long highestDeliveryTimeTracked;
    private boolean messagesHaveFixedDelay = true;

    public SortedChunksTracker(AbstractPersistentDispatcherMultipleConsumers dispatcher, Timer timer,
                               long tickTimeMillis, Clock clock, boolean isDelayedDeliveryDeliverAtTimeStrict,
                               long fixedDelayDetectionLookahead) {
        super(dispatcher, timer, tickTimeMillis, clock, isDelayedDeliveryDeliverAtTimeStrict);
        this.bits = precisionBits(tickTimeMillis);
        this.fixedDelayDetectionLookahead = fixedDelayDetectionLookahead;
    }

    /** {@code floor(log2(tick))} for tick &gt;= 1, else 0 (the rule of
     * InMemoryDelayedDeliveryTracker.java:99-106 at v4.2.4). */
    static int precisionBits(long tickTimeMillis) {
        return tickTimeMillis > 0 ? 63 - Long.numberOfLeadingZeros(tickTimeMillis) : 0;
    }

    int bits() {
        return bits;
    }

    // ------------------------------------------------------------------ add

    @Override
    public boolean addMessage(long ledgerId, long entryId, long deliverAt) {
        if (deliverAt < 0 || deliverAt <= getCutoffTime()) {
            messagesHaveFixedDelay = false;
            return false;
        }
        if (ledgerId < 0 || entryId < 0) {
            throw new IllegalArgumentException("sorted-chunks: negative position " + ledgerId + ":"
                    + entryId);
        }
        if (!containsMessage(ledgerId, entryId)) {
            insert(deliverAt >> bits, ledgerId, entryId);
            mark(ledgerId, entryId);
            delayedMessages++;
        }
        updateTimer();
        checkAndUpdateHighest(deliverAt);
        return true;
    }

    private void checkAndUpdateHighest(long deliverAt) {
        if (deliverAt < highestDeliveryTimeTracked - tickTimeMillis) {
            messagesHaveFixedDelay = false;
        }
        highestDeliveryTimeTracked = Math.max(highestDeliveryTimeTracked, deliverAt);
    }

    private void insert(long t, long l, long e) {
        if (chunks.isEmpty()) {
            chunks.add(Chunk.single(t, l, e));
            return;
        }
        Chunk last = chunks.last();
        if (Chunk.compareKeys(t, l, e, last.lastTick, last.lastLedger, last.lastEntry) > 0) {
            append(last, t, l, e);
            return;
        }
        probe.firstTick = t;
        probe.firstLedger = l;
        probe.firstEntry = e;
        Chunk c = chunks.floor(probe);
        splice(c != null ? c : chunks.first(), t, l, e);
    }

    private void append(Chunk c, long t, long l, long e) {
        int token = ChunkCodec.tokenLength(c.lastTick, c.lastLedger, c.lastEntry, t, l, e);
        if (l != c.lastLedger && !membership.containsKey(l)) {
            runOptimize(membership.get(c.lastLedger));
        }
        int end = c.readOffset + c.length;
        if (end + token <= c.data.length) {
            ChunkCodec.putToken(c.data, end, c.lastTick, c.lastLedger, c.lastEntry, t, l, e);
            c.length += token;
        } else if (c.length + token > Chunk.MAX_BYTES) {
            chunks.add(Chunk.single(t, l, e)); // a full chunk stays full: in-order traffic
            return;                            // never leaves half-empty chunks behind
        } else {
            byte[] data = new byte[ChunkCodec.capacityFor(c.length + token)];
            System.arraycopy(c.data, c.readOffset, data, 0, c.length);
            ChunkCodec.putToken(data, c.length, c.lastTick, c.lastLedger, c.lastEntry, t, l, e);
            c.data = data;
            c.readOffset = 0;
            c.length += token;
        }
        c.lastTick = t;
        c.lastLedger = l;
        c.lastEntry = e;
        c.count++;
    }

    /**
     * The out-of-order add: splices k = (t, l, e) into c in place (design, "Add"). Scans c's
     * tokens from {@code readOffset} (sequential decode, the cursor kept in the probe's fields,
     * no arrays) to the first key b above k, with a its predecessor; the token(a -&gt; b) is
     * replaced by token(a -&gt; k) token(k -&gt; b). When k is above c's last key, token(last -&gt; k)
     * goes at the end; when k is below c's first key (the first chunk only), k becomes the
     * first key and token(k -&gt; old first) goes in front. With g the growth in bytes:
     * (1) {@code readOffset + length + g <= data.length}: the tail is shifted by
     * System.arraycopy and the tokens written in place (readOffset and capacity kept);
     * (2) else {@code length + g <= 4096}: data becomes {@code capacityFor(length + g)} bytes
     * holding the unread bytes at offset 0 with the splice applied (readOffset 0); (3) else
     * {@link #split}. g is never negative (ChunkCodec#tokenLength's triangle property, proved in
     * docs/design/sorted-chunks.md, "Add"); the shift handles either sign anyway.
     * Limits are checked (tokenLength) before anything is written.
     *
     * <p>O(bytes of the chunk) for the scan and the shift, after O(log chunks) to find it; no
     * allocation except a capacity growth (2) or a split (3), amortized over the adds that fill
     * the capacity.
     */
    private void splice(Chunk c, long t, long l, long e) {
        final int start = c.readOffset;
        final int end = start + c.length;
        int at;   // where the replaced bytes start
        int next; // where the replaced bytes end (== at: nothing replaced)
        int first; // bytes of the first new token
        int second; // bytes of the second new token (0: none)
        boolean below = Chunk.compareKeys(t, l, e, c.firstTick, c.firstLedger, c.firstEntry) < 0;
        Chunk cur = probe; // the scan cursor: first* = a (previous key), last* = b (next key)
        if (below) {
            at = next = start;
            first = ChunkCodec.tokenLength(t, l, e, c.firstTick, c.firstLedger, c.firstEntry);
            second = 0;
        } else {
            cur.firstTick = cur.lastTick = c.firstTick;
            cur.firstLedger = cur.lastLedger = c.firstLedger;
            cur.firstEntry = cur.lastEntry = c.firstEntry;
            at = start;
            next = start;
            while (at < end) {
                next = ChunkCodec.readToken(c.data, at, cur);
                if (Chunk.compareKeys(cur.lastTick, cur.lastLedger, cur.lastEntry, t, l, e) > 0) {
                    break;
                }
                cur.firstTick = cur.lastTick;
                cur.firstLedger = cur.lastLedger;
                cur.firstEntry = cur.lastEntry;
                at = next;
            }
            first = ChunkCodec.tokenLength(cur.firstTick, cur.firstLedger, cur.firstEntry, t, l, e);
            second = at < end
                    ? ChunkCodec.tokenLength(t, l, e, cur.lastTick, cur.lastLedger, cur.lastEntry) : 0;
        }
        int growth = first + second - (next - at);
        int length = c.length + growth;
        if (length > Chunk.MAX_BYTES) {
            split(c, at, next, t, l, e, below);
            return;
        }
        byte[] src = c.data;
        byte[] dst;
        int shift; // offset in dst of byte `start` of src
        if (start + length <= src.length) {
            dst = src;
            shift = 0;
            System.arraycopy(src, next, dst, next + growth, end - next);
        } else {
            dst = new byte[ChunkCodec.capacityFor(length)];
            shift = -start;
            System.arraycopy(src, start, dst, 0, at - start);
            System.arraycopy(src, next, dst, next - start + growth, end - next);
        }
        writeTokens(dst, at + shift, cur, below, c, t, l, e);
        if (below) {
            c.firstTick = t;
            c.firstLedger = l;
            c.firstEntry = e;
        } else if (at == end) {
            c.lastTick = t;
            c.lastLedger = l;
            c.lastEntry = e;
        }
        c.data = dst;
        c.readOffset += shift;
        c.length = length;
        c.count++;
    }

    /** Writes the splice's new token(s) at {@code off} (see {@link #splice}); returns the offset
     * after them. */
    private static int writeTokens(byte[] dst, int off, Chunk cur, boolean below, Chunk c,
                                   long t, long l, long e) {
        if (below) {
            return ChunkCodec.putToken(dst, off, t, l, e, c.firstTick, c.firstLedger, c.firstEntry);
        }
        off = ChunkCodec.putToken(dst, off, cur.firstTick, cur.firstLedger, cur.firstEntry, t, l, e);
        if (Chunk.compareKeys(cur.lastTick, cur.lastLedger, cur.lastEntry, t, l, e) > 0) {
            off = ChunkCodec.putToken(dst, off, t, l, e, cur.lastTick, cur.lastLedger, cur.lastEntry);
        }
        return off;
    }

    /**
     * A splice that would make {@code length > 4096}: the unread positions plus k are cut into
     * {@code count/2} positions (this object) and the rest (a new chunk), each with data of
     * {@code capacityFor(length)} bytes, read offset 0 (the design's split, unchanged). Done on
     * the bytes, with no long[] scratch: the splice is written into one temporary byte[] of the
     * spliced length (local, not retained: at most 4096 + 2 x 29 bytes), scanned to the token
     * of position count/2, whose key becomes the second chunk's first; the tokens on either side
     * of the cut are copied verbatim (a token depends only on its predecessor, which the cut
     * does not change, so the bytes equal a re-encode). Rare (once per about 4 KiB of tokens
     * added to a chunk); O(bytes of the chunk).
     */
    private void split(Chunk c, int at, int next, long t, long l, long e, boolean below) {
        Chunk cur = probe;
        int start = c.readOffset;
        int end = start + c.length;
        int head = at - start;
        byte[] all = new byte[c.length + 2 * 30]; // two tokens of at most 30 bytes each
        System.arraycopy(c.data, start, all, 0, head);
        int w = writeTokens(all, head, cur, below, c, t, l, e);
        System.arraycopy(c.data, next, all, w, end - next);
        int total = w + (end - next);
        // the new key sequence: first key, then `total` bytes of tokens; n = count + 1 keys
        long ft = below ? t : c.firstTick;
        long fl = below ? l : c.firstLedger;
        long fe = below ? e : c.firstEntry;
        boolean atEnd = !below && at == end;
        long lt = atEnd ? t : c.lastTick;
        long ll = atEnd ? l : c.lastLedger;
        long le = atEnd ? e : c.lastEntry;
        int n = c.count + 1;
        int half = n / 2;
        // walk to key index half - 1 (the low half's last) and key `half` (the high half's first)
        cur.lastTick = ft;
        cur.lastLedger = fl;
        cur.lastEntry = fe;
        int off = 0;
        for (int i = 1; i < half; i++) {
            off = ChunkCodec.readToken(all, off, cur);
        }
        int cut = off; // the low half's tokens are all[0, cut)
        long mt = cur.lastTick;
        long ml = cur.lastLedger;
        long me = cur.lastEntry;
        int after = ChunkCodec.readToken(all, cut, cur); // cur.last* = key `half`
        Chunk second = new Chunk();
        second.firstTick = cur.lastTick;
        second.firstLedger = cur.lastLedger;
        second.firstEntry = cur.lastEntry;
        second.lastTick = lt;
        second.lastLedger = ll;
        second.lastEntry = le;
        second.count = n - half;
        second.length = total - after;
        second.data = new byte[ChunkCodec.capacityFor(second.length)];
        System.arraycopy(all, after, second.data, 0, second.length);
        c.firstTick = ft;
        c.firstLedger = fl;
        c.firstEntry = fe;
        c.lastTick = mt;
        c.lastLedger = ml;
        c.lastEntry = me;
        c.count = half;
        c.length = cut;
        c.readOffset = 0;
        c.data = new byte[ChunkCodec.capacityFor(cut)];
        System.arraycopy(all, 0, c.data, 0, cut);
        chunks.add(second);
    }

    // ------------------------------------------------------------------ membership

    /** Whether the position is tracked (not yet dispatched). O(1) hash + bitmap. Not in
     * 4.2.4's interface. */
    public boolean containsMessage(long ledgerId, long entryId) {
        Object bitmap = membership.get(ledgerId);
        if (bitmap == null || entryId < 0) {
            return false;
        }
        if (bitmap instanceof RoaringBitmap) {
            return entryId < INT_RANGE && ((RoaringBitmap) bitmap).contains((int) entryId);
        }
        return ((Roaring64Bitmap) bitmap).contains(entryId);
    }

    private void mark(long ledgerId, long entryId) {
        Object bitmap = membership.get(ledgerId);
        if (entryId >= INT_RANGE) {
            Roaring64Bitmap wide;
            if (bitmap instanceof Roaring64Bitmap) {
                wide = (Roaring64Bitmap) bitmap;
            } else {
                wide = new Roaring64Bitmap();
                if (bitmap != null) {
                    for (int v : (RoaringBitmap) bitmap) {
                        wide.addLong(Integer.toUnsignedLong(v));
                    }
                }
                membership.put(ledgerId, wide);
            }
            wide.addLong(entryId);
        } else if (bitmap instanceof Roaring64Bitmap) {
            ((Roaring64Bitmap) bitmap).addLong(entryId);
        } else {
            RoaringBitmap narrow = (RoaringBitmap) bitmap;
            if (narrow == null) {
                narrow = new RoaringBitmap();
                membership.put(ledgerId, narrow);
            }
            narrow.add((int) entryId);
        }
    }

    private void unmark(long ledgerId, long entryId) {
        Object bitmap = membership.get(ledgerId);
        boolean empty;
        if (bitmap instanceof RoaringBitmap) {
            RoaringBitmap narrow = (RoaringBitmap) bitmap;
            narrow.remove((int) entryId);
            empty = narrow.isEmpty();
        } else {
            Roaring64Bitmap wide = (Roaring64Bitmap) bitmap;
            wide.removeLong(entryId);
            empty = wide.isEmpty();
        }
        if (empty) {
            membership.remove(ledgerId);
        }
    }

    private static void runOptimize(Object bitmap) {
        if (bitmap instanceof RoaringBitmap) {
            ((RoaringBitmap) bitmap).runOptimize();
        } else if (bitmap instanceof Roaring64Bitmap) {
            ((Roaring64Bitmap) bitmap).runOptimize();
        }
    }

    private static long bitmapBytes(Object bitmap) {
        return bitmap instanceof RoaringBitmap ? ((RoaringBitmap) bitmap).getLongSizeInBytes()
                : ((Roaring64Bitmap) bitmap).getLongSizeInBytes();
    }

    // ------------------------------------------------------------------ dispatch

    /** The last millisecond of tick {@code t}: {@code (t << bits) | (2^bits - 1)} (no overflow
     * for any {@code t = deliverAt >> bits} of a deliverAt &gt;= 0). */
    private long lastMillis(long t) {
        return (t << bits) | ((1L << bits) - 1);
    }

    /** Due when every deliverAt of the chunk's first tick is within the cutoff (class Javadoc). */
    private boolean due(Chunk c, long cutoff) {
        return lastMillis(c.firstTick) <= cutoff;
    }

    @Override
    public boolean hasMessageAvailable() {
        boolean available = !chunks.isEmpty() && due(chunks.first(), getCutoffTime());
        if (!available) {
            updateTimer(); // as InMemoryDelayedDeliveryTracker.java:195-197 at v4.2.4
        }
        return available;
    }

    @Override
    public NavigableSet<Position> getScheduledMessages(int maxMessages) {
        int n = maxMessages;
        NavigableSet<Position> positions = new TreeSet<>();
        long cutoff = getCutoffTime();
        long[] key = new long[3];
        while (n > 0 && !chunks.isEmpty()) {
            Chunk c = chunks.first();
            if (!due(c, cutoff)) {
                break;
            }
            positions.add(PositionFactory.create(c.firstLedger, c.firstEntry));
            unmark(c.firstLedger, c.firstEntry);
            delayedMessages--;
            n--;
            if (c.count == 1) {
                chunks.pollFirst();
                continue;
            }
            key[0] = c.firstTick;
            key[1] = c.firstLedger;
            key[2] = c.firstEntry;
            int off = ChunkCodec.readToken(c.data, c.readOffset, key);
            c.length -= off - c.readOffset;
            c.readOffset = off;
            c.firstTick = key[0];
            c.firstLedger = key[1];
            c.firstEntry = key[2];
            c.count--;
        }
        if (chunks.isEmpty()) { // as InMemoryDelayedDeliveryTracker.java:255-258 at v4.2.4
            highestDeliveryTimeTracked = 0;
            messagesHaveFixedDelay = true;
        }
        updateTimer();
        return positions;
    }

    /** The last millisecond of the first tick: the time its positions become due (strict; not
     * strict they are due a tick before, and the abstract class's timer, as for InMemory 4.2.4,
     * fires at this time, AbstractDelayedDeliveryTracker.java:137-159 at v4.2.4). */
    @Override
    protected long nextDeliveryTime() {
        return lastMillis(chunks.first().firstTick);
    }

    @Override
    public long getNumberOfDelayedMessages() {
        return delayedMessages;
    }

    /** The design's metric (class Javadoc). Walks the chunks with {@code higher()} and the
     * bitmaps with {@code forEach}: iterating a TreeSet or {@code HashMap.values()} would cache
     * a view object inside the measured graph (TreeMap.navigableKeySet, HashMap.values), so
     * the JOL size would depend on whether the metric was read. O(chunks log chunks +
     * ledgers). */
    @Override
    public long getBufferMemoryUsage() {
        long total = 0;
        for (Chunk c = chunks.isEmpty() ? null : chunks.first(); c != null; c = chunks.higher(c)) {
            total += CHUNK_METRIC_BYTES + ARRAY_HEADER_BYTES + c.data.length + TREE_NODE_BYTES;
        }
        long[] bitmaps = {0};
        membership.forEach((ledger, bitmap) -> bitmaps[0] += bitmapBytes(bitmap));
        return total + bitmaps[0];
    }

    @Override
    public boolean shouldPauseAllDeliveries() {
        return fixedDelayDetectionLookahead > 0
                && messagesHaveFixedDelay
                && getNumberOfDelayedMessages() >= fixedDelayDetectionLookahead
                && !hasMessageAvailable();
    }

    @Override
    public CompletableFuture<Void> clear() {
        chunks.clear();
        membership.clear();
        delayedMessages = 0;
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {
        super.close();
    }

    // ------------------------------------------------------------------ for SizeCheck

    NavigableSet<Chunk> index() {
        return chunks;
    }

    Chunk probe() {
        return probe;
    }

    Map<Long, Object> membership() {
        return membership;
    }

    /** Debug: {chunks, largest length, largest data capacity, total data capacity}; no view
     * objects are created (see {@link #getBufferMemoryUsage()}). */
    public long[] chunkStats() {
        long maxLength = 0;
        long maxCapacity = 0;
        long capacity = 0;
        for (Chunk c = chunks.isEmpty() ? null : chunks.first(); c != null; c = chunks.higher(c)) {
            maxLength = Math.max(maxLength, c.length);
            maxCapacity = Math.max(maxCapacity, c.data.length);
            capacity += c.data.length;
        }
        return new long[] {chunks.size(), maxLength, maxCapacity, capacity};
    }
}
