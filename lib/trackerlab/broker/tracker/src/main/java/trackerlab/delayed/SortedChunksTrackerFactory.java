package trackerlab.delayed;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.delayed.DelayedDeliveryTracker;
import org.apache.pulsar.broker.delayed.DelayedDeliveryTrackerFactory;
import org.apache.pulsar.broker.service.persistent.AbstractPersistentDispatcherMultipleConsumers;

/**
 * Builds {@link SortedChunksTracker}s; the broker loads it with
 * {@code delayedDeliveryTrackerFactoryClassName=trackerlab.delayed.SortedChunksTrackerFactory}
 * (ServiceConfiguration.java:381 at v4.2.4).
 *
 * <p>Its settings are read as InMemoryDelayedDeliveryTrackerFactory.java:44-51 at v4.2.4 reads
 * them, from ServiceConfiguration (pulsar-broker-common) at v4.2.4:
 * {@code delayedDeliveryTickTimeMillis} (line 387, default 1000: the tick, and the tick of the
 * shared HashedWheelTimer), {@code isDelayedDeliveryDeliverAtTimeStrict} (line 395, default
 * false) and {@code delayedDeliveryFixedDelayDetectionLookahead} (line 424, default 50000).
 * One timer per factory, stopped by {@link #close()} (InMemoryDelayedDeliveryTrackerFactory
 * .java:74-79).
 */
public class SortedChunksTrackerFactory implements DelayedDeliveryTrackerFactory {
    private Timer timer;
    private long tickTimeMillis;
    private boolean isDelayedDeliveryDeliverAtTimeStrict;
    private long fixedDelayDetectionLookahead;

    @Override
    public void initialize(PulsarService pulsarService) {
        ServiceConfiguration config = pulsarService.getConfig();
        this.tickTimeMillis = config.getDelayedDeliveryTickTimeMillis();
        this.timer = new HashedWheelTimer(new DefaultThreadFactory("pulsar-delayed-delivery"),
                tickTimeMillis, TimeUnit.MILLISECONDS);
        this.isDelayedDeliveryDeliverAtTimeStrict = config.isDelayedDeliveryDeliverAtTimeStrict();
        this.fixedDelayDetectionLookahead = config.getDelayedDeliveryFixedDelayDetectionLookahead();
    }

    @Override
    public DelayedDeliveryTracker newTracker(AbstractPersistentDispatcherMultipleConsumers dispatcher) {
        return new SortedChunksTracker(dispatcher, timer, tickTimeMillis, Clock.systemUTC(),
                isDelayedDeliveryDeliverAtTimeStrict, fixedDelayDetectionLookahead);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.stop();
        }
    }
}
