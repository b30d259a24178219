package dev.assignor.kafkabroker;

import com.fasterxml.jackson.databind.JsonNode;

import dev.assignor.bridge.BridgeConfig;
import dev.assignor.bridge.FakeWorker;
import dev.assignor.bridge.FallbackReason;
import dev.assignor.kafkastreams.LogCapture;
import dev.assignor.kafkastreams.TestSupport;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The broker bridge never throws into the coordinator: a bad setting, a missing executable, a worker
 * that fails or crashes, an answer without a per-member split, a topology that is not a cluster file
 * each give one WARN line, Kafka's own StickyTaskAssignor answer (computed here on the same group),
 * a count by reason in the JMX metrics and, with a record directory, the fallback recorded. With the
 * real command: the strategy's answer per member, recorded, and `assignor replay` of the record gives
 * the recorded decision again.
 */
class BrokerBridgeTest {
    @TempDir
    Path dir;

    private final GroupSpecImpl group = Groups.group(1);
    private final GroupAssignment kafka = new StickyTaskAssignor().assign(group, Groups.topology());

    private static AssignorStreamsGroupAssignor bridge(final Map<String, Object> configs) {
        final Map<String, Object> all = new HashMap<>(configs);
        all.putIfAbsent(BridgeConfig.STRATEGY_CONFIG, "least_movement");
        all.putIfAbsent(BridgeConfig.COMMAND_CONFIG, "assignor");
        // The broker's own keys are among the originals too.
        all.put("group.streams.acceptable.recovery.lag", "250");
        all.put("process.roles", "broker,controller");
        final AssignorStreamsGroupAssignor bridge = new AssignorStreamsGroupAssignor();
        bridge.configure(all);
        return bridge;
    }

    private static long metric(final String attribute) throws Exception {
        return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(
            new ObjectName(AssignorStreamsGroupAssignor.METRICS_NAME), attribute);
    }

    /** Falls back: Kafka's answer, one WARN naming why, the reason counted. The WARN line. */
    private String fallsBack(final AssignorStreamsGroupAssignor bridge, final FallbackReason reason,
                             final org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber topology)
        throws Exception {
        final long before = metric("fallbacks-" + reason.metricName());
        try (LogCapture log = new LogCapture(AssignorStreamsGroupAssignor.class)) {
            final AssignorStreamsGroupAssignor.Outcome outcome = bridge.decide(group, topology);
            assertEquals(reason, outcome.fallback(), outcome.message());
            assertEquals(AssignorStreamsGroupAssignor.roles(new StickyTaskAssignor().assign(group, topology)),
                AssignorStreamsGroupAssignor.roles(outcome.assignment()));
            final List<String> warnings = log.at(Level.WARN);
            assertEquals(1, warnings.size(), log.lines().toString());
            assertTrue(warnings.get(0).contains("not used for this streams group (3 members)")
                && warnings.get(0).contains("using Kafka's StickyTaskAssignor instead"), warnings.get(0));
            assertEquals(before + 1, metric("fallbacks-" + reason.metricName()));
            return warnings.get(0);
        }
    }

    private String fallsBack(final AssignorStreamsGroupAssignor bridge, final FallbackReason reason) throws Exception {
        return fallsBack(bridge, reason, Groups.topology());
    }

    @Test
    void badSettings() throws Exception {
        final String warning = fallsBack(bridge(Map.of(BridgeConfig.TIMEOUT_MS_CONFIG, "soon")), FallbackReason.SETTINGS);
        assertTrue(warning.contains("Invalid value soon for configuration assignor.timeout.ms"), warning);
        final Map<String, Object> none = new HashMap<>();
        none.put(BridgeConfig.COMMAND_CONFIG, "assignor");
        final AssignorStreamsGroupAssignor noStrategy = new AssignorStreamsGroupAssignor();
        noStrategy.configure(none);
        assertTrue(fallsBack(noStrategy, FallbackReason.SETTINGS).contains("no strategy"));
    }

    @Test
    void missingExecutable() throws Exception {
        for (final String mode : List.of("process", "worker")) {
            final String warning = fallsBack(bridge(Map.of(BridgeConfig.COMMAND_CONFIG,
                dir.resolve("no-such-assignor").toString(), BridgeConfig.HOST_MODE_CONFIG, mode)), FallbackReason.START);
            assertTrue(warning.contains("set assignor.command"), warning);
        }
    }

    @Test
    void workerFailuresFallBack() throws Exception {
        assertTrue(fallsBack(bridge(Map.of(BridgeConfig.COMMAND_CONFIG, FakeWorker.command(dir, "*:error").toString(),
            BridgeConfig.HOST_MODE_CONFIG, "worker")), FallbackReason.HOST_ERROR).contains("threw: boom"));
        assertTrue(fallsBack(bridge(Map.of(BridgeConfig.COMMAND_CONFIG, FakeWorker.command(dir, "*:crash").toString(),
            BridgeConfig.HOST_MODE_CONFIG, "worker")), FallbackReason.START).contains("crashing on request 1"));
        assertTrue(fallsBack(bridge(Map.of(BridgeConfig.COMMAND_CONFIG, FakeWorker.command(dir, "*:hang").toString(),
            BridgeConfig.HOST_MODE_CONFIG, "worker", BridgeConfig.TIMEOUT_MS_CONFIG, "300")), FallbackReason.TIMEOUT)
            .contains("no answer within 300 ms"));
        // The fake's answer is no assignment at all.
        assertTrue(fallsBack(bridge(Map.of(BridgeConfig.COMMAND_CONFIG, FakeWorker.command(dir, "").toString(),
            BridgeConfig.HOST_MODE_CONFIG, "worker")), FallbackReason.INVALID_ANSWER).contains("no 'strategy' field"));
    }

    /** An answer whose thread split is missing or names a thread that is not the process's member. */
    @Test
    void answersWithoutAMemberSplitAreRefused() throws Exception {
        final String noThreads = "{\"strategy\": \"x\", \"assignment\": {"
            + "\"p1\": {\"active\": [\"0_0\", \"0_1\", \"0_2\"]}, \"p2\": {\"active\": [\"1_0\", \"1_1\"]}}}";
        assertTrue(fallsBack(bridge(script(noThreads)), FallbackReason.INVALID_ANSWER)
            .contains("no per-thread split for process p1"));
        final String strangers = "{\"strategy\": \"x\", \"assignment\": {"
            + "\"p1\": {\"active\": [\"0_0\", \"0_1\", \"0_2\"], \"threads\": {\"m-a\": {\"active\": [\"0_0\", \"0_1\", "
            + "\"0_2\"]}}}, \"p2\": {\"active\": [\"1_0\", \"1_1\"], \"threads\": {\"m-a\": {\"active\": [\"1_0\", "
            + "\"1_1\"]}}}}}";
        assertTrue(fallsBack(bridge(script(strangers)), FallbackReason.INVALID_ANSWER)
            .contains("names thread 'm-a' of client 'p1', which is not one of its members"));
    }

    @Test
    void topologiesThatAreNoClusterFile() throws Exception {
        assertTrue(fallsBack(bridge(Map.of()), FallbackReason.MAPPING, Groups.topology(List.of("0", "x")))
            .contains("sub-topology id 'x' is not a number"));
    }

    @Test
    void fallbacksAreRecorded() throws Exception {
        final Path record = dir.resolve("record");
        fallsBack(bridge(Map.of(BridgeConfig.COMMAND_CONFIG, dir.resolve("nope").toString(),
            BridgeConfig.RECORD_DIR_CONFIG, record.toString())), FallbackReason.START);
        final Path topology = onlyChild(record);
        final JsonNode entry = TestSupport.read(topology.resolve("index.json")).get("rebalances").get(0);
        assertEquals("start", entry.get("fallback_reason").asText());
        assertEquals("Kafka's StickyTaskAssignor", entry.get("decided_by").asText());
        final JsonNode decision = TestSupport.read(topology.resolve(entry.get("name").asText() + ".kafka.json"));
        // What was recorded is Kafka's answer, per process and per member.
        final Map<String, TreeSet<String>> actives = new HashMap<>();
        decision.get("assignment").properties().forEach(p -> p.getValue().get("threads").properties().forEach(m -> {
            final TreeSet<String> tasks = new TreeSet<>();
            m.getValue().get("active").forEach(t -> tasks.add(t.asText()));
            actives.put(m.getKey(), tasks);
        }));
        AssignorStreamsGroupAssignor.roles(kafka).forEach((member, roles) -> {
            if (!roles.get("active").isEmpty()) {
                assertEquals(roles.get("active"), actives.get(member), member);
            }
        });
    }

    /** With the real command: the strategy decides per member, the decision is kept, replay reads it. */
    @Test
    void realStrategyRecordedAndReplayed() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Path record = dir.resolve("record");
        final AssignorStreamsGroupAssignor bridge = bridge(Map.of(BridgeConfig.COMMAND_CONFIG, assignor.toString(),
            BridgeConfig.RECORD_DIR_CONFIG, record.toString(), BridgeConfig.HOST_MODE_CONFIG,
            BrokerDifferentialTest.hostMode()));
        final long decided = metric("rebalances-decided");
        for (int i = 0; i < 3; ++i) {
            final AssignorStreamsGroupAssignor.Outcome outcome = bridge.decide(group, Groups.topology());
            assertNull(outcome.fallback(), outcome.message());
            final Map<String, Map<String, TreeSet<String>>> roles = AssignorStreamsGroupAssignor.roles(
                outcome.assignment());
            assertEquals(new TreeSet<>(List.of("m-a", "m-b", "m-c")), new TreeSet<>(roles.keySet()));
            final List<String> actives = roles.values().stream().flatMap(r -> r.get("active").stream()).sorted().toList();
            assertEquals(List.of("0_0", "0_1", "0_2", "1_0", "1_1"), actives, "every task active once");
        }
        assertEquals(decided + 3, metric("rebalances-decided"));
        final Path topology = onlyChild(record);
        final JsonNode index = TestSupport.read(topology.resolve("index.json"));
        assertEquals(3, index.get("rebalances").size());
        final JsonNode entry = index.get("rebalances").get(0);
        assertEquals("least_movement", entry.get("decided_by").asText());
        assertEquals(1, entry.get("num_standby_replicas").asInt());
        assertTrue(TestSupport.read(topology.resolve(entry.get("name").asText() + ".config.yaml")).get("assignment")
            .get("acceptable_recovery_lag").asLong() == 250, "the broker's group.streams.acceptable.recovery.lag");
        final JsonNode replay = TestSupport.parse(TestSupport.run(List.of(assignor.toString(), "replay",
            topology.toString(), "--strategies", "least_movement", "--format", "json")));
        assertEquals(3, replay.path("agreement").path("least_movement").path("same_as_kafka").asInt(-1),
            "least_movement again on each recorded input gives the recorded decision: " + replay.path("agreement"));
    }

    private static Path onlyChild(final Path dir) throws Exception {
        try (var children = Files.list(dir)) {
            final List<Path> all = children.toList();
            assertEquals(1, all.size(), all.toString());
            assertTrue(all.get(0).getFileName().toString().startsWith("topology-"), all.toString());
            return all.get(0);
        }
    }

    /** A process-mode host that prints {@code answer}. */
    private Map<String, Object> script(final String answer) throws Exception {
        final Path json = Files.writeString(dir.resolve("answer-" + System.nanoTime() + ".json"), answer);
        final Path script = dir.resolve("fake-assignor-" + System.nanoTime());
        Files.writeString(script, "#!/bin/sh\ncat > /dev/null\ncat '" + json + "'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return Map.of(BridgeConfig.COMMAND_CONFIG, script.toString(), BridgeConfig.HOST_MODE_CONFIG, "process");
    }
}
