package dev.assignor.kafkabroker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.assignor.bridge.BridgeConfig;
import dev.assignor.kafkastreams.HighAvailabilityDifferentialTest;
import dev.assignor.kafkastreams.StreamsGroupDifferentialTest;
import dev.assignor.kafkastreams.TestSupport;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka's own broker-side StickyTaskAssignor (the kafka-group-coordinator jar of the pom's
 * kafka.version) against the broker bridge running {@code streams_sticky} ({@code kafka_version} of
 * that jar, refiner off: Kafka 4.4's refiner does nothing), per member, on the generated groups of
 * the Kafka Streams module's differential tests, given to both as the group coordinator holds them
 * ({@link StreamsGroupDifferentialTest#kafkaGroup}): the whole bridge (GroupSpec -> cluster file ->
 * {@code assignor} -> per-member GroupAssignment) must give Kafka's answer, member for member, and
 * never by falling back (the fallback is Kafka's own StickyTaskAssignor: a silent fallback would
 * pass for equality).
 */
class BrokerDifferentialTest {
    private static final long DEFAULT_SEED = 20261201L;

    @Test
    void streamsStickyThroughTheBridgeEqualsKafkasStickyPerMember() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final int cases = Integer.getInteger("assignor.differential.cases", 300);
        final long seed = Long.getLong("assignor.differential.seed", DEFAULT_SEED);
        final Random rng = new Random(seed);
        final Path work = Files.createTempDirectory("broker-differential-");
        final Path config = TestSupport.write(work.resolve("sticky.yaml"), "strategy: streams_sticky\n"
            + "strategies: {streams_sticky: {refiner: false, kafka_version: \""
            + StreamsGroupDifferentialTest.stickyVersion() + "\"}}\n");
        final AssignorStreamsGroupAssignor bridge = new AssignorStreamsGroupAssignor();
        bridge.configure(Map.of(BridgeConfig.COMMAND_CONFIG, assignor.toString(), BridgeConfig.CONFIG_FILE_CONFIG,
            config.toString(), BridgeConfig.HOST_MODE_CONFIG, hostMode()));
        final Map<String, String> different = new TreeMap<>();
        for (int i = 0; i < cases; ++i) {
            final int standbys = rng.nextInt(3);
            final ObjectNode cluster = HighAvailabilityDifferentialTest.generatedCluster(assignor, rng, i, work);
            final StreamsGroupDifferentialTest.KafkaGroup group = StreamsGroupDifferentialTest.kafkaGroup(cluster,
                standbys);
            final GroupAssignment kafka = new StickyTaskAssignor().assign(group.spec(), group.topology());
            final AssignorStreamsGroupAssignor.Outcome ours = bridge.decide(group.spec(), group.topology());
            final String key = String.format("case %03d", i);
            if (ours.fallback() != null) {
                different.put(key, key + ": the bridge fell back (" + ours.fallback().metricName() + "): "
                    + ours.message());
                continue;
            }
            final var expected = AssignorStreamsGroupAssignor.roles(kafka);
            final var actual = AssignorStreamsGroupAssignor.roles(ours.assignment());
            if (!expected.equals(actual)) {
                final Path kept = work.resolve("case" + i + ".cluster.json");
                Files.write(kept, TestSupport.JSON.writeValueAsBytes(cluster));
                Files.write(work.resolve("case" + i + ".bridge.json"), GroupFile.of(group.spec(), group.topology())
                    .json());
                final String what = key + " (" + kept + ", " + standbys + " standbys): Kafka " + firstDifference(
                    expected, actual);
                final boolean sameProcesses = byProcess(expected, group.processOfMember())
                    .equals(byProcess(actual, group.processOfMember()));
                different.put(key, what + (sameProcesses ? "" : " (and per process)"));
            }
        }
        final String summary = String.format("broker bridge + streams_sticky (kafka_version %s) vs Kafka %s "
                + "StickyTaskAssignor per member: %d/%d generated groups equal (seed %d)",
            StreamsGroupDifferentialTest.stickyVersion(), TestSupport.kafkaVersion(), cases - different.size(), cases,
            seed);
        System.out.println(summary);
        assertTrue(different.isEmpty(), summary + ":\n  " + String.join("\n  ",
            different.values().stream().limit(10).toList()));
    }

    /**
     * Kafka's recorded KIP-1071 answers (tests/data/kafka-golden/streams_sticky, apache/kafka 058944c8144d,
     * with each member's tasks): the bridge running streams_sticky as that commit (its default
     * kafka_version, refiner off) must give every member its recorded tasks.
     */
    @Test
    void theRecordedAnswersMemberByMember() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Path golden = TestSupport.golden().resolve("streams_sticky");
        assertTrue(Files.isDirectory(golden), "Kafka's recorded KIP-1071 answers are missing: " + golden);
        final Path work = Files.createTempDirectory("broker-recorded-");
        final Path config = TestSupport.write(work.resolve("sticky.yaml"),
            "strategy: streams_sticky\nstrategies: {streams_sticky: {refiner: false}}\n");
        final AssignorStreamsGroupAssignor bridge = new AssignorStreamsGroupAssignor();
        bridge.configure(Map.of(BridgeConfig.COMMAND_CONFIG, assignor.toString(), BridgeConfig.CONFIG_FILE_CONFIG,
            config.toString(), BridgeConfig.HOST_MODE_CONFIG, hostMode()));
        final List<Path> cases;
        try (var files = Files.list(golden)) {
            cases = files.filter(f -> f.toString().endsWith(".kafka.json")).sorted().toList();
        }
        final Map<String, String> different = new TreeMap<>();
        for (final Path kafkaJson : cases) {
            final String base = kafkaJson.toString().substring(0, kafkaJson.toString().length() - ".kafka.json".length());
            final JsonNode cluster = TestSupport.read(Path.of(base + ".cluster.json"));
            final int standbys = TestSupport.read(Path.of(base + ".config.yaml")).path("assignment")
                .path("num_standby_replicas").asInt(0);
            final StreamsGroupDifferentialTest.KafkaGroup group = StreamsGroupDifferentialTest.kafkaGroup(cluster,
                standbys);
            final AssignorStreamsGroupAssignor.Outcome ours = bridge.decide(group.spec(), group.topology());
            if (ours.fallback() != null) {
                different.put(kafkaJson.getFileName().toString(), "fell back: " + ours.message());
                continue;
            }
            final Map<String, Map<String, java.util.TreeSet<String>>> expected = new TreeMap<>();
            for (final String member : group.spec().memberIds()) {
                expected.put(member, emptyRoles());
            }
            TestSupport.read(kafkaJson).get("assignment").properties().forEach(client -> {
                final JsonNode named = namedThreads(cluster, client.getKey());
                client.getValue().path("threads").properties().forEach(thread -> {
                    final String member = named.has(thread.getKey()) ? thread.getKey()
                        : client.getKey() + "/" + thread.getKey();
                    final Map<String, java.util.TreeSet<String>> roles = expected.computeIfAbsent(member,
                        m -> emptyRoles());
                    thread.getValue().path("active").forEach(t -> roles.get("active").add(t.asText()));
                    thread.getValue().path("standby").forEach(t -> roles.get("standby").add(t.asText()));
                    thread.getValue().path("warmup").forEach(t -> roles.get("standby").add(t.asText()));
                });
            });
            final var actual = AssignorStreamsGroupAssignor.roles(ours.assignment());
            if (!expected.equals(actual)) {
                different.put(kafkaJson.getFileName().toString(), firstDifference(expected, actual));
            }
        }
        final String summary = String.format("broker bridge + streams_sticky (trunk-058944c): %d/%d recorded Kafka "
            + "answers equal member by member", cases.size() - different.size(), cases.size());
        System.out.println(summary);
        assertTrue(!cases.isEmpty() && different.isEmpty(), summary + ": " + different);
    }

    private static Map<String, java.util.TreeSet<String>> emptyRoles() {
        final Map<String, java.util.TreeSet<String>> r = new TreeMap<>();
        r.put("active", new java.util.TreeSet<>());
        r.put("standby", new java.util.TreeSet<>());
        return r;
    }

    private static JsonNode namedThreads(final JsonNode cluster, final String client) {
        for (final JsonNode c : cluster.get("clients")) {
            if (c.get("id").asText().equals(client)) {
                return c.path("previous_by_thread");
            }
        }
        return TestSupport.JSON.createObjectNode();
    }

    /** Per process: the union of its members' roles. */
    private static Map<String, Map<String, java.util.TreeSet<String>>> byProcess(
        final Map<String, Map<String, java.util.TreeSet<String>>> members, final Map<String, String> processOf) {
        final Map<String, Map<String, java.util.TreeSet<String>>> out = new TreeMap<>();
        members.forEach((member, roles) -> roles.forEach((role, tasks) -> out.computeIfAbsent(processOf.get(member),
            k -> new TreeMap<>()).computeIfAbsent(role, k -> new java.util.TreeSet<>()).addAll(tasks)));
        return out;
    }

    static String hostMode() {
        return TestSupport.hostMode();
    }

    private static String firstDifference(final Map<String, Map<String, java.util.TreeSet<String>>> expected,
                                          final Map<String, Map<String, java.util.TreeSet<String>>> actual) {
        for (final String member : new java.util.TreeSet<>(expected.keySet())) {
            if (!expected.get(member).equals(actual.get(member))) {
                return "member " + member + " " + expected.get(member) + ", bridge " + actual.get(member);
            }
        }
        return "members " + expected.keySet() + ", bridge " + actual.keySet();
    }
}
