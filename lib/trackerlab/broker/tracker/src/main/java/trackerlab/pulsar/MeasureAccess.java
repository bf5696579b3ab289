package trackerlab.pulsar;

import org.openjdk.jol.info.GraphLayout;

/**
 * The jvm-check harness's package-private {@code Measure} (compiled here from its own source
 * folder, not copied), opened to {@code trackerlab.delayed.SizeCheck}.
 */
public final class MeasureAccess {
    private MeasureAccess() {
    }

    /** {@code Measure.requireInstrumentation()}: fails unless JOL has Instrumentation. */
    public static String requireInstrumentation() throws Exception {
        return Measure.requireInstrumentation();
    }

    /** {@code Measure.classes(layout)}: the class histogram, most bytes first. */
    public static String classes(GraphLayout layout) {
        return Measure.classes(layout);
    }
}
