package dev.assignor.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decision record: import's layout, names that go on across restarts, the bound, the bridge's fields. */
class DecisionRecordTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static DecisionRecord.Decision decision(final int k, final FallbackReason reason) {
        return new DecisionRecord.Decision(Instant.ofEpochMilli(1_800_000_000_000L + k), "test", "bridge-test",
            ("{\"cluster\": " + k + "}").getBytes(StandardCharsets.UTF_8), "strategy: x\n".getBytes(StandardCharsets.UTF_8),
            ("{\"decision\": " + k + "}").getBytes(StandardCharsets.UTF_8), 3, 10, 6, k % 2 == 0, 6, 1, 1, "tests",
            "by the strategy", reason == null ? "least_movement" : "Kafka's StickyTaskAssignor", reason,
            reason == null ? null : "why " + k, 12.5, reason == null ? 0.25 : Double.NaN);
    }

    @Test
    void keepsTheLastDecisionsInImportsLayout() throws Exception {
        final DecisionRecord record = new DecisionRecord(dir, 3);
        final List<String> names = new ArrayList<>();
        for (int k = 1; k <= 5; ++k) {
            names.add(record.keep(decision(k, k == 4 ? FallbackReason.TIMEOUT : null)));
        }
        assertEquals(List.of("rebalance-000001", "rebalance-000002", "rebalance-000003", "rebalance-000004",
            "rebalance-000005"), names);
        final JsonNode index = JSON.readTree(dir.resolve("index.json").toFile());
        assertEquals(1, index.get("version").asInt());
        final List<String> kept = new ArrayList<>();
        index.get("rebalances").forEach(e -> kept.add(e.get("name").asText()));
        assertEquals(List.of("rebalance-000003", "rebalance-000004", "rebalance-000005"), kept);
        try (Stream<Path> files = Files.list(dir)) {
            final List<String> left = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("rebalance-"))
                .sorted().toList();
            assertEquals(List.of("rebalance-000003.cluster.json", "rebalance-000003.config.yaml",
                "rebalance-000003.kafka.json", "rebalance-000004.cluster.json", "rebalance-000004.config.yaml",
                "rebalance-000004.kafka.json", "rebalance-000005.cluster.json", "rebalance-000005.config.yaml",
                "rebalance-000005.kafka.json"), left, "the oldest decisions' files are gone, nothing half-written");
        }
        assertEquals("{\"cluster\": 5}", Files.readString(dir.resolve("rebalance-000005.cluster.json")));
        assertEquals("{\"decision\": 5}", Files.readString(dir.resolve("rebalance-000005.kafka.json")));
        final JsonNode fallback = index.get("rebalances").get(1);
        assertEquals("timeout", fallback.get("fallback_reason").asText());
        assertEquals("why 4", fallback.get("fallback_message").asText());
        assertTrue(fallback.get("strategy_ms").isNull());
        final JsonNode decided = index.get("rebalances").get(2);
        assertTrue(decided.get("fallback_reason").isNull());
        assertEquals("least_movement", decided.get("decided_by").asText());
        assertEquals(1_800_000_000_005L, decided.get("time_ms").asLong());
        assertEquals(0.25, decided.get("strategy_ms").asDouble());
        // The import's fields replay reads.
        for (final String field : List.of("timestamp", "source", "instance", "kafka_variant", "clients", "tasks",
            "logged_tasks", "probing", "standbys", "warmups", "settings_from", "num_standby_replicas", "notes")) {
            assertTrue(decided.has(field), field);
        }
    }

    /** A restarted JVM (a new record on the same directory) goes on numbering after the last one kept. */
    @Test
    void namesGoOnAcrossRestarts() throws Exception {
        new DecisionRecord(dir, 10).keep(decision(1, null));
        new DecisionRecord(dir, 10).keep(decision(2, null));
        assertEquals("rebalance-000003", new DecisionRecord(dir, 10).keep(decision(3, null)));
        assertEquals(3, JSON.readTree(dir.resolve("index.json").toFile()).get("rebalances").size());
        assertFalse(Files.exists(dir.resolve("rebalance-000004.cluster.json")));
    }
}
