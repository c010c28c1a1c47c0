package dev.assignd.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real assignd binary, started on a free loopback port with a policy that
 * pins each standard protocol name to its version-1 assignor, and stopped by
 * {@link #close()}. The binary comes from the system property
 * {@code assignd.binary} (scripts/test.sh builds it with
 * {@code go build -o <tmp>/assignd ./cmd/assignd}).
 */
final class AssigndProcess implements AutoCloseable {
    /** The assignors the oracle compares, as the policy pins them. */
    static final String POLICY = String.join("\n",
            "version: 1",
            "rules:",
            // Kip848OracleTest's groups, named by the assignor they ask for.
            "  - name: oracle-kip848-uniform",
            "    match: {group_prefixes: [kip848-uniform-]}",
            "    assignor: kip848-uniform@1",
            "  - name: oracle-kip848-range",
            "    match: {group_prefixes: [kip848-range-]}",
            "    assignor: kip848-range@1",
            "  - name: oracle-range",
            "    match: {protocols: [range]}",
            "    assignor: range@1",
            "  - name: oracle-roundrobin",
            "    match: {protocols: [roundrobin]}",
            "    assignor: roundrobin@1",
            "  - name: oracle-sticky",
            "    match: {protocols: [sticky]}",
            "    assignor: sticky@1",
            "  - name: oracle-cooperative-sticky",
            "    match: {protocols: [cooperative-sticky]}",
            "    assignor: cooperative-sticky@1",
            // StreamsOracleTest's groups: the policy's choice by group type.
            "  - name: " + AssigndProcess.STREAMS_RULE,
            "    match: {group_types: [streams]}",
            "    task_assignor: sticky@1",
            "");

    /** The policy's rule for streams groups. */
    static final String STREAMS_RULE = "oracle-streams";

    private static final Pattern ADDR = Pattern.compile("grpc_addr=(\\S+)");
    private static final Pattern DURATION = Pattern.compile("grpc\\.duration=(\\S+)");
    private static final Pattern GO_DURATION = Pattern.compile("([0-9.]+)(ns|us|µs|ms|s|m|h)");

    /** Server-side time of each Assign call, from assignd's call log. */
    private static final List<Double> SERVER_MILLIS = new ArrayList<>();

    private final Process process;
    private final Path dir;
    private final String target;

    private AssigndProcess(Process process, Path dir, String target) {
        this.process = process;
        this.dir = dir;
        this.target = target;
    }

    /** The binary named by -Dassignd.binary; fails with how to set it. */
    static Path binary() {
        String p = System.getProperty("assignd.binary", "");
        if (p.isEmpty()) {
            throw new IllegalStateException("set -Dassignd.binary=PATH (go build -o PATH ./cmd/assignd)");
        }
        Path path = Path.of(p);
        if (!Files.isExecutable(path)) {
            throw new IllegalStateException("-Dassignd.binary=" + p + " is not an executable file");
        }
        return path;
    }

    /** Starts assignd and waits (at most 30 s) until it logs its gRPC address. */
    static AssigndProcess start() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("assignd-oracle");
        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, POLICY);
        ProcessBuilder pb = new ProcessBuilder(binary().toString(),
                "--listen", "127.0.0.1:0",
                "--metrics-listen", "",
                "--policy", policy.toString(),
                "--shadow-concurrency", "0",
                "--log-level", "info") // the "assignd serving" line is at info
                .redirectErrorStream(true);
        Process p = pb.start();
        CompletableFuture<String> addr = new CompletableFuture<>();
        List<String> early = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (early) {
                        if (early.size() < 200) {
                            early.add(line);
                        }
                    }
                    Matcher d = DURATION.matcher(line);
                    if (line.contains("finished call") && line.contains("Assign") && d.find()) {
                        synchronized (SERVER_MILLIS) {
                            SERVER_MILLIS.add(millis(d.group(1)));
                        }
                    }
                    Matcher m = ADDR.matcher(line);
                    if (!addr.isDone() && line.contains("assignd serving") && m.find()) {
                        addr.complete(m.group(1));
                    }
                }
            } catch (IOException ignored) {
                // The process ended.
            }
            addr.complete(null);
        }, "assignd-log");
        reader.setDaemon(true);
        reader.start();
        String target;
        try {
            target = addr.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            target = null;
        }
        if (target == null) {
            p.destroyForcibly();
            synchronized (early) {
                throw new IllegalStateException("assignd did not start; its output:\n" + String.join("\n", early));
            }
        }
        return new AssigndProcess(p, dir, target);
    }

    /** Parses a Go duration ("1m2.5s", "850µs") into milliseconds. */
    static double millis(String goDuration) {
        double ms = 0;
        Matcher m = GO_DURATION.matcher(goDuration);
        while (m.find()) {
            double v = Double.parseDouble(m.group(1));
            ms += switch (m.group(2)) {
                case "ns" -> v / 1e6;
                case "us", "µs" -> v / 1e3;
                case "ms" -> v;
                case "s" -> v * 1e3;
                case "m" -> v * 60e3;
                default -> v * 3600e3;
            };
        }
        return ms;
    }

    /**
     * The server-side times (decode, assign, encode) of the Assign calls
     * logged since the last call, in milliseconds; the response itself
     * reports no engine time.
     */
    static List<Double> takeServerMillis() {
        synchronized (SERVER_MILLIS) {
            List<Double> out = new ArrayList<>(SERVER_MILLIS);
            SERVER_MILLIS.clear();
            return out;
        }
    }

    /** host:port of the gRPC server. */
    String target() {
        return target;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.destroy(); // SIGTERM: graceful stop
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(dir.resolve("policy.yaml"));
        Files.deleteIfExists(dir);
    }
}
