package trackerlab.pulsar;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Checks that a time-keyed index holds what its rows asked for. */
final class Content {
    private Content() {
    }

    /** True when {@code index} (timestamp -> ledgerId -> entry-id bitmap, any Map shapes) holds
     * exactly the distinct (deliverAt trimmed to {@code bits}, ledgerId, entryId) of the rows.
     * Compares the cardinality of every (bucket, ledger) pair. O(rows). */
    @SuppressWarnings("unchecked")
    static boolean sameBuckets(Object index, long[][] rows, int bits) throws Exception {
        Map<Long, Map<Long, Set<Long>>> expected = new HashMap<>();
        for (long[] r : rows) {
            long bucket = r[0] & (-1L << bits);
            expected.computeIfAbsent(bucket, k -> new HashMap<>())
                    .computeIfAbsent(r[1], k -> new HashSet<>()).add(r[2]);
        }
        Map<Long, Object> real = index == null ? Map.of() : (Map<Long, Object>) index;
        if (real.size() != expected.size()) {
            return false;
        }
        for (Map.Entry<Long, Object> bucket : real.entrySet()) {
            Map<Long, Set<Long>> want = expected.get(bucket.getKey());
            Map<Long, Object> ledgers = (Map<Long, Object>) bucket.getValue();
            if (want == null || want.size() != ledgers.size()) {
                return false;
            }
            for (Map.Entry<Long, Object> ledger : ledgers.entrySet()) {
                Set<Long> entries = want.get(ledger.getKey());
                Object bitmap = ledger.getValue();
                Method card = bitmap.getClass().getMethod("getLongCardinality");
                if (entries == null || (Long) card.invoke(bitmap) != entries.size()) {
                    return false;
                }
            }
        }
        return true;
    }
}
