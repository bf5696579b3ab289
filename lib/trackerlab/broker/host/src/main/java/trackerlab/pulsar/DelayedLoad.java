package trackerlab.pulsar;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * The delayed workload of {@code trackerlab broker run delayed}, produced by Pulsar's Java
 * client (pulsar-client-original of the broker's release).
 *
 * <p>Arguments {@code key=value}: {@code service} (pulsar://127.0.0.1:PORT), {@code topic},
 * {@code subscriptions} (comma-separated; Shared), {@code consumers} (per subscription),
 * {@code rate} (messages per second), {@code seconds} (how long to produce), {@code delay}
 * ({@code fixed:MS}, {@code uniform:LO_MS:HI_MS}, or {@code mix:W*PART+W*PART...} whose parts
 * are either form and whose weights need not sum to 1: a part is drawn by weight, then its
 * delay), {@code seed}, {@code size} (payload bytes).
 *
 * <p>The consumers subscribe first (so the subscriptions exist before the first message),
 * then {@code ready} is printed and the producer sends at the rate, each message with
 * {@code TypedMessageBuilder.deliverAfter(delay, MILLISECONDS)} (batching off: a message with
 * a deliver-at time is never batched anyway). Consumers acknowledge each message as it comes
 * due ({@code MessageListener} + {@code acknowledgeAsync}). Every second a line
 * {@code progress<TAB>seconds<TAB>sent<TAB>received<TAB>acked}; after the last send
 * {@code produced<TAB>sent}. The consumers then keep receiving until standard input closes
 * (a line {@code disconnect} closes them, printing {@code disconnected}; {@code reconnect}
 * subscribes them again, printing {@code reconnected});
 * then the client is closed and the JVM exits.
 */
public final class DelayedLoad {
    private DelayedLoad() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        Delay delay = Delay.parse(a.get("delay"));
        double rate = Double.parseDouble(a.get("rate"));
        double seconds = Double.parseDouble(a.get("seconds"));
        int consumersPerSub = Integer.parseInt(a.getOrDefault("consumers", "1"));
        SplittableRandom random = new SplittableRandom(Long.parseLong(a.getOrDefault("seed", "1")));
        byte[] payload = new byte[Integer.parseInt(a.getOrDefault("size", "64"))];
        AtomicLong received = new AtomicLong();
        AtomicLong acked = new AtomicLong();

        // dnsLookupBind: the client's Netty DnsNameResolver binds its UDP socket to loopback
        // (unset, ConnectionPool / DnsResolverGroupImpl leave it on 0.0.0.0); in
        // ClientBuilder since 2.11.0 at least, checked with javap on 2.11.0 to 4.2.4
        PulsarClient client = PulsarClient.builder().serviceUrl(a.get("service"))
                .dnsLookupBind("127.0.0.1", 0)
                .build();
        List<Consumer<byte[]>> consumers = subscribe(client, a, consumersPerSub, received, acked);
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
            long ms = delay.draw(random);
            producer.newMessage().value(payload).deliverAfter(ms, TimeUnit.MILLISECONDS)
                    .sendAsync().thenRun(sent::incrementAndGet);
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
        for (String line = stdin.readLine(); line != null; line = stdin.readLine()) {
            // "disconnect": close every consumer; "reconnect": subscribe them again
            if (line.trim().equals("disconnect")) {
                for (Consumer<byte[]> c : consumers) {
                    c.close();
                }
                consumers.clear();
                System.out.println("disconnected");
            } else if (line.trim().equals("reconnect")) {
                consumers.addAll(subscribe(client, a, consumersPerSub, received, acked));
                System.out.println("reconnected");
            }
            System.out.flush();
        }
        producer.close();
        for (Consumer<byte[]> c : consumers) {
            c.close();
        }
        client.close();
        System.exit(0);
    }

    private static List<Consumer<byte[]>> subscribe(PulsarClient client, Map<String, String> a,
            int consumersPerSub, AtomicLong received, AtomicLong acked) throws Exception {
        List<Consumer<byte[]>> consumers = new ArrayList<>();
        for (String sub : a.get("subscriptions").split(",")) {
            for (int i = 0; i < consumersPerSub; i++) {
                consumers.add(client.newConsumer()
                        .topic(a.get("topic"))
                        .subscriptionName(sub)
                        .subscriptionType(SubscriptionType.Shared)
                        .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                        .messageListener((c, m) -> {
                            received.incrementAndGet();
                            c.acknowledgeAsync(m).thenRun(acked::incrementAndGet);
                        })
                        .subscribe());
            }
        }
        return consumers;
    }

    /** A delay distribution: parts (fixed or uniform, in ms) with cumulative weights. */
    private static final class Delay {
        private final double[] cumulative;
        private final long[] lo;
        private final long[] hi;

        private Delay(double[] cumulative, long[] lo, long[] hi) {
            this.cumulative = cumulative;
            this.lo = lo;
            this.hi = hi;
        }

        static Delay parse(String text) {
            String[] parts = text.startsWith("mix:") ? text.substring(4).split("\\+")
                    : new String[] {"1*" + text};
            double[] cumulative = new double[parts.length];
            long[] lo = new long[parts.length];
            long[] hi = new long[parts.length];
            double total = 0;
            for (int i = 0; i < parts.length; i++) {
                int star = parts[i].indexOf('*');
                double weight = Double.parseDouble(parts[i].substring(0, star));
                String[] f = parts[i].substring(star + 1).split(":");
                if (weight <= 0 || !(f[0].equals("fixed") && f.length == 2
                        || f[0].equals("uniform") && f.length == 3)) {
                    throw new IllegalArgumentException("delay: bad part " + parts[i]);
                }
                total += weight;
                cumulative[i] = total;
                lo[i] = Long.parseLong(f[1]);
                hi[i] = f[0].equals("fixed") ? lo[i] : Long.parseLong(f[2]);
            }
            for (int i = 0; i < parts.length; i++) {
                cumulative[i] /= total;
            }
            return new Delay(cumulative, lo, hi);
        }

        long draw(SplittableRandom random) {
            int i = 0;
            if (cumulative.length > 1) {
                double u = random.nextDouble();
                while (i < cumulative.length - 1 && u >= cumulative[i]) {
                    i++;
                }
            }
            return lo[i] == hi[i] ? lo[i] : lo[i] + (long) (random.nextDouble() * (hi[i] - lo[i]));
        }
    }

    private static void report(long seconds, long sent, long received, long acked) {
        System.out.println("progress\t" + seconds + "\t" + sent + "\t" + received + "\t" + acked);
        System.out.flush();
    }
}
