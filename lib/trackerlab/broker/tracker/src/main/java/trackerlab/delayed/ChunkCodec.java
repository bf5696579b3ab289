package trackerlab.delayed;

/**
 * The token encoding of {@link Chunk} (docs/design/sorted-chunks.md, "Chunk"). Each position
 * after a chunk's first is one token relative to the previous position {@code (t, L, E)}:
 * <ul>
 *   <li>same tick, same ledger: {@code varint((E - E_prev) << 2 | 0)} (gap &gt;= 1);</li>
 *   <li>same tick, new ledger: {@code varint((L - L_prev) << 2 | 1), varint(E)};</li>
 *   <li>new tick: {@code varint((t - t_prev) << 2 | 2), varint(zigzag(L - L_prev)), varint(E)}.</li>
 * </ul>
 * {@code varint} is unsigned LEB128 of a 64-bit value (7 bits a byte, low group first, high bit
 * = more), {@code zigzag(x) = (x << 1) ^ (x >> 63)}. Stated limit: tick deltas, same-tick
 * ledger deltas and entry gaps below 2^62 (else {@link IllegalArgumentException}, raised before
 * anything is written). Static helpers only; no state.
 */
final class ChunkCodec {
    /** Deltas that are shifted left by 2 must stay below this. */
    static final long DELTA_LIMIT = 1L << 62;

    private ChunkCodec() {
    }

    /** Bytes of the unsigned LEB128 of {@code v}: 1 to 10. */
    static int varintLength(long v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    /** Writes {@code v} at {@code off}; returns the offset after it. */
    static int putVarint(byte[] b, int off, long v) {
        while ((v & ~0x7FL) != 0) {
            b[off++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[off++] = (byte) v;
        return off;
    }

    /** The varint at {@code off} (its size is {@link #varintLength} of the value: minimal). */
    static long readVarint(byte[] b, int off) {
        long v = 0;
        int shift = 0;
        while (true) {
            byte x = b[off++];
            v |= (long) (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                return v;
            }
            shift += 7;
        }
    }

    static long zigzag(long x) {
        return (x << 1) ^ (x >> 63);
    }

    static long unzigzag(long z) {
        return (z >>> 1) ^ -(z & 1);
    }

    private static long checked(long delta, String what) {
        if (delta < 1 || delta >= DELTA_LIMIT) {
            throw new IllegalArgumentException("sorted-chunks: the " + what + " " + delta
                    + " is outside the stated limit [1, 2^62)");
        }
        return delta;
    }

    /** Bytes of the token of {@code (t, l, e)} after {@code (pt, pl, pe)} (which is smaller). */
    static int tokenLength(long pt, long pl, long pe, long t, long l, long e) {
        if (t == pt) {
            if (l == pl) {
                return varintLength(checked(e - pe, "entry gap") << 2);
            }
            return varintLength(checked(l - pl, "ledger delta") << 2 | 1) + varintLength(e);
        }
        return varintLength(checked(t - pt, "tick delta") << 2 | 2)
                + varintLength(zigzag(l - pl)) + varintLength(e);
    }

    /** Writes the token of {@code (t, l, e)} after {@code (pt, pl, pe)}; returns the offset
     * after it. Call {@link #tokenLength} first (it checks the limits). */
    static int putToken(byte[] b, int off, long pt, long pl, long pe, long t, long l, long e) {
        if (t == pt) {
            if (l == pl) {
                return putVarint(b, off, (e - pe) << 2);
            }
            off = putVarint(b, off, (l - pl) << 2 | 1);
            return putVarint(b, off, e);
        }
        off = putVarint(b, off, (t - pt) << 2 | 2);
        off = putVarint(b, off, zigzag(l - pl));
        return putVarint(b, off, e);
    }

    /** Reads the token at {@code off}: {@code key} holds the previous (t, l, e) on entry and the
     * decoded one on return. Returns the offset after the token. */
    static int readToken(byte[] b, int off, long[] key) {
        long v = readVarint(b, off);
        off += varintLength(v);
        int tag = (int) (v & 3);
        long delta = v >>> 2;
        if (tag == 0) {
            key[2] += delta;
        } else if (tag == 1) {
            key[1] += delta;
            key[2] = readVarint(b, off);
            off += varintLength(key[2]);
        } else if (tag == 2) {
            key[0] += delta;
            long z = readVarint(b, off);
            off += varintLength(z);
            key[1] += unzigzag(z);
            key[2] = readVarint(b, off);
            off += varintLength(key[2]);
        } else {
            throw new IllegalStateException("sorted-chunks: corrupt token tag 3 at " + (off - 1));
        }
        return off;
    }

    /** Reads the token at {@code off} with {@code cur}'s {@code last*} fields as the previous
     * key: they hold the decoded key on return (no allocation; the tracker passes its probe).
     * Returns the offset after the token. */
    static int readToken(byte[] b, int off, Chunk cur) {
        long v = readVarint(b, off);
        off += varintLength(v);
        int tag = (int) (v & 3);
        long delta = v >>> 2;
        if (tag == 0) {
            cur.lastEntry += delta;
        } else if (tag == 1) {
            cur.lastLedger += delta;
            cur.lastEntry = readVarint(b, off);
            off += varintLength(cur.lastEntry);
        } else if (tag == 2) {
            cur.lastTick += delta;
            long z = readVarint(b, off);
            off += varintLength(z);
            cur.lastLedger += unzigzag(z);
            cur.lastEntry = readVarint(b, off);
            off += varintLength(cur.lastEntry);
        } else {
            throw new IllegalStateException("sorted-chunks: corrupt token tag 3 at " + (off - 1));
        }
        return off;
    }

    /** The smallest power of two &gt;= {@link Chunk#MIN_CAPACITY} holding {@code length}. */
    static int capacityFor(int length) {
        int cap = Chunk.MIN_CAPACITY;
        while (cap < length) {
            cap <<= 1;
        }
        return cap;
    }
}
