package trackerlab.trackercheck;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.lang.reflect.Method;
import java.time.Clock;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pulsar.broker.delayed.AbstractDeliveryTrackerTest;
import org.apache.pulsar.broker.delayed.DelayedDeliveryTracker;
import org.testng.SkipException;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.DataProvider;

/**
 * Pulsar's tracker-agnostic tests (AbstractDeliveryTrackerTest in pulsar-broker-V-tests.jar:
 * test, testWithTimer, testAddWithinTickTime and the four strict-delay tests) run against the
 * project's own trackerlab.delayed.SortedChunksTracker, built by name through {@link Trackers}.
 * Only the data provider is ours: it gives each test method a tracker with the tick and strict
 * mode InMemoryDeliveryTrackerTest gives the in-memory tracker for the same method. The
 * in-memory test's own methods take InMemoryDelayedDeliveryTracker and read its internals, so
 * they cannot run on another class. Compiled in profile pulsar-tests only; skipped while the
 * class is absent. With -Dtrackerlab.adapter.kind=in-memory the same provider builds Pulsar's
 * InMemoryDelayedDeliveryTracker: the check that the adapter itself is right.
 */
public class SortedChunksDeliveryTrackerTest extends AbstractDeliveryTrackerTest {
    /** The kind under test: sorted-chunks; -Dtrackerlab.adapter.kind=in-memory checks the adapter itself. */
    static final String KIND = System.getProperty("trackerlab.adapter.kind", "sorted-chunks");

    @BeforeClass
    public void requireTracker() {
        if (KIND.equals("sorted-chunks") && !Trackers.sortedChunksPresent()) {
            throw new SkipException(Trackers.SORTED_CHUNKS + " is not on the class path");
        }
    }

    private DelayedDeliveryTracker make(Timer withTimer, Clock withClock, long tickMs, boolean strict)
            throws Exception {
        return Trackers.create(KIND, tickMs, strict, withClock, withTimer, new Trackers.Options(), dispatcher);
    }

    @DataProvider(name = "delayedTracker")
    public Object[][] provider(Method method) throws Exception {
        if (KIND.equals("sorted-chunks") && !Trackers.sortedChunksPresent()) {
            return new Object[0][]; // TestNG 7.7 still calls the provider after a skipped @BeforeClass
        }
        dispatcher = Trackers.dispatcher();
        clock = mock(Clock.class);
        clockTime = new AtomicLong();
        when(clock.millis()).then(x -> clockTime.get());
        switch (method.getName()) {
            case "testWithTimer": {
                Timer ownTimer = mock(Timer.class);
                AtomicLong ownTime = new AtomicLong();
                Clock ownClock = mock(Clock.class);
                when(ownClock.millis()).then(x -> ownTime.get());
                NavigableMap<Long, TimerTask> tasks = new TreeMap<>();
                when(ownTimer.newTimeout(any(), anyLong(), any())).then(inv -> {
                    TimerTask task = inv.getArgument(0, TimerTask.class);
                    long at = ownTime.get() + inv.getArgument(2, TimeUnit.class).toMillis(inv.getArgument(1, Long.class));
                    tasks.put(at, task);
                    Timeout t = mock(Timeout.class);
                    when(t.cancel()).then(i -> {
                        tasks.remove(at, task);
                        return null;
                    });
                    return t;
                });
                return new Object[][] {{make(ownTimer, ownClock, 1, false), tasks}};
            }
            case "testAddWithinTickTime":
                return new Object[][] {{make(timer, clock, 100, false)}};
            case "testAddMessageWithStrictDelay":
                return new Object[][] {{make(timer, clock, 0, true)}};
            case "testAddMessageWithDeliverAtTimeAfterNowBeforeTickTimeFrequencyWithStrict":
                return new Object[][] {{make(timer, clock, 1000, true)}};
            case "testAddMessageWithDeliverAtTimeAfterNowAfterTickTimeFrequencyWithStrict":
                return new Object[][] {{make(timer, clock, 1, true)}};
            case "testAddMessageWithDeliverAtTimeAfterFullTickTimeWithStrict":
                return new Object[][] {{make(timer, clock, 500, true)}};
            case "test":
                return new Object[][] {{make(timer, clock, 1, false)}};
            default:
                return new Object[][] {{make(timer, clock, 1, true)}};
        }
    }
}
