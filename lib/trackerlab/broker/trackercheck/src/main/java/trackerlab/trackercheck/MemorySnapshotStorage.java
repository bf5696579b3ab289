package trackerlab.trackercheck;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pulsar.broker.delayed.bucket.BucketNotExistException;
import org.apache.pulsar.broker.delayed.bucket.BucketSnapshotStorage;
import org.apache.pulsar.broker.delayed.proto.SnapshotMetadata;
import org.apache.pulsar.broker.delayed.proto.SnapshotSegment;

/**
 * PIP-195's BucketSnapshotStorage in memory: a bucket snapshot is its metadata and segments
 * (copied through their bytes, as BookkeeperBucketSnapshotStorage serialises them), every future already complete,
 * so PIP-195's tracker loads a segment within the getScheduledMessages call that needs it.
 * Segment entry ids follow BookkeeperBucketSnapshotStorage: entry 0 is the metadata, segment i
 * is entry i (getBucketSnapshotSegment(id, first, last) takes entries first..last inclusive).
 */
public final class MemorySnapshotStorage implements BucketSnapshotStorage {
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, SnapshotMetadata> metadata = new ConcurrentHashMap<>();
    private final Map<Long, List<SnapshotSegment>> segments = new ConcurrentHashMap<>();
    private boolean started;

    @Override
    public CompletableFuture<Long> createBucketSnapshot(SnapshotMetadata snapshotMetadata,
            List<SnapshotSegment> bucketSnapshotSegments, String bucketKey, String topicName, String cursorName) {
        long id = ids.incrementAndGet();
        SnapshotMetadata meta = copy(snapshotMetadata);
        List<SnapshotSegment> copies = new ArrayList<>(bucketSnapshotSegments.size());
        for (SnapshotSegment s : bucketSnapshotSegments) {
            copies.add(copy(s));
        }
        metadata.put(id, meta);
        segments.put(id, copies);
        return CompletableFuture.completedFuture(id);
    }

    /**
     * A copy through the message's bytes: LightProto messages (4.2.4) are mutable, parsed into a
     * new instance; protobuf ones (4.0.8's SnapshotMetadata) through their static parseFrom.
     */
    @SuppressWarnings("unchecked")
    static <T> T copy(T message) {
        try {
            Class<?> cls = message.getClass();
            byte[] bytes = (byte[]) cls.getMethod("toByteArray").invoke(message);
            Method parse = cls.getMethod("parseFrom", byte[].class);
            if (Modifier.isStatic(parse.getModifiers())) {
                return (T) parse.invoke(null, bytes);
            }
            Object fresh = cls.getDeclaredConstructor().newInstance();
            parse.invoke(fresh, (Object) bytes);
            return (T) fresh;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy " + message.getClass().getName(), e);
        }
    }

    @Override
    public CompletableFuture<SnapshotMetadata> getBucketSnapshotMetadata(long bucketId) {
        SnapshotMetadata meta = metadata.get(bucketId);
        if (meta == null) {
            return CompletableFuture.failedFuture(new BucketNotExistException("no bucket " + bucketId));
        }
        return CompletableFuture.completedFuture(meta);
    }

    @Override
    public CompletableFuture<List<SnapshotSegment>> getBucketSnapshotSegment(long bucketId, long first, long last) {
        List<SnapshotSegment> all = segments.get(bucketId);
        if (all == null) {
            return CompletableFuture.failedFuture(new BucketNotExistException("no bucket " + bucketId));
        }
        int from = (int) Math.max(1, first) - 1;
        int to = (int) Math.min(all.size(), last);
        return CompletableFuture.completedFuture(new ArrayList<>(all.subList(Math.min(from, to), to)));
    }

    @Override
    public CompletableFuture<Long> getBucketSnapshotLength(long bucketId) {
        List<SnapshotSegment> all = segments.get(bucketId);
        long bytes = 0;
        if (all != null) {
            for (SnapshotSegment s : all) {
                bytes += s.getSerializedSize();
            }
        }
        return CompletableFuture.completedFuture(bytes);
    }

    @Override
    public CompletableFuture<Void> deleteBucketSnapshot(long bucketId) {
        metadata.remove(bucketId);
        segments.remove(bucketId);
        return CompletableFuture.completedFuture(null);
    }

    /** Snapshots held (created and not deleted). */
    public int size() {
        return segments.size();
    }

    @Override
    public void start() {
        started = true;
    }

    @Override
    public void close() {
        started = false;
    }

    public boolean started() {
        return started;
    }
}
