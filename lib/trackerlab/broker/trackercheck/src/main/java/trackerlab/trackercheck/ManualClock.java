package trackerlab.trackercheck;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the driver sets: the trackers read {@link #millis()} (getCutoffTime) and nothing moves it. */
public final class ManualClock extends Clock {
    private volatile long nowMs;

    public ManualClock(long nowMs) {
        this.nowMs = nowMs;
    }

    public void set(long nowMs) {
        this.nowMs = nowMs;
    }

    @Override
    public long millis() {
        return nowMs;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(nowMs);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
