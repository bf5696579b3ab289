package trackerlab.pulsar;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;
import org.apache.pulsar.client.api.TypedMessageBuilder;
import org.openjdk.jol.info.GraphLayout;

/**
 * The nack workload of {@code trackerlab broker run nack}: Pulsar's Java client
 * (pulsar-client-original of the broker's release) produces at a rate, a share of the
 * messages with {@code deliverAfter}; one Shared consumer negatively acknowledges a share of
 * the messages it receives and acknowledges the rest; on request it measures its own
 * {@code NegativeAcksTracker} with JOL (this JVM runs with Instrumentation, as BrokerHost).
 *
 * <p>Arguments {@code key=value}: {@code service} (pulsar://127.0.0.1:PORT), {@code topic},
 * {@code subscription}, {@code rate} (messages per second), {@code seconds} (how long to
 * produce), {@code nacked} (share 0-1 of messages nacked), {@code nackDelayMs}
 * ({@code ConsumerBuilder.negativeAckRedeliveryDelay}), {@code delayed} (share 0-1 sent with
 * {@code deliverAfter}), {@code delayMs} ({@code fixed:MS} or {@code uniform:LO:HI}),
 * {@code seed}, {@code size} (payload bytes).
 *
 * <p>Which messages are nacked and which delayed is drawn by the producer from
 * {@code SplittableRandom(seed)} (two independent draws per message; a nacked message carries
 * the property {@code nack=1}, a delayed one {@code late=1}). The consumer nacks ({@code Consumer.negativeAcknowledge}) a
 * marked message on its first delivery (redelivery count 0) and acknowledges everything
 * else, so each marked message is tracked once, for the nack delay.
 *
 * <p>Standard output: {@code ready<TAB>JOL's VM details}, every second
 * {@code progress<TAB>s<TAB>sent<TAB>received<TAB>acked<TAB>nacked<TAB>lag ms} (lag: the
 * longest publish-to-receipt time of a first delivery of an undelayed message in that
 * second: how far the consumer is behind the producer), then {@code produced<TAB>sent}.
 * Standard input: {@code measure} answers one line
 * {@code measure<TAB>nackedMessages bytes<TAB>nackedMessageIds bytes<TAB>tracked<TAB>buckets
 * <TAB>walk ms<TAB>classes} (JOL {@code GraphLayout.totalSize()} of the tracker's
 * {@code nackedMessages} and, on releases that have it, {@code nackedMessageIds}, -1 where
 * absent; tracked = {@code getNackedMessagesCount()}; buckets = the outer map's size), taken
 * under the tracker's monitor (its add and close are synchronized); {@code error<TAB>text} on
 * failure. End of input closes the client and exits.
 */
public final class NackLoad {
    private NackLoad() {
    }

    public static void main(String[] args) throws Exception {
        String jol = Measure.requireInstrumentation().replace('\n', ' ');
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        double rate = Double.parseDouble(a.get("rate"));
        double seconds = Double.parseDouble(a.get("seconds"));
        double nackShare = Double.parseDouble(a.get("nacked"));
        long nackDelayMs = Long.parseLong(a.get("nackDelayMs"));
        double delayedShare = Double.parseDouble(a.getOrDefault("delayed", "0"));
        String[] delay = a.getOrDefault("delayMs", "fixed:0").split(":");
        SplittableRandom random = new SplittableRandom(Long.parseLong(a.getOrDefault("seed", "1")));
        byte[] payload = new byte[Integer.parseInt(a.getOrDefault("size", "64"))];
        AtomicLong received = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicLong nacked = new AtomicLong();
        AtomicLong lagMs = new AtomicLong();

        // dnsLookupBind: the client's DNS resolver on loopback (as DelayedLoad's)
        PulsarClient client = PulsarClient.builder().serviceUrl(a.get("service"))
                .dnsLookupBind("127.0.0.1", 0)
                .build();
        Consumer<byte[]> consumer = client.newConsumer()
                .topic(a.get("topic"))
                .subscriptionName(a.get("subscription"))
                .subscriptionType(SubscriptionType.Shared)
                .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                .negativeAckRedeliveryDelay(nackDelayMs, TimeUnit.MILLISECONDS)
                .messageListener((c, m) -> {
                    received.incrementAndGet();
                    if (m.getRedeliveryCount() == 0 && m.getProperty("late") == null) {
                        long lag = System.currentTimeMillis() - m.getPublishTime();
                        lagMs.accumulateAndGet(lag, Math::max);
                    }
                    if (m.getRedeliveryCount() == 0 && "1".equals(m.getProperty("nack"))) {
                        c.negativeAcknowledge(m);
                        nacked.incrementAndGet();
                    } else {
                        c.acknowledgeAsync(m).thenRun(acked::incrementAndGet);
                    }
                })
                .subscribe();
        Object tracker = Reflect.get(consumer, "negativeAcksTracker");
        Producer<byte[]> producer = client.newProducer(Schema.BYTES)
                .topic(a.get("topic"))
                .enableBatching(false)
                .blockIfQueueFull(true)
                .maxPendingMessages(10_000)
                .create();
        Thread commands = new Thread(() -> serve(tracker, client, producer, consumer));
        commands.setDaemon(true);
        System.out.println("ready\t" + jol);
        System.out.flush();
        commands.start();

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
            boolean nack = random.nextDouble() < nackShare;
            boolean late = random.nextDouble() < delayedShare;
            TypedMessageBuilder<byte[]> msg = producer.newMessage().value(payload);
            if (nack) {
                msg.property("nack", "1");
            }
            if (late) {
                msg.property("late", "1");
                long ms = delay[0].equals("fixed") ? Long.parseLong(delay[1])
                        : Long.parseLong(delay[1]) + (long) (random.nextDouble()
                                * (Long.parseLong(delay[2]) - Long.parseLong(delay[1])));
                msg.deliverAfter(ms, TimeUnit.MILLISECONDS);
            }
            msg.sendAsync().thenRun(sent::incrementAndGet);
            long elapsed = (System.nanoTime() - t0) / 1_000_000_000L;
            if (elapsed >= nextReport) {
                report(elapsed, sent.get(), received.get(), acked.get(), nacked.get(),
                        lagMs.getAndSet(0));
                nextReport = elapsed + 1;
            }
        }
        producer.flush();
        say("produced\t" + sent.get());
        while (true) {
            TimeUnit.SECONDS.sleep(1);
            report((System.nanoTime() - t0) / 1_000_000_000L, sent.get(), received.get(),
                    acked.get(), nacked.get(), lagMs.getAndSet(0));
        }
    }

    /** Answers {@code measure} lines until standard input closes, then closes and exits. */
    private static void serve(Object tracker, PulsarClient client, Producer<byte[]> producer,
            Consumer<byte[]> consumer) {
        try {
            BufferedReader stdin = new BufferedReader(
                    new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = stdin.readLine()) != null) {
                if (line.trim().equals("measure")) {
                    try {
                        say(measure(tracker));
                    } catch (Exception e) {
                        say("error\t" + e.toString().replace('\t', ' ').replace('\n', ' '));
                    }
                }
            }
            producer.close();
            consumer.close();
            client.close();
        } catch (Exception e) {
            // closing anyway
        }
        System.exit(0);
    }

    /** JOL on the tracker's fields that hold nacked message ids, under its monitor. */
    static String measure(Object tracker) throws Exception {
        Field nackedField = Reflect.findField(tracker.getClass(), "nackedMessages");
        Field idsField = Reflect.findField(tracker.getClass(), "nackedMessageIds");
        Method count = Reflect.method(tracker.getClass(), "getNackedMessagesCount", 0);
        count.setAccessible(true);
        long t0 = System.nanoTime();
        synchronized (tracker) {
            Object nacked = nackedField.get(tracker);
            Object ids = idsField == null ? null : idsField.get(tracker);
            GraphLayout nackedLayout = nacked == null ? null
                    : Measure.heap(nacked, Collections.emptyList());
            GraphLayout idsLayout = ids == null ? null : Measure.heap(ids, Collections.emptyList());
            Object n = count.invoke(tracker);
            if (n instanceof Optional<?> o) {
                n = o.isPresent() ? o.get() : 0L;
            }
            int buckets = nacked instanceof Map<?, ?> m ? m.size() : -1;
            long walkMs = (System.nanoTime() - t0) / 1_000_000L;
            List<String> classes = new ArrayList<>();
            if (nackedLayout != null) {
                classes.add(Measure.classes(nackedLayout));
            }
            if (idsLayout != null) {
                classes.add("ids:" + Measure.classes(idsLayout));
            }
            return "measure\t" + (nackedLayout == null ? 0 : nackedLayout.totalSize()) + "\t"
                    + (idsField == null ? -1 : idsLayout == null ? 0 : idsLayout.totalSize())
                    + "\t" + ((Number) n).longValue() + "\t" + buckets + "\t" + walkMs + "\t"
                    + String.join(";", classes);
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void report(long seconds, long sent, long received, long acked, long nacked,
            long lagMs) {
        say("progress\t" + seconds + "\t" + sent + "\t" + received + "\t" + acked + "\t" + nacked
                + "\t" + lagMs);
    }
}
