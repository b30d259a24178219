package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What the bridge adds to a strategy per assignment, at 1k and 100k tasks (docs/benchmarks.md).
 * A timed harness, not a test: it asserts nothing and runs only when asked:
 * <pre>
 * mvn -B test -Dgroups=benchmark -Dtest=BridgeOverheadBenchmark -Dassignor.command=$PWD/../../build/bin/assignor
 * </pre>
 * The groups are the C++ benchmarks' ({@code assignor generate ... --scenario scale-out}, 4 threads
 * per client, half the sub-topologies stateful, 1 standby); the application state is built as Kafka
 * builds it. Per size, after two warm-up runs, the median of 7 of: the whole {@code runStrategy}
 * (cluster file, child process, answer), the Java side alone (writing the file; reading the answer
 * into Kafka's assignment), and the strategy's own time as the host reports it ({@code assign_ms});
 * what is left is the child process (start, reading the file, validation, metrics, writing JSON).
 * Beside them: the whole {@code runStrategy} through the resident worker (when the command has
 * {@code serve}), and Kafka's own HighAvailabilityTaskAssignor on the same state in this JVM (up to
 * 10k tasks).
 */
@Tag("benchmark")
class BridgeOverheadBenchmark {
    @Test
    void overheadPerAssignment() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final String strategy = System.getProperty("assignor.bench.strategy", "high_availability");
        final boolean serve = new String(TestSupport.run(List.of(assignor.toString(), "--help")))
            .lines().anyMatch(l -> l.strip().startsWith("serve"));
        System.out.printf("%-22s %9s %9s %14s %11s %11s %13s %8s %12s %12s%n", "group", "total ms", "strategy",
            "over strategy", "file (java)", "answer (java)", "host process", "file MB", "worker total",
            "Kafka in-JVM");
        for (final int[] size : new int[][] {{10, 10, 100}, {100, 100, 100}, {1000, 100, 1000}}) {
            final int clients = size[0];
            final int subtopologies = size[1];
            final int partitions = size[2];
            final byte[] generated = TestSupport.run(List.of(assignor.toString(), "generate", "--clients",
                String.valueOf(clients), "--threads", "4", "--subtopologies", String.valueOf(subtopologies),
                "--partitions", String.valueOf(partitions), "--scenario", "scale-out", "--seed", "42"));
            final JsonNode cluster = TestSupport.parse(generated);
            final FakeApplicationState state = FakeApplicationState.of(cluster,
                new AssignmentConfigs(10000L, 2, 1, 600000L, List.of()));
            final AssignorTaskAssignor bridge = new AssignorTaskAssignor();
            bridge.configure(Map.of(BridgeSettings.COMMAND, assignor.toString(), BridgeSettings.STRATEGY, strategy,
                BridgeSettings.TIMEOUT_MS, "120000", "application.id", FakeApplicationState.APPLICATION_ID,
                BridgeSettings.HOST_MODE, "process"));
            final List<double[]> runs = new ArrayList<>();
            double fileMb = 0;
            for (int i = 0; i < 9; ++i) {
                final long t0 = System.nanoTime();
                final AssignorTaskAssignor.Run run = bridge.runStrategy(state, Instant.now());
                final double total = (System.nanoTime() - t0) / 1e6;
                // The Java side again, alone: the file from the state, the answer back.
                final long t1 = System.nanoTime();
                final ClusterFile file = ClusterFile.of(state, FakeApplicationState.APPLICATION_ID);
                final double writeMs = (System.nanoTime() - t1) / 1e6;
                final byte[] answer = answerOf(assignor, file, strategy);
                final long t2 = System.nanoTime();
                Answer.read(answer, file, state, Instant.now());
                final double readMs = (System.nanoTime() - t2) / 1e6;
                fileMb = file.json().length / 1e6;
                if (i >= 2) {
                    runs.add(new double[] {total, run.answer().parsed().assignMs(), writeMs, readMs});
                }
            }
            final double total = median(runs, 0);
            final double strategyMs = median(runs, 1);
            final double write = median(runs, 2);
            final double read = median(runs, 3);
            // The same through the resident worker, when the command has one.
            double worker = Double.NaN;
            if (serve) {
                final AssignorTaskAssignor resident = new AssignorTaskAssignor();
                resident.configure(Map.of(BridgeSettings.COMMAND, assignor.toString(), BridgeSettings.STRATEGY,
                    strategy, BridgeSettings.TIMEOUT_MS, "120000", "application.id", FakeApplicationState.APPLICATION_ID,
                    BridgeSettings.HOST_MODE, "worker"));
                worker = medianMs(() -> resident.runStrategy(state, Instant.now()));
            }
            // Kafka's own assignor in this JVM (its HighAvailabilityTaskAssignor takes minutes at 100k: left out).
            double kafka = Double.NaN;
            if (cluster.get("tasks").size() <= 10_000) {
                kafka = medianMs(() -> KafkaOwnAssignment.assign(state, Instant.now()));
            }
            System.out.printf("%-22s %9.1f %9.1f %14.1f %11.1f %13.1f %13.1f %8.1f %12.1f %12.1f%n",
                cluster.get("tasks").size() + " tasks x " + clients, total, strategyMs, total - strategyMs, write, read,
                total - strategyMs - write - read, fileMb, worker, kafka);
        }
    }

    private static byte[] answerOf(final Path assignor, final ClusterFile file, final String strategy) throws Exception {
        final Path dir = Files.createTempDirectory("bench-");
        final Path cluster = Files.write(dir.resolve("cluster.json"), file.json());
        final Path config = TestSupport.write(dir.resolve("config.yaml"),
            "strategy: " + strategy + "\nassignment: {num_standby_replicas: 1}\n");
        final byte[] out = TestSupport.run(List.of(assignor.toString(), "assign", "--config", config.toString(),
            "--cluster", cluster.toString()));
        Files.delete(cluster);
        Files.delete(config);
        Files.delete(dir);
        return out;
    }

    /** A call to time, as the benchmark's loops time the bridge. */
    private interface Call {
        void run() throws Exception;
    }

    /** The median time of a call over runs 3 to 9 (the first two warm the JVM up), as the main loop times it. */
    private static double medianMs(final Call call) throws Exception {
        final List<double[]> runs = new ArrayList<>();
        for (int i = 0; i < 9; ++i) {
            final long t0 = System.nanoTime();
            call.run();
            if (i >= 2) {
                runs.add(new double[] {(System.nanoTime() - t0) / 1e6});
            }
        }
        return median(runs, 0);
    }

    private static double median(final List<double[]> runs, final int column) {
        final double[] v = runs.stream().mapToDouble(r -> r[column]).toArray();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
