package trackerlab.trackercheck;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A Netty timer that never fires: the trackers' updateTimer() schedules into it and cancels,
 * nothing runs, so the caller owns time. It records how many timeouts were scheduled and the
 * last delay asked for.
 */
public final class IdleTimer implements Timer {
    public long scheduled;
    public long lastDelayMs = -1;

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        scheduled++;
        lastDelayMs = unit.toMillis(delay);
        return new Idle(this, task);
    }

    @Override
    public Set<Timeout> stop() {
        return Collections.emptySet();
    }

    private static final class Idle implements Timeout {
        private final Timer timer;
        private final TimerTask task;
        private boolean cancelled;

        Idle(Timer timer, TimerTask task) {
            this.timer = timer;
            this.task = task;
        }

        @Override
        public Timer timer() {
            return timer;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean cancel() {
            boolean was = !cancelled;
            cancelled = true;
            return was;
        }
    }
}
