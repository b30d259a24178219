package dev.assignor.kafkastreams;

import dev.assignor.bridge.BridgeException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka's own code as the oracle for {@code high_availability}: Kafka Streams'
 * {@code HighAvailabilityTaskAssignor} (the kafka-streams jar of the pom's kafka.version, run by
 * {@link KafkaOwnAssignment} on an application state built as Kafka builds it) against the strategy
 * run through the whole bridge (application state -> cluster file -> `assignor assign` -> Kafka's
 * assignment), on Kafka's recorded answers and on a few hundred generated groups. Kafka sends
 * warmups as standbys, so roles are compared as Kafka sends them: active and standby per process,
 * and whether a probing rebalance was scheduled.
 *
 * <p>{@code -Dassignor.differential.cases=N -Dassignor.differential.seed=S} explore other groups.
 */
public class HighAvailabilityDifferentialTest {
    private static final String[] SCENARIOS = {"fresh", "scale-out", "scale-in", "rolling-restart"};

    /** The oracle itself against Kafka's recorded answers (apache/kafka 1eb7644349cb, Oct 2024). */
    @Test
    void kafkasAssignorFromThisJarGivesTheRecordedAnswers() throws IOException {
        final List<Path> cases = goldenCases();
        final List<String> failures = new ArrayList<>();
        for (final Path kafkaJson : cases) {
            final Case c = Case.load(kafkaJson);
            final KafkaOwnAssignment.Result kafka = KafkaOwnAssignment.assign(c.state, Instant.EPOCH);
            assertTrue(kafka.assignor().contains("HighAvailabilityTaskAssignor"), kafka.assignor());
            final List<String> d = TestSupport.differences(c.expected, TestSupport.roles(kafka.assignment(),
                c.state.processIds));
            if (TestSupport.probing(kafka.assignment()) != c.expectedProbing) {
                d.add("probing: recorded " + c.expectedProbing);
            }
            if (!d.isEmpty()) {
                failures.add(kafkaJson.getFileName() + ": " + d);
            }
        }
        System.out.printf("Kafka %s HighAvailabilityTaskAssignor: %d/%d recorded cases equal%n",
            TestSupport.kafkaVersion(), cases.size() - failures.size(), cases.size());
        assertEquals(List.of(), failures);
    }

    /** The bridge with high_availability against the same recorded answers. */
    @Test
    void bridgeWithHighAvailabilityGivesTheRecordedAnswers() throws IOException {
        final Path assignor = TestSupport.requireAssignor();
        final List<Path> cases = goldenCases();
        final List<String> failures = new ArrayList<>();
        for (final Path kafkaJson : cases) {
            final Case c = Case.load(kafkaJson);
            final List<String> d = compare(assignor, c.state, c.expected, c.expectedProbing);
            if (!d.isEmpty()) {
                failures.add(kafkaJson.getFileName() + ": " + d);
            }
        }
        assertEquals(List.of(), failures);
        System.out.printf("bridge + high_availability: %d/%d recorded cases equal%n", cases.size(), cases.size());
    }

    /** Generated groups: Kafka's assignor (this jar) and the bridge must give the same answer. */
    @Test
    void generatedGroupsGetKafkasAnswer() throws IOException {
        final TestSupport.Differential run = new TestSupport.Differential("assignor.differential.cases", 300, 0L,
            "ha-differential-");
        final Random rng = run.rng;
        for (int i = 0; i < run.cases; ++i) {
            final ObjectNode cluster = generatedCluster(run.assignor, rng, i, run.work);
            final AssignmentConfigs configs = new AssignmentConfigs(
                new long[] {0, 1000, 10000, 100000}[rng.nextInt(4)], 1 + rng.nextInt(4), rng.nextInt(3),
                600000L, List.of());
            final FakeApplicationState state = FakeApplicationState.of(cluster, configs);
            final KafkaOwnAssignment.Result kafka = KafkaOwnAssignment.assign(state, Instant.EPOCH);
            final List<String> d = compare(run.assignor, state,
                TestSupport.roles(kafka.assignment(), state.processIds), TestSupport.probing(kafka.assignment()));
            if (!d.isEmpty()) {
                final Path kept = run.work.resolve("case" + i + ".cluster.json");
                Files.write(kept, TestSupport.JSON.writeValueAsBytes(cluster));
                run.failures.add("case " + i + " (" + kept + ", " + configs + "): "
                    + String.join("; ", d.subList(0, Math.min(5, d.size()))));
            }
        }
        run.finish("bridge + high_availability", "HighAvailabilityTaskAssignor", "");
    }

    /** Runs the bridge (no fallback) with high_availability; what differs from the expected roles. */
    static List<String> compare(final Path assignor, final FakeApplicationState state,
                                final Map<String, Map<String, SortedSet<String>>> expected,
                                final boolean expectedProbing) {
        return compare(assignor, "high_availability", state, expected, expectedProbing);
    }

    /** The same with another strategy. */
    static List<String> compare(final Path assignor, final String strategy, final FakeApplicationState state,
                                final Map<String, Map<String, SortedSet<String>>> expected,
                                final boolean expectedProbing) {
        final AssignorTaskAssignor bridge = new AssignorTaskAssignor();
        bridge.configure(Map.of(BridgeSettings.COMMAND, assignor.toString(), BridgeSettings.STRATEGY,
            strategy, "application.id", FakeApplicationState.APPLICATION_ID, BridgeSettings.HOST_MODE,
            TestSupport.hostMode()));
        final List<String> d = new ArrayList<>();
        try {
            final AssignorTaskAssignor.Run run = bridge.runStrategy(state, Instant.EPOCH);
            d.addAll(TestSupport.differences(expected, TestSupport.roles(run.answer().assignment(), state.processIds)));
            if (run.answer().parsed().probing() != expectedProbing) {
                d.add("probing: Kafka " + expectedProbing + ", strategy " + run.answer().parsed().probing());
            }
        } catch (final BridgeException e) {
            d.add("the bridge failed: " + e.getMessage());
        }
        return d;
    }

    /** A group like tests/kafka/differential.py's: every scenario, uneven threads, stale and odd offsets. */
    public static ObjectNode generatedCluster(final Path assignor, final Random rng, final int i, final Path work) {
        final List<String> command = List.of(assignor.toString(), "generate",
            "--clients", String.valueOf(2 + rng.nextInt(13)), "--threads", String.valueOf(1 + rng.nextInt(3)),
            "--subtopologies", String.valueOf(1 + rng.nextInt(6)), "--partitions", String.valueOf(1 + rng.nextInt(24)),
            "--standbys", String.valueOf(rng.nextInt(3)),
            "--nonlogged-fraction", rng.nextInt(3) == 0 ? "0.5" : "0",
            "--scenario", SCENARIOS[i % SCENARIOS.length], "--seed", String.valueOf(rng.nextInt() & 0xffffffffL));
        final ObjectNode cluster = (ObjectNode) TestSupport.parse(TestSupport.run(command));
        if (rng.nextBoolean()) {
            for (final JsonNode c : cluster.get("clients")) {
                ((ObjectNode) c).put("threads", 1 + rng.nextInt(4));
            }
        }
        if (rng.nextBoolean()) {  // reports that leave tasks with few or no caught-up clients
            for (final JsonNode c : cluster.get("clients")) {
                final ObjectNode sums = c.has("offset_sums") ? (ObjectNode) c.get("offset_sums")
                    : ((ObjectNode) c).putObject("offset_sums");
                final List<String> reported = new ArrayList<>();
                sums.fieldNames().forEachRemaining(reported::add);
                for (final String task : reported) {
                    final long end = endOffsetSum(cluster, task);
                    final long[] choices = {-2, 0, end + 1, end == 0 ? 0 : (long) (rng.nextDouble() * end),
                        Math.max(0, end - rng.nextInt(20000))};
                    sums.put(task, choices[rng.nextInt(choices.length)]);
                }
                for (final JsonNode t : cluster.get("tasks")) {  // state on disk for tasks it never held
                    final long end = endOffsetSum(cluster, t.get("id").asText());
                    if (end > 0 && rng.nextInt(10) == 0 && !sums.has(t.get("id").asText())) {
                        sums.put(t.get("id").asText(), (long) (rng.nextDouble() * end));
                    }
                }
            }
        }
        return cluster;
    }

    private static long endOffsetSum(final JsonNode cluster, final String task) {
        for (final JsonNode t : cluster.get("tasks")) {
            if (t.get("id").asText().equals(task)) {
                long sum = 0;
                for (final JsonNode s : t.path("stores")) {
                    if (s.path("logged").asBoolean(true)) {
                        sum += s.get("changelog_end_offset").asLong();
                    }
                }
                return sum;
            }
        }
        throw new IllegalArgumentException(task);
    }

    static List<Path> goldenCases() throws IOException {
        final Path golden = TestSupport.golden();
        final List<Path> cases = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(golden, "*.kafka.json")) {
            files.forEach(cases::add);
        }
        cases.sort(null);
        assertTrue(!cases.isEmpty(), "no *.kafka.json in " + golden);
        return cases;
    }

    /** One recorded case: the application state built from its cluster file, and Kafka's answer. */
    static final class Case {
        final FakeApplicationState state;
        final Map<String, Map<String, SortedSet<String>>> expected;
        final boolean expectedProbing;
        final JsonNode cluster;

        private Case(final FakeApplicationState state, final Map<String, Map<String, SortedSet<String>>> expected,
                     final boolean expectedProbing, final JsonNode cluster) {
            this.state = state;
            this.expected = expected;
            this.expectedProbing = expectedProbing;
            this.cluster = cluster;
        }

        static Case load(final Path kafkaJson) throws IOException {
            final String base = kafkaJson.toString().substring(0, kafkaJson.toString().length() - ".kafka.json".length());
            Path cluster = Path.of(base + ".cluster.json");
            if (!Files.exists(cluster)) {
                cluster = Path.of(base + ".cluster.yaml");
            }
            final JsonNode config = TestSupport.read(Path.of(base + ".config.yaml"));
            final JsonNode clusterFile = TestSupport.read(cluster);
            final FakeApplicationState state =
                FakeApplicationState.of(clusterFile, FakeApplicationState.configs(config));
            final JsonNode kafka = TestSupport.read(kafkaJson);
            final Map<String, Map<String, SortedSet<String>>> byName = TestSupport.roles(kafka.get("assignment"));
            // Every client of the group appears, even with nothing.
            for (final String name : state.processIds.keySet()) {
                byName.computeIfAbsent(name, n -> Map.of("active", new TreeSet<>(), "standby", new TreeSet<>()));
            }
            final JsonNode probing = kafka.get("probing_rebalance_needed");
            return new Case(state, byName, probing != null && probing.asBoolean(), clusterFile);
        }
    }
}
