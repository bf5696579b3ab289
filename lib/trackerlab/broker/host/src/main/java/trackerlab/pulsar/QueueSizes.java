package trackerlab.pulsar;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.impl.ConsumerBase;
import org.apache.pulsar.client.impl.ConsumerImpl;
import org.apache.pulsar.client.impl.MultiTopicsConsumerImpl;

/**
 * The Java client's half of {@code trackerlab broker receiver-queue}: one consumer with
 * PIP-74's auto-scaled receiver queue ({@code ConsumerBuilder.autoScaledReceiverQueueSizeEnabled},
 * apache/pulsar#14494), whose current queue sizes it prints as they change.
 *
 * <p>Arguments {@code key=value}: {@code service} (pulsar://127.0.0.1:PORT), {@code topic},
 * {@code subscription} (Exclusive, as the Go perf consumer's default), {@code queue} (the
 * receiver queue's maximum, default 1000 as {@code ConsumerConfigurationData}).
 *
 * <p>The consumer receives with {@code receive(200 ms)} and acknowledges each message, as the
 * Go perf consumer's loop does ({@code for m := range consumer.Chan() { Ack }}); in 2.11 both
 * receive paths call {@code expectMoreIncomingMessages} on an empty queue
 * ({@code ConsumerImpl.java:494}, {@code MultiTopicsConsumerImpl.java:391}). If the loop fails
 * it prints {@code error} and the JVM exits with 3, so the run is not kept. A
 * sampler reads {@code ConsumerBase.getCurrentReceiverQueueSize()} every 20 ms: of the
 * consumer, and for a partitioned topic ({@code MultiTopicsConsumerImpl}) of the parent and
 * of each partition's {@code ConsumerImpl} ({@code getConsumers()}). It prints {@code ready}
 * once subscribed, then {@code size<TAB>epoch_ms<TAB>name<TAB>size} for each first reading
 * and each change ({@code name}: the partition's topic, or {@code parent}), and on standard
 * input's end {@code final<TAB>epoch_ms<TAB>received}, then closes the client.
 */
public final class QueueSizes {
    private static final long SAMPLE_MS = 20;

    private QueueSizes() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong received = new AtomicLong();
        // dnsLookupBind: the client's DNS resolver binds its UDP socket to loopback, as
        // DelayedLoad does (the run's sockets stay on 127.0.0.1).
        try (PulsarClient client = PulsarClient.builder()
                .serviceUrl(a.get("service"))
                .dnsLookupBind("127.0.0.1", 0)
                .build()) {
            Consumer<byte[]> consumer = client.newConsumer()
                    .topic(a.get("topic"))
                    .subscriptionName(a.get("subscription"))
                    .subscriptionType(SubscriptionType.Exclusive)
                    .receiverQueueSize(Integer.parseInt(a.getOrDefault("queue", "1000")))
                    .autoScaledReceiverQueueSizeEnabled(true)
                    .subscribe();
            Thread loop = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        Message<byte[]> m = consumer.receive(200, TimeUnit.MILLISECONDS);
                        if (m != null) {
                            consumer.acknowledge(m);
                            received.incrementAndGet();
                        }
                    } catch (Exception e) {
                        if (!stop.get()) {
                            // the run's outcome would be wrong: say so and end the JVM
                            e.printStackTrace();
                            System.out.println("error\t" + e);
                            System.out.flush();
                            Runtime.getRuntime().halt(3);
                        }
                        return;
                    }
                }
            }, "receive");
            loop.setDaemon(true);
            System.out.println("ready");
            System.out.flush();
            loop.start();
            Map<String, Integer> last = new LinkedHashMap<>();
            Thread sampler = new Thread(() -> {
                while (!stop.get()) {
                    print(sizes(consumer), last);
                    try {
                        Thread.sleep(SAMPLE_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "sampler");
            sampler.setDaemon(true);
            sampler.start();
            InputStream in = System.in;
            while (in.read() >= 0) {
                // the orchestrator closes standard input to end the run
            }
            stop.set(true);
            sampler.join();
            print(sizes(consumer), last);
            System.out.println("final\t" + System.currentTimeMillis() + "\t" + received.get());
            System.out.flush();
            consumer.close();
        }
    }

    /** The current sizes: the partitions' consumers and the parent, or the one consumer. */
    static Map<String, Integer> sizes(Consumer<byte[]> consumer) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (consumer instanceof MultiTopicsConsumerImpl) {
            MultiTopicsConsumerImpl<byte[]> multi = (MultiTopicsConsumerImpl<byte[]>) consumer;
            List<ConsumerImpl<byte[]>> parts = new ArrayList<>(multi.getConsumers());
            for (ConsumerImpl<byte[]> part : parts) {
                out.put(part.getTopic(), part.getCurrentReceiverQueueSize());
            }
            out.put("parent", multi.getCurrentReceiverQueueSize());
        } else {
            out.put(consumer.getTopic(), ((ConsumerBase<byte[]>) consumer).getCurrentReceiverQueueSize());
        }
        return out;
    }

    private static void print(Map<String, Integer> now, Map<String, Integer> last) {
        long t = System.currentTimeMillis();
        StringBuilder lines = new StringBuilder();
        for (Map.Entry<String, Integer> e : now.entrySet()) {
            if (!e.getValue().equals(last.get(e.getKey()))) {
                lines.append("size\t").append(t).append('\t').append(e.getKey()).append('\t')
                        .append(e.getValue()).append('\n');
                last.put(e.getKey(), e.getValue());
            }
        }
        if (lines.length() > 0) {
            System.out.print(lines);
            System.out.flush();
        }
    }
}
