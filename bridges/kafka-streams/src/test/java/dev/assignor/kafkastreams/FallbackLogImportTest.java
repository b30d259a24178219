package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the bridge falls back, Kafka's HighAvailabilityTaskAssignor logs its {@code Decided on
 * assignment} line from client states the bridge built from lags: no {@code changelogOffsetTotalsByTask}
 * at all. {@code assignor import kafka-log} must read such lines exactly: the lags of the imported
 * cluster files (the host's rule, DESIGN 2) are Kafka's {@code lagFor}, for every process and task with a
 * changelog, on random groups; a line that leaves a lag out is skipped with a warning naming
 * file:line, and the others still come in.
 */
class FallbackLogImportTest {
    @TempDir
    Path dir;

    @Test
    void theBridgesFallbackLinesImportWithKafkasLags() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Random rng = new Random(20261203L);
        final List<String> lines = new ArrayList<>();
        final List<FakeApplicationState> states = new ArrayList<>();
        final AssignorTaskAssignor bridge = new AssignorTaskAssignor();
        bridge.configure(Map.of(BridgeSettings.COMMAND, dir.resolve("no-such-assignor").toString(),
            BridgeSettings.STRATEGY, "least_movement", "application.id", FakeApplicationState.APPLICATION_ID));
        while (states.size() < 20) {
            final ObjectNode cluster = ClusterFileTest.randomCluster(rng);
            final FakeApplicationState state = FakeApplicationState.of(cluster,
                new AssignmentConfigs(100L, 2, 1, 60000L, List.of()));
            try (LogCapture kafka = new LogCapture(HighAvailabilityTaskAssignor.class)) {
                bridge.assign(state);
                final List<String> decided = kafka.at(Level.INFO).stream()
                    .filter(l -> l.contains("Decided on assignment")).toList();
                if (decided.isEmpty()) {
                    continue;  // Kafka's FallbackPriorTaskAssignor (no end offsets) logs no decision
                }
                assertEquals(1, decided.size());
                assertTrue(decided.get(0).contains("changelogOffsetTotalsByTask: ([])"), decided.get(0));
                lines.add(String.format("[2026-12-03 10:00:%02d,000] %s (%s)", states.size(), decided.get(0),
                    HighAvailabilityTaskAssignor.class.getName()));
                states.add(state);
            }
        }
        // A copy of the last line with one lag left out of its last client: it cannot be read exactly.
        final String last = lines.get(lines.size() - 1);
        final int lagsAt = last.lastIndexOf("taskLagTotals: ([") + "taskLagTotals: ([".length();
        final int firstEnd = last.indexOf(", ", lagsAt);
        lines.add("[2026-12-03 10:01:00,000] " + last.substring(last.indexOf("] ") + 2, lagsAt)
            + last.substring(firstEnd + 2));
        final Path log = Files.write(dir.resolve("app.log"), lines);

        final Path imported = dir.resolve("import");
        TestSupport.run(List.of(assignor.toString(), "import", "kafka-log", log.toString(), "--output-dir",
            imported.toString()));
        final JsonNode index = TestSupport.read(imported.resolve("index.json"));
        assertEquals(states.size(), index.get("rebalances").size());
        final List<String> warnings = new ArrayList<>();
        index.get("warnings").forEach(w -> warnings.add(w.asText()));
        assertTrue(warnings.stream().anyMatch(w -> w.startsWith(log + ":" + lines.size() + ": ")
            && w.contains("printed lags for") && w.contains("not imported")), warnings.toString());
        for (int k = 0; k < states.size(); ++k) {
            final JsonNode entry = index.get("rebalances").get(k);
            final JsonNode cluster = TestSupport.read(imported.resolve(entry.get("name").asText() + ".cluster.json"));
            assertEquals(List.of(), lagDifferences(cluster, states.get(k)), "rebalance " + k + " of " + log);
        }
    }

    /** Where the imported file's lags (the host's rule) differ from Kafka's lagFor. */
    private static List<String> lagDifferences(final JsonNode cluster, final FakeApplicationState state) {
        final Map<String, Long> ends = new HashMap<>();
        for (final JsonNode t : cluster.get("tasks")) {
            long end = -1;
            for (final JsonNode s : t.path("stores")) {
                if (s.path("logged").asBoolean(true)) {
                    end = Math.max(0, end) + s.get("changelog_end_offset").asLong();
                }
            }
            if (end >= 0) {
                ends.put(t.get("id").asText(), end);
            }
        }
        final List<String> out = new ArrayList<>();
        for (final JsonNode c : cluster.get("clients")) {
            final KafkaStreamsState process = state.kafkaStreamsStates(true).values().stream()
                .filter(p -> p.processId().id().toString().equals(c.get("id").asText())).findFirst().orElseThrow();
            for (final TaskInfo task : state.allTasks().values()) {
                if (!ClusterFile.hasChangelog(task)) {
                    continue;
                }
                final String name = TestSupport.name(task.id());
                final Long end = ends.get(name);
                if (end == null) {
                    out.add(name + " has no changelog in the import");
                    continue;
                }
                final JsonNode sum = c.path("offset_sums").get(name);
                final long o = sum == null ? 0 : sum.asLong();
                final long lag = o == -2 || o == -3 ? o : o > end ? end : end - o;
                final long kafka = process.lagFor(task.id());
                if (lag != kafka) {
                    out.add(c.get("id").asText() + " " + name + ": imported " + lag + ", Kafka " + kafka);
                }
            }
        }
        return out;
    }
}
