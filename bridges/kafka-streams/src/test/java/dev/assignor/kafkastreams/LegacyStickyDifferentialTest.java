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
        return roles(clients, state.processIds);
    }

    /** Per client name: the active and standby tasks Kafka's client states ended with. */
    static Map<String, Map<String, SortedSet<String>>> roles(final Map<ProcessId, ClientState> clients,
                                                            final Map<String, ProcessId> ids) {
        final Map<String, Map<String, SortedSet<String>>> out = new TreeMap<>();
        ids.forEach((name, id) -> {
            final Map<String, SortedSet<String>> r = new TreeMap<>();
            r.put("active", new TreeSet<>());
            r.put("standby", new TreeSet<>());
            clients.get(id).activeTasks().forEach(t -> r.get("active").add(TestSupport.name(t)));
            clients.get(id).standbyTasks().forEach(t -> r.get("standby").add(TestSupport.name(t)));
            out.put(name, r);
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
        final TestSupport.Differential run = new TestSupport.Differential("assignor.differential.cases", 300,
            0x5717C4L, "sticky-differential-");
        final Random rng = run.rng;
        int large = 0;
        for (int i = 0; i < run.cases; ++i) {
            final boolean big = i % 4 == 3 || Boolean.getBoolean("assignor.differential.large");
            final ObjectNode cluster = big ? largeCluster(run.assignor, rng, i)
                : HighAvailabilityDifferentialTest.generatedCluster(run.assignor, rng, i, run.work);
            final AssignmentConfigs configs = new AssignmentConfigs(10000L, 2, big ? 2 : rng.nextInt(3), 600000L,
                List.of());
            final FakeApplicationState state = FakeApplicationState.of(cluster, configs);
            final List<String> d = HighAvailabilityDifferentialTest.compare(run.assignor, "sticky", state,
                kafkaLegacySticky(state, cluster), false);
            large += big ? 1 : 0;
            if (!d.isEmpty()) {
                final Path kept = run.work.resolve("case" + i + ".cluster.json");
                Files.write(kept, TestSupport.JSON.writeValueAsBytes(cluster));
                run.failures.add("case " + i + " (" + kept + ", " + configs.numStandbyReplicas() + " standbys): "
                    + d.size() + " differences: " + String.join("; ", d.subList(0, Math.min(4, d.size()))));
            }
        }
        run.finish("bridge + sticky", "LegacyStickyTaskAssignor",
            ", " + large + " of them 1,000 tasks x 20 clients x 2 standbys");
    }

    /**
     * With rack awareness (rack.aware.assignment.strategy min_traffic or balance_subtopology): Kafka's
     * LegacyStickyTaskAssignor with its own RackAwareTaskAssignor (the cluster's metadata built from
     * the cluster file: a node per rack, each partition's replicas on its racks; a task's changelog
     * partitions modelled as its input partitions, as the recorded rack answers were) against
     * `assignor assign --strategy sticky` on the same file, every other one 1,000 tasks on 20 clients
     * with 2 standbys (min_traffic: Kafka's own cycle cancelling takes minutes on those graphs with
     * balance_subtopology). -Dassignor.differential.rack.cases=N for more.
     */
    @Test
    void rackAwareGroupsGetKafkasAnswer() throws IOException {
        final TestSupport.Differential run = new TestSupport.Differential("assignor.differential.rack.cases", 6,
            0x4ACCL, "sticky-rack-differential-");
        final Random rng = run.rng;
        for (int i = 0; i < run.cases; ++i) {
            final boolean big = i % 2 == 1;
            // Kafka's cycle cancelling takes minutes on large balance_subtopology graphs: small groups only.
            final String strategy = !big && rng.nextInt(3) == 0 ? "balance_subtopology" : "min_traffic";
            final int standbys = big ? 2 : rng.nextInt(3);
            final List<String> command = List.of(run.assignor.toString(), "generate",
                "--clients", big ? "20" : String.valueOf(3 + rng.nextInt(10)),
                "--threads", big ? "1-6" : String.valueOf(1 + rng.nextInt(3)),
                "--subtopologies", big ? "10" : String.valueOf(1 + rng.nextInt(4)),
                "--partitions", big ? "100" : String.valueOf(2 + rng.nextInt(15)),
                "--standbys", String.valueOf(1 + rng.nextInt(2)), "--racks", String.valueOf(2 + rng.nextInt(3)),
                "--scenario", SCENARIOS[i % SCENARIOS.length], "--seed", String.valueOf(rng.nextInt() & 0xffffffffL));
            final ObjectNode cluster = (ObjectNode) TestSupport.parse(TestSupport.run(command));
            stickyOnTheFile(run, i, cluster, standbys, strategy);
        }
        run.finish("sticky with rack awareness", "LegacyStickyTaskAssignor + RackAwareTaskAssignor", "");
    }

    /**
     * Client ids that are UUIDs (as in groups imported from Kafka's logs): Kafka's process ids are
     * those UUIDs, so its HashMap and HashSet orders follow their hash codes, collisions included,
     * and its client order is UUID.compareTo. 1,000 tasks on 20 clients with 2 standbys and small
     * groups, no racks, against `assignor assign --strategy sticky` on the same file.
     */
    @Test
    void uuidClientIdsGetKafkasAnswer() throws IOException {
        final TestSupport.Differential run = new TestSupport.Differential("assignor.differential.uuid.cases", 40,
            0x0010L, "sticky-uuid-differential-");
        for (int i = 0; i < run.cases; ++i) {
            final boolean big = i % 2 == 1;
            final int standbys = big ? 2 : run.rng.nextInt(3);
            final ObjectNode cluster = big ? largeCluster(run.assignor, run.rng, i)
                : HighAvailabilityDifferentialTest.generatedCluster(run.assignor, run.rng, i, run.work);
            for (final JsonNode c : cluster.get("clients")) {
                ((ObjectNode) c).put("id", new java.util.UUID(run.rng.nextLong(), run.rng.nextLong()).toString());
            }
            stickyOnTheFile(run, i, cluster, standbys, null);
        }
        run.finish("sticky with UUID client ids", "LegacyStickyTaskAssignor", "");
    }

    /**
     * Case {@code i}: `assignor assign --strategy sticky` on the cluster file (with rack awareness
     * {@code rackStrategy}, or none when null) against Kafka's legacy sticky assignor with its rack-aware
     * steps; a failure of the run when they differ.
     */
    private static void stickyOnTheFile(final TestSupport.Differential run, final int i, final ObjectNode cluster,
                                        final int standbys, final String rackStrategy) throws IOException {
        final Path clusterFile = run.work.resolve("case" + i + ".cluster.json");
        Files.write(clusterFile, TestSupport.JSON.writeValueAsBytes(cluster));
        final Path config = TestSupport.write(run.work.resolve("case" + i + ".config.yaml"),
            "strategy: sticky\nassignment: {num_standby_replicas: " + standbys
                + (rackStrategy == null ? "" : ", rack_aware: {strategy: " + rackStrategy + "}") + "}\n");
        final JsonNode ours = TestSupport.parse(TestSupport.run(List.of(run.assignor.toString(), "assign",
            "--config", config.toString(), "--cluster", clusterFile.toString())));
        final List<String> d = TestSupport.differences(
            kafkaLegacyStickyWithRacks(cluster, standbys, rackStrategy == null ? "none" : rackStrategy),
            TestSupport.roles(ours.get("assignment")));
        if (!d.isEmpty()) {
            run.failures.add("case " + i + " (" + clusterFile + ", " + standbys + " standbys"
                + (rackStrategy == null ? "" : ", " + rackStrategy) + "): " + d.size() + " differences: "
                + String.join("; ", d.subList(0, Math.min(4, d.size()))));
        }
    }

    /** Kafka's legacy sticky assignor with its rack-aware steps, on inputs built from a cluster file. */
    static Map<String, Map<String, SortedSet<String>>> kafkaLegacyStickyWithRacks(final JsonNode cluster,
                                                                                final int standbys,
                                                                                final String strategy) {
        // Process ids as DESIGN 2 says Kafka sees them: the UUIDs when every client id is one, else
        // UUID(0, rank) in string order of the ids.
        final List<String> names = new ArrayList<>();
        cluster.get("clients").forEach(c -> names.add(c.get("id").asText()));
        java.util.Collections.sort(names);
        boolean uuids = true;
        for (final String name : names) {
            uuids &= name.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
        }
        final Map<String, ProcessId> ids = new HashMap<>();
        for (int rank = 0; rank < names.size(); ++rank) {
            ids.put(names.get(rank), new ProcessId(uuids ? java.util.UUID.fromString(names.get(rank))
                : new java.util.UUID(0, rank)));
        }
        final Map<String, org.apache.kafka.common.Node> nodes = new TreeMap<>();
        final List<org.apache.kafka.common.PartitionInfo> partitions = new ArrayList<>();
        final Map<TaskId, Set<org.apache.kafka.common.TopicPartition>> partitionsForTask = new HashMap<>();
        final Map<TaskId, Set<org.apache.kafka.common.TopicPartition>> changelogsForTask = new HashMap<>();
        final Map<org.apache.kafka.streams.processor.internals.TopologyMetadata.Subtopology, Set<TaskId>> bySubtopology =
            new HashMap<>();
        final Set<TaskId> allTasks = new HashSet<>();
        final Set<TaskId> statefulTasks = new HashSet<>();
        for (final JsonNode t : cluster.get("tasks")) {
            final TaskId id = TaskId.parse(t.get("id").asText());
            allTasks.add(id);
            bySubtopology.computeIfAbsent(new org.apache.kafka.streams.processor.internals.TopologyMetadata.Subtopology(
                id.subtopology(), null), s -> new HashSet<>()).add(id);
            final Set<org.apache.kafka.common.TopicPartition> tps = new HashSet<>();
            for (final JsonNode p : t.path("partitions")) {
                final org.apache.kafka.common.TopicPartition tp =
                    new org.apache.kafka.common.TopicPartition(p.get("topic").asText(), p.get("partition").asInt());
                tps.add(tp);
                final List<org.apache.kafka.common.Node> replicas = new ArrayList<>();
                for (final JsonNode r : p.path("racks")) {
                    replicas.add(nodes.computeIfAbsent(r.asText(),
                        rack -> new org.apache.kafka.common.Node(nodes.size(), "broker-" + rack, 9092, rack)));
                }
                final org.apache.kafka.common.Node[] array = replicas.toArray(new org.apache.kafka.common.Node[0]);
                partitions.add(new org.apache.kafka.common.PartitionInfo(tp.topic(), tp.partition(),
                    array.length > 0 ? array[0] : null, array, array));
            }
            partitionsForTask.put(id, tps);
            boolean logged = false;
            for (final JsonNode s : t.path("stores")) {
                logged |= s.path("logged").asBoolean(true);
            }
            if (logged) {
                statefulTasks.add(id);
                changelogsForTask.put(id, tps);
            }
        }
        final Map<ProcessId, ClientState> clients = new HashMap<>();
        final Map<ProcessId, Map<String, java.util.Optional<String>>> racks = new HashMap<>();
        // The client states go into Kafka's HashMap in Kafka's client order (ProcessId's compareTo).
        final Map<String, JsonNode> byName = new TreeMap<>(java.util.Comparator.comparing(ids::get));
        cluster.get("clients").forEach(c -> byName.put(c.get("id").asText(), c));
        for (final Map.Entry<String, JsonNode> e : byName.entrySet()) {
            final JsonNode c = e.getValue();
            final ProcessId id = ids.get(e.getKey());
            final Set<TaskId> active = new TreeSet<>();
            final Set<TaskId> standby = new TreeSet<>();
            c.path("previous_active").forEach(t -> active.add(TaskId.parse(t.asText())));
            c.path("previous_standby").forEach(t -> standby.add(TaskId.parse(t.asText())));
            c.path("offset_sums").properties().forEach(s -> (s.getValue().asLong() == ClusterFile.RUNNING ? active : standby)
                .add(TaskId.parse(s.getKey())));
            standby.removeAll(active);
            clients.put(id, new ClientState(active, standby, new TreeMap<>(), Map.of(), c.get("threads").asInt(), id));
            racks.put(id, Map.of("consumer-" + e.getKey(), java.util.Optional.ofNullable(c.path("rack").asText(null))));
        }
        final AssignmentConfigs configs = new AssignmentConfigs(10000L, 2, standbys, 600000L, List.of(),
            java.util.OptionalInt.empty(), java.util.OptionalInt.empty(), strategy);
        final org.apache.kafka.common.Cluster metadata = new org.apache.kafka.common.Cluster("c", nodes.values(),
            partitions, Set.of(), Set.of());
        // Kafka describes the changelog topics through its InternalTopicManager (an admin call): here
        // they are the input topics, described from the same metadata.
        final Map<String, List<org.apache.kafka.common.TopicPartitionInfo>> described = new HashMap<>();
        for (final org.apache.kafka.common.PartitionInfo info : partitions) {
            described.computeIfAbsent(info.topic(), t -> new ArrayList<>()).add(new org.apache.kafka.common.TopicPartitionInfo(
                info.partition(), info.leader(), List.of(info.replicas()), List.of(info.inSyncReplicas())));
        }
        final java.util.Properties props = new java.util.Properties();
        props.put(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG, "app");
        props.put(org.apache.kafka.streams.StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
        final org.apache.kafka.clients.admin.Admin noAdmin = (org.apache.kafka.clients.admin.Admin) java.lang.reflect.Proxy
            .newProxyInstance(LegacyStickyDifferentialTest.class.getClassLoader(),
                new Class<?>[] {org.apache.kafka.clients.admin.Admin.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        final org.apache.kafka.streams.processor.internals.InternalTopicManager topics =
            new org.apache.kafka.streams.processor.internals.InternalTopicManager(org.apache.kafka.common.utils.Time.SYSTEM,
                noAdmin, new org.apache.kafka.streams.StreamsConfig(props)) {
                @Override
                public Map<String, List<org.apache.kafka.common.TopicPartitionInfo>> getTopicPartitionInfo(
                    final Set<String> names) {
                    final Map<String, List<org.apache.kafka.common.TopicPartitionInfo>> out = new HashMap<>();
                    names.forEach(n -> out.put(n, described.getOrDefault(n, List.of())));
                    return out;
                }
            };
        final org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor rackAware =
            new org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor(metadata, partitionsForTask,
                changelogsForTask, bySubtopology, racks, topics, configs, org.apache.kafka.common.utils.Time.SYSTEM);
        new LegacyStickyTaskAssignor().assign(clients, allTasks, statefulTasks, rackAware, configs);
        return roles(clients, ids);
    }

    /**
     * 1,000 tasks on 20 clients, one scenario after another: 10 x 100, 4 x 250, 20 x 50 or 40 x 25
     * tasks, threads equal (1-3) or 1-4 or 1-6 per client, a third with non-logged stores (stateless
     * to Kafka), and in half of them state on disk for tasks a client did not hold (a previous
     * standby to Kafka).
     */
    private static ObjectNode largeCluster(final Path assignor, final Random rng, final int i) {
        final int[][] shapes = {{10, 100}, {4, 250}, {20, 50}, {40, 25}};
        final int[] shape = shapes[rng.nextInt(shapes.length)];
        final String threads = new String[] {"1", "2", "3", "1-4", "1-6"}[rng.nextInt(5)];
        final List<String> command = List.of(assignor.toString(), "generate", "--clients", "20",
            "--threads", threads, "--subtopologies", String.valueOf(shape[0]), "--partitions", String.valueOf(shape[1]),
            "--standbys", "2", "--stateful-fraction", rng.nextBoolean() ? "1" : "0.5",
            "--nonlogged-fraction", rng.nextInt(3) == 0 ? "0.34" : "0",
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
        final Path golden = TestSupport.golden();
        final List<Path> cases = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(golden.resolve("sticky"), "*.kafka.json")) {
            files.forEach(cases::add);
        }
        cases.sort(null);
        assertTrue(!cases.isEmpty(), "no sticky/*.kafka.json in " + golden);
        return cases;
    }
}
