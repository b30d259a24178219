package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.LegacyStickyTaskAssignor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Kafka's own code as the oracle for {@code sticky}: Kafka Streams' {@code LegacyStickyTaskAssignor}
 * (the kafka-streams jar of the pom's kafka.version) against the strategy run through the bridge, on
 * Kafka's recorded answers (shared/kafka-golden/sticky) and on generated groups, among them groups of
 * 1,000 tasks on 20 clients with 2 standbys. Kafka's inputs are built as StreamsPartitionAssignor
 * builds them: a {@code HashMap} of client states (process ids in string order of the client ids),
 * the tasks and the tasks with a changelog in {@code HashSet}s filled in task order, a client's
 * previous standbys being every task it reported offsets for without running it. The legacy assignor
 * knows no lags and asks for no probing rebalance, so active and standby tasks per client are compared.
 *
 * <p>{@code -Dassignor.differential.cases=N -Dassignor.differential.seed=S} explore other groups.
 */
class LegacyStickyDifferentialTest {
    private static final String[] SCENARIOS = {"fresh", "scale-out", "scale-in", "rolling-restart"};

    /**
     * Kafka's LegacyStickyTaskAssignor on the application state, as Kafka Streams would run it. A
     * client's previous actives are what it lists and what it reports as running (-2 in `cluster`'s
     * offset sums), as ClientState.addPreviousTasksAndOffsetSums makes them; its previous standbys
     * every other task it lists or reports.
     */
    static Map<String, Map<String, SortedSet<String>>> kafkaLegacySticky(final FakeApplicationState state,
                                                                        final JsonNode cluster) {
        final Map<ProcessId, Set<TaskId>> running = new HashMap<>();
        for (final JsonNode c : cluster.get("clients")) {
            final Set<TaskId> tasks = new TreeSet<>();
            c.path("offset_sums").properties().forEach(e -> {
                if (e.getValue().asLong() == ClusterFile.RUNNING) {
                    tasks.add(TaskId.parse(e.getKey()));
                }
            });
            running.put(state.processIds.get(c.get("id").asText()), tasks);
        }
        final Map<ProcessId, KafkaStreamsState> processes = state.kafkaStreamsStates(true);
        final Set<TaskId> allTasks = new HashSet<>();
        final Set<TaskId> statefulTasks = new HashSet<>();
        for (final TaskInfo task : new TreeMap<>(state.allTasks()).values()) {
            allTasks.add(task.id());
            if (ClusterFile.hasChangelog(task)) {
                statefulTasks.add(task.id());
            }
        }
        final Map<ProcessId, ClientState> clients = new HashMap<>();
        for (final ProcessId id : new TreeSet<>(processes.keySet())) {
            final KafkaStreamsState process = processes.get(id);
            final Map<TaskId, Long> lags = new TreeMap<>();
            for (final TaskId task : new TreeSet<>(statefulTasks)) {
                lags.put(task, process.lagFor(task));
            }
            final Set<TaskId> previousActive = new TreeSet<>(process.previousActiveTasks());
            previousActive.addAll(running.get(id));
            previousActive.retainAll(allTasks);
            final Set<TaskId> previousStandby = new TreeSet<>(process.previousStandbyTasks());
            previousStandby.removeAll(previousActive);
            previousStandby.retainAll(allTasks);
            clients.put(id, new ClientState(previousActive, previousStandby, lags, process.clientTags(),
                process.numProcessingThreads(), id));
        }
        new LegacyStickyTaskAssignor().assign(clients, allTasks, statefulTasks, null, state.assignmentConfigs());
        final Map<ProcessId, String> names = new HashMap<>();
        state.processIds.forEach((name, id) -> names.put(id, name));
        final Map<String, Map<String, SortedSet<String>>> out = new TreeMap<>();
        clients.forEach((id, client) -> {
            final Map<String, SortedSet<String>> r = new TreeMap<>();
            r.put("active", new TreeSet<>());
            r.put("standby", new TreeSet<>());
            client.activeTasks().forEach(t -> r.get("active").add(TestSupport.name(t)));
            client.standbyTasks().forEach(t -> r.get("standby").add(TestSupport.name(t)));
            out.put(names.get(id), r);
        });
        return out;
    }

    /** The oracle itself against Kafka's recorded answers (apache/kafka 1eb7644349cb, Oct 2024). */
    @Test
    void kafkasLegacyStickyFromThisJarGivesTheRecordedAnswers() throws IOException {
        final List<String> failures = new ArrayList<>();
        final List<Path> cases = stickyCases();
        for (final Path kafkaJson : cases) {
            final HighAvailabilityDifferentialTest.Case c = HighAvailabilityDifferentialTest.Case.load(kafkaJson);
            final List<String> d = TestSupport.differences(c.expected, kafkaLegacySticky(c.state, c.cluster));
            if (!d.isEmpty()) {
                failures.add(kafkaJson.getFileName() + ": " + d.size() + " differences: " + d.subList(0, Math.min(4, d.size())));
            }
        }
        System.out.printf("Kafka %s LegacyStickyTaskAssignor: %d/%d recorded cases equal%n", TestSupport.kafkaVersion(),
            cases.size() - failures.size(), cases.size());
        assertEquals(List.of(), failures);
    }

    /** The bridge with sticky against the same recorded answers. */
    @Test
    void bridgeWithStickyGivesTheRecordedAnswers() throws IOException {
        final Path assignor = TestSupport.requireAssignor();
        final List<String> failures = new ArrayList<>();
        final List<Path> cases = stickyCases();
        for (final Path kafkaJson : cases) {
            final HighAvailabilityDifferentialTest.Case c = HighAvailabilityDifferentialTest.Case.load(kafkaJson);
            final List<String> d = HighAvailabilityDifferentialTest.compare(assignor, "sticky", c.state, c.expected, false);
            if (!d.isEmpty()) {
                failures.add(kafkaJson.getFileName() + ": " + d.size() + " differences: " + d.subList(0, Math.min(4, d.size())));
            }
        }
        System.out.printf("bridge + sticky: %d/%d recorded cases equal%n", cases.size() - failures.size(), cases.size());
        assertEquals(List.of(), failures);
    }

    /**
     * Generated groups, Kafka's jar against the bridge with sticky: the differential test's small
     * groups, and every fourth one a group of 1,000 tasks (10 sub-topologies of 100 partitions) on 20
     * clients with 2 standbys, in each scenario.
     */
    @Test
    void generatedGroupsGetKafkasAnswer() throws IOException {
        final Path assignor = TestSupport.requireAssignor();
        final int cases = Integer.getInteger("assignor.differential.cases", 300);
        final long seed = Long.getLong("assignor.differential.seed", 20261201L);
        final Random rng = new Random(seed ^ 0x5717C4L);
        final Path work = Files.createTempDirectory("sticky-differential-");
        final List<String> failures = new ArrayList<>();
        int large = 0;
        for (int i = 0; i < cases; ++i) {
            final boolean big = i % 4 == 3 || Boolean.getBoolean("assignor.differential.large");
            final ObjectNode cluster = big ? largeCluster(assignor, rng, i)
                : HighAvailabilityDifferentialTest.generatedCluster(assignor, rng, i, work);
            final AssignmentConfigs configs = new AssignmentConfigs(10000L, 2, big ? 2 : rng.nextInt(3), 600000L,
                List.of());
            final FakeApplicationState state = FakeApplicationState.of(cluster, configs);
            final List<String> d = HighAvailabilityDifferentialTest.compare(assignor, "sticky", state,
                kafkaLegacySticky(state, cluster), false);
            large += big ? 1 : 0;
            if (!d.isEmpty()) {
                final Path kept = work.resolve("case" + i + ".cluster.json");
                Files.write(kept, TestSupport.JSON.writeValueAsBytes(cluster));
                failures.add("case " + i + " (" + kept + ", " + configs.numStandbyReplicas() + " standbys): "
                    + d.size() + " differences: " + String.join("; ", d.subList(0, Math.min(4, d.size()))));
            }
        }
        System.out.printf("bridge + sticky vs Kafka %s LegacyStickyTaskAssignor: %d/%d generated groups equal, "
                + "%d of them 1,000 tasks x 20 clients x 2 standbys (seed %d)%n", TestSupport.kafkaVersion(),
            cases - failures.size(), cases, large, seed);
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + cases + " groups differ from Kafka:\n  "
                + String.join("\n  ", failures.subList(0, Math.min(10, failures.size()))));
        }
    }

    /**
     * 1,000 tasks on 20 clients, one scenario after another: 10 x 100, 4 x 250, 20 x 50 or 40 x 25
     * tasks, threads equal (1-3) or 1-4 per client, and in half of them state on disk for tasks a
     * client did not hold (a previous standby to Kafka).
     */
    private static ObjectNode largeCluster(final Path assignor, final Random rng, final int i) {
        final int[][] shapes = {{10, 100}, {4, 250}, {20, 50}, {40, 25}};
        final int[] shape = shapes[rng.nextInt(shapes.length)];
        final String threads = new String[] {"1", "2", "3", "1-4", "1-6"}[rng.nextInt(5)];
        final List<String> command = List.of(assignor.toString(), "generate", "--clients", "20",
            "--threads", threads, "--subtopologies", String.valueOf(shape[0]), "--partitions", String.valueOf(shape[1]),
            "--standbys", "2", "--stateful-fraction", rng.nextBoolean() ? "1" : "0.5",
            "--scenario", SCENARIOS[(i / 4) % SCENARIOS.length], "--seed", String.valueOf(rng.nextInt() & 0xffffffffL));
        final ObjectNode cluster = (ObjectNode) TestSupport.parse(TestSupport.run(command));
        if (rng.nextBoolean()) {
            for (final JsonNode c : cluster.get("clients")) {
                final ObjectNode sums = c.has("offset_sums") ? (ObjectNode) c.get("offset_sums")
                    : ((ObjectNode) c).putObject("offset_sums");
                for (final JsonNode t : cluster.get("tasks")) {
                    if (t.has("stores") && rng.nextInt(20) == 0 && !sums.has(t.get("id").asText())) {
                        sums.put(t.get("id").asText(), 1 + rng.nextInt(10000));
                    }
                }
            }
        }
        return cluster;
    }

    private static List<Path> stickyCases() throws IOException {
        final Path golden = TestSupport.golden().orElse(null);
        assumeTrue(golden != null, "no recorded Kafka answers (-Dassignor.golden=../shared/kafka-golden): skipped");
        final List<Path> cases = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(golden.resolve("sticky"), "*.kafka.json")) {
            files.forEach(cases::add);
        }
        cases.sort(null);
        assertTrue(!cases.isEmpty(), "no sticky/*.kafka.json in " + golden);
        return cases;
    }
}
