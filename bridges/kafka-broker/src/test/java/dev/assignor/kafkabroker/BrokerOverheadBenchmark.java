package dev.assignor.kafkabroker;

import com.fasterxml.jackson.databind.JsonNode;

import dev.assignor.bridge.BridgeConfig;
import dev.assignor.bridge.BridgeMetrics;
import dev.assignor.kafkastreams.StreamsGroupDifferentialTest;
import dev.assignor.kafkastreams.TestSupport;

import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What the broker bridge costs per assignment, beside Kafka's own assignor called in the same warm
 * JVM (docs/benchmarks.md). A timed harness, not a test: it asserts only that the bridge did not fall
 * back, and runs only when asked:
 * <pre>
 * mvn -B -f bridges/pom.xml test -pl kafka-broker -am -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dsurefire.excludedGroups= -Dgroups=benchmark -Dtest=BrokerOverheadBenchmark \
 *     -Dassignor.command=$PWD/build/bin/assignor
 * </pre>
 * Groups of 1k, 10k and 100k tasks ({@code assignor generate ... --scenario scale-out --seed 42}, 4
 * threads per client, 1 standby) given as the group coordinator holds them. Per size, after two
 * warm-ups, the median of 7 of: Kafka 4.4's {@code StickyTaskAssignor.assign} in this JVM; the whole
 * bridge running {@code streams_sticky} ({@code kafka_version} 4.4, refiner off: Kafka's algorithm)
 * with a process per assignment, and with the resident worker when the command has {@code serve};
 * and the strategy's own time in each ({@code assign_ms}).
 */
@Tag("benchmark")
class BrokerOverheadBenchmark {
    private static final int RUNS = 7;

    @Test
    void overheadPerAssignment() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Path work = Files.createTempDirectory("broker-bench-");
        final Path config = TestSupport.write(work.resolve("sticky.yaml"), "strategy: streams_sticky\n"
            + "strategies: {streams_sticky: {refiner: false, kafka_version: \""
            + StreamsGroupDifferentialTest.stickyVersion() + "\"}}\n");
        final boolean serve = new String(TestSupport.run(List.of(assignor.toString(), "--help")))
            .lines().anyMatch(l -> l.strip().startsWith("serve"));
        System.out.printf("%-26s %12s %14s %14s %14s %14s%n", "group", "Kafka in-JVM", "process total",
            "process strat", "worker total", "worker strat");
        for (final int[] size : new int[][] {{25, 10, 100}, {100, 100, 100}, {1000, 100, 1000}}) {
            final byte[] generated = TestSupport.run(List.of(assignor.toString(), "generate", "--clients",
                String.valueOf(size[0]), "--threads", "4", "--subtopologies", String.valueOf(size[1]), "--partitions",
                String.valueOf(size[2]), "--scenario", "scale-out", "--seed", "42"));
            final JsonNode cluster = TestSupport.parse(generated);
            final StreamsGroupDifferentialTest.KafkaGroup group = StreamsGroupDifferentialTest.kafkaGroup(cluster, 1);
            final double kafka = median(() -> new StickyTaskAssignor().assign(group.spec(), group.topology()));
            final double[] process = bridge(assignor, config, "process", group);
            final double[] worker = serve ? bridge(assignor, config, "worker", group) : new double[] {Double.NaN,
                Double.NaN};
            System.out.printf("%-26s %12.1f %14.1f %14.1f %14.1f %14.1f%n",
                size[0] + "x4 threads, " + size[1] * size[2] + " tasks", kafka, process[0], process[1], worker[0],
                worker[1]);
        }
    }

    /** The bridge's total and the strategy's time, medians, in ms. */
    private static double[] bridge(final Path assignor, final Path config, final String mode,
                                   final StreamsGroupDifferentialTest.KafkaGroup group) throws Exception {
        final AssignorStreamsGroupAssignor bridge = new AssignorStreamsGroupAssignor();
        bridge.configure(Map.of(BridgeConfig.COMMAND_CONFIG, assignor.toString(), BridgeConfig.CONFIG_FILE_CONFIG,
            config.toString(), BridgeConfig.HOST_MODE_CONFIG, mode, BridgeConfig.TIMEOUT_MS_CONFIG, "600000"));
        final BridgeMetrics metrics = bridge.metrics();
        final List<double[]> runs = new ArrayList<>();
        for (int i = 0; i < RUNS + 2; ++i) {
            final long t0 = System.nanoTime();
            final AssignorStreamsGroupAssignor.Outcome outcome = bridge.decide(group.spec(), group.topology());
            final double total = (System.nanoTime() - t0) / 1e6;
            assertNull(outcome.fallback(), outcome.message());
            if (i >= 2) {
                runs.add(new double[] {total, (Double) metrics.getAttribute("strategy-time-ms-last")});
            }
        }
        return new double[] {medianOf(runs, 0), medianOf(runs, 1)};
    }

    private static double median(final Runnable body) {
        final double[] ms = new double[RUNS];
        for (int i = 0; i < RUNS + 2; ++i) {
            final long t0 = System.nanoTime();
            body.run();
            if (i >= 2) {
                ms[i - 2] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        return ms[RUNS / 2];
    }

    private static double medianOf(final List<double[]> runs, final int column) {
        final double[] v = runs.stream().mapToDouble(r -> r[column]).sorted().toArray();
        return v[v.length / 2];
    }
}
