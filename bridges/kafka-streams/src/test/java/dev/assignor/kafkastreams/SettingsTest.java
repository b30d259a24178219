package dev.assignor.kafkastreams;

import dev.assignor.bridge.BridgeException;
import dev.assignor.bridge.HostConfig;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bridge's Streams config keys, and the config file the host is given. */
class SettingsTest {
    @TempDir
    Path dir;

    @Test
    void defaultsAndValues() {
        final BridgeSettings s = BridgeSettings.from(Map.of(BridgeSettings.STRATEGY, "least_movement",
            BridgeSettings.PLUGIN_PATH, "/opt/a, /opt/b,", BridgeSettings.TIMEOUT_MS, 2500, "application.id", "app"));
        assertEquals(List.of(), s.problems());
        assertEquals("assignor", s.command());
        assertEquals(List.of("/opt/a", "/opt/b"), s.pluginPaths());
        assertEquals(2500, s.timeoutMs());
        assertEquals("app", s.applicationId());
    }

    /**
     * Never an exception (Kafka configures the assignor inside the rebalance): Kafka's ConfigDef reads
     * the values, and what it refuses (the first bad value) is kept as the problem.
     */
    @Test
    void badSettingsAreProblemsNotExceptions() {
        assertTrue(BridgeSettings.from(Map.of()).problems().get(0).contains("no strategy"));
        final BridgeSettings s = BridgeSettings.from(Map.of(BridgeSettings.STRATEGY, "x", BridgeSettings.TIMEOUT_MS,
            "soon"));
        assertEquals(1, s.problems().size(), s.problems().toString());
        assertTrue(s.problems().get(0).contains("Invalid value soon for configuration assignor.timeout.ms"),
            s.problems().toString());
        assertTrue(BridgeSettings.from(Map.of(BridgeSettings.STRATEGY, "x", BridgeSettings.COMMAND, new Object()))
            .problems().get(0).contains("for configuration assignor.command"));
        assertTrue(BridgeSettings.from(Map.of(BridgeSettings.STRATEGY, "x", BridgeSettings.TIMEOUT_MS, "0"))
            .problems().get(0).contains("Value must be at least 1"));
        assertTrue(BridgeSettings.from(Map.of(BridgeSettings.STRATEGY, "x", BridgeSettings.HOST_MODE, "thread"))
            .problems().get(0).contains("assignor.host.mode"));
    }

    /** The application's settings replace the file's; the strategy override and absolute plugin paths. */
    @Test
    void theHostsConfig() throws Exception {
        final Path user = TestSupport.write(dir.resolve("assignor.yaml"), String.join("\n",
            "strategy: high_availability",
            "plugins: {paths: [my-plugins]}",
            "assignment: {num_standby_replicas: 2, max_warmup_replicas: 2}",
            "strategies: {least_movement: {balance: weight}}",
            ""));
        final BridgeSettings settings = BridgeSettings.from(Map.of(BridgeSettings.CONFIG, user.toString(),
            BridgeSettings.STRATEGY, "least_movement"));
        final AssignmentConfigs streams = new AssignmentConfigs(500L, 2, 1, 60000L, List.of("zone"), OptionalInt.of(7),
            OptionalInt.empty(), "min_traffic");
        final HostConfig written = HostConfig.write(settings.config(), BridgeSettings.assignmentSettings(streams), dir);
        final JsonNode config = TestSupport.read(written.path());
        assertEquals("least_movement", config.get("strategy").asText());
        assertEquals(dir.resolve("my-plugins").toString(), config.get("plugins").get("paths").get(0).asText());
        assertEquals("weight", config.get("strategies").get("least_movement").get("balance").asText());
        final JsonNode a = config.get("assignment");
        assertEquals(500, a.get("acceptable_recovery_lag").asLong());
        assertEquals(1, a.get("num_standby_replicas").asInt());
        assertEquals(60000, a.get("probing_rebalance_interval_ms").asLong());
        assertEquals("min_traffic", a.get("rack_aware").get("strategy").asText());
        assertEquals(7, a.get("rack_aware").get("traffic_cost").asInt());
        assertFalse(a.get("rack_aware").has("non_overlap_cost"));
        assertEquals("zone", a.get("rack_aware").get("tags").get(0).asText());
        assertEquals(List.of("assignment.num_standby_replicas: 2 -> 1"), written.replacedSettings());
        // The same settings give the same file: written once.
        assertEquals(written.path(), HostConfig.write(settings.config(), BridgeSettings.assignmentSettings(streams), dir)
            .path());
    }

    @Test
    void unreadableConfigFiles() {
        final AssignmentConfigs streams = new AssignmentConfigs(500L, 2, 1, 60000L, List.of());
        final BridgeException missing = assertThrows(BridgeException.class, () -> HostConfig.write(
            BridgeSettings.from(Map.of(BridgeSettings.CONFIG, dir.resolve("nope.yaml").toString())).config(),
            BridgeSettings.assignmentSettings(streams), dir));
        assertTrue(missing.getMessage().contains("assignor.config: cannot read"), missing.getMessage());
        final Path list = TestSupport.write(dir.resolve("list.yaml"), "- a\n- b\n");
        final BridgeException notMapping = assertThrows(BridgeException.class, () -> HostConfig.write(
            BridgeSettings.from(Map.of(BridgeSettings.CONFIG, list.toString())).config(),
            BridgeSettings.assignmentSettings(streams), dir));
        assertTrue(notMapping.getMessage().contains("is not a YAML mapping"), notMapping.getMessage());
    }
}
