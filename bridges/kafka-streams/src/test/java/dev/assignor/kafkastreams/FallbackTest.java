package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The strategy never takes the application down: a missing executable, a crash, a hang, garbage, an
 * answer that does not fit, a bad setting each give one warning line and Kafka's own assignment
 * (its HighAvailabilityTaskAssignor on the same state); a slow reader's full stderr does not block.
 * Fake `assignor` commands are shell scripts.
 */
class FallbackTest {
    private static final AssignmentConfigs CONFIGS = new AssignmentConfigs(10000L, 2, 1, 60000L, List.of());

    @TempDir
    Path dir;

    private final FakeApplicationState state;
    private final Map<String, Map<String, SortedSet<String>>> kafka;

    FallbackTest() {
        final ObjectNode cluster = ClusterFileTest.cluster(12, 3, 1);
        ((ObjectNode) cluster.get("clients").get(2)).putArray("previous_active");  // a newcomer-like client
        ((ObjectNode) cluster.get("clients").get(2)).putObject("offset_sums");
        final ArrayNode tasks = (ArrayNode) cluster.get("tasks");
        for (int p = 0; p < 4; ++p) {
            tasks.addObject().put("id", "1_" + p);  // stateless
        }
        state = FakeApplicationState.of(cluster, CONFIGS);
        kafka = TestSupport.roles(KafkaOwnAssignment.assign(state, Instant.EPOCH).assignment(), state.processIds);
    }

    @Test
    void missingExecutable() {
        final String warning = fallsBack(Map.of(BridgeSettings.COMMAND, dir.resolve("no-such-assignor").toString()));
        assertTrue(warning.contains("cannot run") && warning.contains("set assignor.command"), warning);
    }

    @Test
    void strategyFails() throws Exception {
        final String warning = fallsBack(script("cat > /dev/null\necho 'assignor: error: strategy x threw: boom' >&2\n"
            + "exit 4\n"));
        assertTrue(warning.contains("exited with status 4 (the strategy failed or returned an invalid assignment): "
            + "assignor: error: strategy x threw: boom"), warning);
        // The input is kept for `assignor assign` to reproduce.
        final Path kept = Path.of(warning.replaceAll(".*its input is in (\\S+).*", "$1").replaceAll(";$", ""));
        assertTrue(TestSupport.read(kept).has("clients"), kept.toString());
    }

    @Test
    void strategyCrashes() throws Exception {
        final String warning = fallsBack(script("cat > /dev/null\nkill -SEGV $$\n"));
        assertTrue(warning.contains("killed by signal 11"), warning);
    }

    @Test
    void strategyHangs() throws Exception {
        final Map<String, Object> configs = new HashMap<>(script("sleep 120 &\nwait\n"));
        configs.put(BridgeSettings.TIMEOUT_MS, "300");
        final String warning = fallsBack(configs);
        assertTrue(warning.contains("did not finish within 300 ms (assignor.timeout.ms); killed it"), warning);
        assertTrue(ProcessHandle.current().descendants()
                .noneMatch(p -> p.info().commandLine().orElse("").contains("sleep 120")),
            "the hung strategy and its children are gone");
    }

    /** The resident worker's failures fall back the same way (WorkerTest has the worker's own lifecycle). */
    @Test
    void workerFailures() throws Exception {
        for (final String[] failure : new String[][] {{"*:crash", "crashing on request 1"},
            {"*:error", "threw: boom"}, {"*:garbage", "out of frame"}}) {
            final String warning = fallsBack(Map.of(BridgeSettings.COMMAND,
                dev.assignor.bridge.FakeWorker.command(dir, failure[0]).toString(), BridgeSettings.HOST_MODE, "worker"));
            assertTrue(warning.contains(failure[1]), failure[0] + ": " + warning);
        }
    }

    /** Every rebalance counts in the application's JMX metrics, fallbacks by reason. */
    @Test
    void fallbacksCountByReasonInJmx() throws Exception {
        final javax.management.ObjectName name = new javax.management.ObjectName(AssignorTaskAssignor.METRICS_PREFIX
            + FakeApplicationState.APPLICATION_ID);
        final AssignorTaskAssignor bridge = bridge(Map.of(BridgeSettings.COMMAND, dir.resolve("none").toString()));
        final long before = (Long) java.lang.management.ManagementFactory.getPlatformMBeanServer()
            .getAttribute(name, "fallbacks-start");
        bridge.assign(state);
        assertEquals(before + 1, java.lang.management.ManagementFactory.getPlatformMBeanServer()
            .getAttribute(name, "fallbacks-start"));
    }

    @Test
    void strategyPrintsGarbage() throws Exception {
        assertTrue(fallsBack(script("cat > /dev/null\necho 'all good'\n")).contains("not valid JSON"));
    }

    @Test
    void answerDoesNotFitTheGroup() throws Exception {
        final Path answer = TestSupport.write(dir.resolve("answer.json"),
            "{\"strategy\": \"x\", \"assignment\": {\"someone\": {\"active\": []}}}");
        final String warning = fallsBack(script("cat > /dev/null\ncat " + answer + "\n"));
        assertTrue(warning.contains("the answer names client 'someone', which is not in the group"), warning);
    }

    @Test
    void badSetting() {
        final String warning = fallsBack(Map.of(BridgeSettings.COMMAND, "assignor", BridgeSettings.TIMEOUT_MS, "x"));
        assertTrue(warning.contains("Invalid value x for configuration assignor.timeout.ms"), warning);
    }

    /** A valid answer comes through even after a megabyte on stderr, and is used as is. */
    @Test
    void answerAfterAFloodOnStderr() throws Exception {
        final StringBuilder json = new StringBuilder("{\"strategy\": \"all_on_one\", \"assignment\": {");
        final List<String> names = List.copyOf(new java.util.TreeSet<>(state.processIds.keySet()));
        for (int i = 0; i < names.size(); ++i) {
            final String id = state.processIds.get(names.get(i)).id().toString();
            json.append(i == 0 ? "" : ", ").append('"').append(id).append("\": {\"active\": [");
            if (i == 0) {
                json.append(String.join(", ", state.allTasks().keySet().stream()
                    .map(t -> "\"" + TestSupport.name(t) + "\"").toArray(String[]::new)));
            }
            json.append("]}");
        }
        json.append("}, \"probing_rebalance\": {\"needed\": false}}");
        final Path answer = TestSupport.write(dir.resolve("answer.json"), json.toString());
        final Map<String, Object> configs = script("cat > /dev/null\n"
            + "head -c 1048576 /dev/zero | tr '\\0' 'w' >&2\ncat " + answer + "\n");
        try (LogCapture log = new LogCapture()) {
            final TaskAssignment result = bridge(configs).assign(state);
            assertEquals(List.of(), log.at(Level.WARN));
            assertTrue(log.lines().stream().anyMatch(l -> l.contains("strategy all_on_one assigned 16 tasks")),
                log.lines().toString());
            final var roles = TestSupport.roles(result, state.processIds);
            assertEquals(16, roles.get(names.get(0)).get("active").size());
        }
    }

    /** With the real command: the strategy's answer, used as the command gives it. */
    @Test
    void realStrategyIsUsed() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final AssignorTaskAssignor bridge = bridge(Map.of(BridgeSettings.COMMAND, assignor.toString(),
            BridgeSettings.HOST_MODE, TestSupport.hostMode()));
        final AssignorTaskAssignor.Run run = bridge.runStrategy(state, Instant.EPOCH);
        final Path cluster = Files.write(dir.resolve("cluster.json"), run.file().json());
        final Path config = TestSupport.write(dir.resolve("config.yaml"),
            "strategy: least_movement\nassignment: {num_standby_replicas: 1, probing_rebalance_interval_ms: 60000}\n");
        final var direct = TestSupport.roles(TestSupport.parse(TestSupport.run(List.of(assignor.toString(), "assign",
            "--config", config.toString(), "--cluster", cluster.toString()))).get("assignment"));
        try (LogCapture log = new LogCapture()) {
            final TaskAssignment result = bridge.assign(state);
            assertEquals(List.of(), log.at(Level.WARN));
            assertEquals(direct, TestSupport.roles(result, nameByUuid()));
        }
    }

    /**
     * With a record directory, every decision is kept in import's layout: the strategy's, and the
     * fallback's (Kafka's answer, its reason); `assignor replay` reads the directory and least_movement
     * gives its recorded decisions again.
     */
    @Test
    void decisionsAreRecordedAndReplayed() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Path record = dir.resolve("record");
        final AssignorTaskAssignor bridge = bridge(Map.of(BridgeSettings.COMMAND, assignor.toString(),
            BridgeSettings.HOST_MODE, TestSupport.hostMode(), BridgeSettings.RECORD_DIR, record.toString()));
        bridge.assign(state);
        bridge.assign(state);
        final AssignorTaskAssignor failing = bridge(Map.of(BridgeSettings.COMMAND, dir.resolve("none").toString(),
            BridgeSettings.RECORD_DIR, record.toString()));
        failing.assign(state);
        final var index = TestSupport.read(record.resolve("index.json")).get("rebalances");
        assertEquals(3, index.size());
        assertEquals("least_movement", index.get(0).get("decided_by").asText());
        assertTrue(index.get(1).get("fallback_reason").isNull());
        assertEquals("start", index.get(2).get("fallback_reason").asText());
        assertTrue(index.get(2).get("decided_by").asText().contains("HighAvailabilityTaskAssignor"));
        // The fallback's recorded decision is Kafka's answer.
        final var recorded = TestSupport.roles(TestSupport.read(record.resolve(index.get(2).get("name").asText()
            + ".kafka.json")).get("assignment"));
        assertEquals(kafka, renameToFileIds(recorded));
        final var replay = TestSupport.parse(TestSupport.run(List.of(assignor.toString(), "replay", record.toString(),
            "--strategies", "least_movement", "--format", "json")));
        final var rebalances = replay.get("rebalances");
        assertEquals(3, rebalances.size());
        for (int i = 0; i < 2; ++i) {
            assertTrue(rebalances.get(i).path("strategies").path("least_movement").path("same_as_kafka").asBoolean(),
                rebalances.get(i).toString());
        }
    }

    /** Roles keyed by the process UUID (as recorded) -> keyed by the test's client names. */
    private Map<String, Map<String, SortedSet<String>>> renameToFileIds(
        final Map<String, Map<String, SortedSet<String>>> byUuid) {
        final Map<String, Map<String, SortedSet<String>>> out = new java.util.TreeMap<>();
        state.processIds.forEach((name, id) -> out.put(name, byUuid.get(id.id().toString())));
        return out;
    }

    /** Kafka's own choice when it could not fetch end offsets: every previous active stays, and it probes. */
    @Test
    void unknownEndOffsetsKeepThePreviousActives() {
        final ObjectNode cluster = ClusterFileTest.cluster(9, 3, 1);
        cluster.put("end_offsets_known", false);
        final FakeApplicationState unknown = FakeApplicationState.of(cluster, CONFIGS);
        final KafkaOwnAssignment.Result result = KafkaOwnAssignment.assign(unknown, Instant.EPOCH);
        assertTrue(result.assignor().contains("FallbackPriorTaskAssignor"), result.assignor());
        final var roles = TestSupport.roles(result.assignment(), unknown.processIds);
        cluster.get("clients").forEach(c -> c.get("previous_active").forEach(t ->
            assertTrue(roles.get(c.get("id").asText()).get("active").contains(t.asText()), c + " " + roles)));
        assertTrue(TestSupport.probing(result.assignment()));
    }

    /** The process ids as the answer names them (the UUID), for comparing with a direct run. */
    private Map<String, org.apache.kafka.streams.processor.assignment.ProcessId> nameByUuid() {
        final Map<String, org.apache.kafka.streams.processor.assignment.ProcessId> m = new HashMap<>();
        state.processIds.values().forEach(id -> m.put(id.id().toString(), id));
        return m;
    }

    /** The bridge with these settings falls back: exactly one warning, naming why, and Kafka's answer. */
    private String fallsBack(final Map<String, Object> configs) {
        try (LogCapture log = new LogCapture()) {
            final TaskAssignment result = bridge(configs).assign(state);
            assertEquals(kafka, TestSupport.roles(result, state.processIds));
            final List<String> warnings = log.at(Level.WARN);
            assertEquals(1, warnings.size(), log.lines().toString());
            assertTrue(warnings.get(0).contains("not used for this rebalance")
                && warnings.get(0).contains("using Kafka's HighAvailabilityTaskAssignor instead"), warnings.get(0));
            return warnings.get(0);
        }
    }

    private static AssignorTaskAssignor bridge(final Map<String, Object> configs) {
        final Map<String, Object> all = new HashMap<>(configs);
        all.putIfAbsent(BridgeSettings.STRATEGY, "least_movement");
        // The fakes here are `assignor assign` scripts; the worker's failures are WorkerTest's.
        all.putIfAbsent(BridgeSettings.HOST_MODE, "process");
        all.put("application.id", FakeApplicationState.APPLICATION_ID);
        final AssignorTaskAssignor bridge = new AssignorTaskAssignor();
        bridge.configure(all);
        return bridge;
    }

    private Map<String, Object> script(final String body) throws Exception {
        final Path script = dir.resolve("fake-assignor-" + System.nanoTime());
        Files.writeString(script, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return Map.of(BridgeSettings.COMMAND, script.toString());
    }
}
