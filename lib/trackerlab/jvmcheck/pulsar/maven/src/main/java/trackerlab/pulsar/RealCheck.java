package trackerlab.pulsar;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * trackerlab's real-Pulsar check: builds Pulsar's own structures from a release's jars and
 * measures them with JOL running with Instrumentation.
 *
 * <p>Usage: {@code RealCheck facts} prints the release facts ({@link Facts});
 * {@code RealCheck cases FILE} runs the cases listed in FILE, one per line:
 * {@code name<TAB>kind<TAB>key=value,...<TAB>rows-file}. A rows file holds big-endian longs:
 * the number of columns, then the rows. Output, tab-separated on stdout:
 * {@code jvm<TAB>java.version<TAB>JOL details} once, then per case
 * {@code case<TAB>name<TAB>ok<TAB>heap<TAB>bufferMemoryUsage<TAB>directPoolDelta<TAB>
 * directCapacity<TAB>directReserved<TAB>added<TAB>tries<TAB>heapAfterMetric<TAB>root<TAB>
 * classes}, or
 * {@code case<TAB>name<TAB>error<TAB>message}. Exit code 0 when every case ran.
 */
public final class RealCheck {
    private RealCheck() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String details = Measure.requireInstrumentation().replace('\n', ' ').replace('\t', ' ');
        out.println("jvm\t" + System.getProperty("java.version") + "\t" + details);
        if (args.length == 1 && args[0].equals("facts")) {
            Facts.print(out);
            return;
        }
        if (args.length != 2 || !args[0].equals("cases")) {
            System.err.println("usage: RealCheck facts | RealCheck cases FILE");
            System.exit(2);
        }
        int failed = 0;
        List<String> lines = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            try {
                Structures.Result r = Structures.forKind(f[1]).build(readRows(Paths.get(f[3])),
                        params(f[2]));
                out.println(String.join("\t", "case", f[0], "ok", Long.toString(r.heapBytes),
                        Long.toString(r.bufferMemoryUsage), Long.toString(r.directPoolDelta),
                        Long.toString(r.directCapacity), Long.toString(r.directReserved),
                        Long.toString(r.added), Integer.toString(r.tries), Long.toString(r.heapAfterMetric), r.root,
                        r.classes));
            } catch (Throwable e) {
                failed++;
                Throwable cause = e.getCause() != null && e instanceof
                        java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                String message = (cause.getClass().getName() + ": " + cause.getMessage())
                        .replace('\n', ' ').replace('\t', ' ');
                out.println("case\t" + f[0] + "\terror\t" + message);
                cause.printStackTrace();
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }

    static Map<String, String> params(String text) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String item : text.split(",")) {
            if (!item.isEmpty()) {
                String[] kv = item.split("=", 2);
                params.put(kv[0], kv.length > 1 ? kv[1] : "");
            }
        }
        return params;
    }

    static long[][] readRows(Path path) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(
                Files.newInputStream(path), 1 << 16))) {
            int columns = (int) in.readLong();
            long count = (Files.size(path) / 8 - 1) / columns;
            long[][] rows = new long[(int) count][columns];
            for (long[] row : rows) {
                for (int c = 0; c < columns; c++) {
                    row[c] = in.readLong();
                }
            }
            return rows;
        }
    }
}
