package trackerlab.pulsar;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * The workload of {@code trackerlab broker run pending-acks}: consumers that hold their acks,
 * never ack, or negatively acknowledge a share, produced by Pulsar's Java client
 * (pulsar-client-original of the broker's release).
 *
 * <p>Arguments {@code key=value}: {@code service} (pulsar://127.0.0.1:PORT), {@code topic},
 * {@code subscriptions} (comma-separated; Shared, one consumer each), {@code modes} (one per
 * subscription, comma-separated: {@code ack:HOLD_MS} acknowledges each message HOLD_MS after
 * receipt; {@code never} acknowledges nothing; {@code nack:SHARE:HOLD_MS} negatively
 * acknowledges that share of first deliveries, every 1/SHARE-th message, and acknowledges the
 * rest, and every redelivery, HOLD_MS after receipt), {@code nackdelay} (the consumers'
 * negativeAckRedeliveryDelay, ms), {@code groupms} (acknowledgmentGroupTime, ms; the client's
 * default is 100), {@code rate} (messages per second), {@code seconds}, {@code size}.
 *
 * <p>The consumers subscribe first, then {@code ready} is printed and the producer sends at the
 * rate (batching off). Every second {@code progress<TAB>seconds<TAB>sent<TAB>received<TAB>acked};
 * after the last send {@code produced<TAB>sent}; the consumers keep going until standard input
 * closes, then the client is closed and the JVM exits.
 */
public final class PendingLoad {
    private PendingLoad() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        double rate = Double.parseDouble(a.get("rate"));
        double seconds = Double.parseDouble(a.get("seconds"));
        long nackDelayMs = Long.parseLong(a.getOrDefault("nackdelay", "60000"));
        long groupMs = Long.parseLong(a.getOrDefault("groupms", "100"));
        byte[] payload = new byte[Integer.parseInt(a.getOrDefault("size", "64"))];
        String[] subs = a.get("subscriptions").split(",");
        String[] modes = a.get("modes").split(",");
        if (subs.length != modes.length) {
            throw new IllegalArgumentException("one mode per subscription");
        }
        AtomicLong received = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(1);

        // dnsLookupBind: the client's DNS resolver on loopback (as DelayedLoad's)
        PulsarClient client = PulsarClient.builder().serviceUrl(a.get("service"))
                .dnsLookupBind("127.0.0.1", 0)
                .build();
        List<Consumer<byte[]>> consumers = new ArrayList<>();
        for (int i = 0; i < subs.length; i++) {
            String[] mode = modes[i].split(":");
            boolean never = mode[0].equals("never");
            long holdMs = never ? 0 : Long.parseLong(mode[mode.length - 1]);
            double share = mode[0].equals("nack") ? Double.parseDouble(mode[1]) : 0.0;
            AtomicLong firsts = new AtomicLong();
            Set<MessageId> nacked = ConcurrentHashMap.newKeySet();
            consumers.add(client.newConsumer()
                    .topic(a.get("topic"))
                    .subscriptionName(subs[i])
                    .subscriptionType(SubscriptionType.Shared)
                    .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                    .acknowledgmentGroupTime(groupMs, TimeUnit.MILLISECONDS)
                    .negativeAckRedeliveryDelay(nackDelayMs, TimeUnit.MILLISECONDS)
                    .messageListener((c, m) -> {
                        received.incrementAndGet();
                        if (never) {
                            return;
                        }
                        if (share > 0 && !nacked.remove(m.getMessageId())) {
                            long n = firsts.getAndIncrement();
                            if (Math.floor((n + 1) * share) > Math.floor(n * share)) {
                                nacked.add(m.getMessageId());
                                c.negativeAcknowledge(m);
                                return;
                            }
                        }
                        Runnable ack = () -> c.acknowledgeAsync(m).thenRun(acked::incrementAndGet);
                        if (holdMs > 0) {
                            timer.schedule(ack, holdMs, TimeUnit.MILLISECONDS);
                        } else {
                            ack.run();
                        }
                    })
                    .subscribe());
        }
        Producer<byte[]> producer = client.newProducer(Schema.BYTES)
                .topic(a.get("topic"))
                .enableBatching(false)
                .blockIfQueueFull(true)
                .maxPendingMessages(10_000)
                .create();
        System.out.println("ready");
        System.out.flush();

        long total = Math.round(rate * seconds);
        long t0 = System.nanoTime();
        long nextReport = 1;
        AtomicLong sent = new AtomicLong();
        for (long i = 0; i < total; i++) {
            long due = t0 + (long) (i * 1e9 / rate);
            long now = System.nanoTime();
            if (due > now) {
                TimeUnit.NANOSECONDS.sleep(due - now);
            }
            producer.newMessage().value(payload).sendAsync().thenRun(sent::incrementAndGet);
            long elapsed = (System.nanoTime() - t0) / 1_000_000_000L;
            if (elapsed >= nextReport) {
                report(elapsed, sent.get(), received.get(), acked.get());
                nextReport = elapsed + 1;
            }
        }
        producer.flush();
        System.out.println("produced\t" + sent.get());
        System.out.flush();
        Thread reporter = new Thread(() -> {
            try {
                while (true) {
                    TimeUnit.SECONDS.sleep(1);
                    report((System.nanoTime() - t0) / 1_000_000_000L, sent.get(), received.get(),
                            acked.get());
                }
            } catch (InterruptedException e) {
                // closing
            }
        });
        reporter.setDaemon(true);
        reporter.start();
        BufferedReader stdin = new BufferedReader(
                new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (stdin.readLine() != null) {
            // wait until standard input closes
        }
        timer.shutdownNow();
        producer.close();
        for (Consumer<byte[]> c : consumers) {
            c.close();
        }
        client.close();
        System.exit(0);
    }

    private static void report(long seconds, long sent, long received, long acked) {
        System.out.println("progress\t" + seconds + "\t" + sent + "\t" + received + "\t" + acked);
        System.out.flush();
    }
}
