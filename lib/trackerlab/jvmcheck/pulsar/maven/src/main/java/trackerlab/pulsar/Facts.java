package trackerlab.pulsar;

import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * Release facts read from the release's own classes: configuration defaults by reflection on
 * a new {@code ServiceConfiguration}, {@code ConsumerConfigurationData} and
 * {@code ClientConfigurationData}, and the fields (with generic types) of each tracker class.
 *
 * <p>Output lines: {@code fact<TAB>class<TAB>field<TAB>value} ({@code absent} when the field
 * does not exist in this release, {@code class-absent} when the class is not on the path) and {@code form<TAB>class<TAB>field<TAB>type}
 * ({@code class-absent} when the class does not exist), and
 * {@code concrete<TAB>kind<TAB>root<TAB>classes}: the classes a two-message build of each
 * tracker holds (a declared {@code Long2ObjectSortedMap} does not say AVL or red-black).
 */
final class Facts {
    private Facts() {
    }

    static final String[][] DEFAULTS = {
        {"org.apache.pulsar.broker.ServiceConfiguration",
            "delayedDeliveryTickTimeMillis", "delayedDeliveryTrackerFactoryClassName",
            "delayedDeliveryFixedDelayDetectionLookahead", "isDelayedDeliveryDeliverAtTimeStrict",
            "delayedDeliveryEnabled", "managedLedgerMaxEntriesPerLedger",
            "managedLedgerMinLedgerRolloverTimeMinutes", "managedLedgerMaxLedgerRolloverTimeMinutes",
            "maxUnackedMessagesPerConsumer", "maxUnackedMessagesPerSubscription",
            "autoShrinkForConsumerPendingAcksMap", "delayedDeliveryMinIndexCountPerBucket",
            "delayedDeliveryMaxTimeStepPerBucketSnapshotSegmentSeconds",
            "delayedDeliveryMaxIndexesPerBucketSnapshotSegment", "delayedDeliveryMaxNumBuckets",
            "managedLedgerDefaultEnsembleSize", "managedLedgerDefaultWriteQuorum",
            "managedLedgerDefaultAckQuorum", "dispatcherMaxReadBatchSize"},
        {"org.apache.pulsar.client.impl.conf.ConsumerConfigurationData",
            "receiverQueueSize", "negativeAckRedeliveryDelayMicros", "negativeAckPrecisionBitCnt",
            "acknowledgementsGroupTimeMicros", "batchIndexAckEnabled",
            "autoScaledReceiverQueueSizeEnabled", "maxTotalReceiverQueueSizeAcrossPartitions"},
        {"org.apache.pulsar.client.impl.conf.ClientConfigurationData",
            "memoryLimitBytes", "statsIntervalSeconds"},
    };

    static final String[] FORMS = {
        "org.apache.pulsar.broker.delayed.InMemoryDelayedDeliveryTracker",
        "org.apache.pulsar.broker.delayed.AbstractDelayedDeliveryTracker",
        "org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTracker",
        "org.apache.pulsar.broker.delayed.bucket.MutableBucket",
        "org.apache.pulsar.broker.service.PendingAcksMap",
        "org.apache.pulsar.broker.service.Consumer#pendingAcks",
        "org.apache.pulsar.client.impl.NegativeAcksTracker",
        "org.apache.pulsar.common.util.collections.TripleLongPriorityQueue",
        "org.apache.pulsar.common.util.collections.SegmentedLongArray",
        "org.apache.pulsar.client.impl.ConsumerBase#currentReceiverQueueSize",
    };

    static void print(PrintStream out) throws Exception {
        for (String[] row : DEFAULTS) {
            Class<?> type = Reflect.optionalClass(row[0]);
            Object instance = type == null ? null : type.getConstructor().newInstance();
            for (int i = 1; i < row.length; i++) {
                Field f = type == null ? null : Reflect.findField(type, row[i]);
                String value = type == null ? "class-absent"
                        : f == null ? "absent" : String.valueOf(f.get(instance));
                out.println("fact\t" + row[0] + "\t" + row[i] + "\t" + value);
            }
        }
        for (String spec : FORMS) {
            String[] parts = spec.split("#");
            Class<?> type = Reflect.optionalClass(parts[0]);
            if (type == null) {
                out.println("form\t" + parts[0] + "\t-\tclass-absent");
                continue;
            }
            for (Field f : type.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (parts.length == 2 && !f.getName().equals(parts[1])) {
                    continue;
                }
                out.println("form\t" + parts[0] + "\t" + f.getName() + "\t"
                        + f.getGenericType().getTypeName());
            }
        }
        long t = 1_700_000_000_000L;
        long[][] rows = {{t + 60_000, 10, 0}, {t + 61_000, 11, 1}};
        long[][] acks = {{10, 0, 1, 5}, {11, 1, 1, 7}};
        String[][] kinds = {
            {"delayed-tracker", "org.apache.pulsar.broker.delayed.InMemoryDelayedDeliveryTracker"},
            {"nack-tracker", "org.apache.pulsar.client.impl.NegativeAcksTracker"},
            {"pending-acks-map", "org.apache.pulsar.broker.service.PendingAcksMap"},
        };
        for (String[] kind : kinds) {
            if (Reflect.optionalClass(kind[1]) == null) {
                continue;
            }
            Structures.Result r = Structures.forKind(kind[0]).build(
                    kind[0].equals("pending-acks-map") ? acks : rows, new java.util.HashMap<>());
            out.println("concrete\t" + kind[0] + "\t" + r.root + "\t" + r.classes);
        }
    }
}
