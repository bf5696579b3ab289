package trackerlab.trackercheck;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.NavigableSet;
import org.apache.bookkeeper.mledger.Position;
import org.apache.pulsar.broker.delayed.DelayedDeliveryTracker;

/**
 * One delayed-delivery tracker driven line by line on stdin/stdout: one request a line, one
 * answer a line, {@code ok[ FIELDS]} or {@code error MESSAGE}. The clock is the driver's.
 * <pre>
 * new KIND TICK_MS STRICT [KEY=VALUE ...]   -> ok CLASS   (KIND: in-memory | bucket | sorted-chunks)
 * now MS                                    -> ok
 * add LEDGER ENTRY DELIVER_AT_MS            -> ok true|false   (addMessage)
 * get N                                     -> ok L:E L:E ...  (getScheduledMessages, sorted)
 * has                                       -> ok true|false   (hasMessageAvailable)
 * count                                     -> ok N            (getNumberOfDelayedMessages)
 * contains LEDGER ENTRY                     -> ok true|false   (containsMessage, where it exists)
 * pause                                     -> ok true|false   (shouldPauseAllDeliveries)
 * clear                                     -> ok              (clear().get())
 * memory                                    -> ok BYTES        (getBufferMemoryUsage)
 * timer                                     -> ok SCHEDULED LAST_DELAY_MS
 * sorted-chunks                             -> ok true|false   (the project's tracker is present)
 * quit                                      -> ok, then exit 0
 * </pre>
 */
public final class Driver {
    private final ManualClock clock = new ManualClock(0);
    private IdleTimer timer = new IdleTimer();
    private DelayedDeliveryTracker tracker;

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8)); // stray prints off stdout
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Driver driver = new Driver();
        String line;
        while ((line = in.readLine()) != null) {
            String answer;
            try {
                answer = driver.handle(line.trim().split("\\s+"));
            } catch (Exception | AssertionError e) {
                answer = "error " + e.getClass().getSimpleName() + ": "
                        + String.valueOf(e.getMessage()).replace('\n', ' ');
            }
            out.println(answer);
            out.flush();
            if (answer.equals("ok bye")) {
                break;
            }
        }
        driver.closeTracker();
    }

    private void closeTracker() {
        if (tracker != null) {
            tracker.close();
            tracker = null;
        }
    }

    private DelayedDeliveryTracker tracker() {
        if (tracker == null) {
            throw new IllegalStateException("no tracker: send new first");
        }
        return tracker;
    }

    String handle(String[] f) throws Exception {
        switch (f[0]) {
            case "new": {
                closeTracker();
                Trackers.Options o = new Trackers.Options();
                for (int i = 4; i < f.length; i++) {
                    String[] kv = f[i].split("=", 2);
                    o.set(kv[0], kv[1]);
                }
                timer = new IdleTimer();
                // a fresh dispatcher and cursor: PIP-195 recovers from the cursor's properties
                tracker = Trackers.create(f[1], Long.parseLong(f[2]), Boolean.parseBoolean(f[3]), clock, timer, o,
                        Trackers.dispatcher());
                return "ok " + tracker.getClass().getName();
            }
            case "now":
                clock.set(Long.parseLong(f[1]));
                return "ok";
            case "add":
                return "ok " + tracker().addMessage(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
            case "get": {
                NavigableSet<Position> got = tracker().getScheduledMessages(Integer.parseInt(f[1]));
                StringBuilder sb = new StringBuilder("ok");
                for (Position p : got) {
                    sb.append(' ').append(p.getLedgerId()).append(':').append(p.getEntryId());
                }
                return sb.toString();
            }
            case "has":
                return "ok " + tracker().hasMessageAvailable();
            case "count":
                return "ok " + tracker().getNumberOfDelayedMessages();
            case "contains":
                return "ok " + Trackers.contains(tracker(), Long.parseLong(f[1]), Long.parseLong(f[2]));
            case "pause":
                return "ok " + tracker().shouldPauseAllDeliveries();
            case "clear":
                tracker().clear().get();
                return "ok";
            case "memory":
                return "ok " + tracker().getBufferMemoryUsage();
            case "timer":
                return "ok " + timer.scheduled + " " + timer.lastDelayMs;
            case "sorted-chunks":
                return "ok " + Trackers.sortedChunksPresent();
            case "quit":
                return "ok bye";
            default:
                throw new IllegalArgumentException("unknown request " + f[0]);
        }
    }
}
