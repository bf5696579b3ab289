package trackerlab.pulsar;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import org.apache.pulsar.PulsarStandaloneStarter;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.service.Consumer;
import org.apache.pulsar.broker.service.Dispatcher;
import org.apache.pulsar.broker.service.Subscription;
import org.apache.pulsar.broker.service.Topic;
import org.openjdk.jol.info.GraphLayout;

/**
 * A Pulsar standalone in this JVM, and a loopback line protocol that measures its live
 * delayed-delivery trackers with JOL.
 *
 * <p>{@code main} does what {@code PulsarStandaloneStarter.main} does (pulsar-broker:
 * {@code org/apache/pulsar/PulsarStandaloneStarter.java}: construct with the arguments,
 * {@code start()}, exit 1 on failure; the starter's own shutdown hook closes broker and bookie
 * on SIGTERM), keeps the starter, and then serves one client at a time on 127.0.0.1 (port 0;
 * the port is written to {@code host.port} in the working folder once the broker runs).
 * Requests, one line each, answered with one tab-separated line ({@code error<TAB>why} on a
 * failure):
 *
 * <ul>
 *   <li>{@code ping}: {@code ok<TAB>jol details};
 *   <li>{@code measure TOPIC SUBSCRIPTION}: the subscription's dispatcher's
 *       {@code delayedDeliveryTracker} (an {@code Optional} field of
 *       {@code PersistentDispatcherMultipleConsumers}, 2.11 - 4.2), measured with JOL
 *       {@code GraphLayout} rooted at the tracker's index field as {@code jvm-check --pulsar}
 *       roots it ({@code priorityQueue}, the triple heap, with its direct {@code ByteBuf}s
 *       detached and counted apart; or {@code delayedMessageMap}, the time buckets), under the
 *       dispatcher's lock, which every tracker call of the dispatcher holds:
 *       {@code ok<TAB>tracker class<TAB>root<TAB>heap<TAB>direct capacity<TAB>direct
 *       reserved<TAB>buffers<TAB>delayed messages<TAB>walk ms<TAB>classes}; a dispatcher
 *       without a tracker yet answers {@code ok<TAB>none<TAB>...} with zeros;
 *   <li>{@code measure TOPIC SUBSCRIPTION graph} (and {@code measure} of a tracker with
 *       neither index field, e.g. {@code BucketDelayedDeliveryTracker} or a project tracker):
 *       the whole tracker object graph minus what is not the tracker's ({@link TrackerGraph}),
 *       same answer fields;
 *   <li>{@code count TOPIC SUBSCRIPTION}: {@code ok<TAB>getNumberOfDelayedMessages()}, -1 when
 *       there is no tracker (no topic loaded, no dispatcher yet);
 *   <li>{@code alloc}: {@code ok<TAB>bytes allocated by the live threads<TAB>threads<TAB>JVM
 *       uptime ms};
 *   <li>{@code memory}: {@code ok<TAB>heap used<TAB>heap committed<TAB>max heap};
 *   <li>{@code pending TOPIC SUBSCRIPTION}: every consumer of the subscription, its
 *       {@code Consumer.pendingAcks} measured with JOL {@code GraphLayout}: in 4.0+ a
 *       {@code PendingAcksMap}, rooted at its {@code pendingAcks} field (the fastutil map of
 *       maps, as {@code jvm-check --pulsar} roots it: the wrapper's consumer, handler suppliers
 *       and locks are not the structure) and walked under its read lock; before 4.0 the
 *       {@code ConcurrentLongLongPairHashMap} itself, without a lock (its sections hold
 *       StampedLocks of their own; the walk reads a moment's state). Answer
 *       {@code ok<TAB>consumers} then, per consumer, seven fields: {@code name<TAB>root<TAB>
 *       heap<TAB>entries (size())<TAB>unacked (getUnackedMessages())<TAB>blocked (isBlocked():
 *       blockedConsumerOnUnackedMsgs)<TAB>walk ms}.
 * </ul>
 *
 * <p>JOL needs Instrumentation: start the JVM with {@code -Djdk.attach.allowAttachSelf=true}
 * (and {@code --add-opens=java.base/java.util=ALL-UNNAMED}, as the jvm-check harness).
 */
public final class BrokerHost {
    static final String PORT_FILE = "host.port";

    private final PulsarService pulsar;
    private final String jolDetails;

    private BrokerHost(PulsarService pulsar, String jolDetails) {
        this.pulsar = pulsar;
        this.jolDetails = jolDetails;
    }

    public static void main(String[] args) throws Exception {
        String details = Measure.requireInstrumentation().replace('\n', ' ').replace('\t', ' ');
        PulsarStandaloneStarter standalone = new PulsarStandaloneStarter(args);
        try {
            standalone.start();
        } catch (Throwable th) {
            System.err.println("Failed to start pulsar service.");
            th.printStackTrace();
            Runtime.getRuntime().exit(1);
            return;
        }
        PulsarService pulsar = (PulsarService) Reflect.get(standalone, "broker");
        new BrokerHost(pulsar, details).serve();
    }

    private void serve() throws IOException {
        ServerSocket server = new ServerSocket(0, 4, InetAddress.getByName("127.0.0.1"));
        Path tmp = Path.of(PORT_FILE + ".tmp");
        Files.writeString(tmp, server.getLocalPort() + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, Path.of(PORT_FILE), StandardCopyOption.ATOMIC_MOVE);
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    session(s);
                } catch (IOException e) {
                    // the client went away: wait for the next one
                }
            }
        }, "trackerlab-broker-host");
        t.setDaemon(true);
        t.start();
    }

    private void session(Socket s) throws IOException {
        BufferedReader in = new BufferedReader(
                new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String answer;
            try {
                answer = answer(line.trim().split("\\s+"));
            } catch (Throwable e) {
                String why = e.getClass().getSimpleName() + ": " + e.getMessage();
                answer = "error\t" + why.replace('\t', ' ').replace('\n', ' ');
            }
            out.println(answer);
        }
    }

    private String answer(String[] words) throws Exception {
        switch (words[0]) {
            case "ping":
                return "ok\t" + jolDetails;
            case "memory": {
                Runtime rt = Runtime.getRuntime();
                return "ok\t" + (rt.totalMemory() - rt.freeMemory()) + "\t" + rt.totalMemory()
                        + "\t" + rt.maxMemory();
            }
            case "measure":
                if (words.length != 3 && !(words.length == 4 && words[3].equals("graph"))) {
                    throw new IllegalArgumentException("usage: measure TOPIC SUBSCRIPTION [graph]");
                }
                return measure(words[1], words[2], words.length == 4);
            case "count":
                if (words.length != 3) {
                    throw new IllegalArgumentException("usage: count TOPIC SUBSCRIPTION");
                }
                return count(words[1], words[2]);
            case "alloc":
                return alloc();
            case "pending":
                if (words.length != 3) {
                    throw new IllegalArgumentException("usage: pending TOPIC SUBSCRIPTION");
                }
                return pending(words[1], words[2]);
            default:
                throw new IllegalArgumentException("unknown request " + words[0]);
        }
    }

    private Subscription subscription(String topic, String subscription) {
        Optional<Topic> found = pulsar.getBrokerService().getTopicReference(topic);
        if (found.isEmpty()) {
            throw new IllegalStateException("no topic " + topic + " on this broker");
        }
        Subscription sub = found.get().getSubscription(subscription);
        if (sub == null) {
            throw new IllegalStateException("no subscription " + subscription + " on " + topic);
        }
        return sub;
    }

    /** Every consumer's {@code pendingAcks} of {@code topic}'s {@code subscription}. */
    private String pending(String topic, String subscription) throws Exception {
        List<Consumer> consumers = subscription(topic, subscription).getConsumers();
        StringBuilder out = new StringBuilder("ok\t").append(consumers.size());
        for (Consumer consumer : consumers) {
            Object acks = Reflect.get(consumer, "pendingAcks");
            if (acks == null) {
                throw new IllegalStateException("consumer " + consumer.consumerName()
                        + " has no pendingAcks (not an individual-ack subscription?)");
            }
            boolean wrapped = Reflect.findField(acks.getClass(), "readLock") != null
                    && Reflect.findField(acks.getClass(), "pendingAcks") != null;
            Object root = wrapped ? Reflect.get(acks, "pendingAcks") : acks;
            String rootName = wrapped ? acks.getClass().getSimpleName() + ".pendingAcks"
                    : "Consumer.pendingAcks (" + acks.getClass().getSimpleName() + ")";
            Lock lock = wrapped ? (Lock) Reflect.get(acks, "readLock") : null;
            long heap;
            long entries;
            long walkMs;
            if (lock != null) {
                lock.lock();
            }
            try {
                long t0 = System.nanoTime();
                heap = Measure.heap(root, Collections.emptyList()).totalSize();
                walkMs = (System.nanoTime() - t0) / 1_000_000;
                entries = ((Number) Reflect.method(acks.getClass(), "size", 0).invoke(acks))
                        .longValue();
            } finally {
                if (lock != null) {
                    lock.unlock();
                }
            }
            out.append('\t').append(consumer.consumerName().replace('\t', ' '))
                    .append('\t').append(rootName).append('\t').append(heap)
                    .append('\t').append(entries).append('\t').append(consumer.getUnackedMessages())
                    .append('\t').append(consumer.isBlocked()).append('\t').append(walkMs);
        }
        return out.toString();
    }

    /** {@code getNumberOfDelayedMessages()} of the subscription's tracker (-1 without a
     * topic, a dispatcher or a tracker: e.g. while an unloaded topic is not loaded again),
     * under the dispatcher's lock. */
    private String count(String topic, String subscription) throws Exception {
        Optional<Topic> found = pulsar.getBrokerService().getTopicReference(topic);
        Subscription sub = found.isEmpty() ? null : found.get().getSubscription(subscription);
        Dispatcher dispatcher = sub == null ? null : sub.getDispatcher();
        if (dispatcher == null
                || Reflect.findField(dispatcher.getClass(), "delayedDeliveryTracker") == null) {
            return "ok\t-1";
        }
        synchronized (dispatcher) {
            Object held = Reflect.get(dispatcher, "delayedDeliveryTracker");
            Object tracker = held instanceof Optional ? ((Optional<?>) held).orElse(null) : held;
            if (tracker == null) {
                return "ok\t-1";
            }
            Method count = Reflect.method(tracker.getClass(), "getNumberOfDelayedMessages", 0);
            return "ok\t" + ((Number) count.invoke(tracker)).longValue();
        }
    }

    /** Bytes allocated so far by the broker JVM's live threads: the sum of
     * {@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes} over
     * {@code getAllThreadIds()} (threads that ended are no longer counted), and the number of
     * threads summed and the JVM's uptime: {@code ok<TAB>bytes<TAB>threads<TAB>uptime ms}. */
    private static String alloc() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long[] ids = mx.getAllThreadIds();
        long total = 0;
        int counted = 0;
        for (long bytes : mx.getThreadAllocatedBytes(ids)) {
            if (bytes >= 0) {
                total += bytes;
                counted++;
            }
        }
        return "ok\t" + total + "\t" + counted + "\t"
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
    }

    /** The tracker of {@code topic}'s {@code subscription}, measured under the dispatcher's
     * lock ({@code PersistentDispatcherMultipleConsumers.trackDelayedDelivery} and
     * {@code getMessagesToReplayNow} call the tracker holding it). */
    private String measure(String topic, String subscription, boolean graph) throws Exception {
        Optional<Topic> found = pulsar.getBrokerService().getTopicReference(topic);
        if (found.isEmpty()) {
            throw new IllegalStateException("no topic " + topic + " on this broker");
        }
        Subscription sub = found.get().getSubscription(subscription);
        if (sub == null) {
            throw new IllegalStateException("no subscription " + subscription + " on " + topic);
        }
        Dispatcher dispatcher = sub.getDispatcher();
        if (dispatcher == null) {
            return "ok\tnone\t\t0\t0\t0\t0\t0\t0\t";
        }
        if (Reflect.findField(dispatcher.getClass(), "delayedDeliveryTracker") == null) {
            throw new IllegalStateException(dispatcher.getClass().getName()
                    + " has no delayedDeliveryTracker field (not a Shared persistent dispatcher?)");
        }
        synchronized (dispatcher) {
            Object held = Reflect.get(dispatcher, "delayedDeliveryTracker");
            Object tracker = held instanceof Optional ? ((Optional<?>) held).orElse(null) : held;
            if (tracker == null) {
                return "ok\tnone\t\t0\t0\t0\t0\t0\t0\t";
            }
            String rootField = Reflect.firstField(tracker, "priorityQueue", "delayedMessageMap");
            if (graph || rootField == null) {
                synchronized (tracker) { // the bucket tracker's methods synchronize on it
                    return TrackerGraph.measure(tracker);
                }
            }
            Object root = Reflect.get(tracker, rootField);
            long t0 = System.nanoTime();
            List<Measure.Slot> buffers = rootField.equals("priorityQueue")
                    ? Measure.byteBufs(root) : Collections.emptyList();
            GraphLayout layout = Measure.heap(root, buffers);
            long heap = layout.totalSize() + Measure.bufferObjects(buffers);
            long walkMs = (System.nanoTime() - t0) / 1_000_000;
            long capacity = Measure.bufferCapacity(buffers);
            long reserved = Measure.bufferReserved(buffers);
            // measured first: 4.0.1's count streams values() of every map (views stay cached)
            Method count = Reflect.method(tracker.getClass(), "getNumberOfDelayedMessages", 0);
            long delayed = ((Number) count.invoke(tracker)).longValue();
            return String.join("\t", "ok", tracker.getClass().getSimpleName(),
                    tracker.getClass().getSimpleName() + "." + rootField, Long.toString(heap),
                    Long.toString(capacity), Long.toString(reserved),
                    Integer.toString(buffers.size()), Long.toString(delayed),
                    Long.toString(walkMs), Measure.classes(layout));
        }
    }
}
