package dev.assignor.kafkastreams;

import dev.assignor.bridge.BridgeException;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The host's answer -> Kafka's TaskAssignment, and every answer that must be refused. */
class AnswerTest {
    private static final String C0 = new UUID(0, 0).toString();
    private static final String C1 = new UUID(0, 1).toString();
    private static final Instant NOW = Instant.ofEpochMilli(1_000_000);

    /** Two clients, tasks 0_0..0_2 with a logged store, 1_0 stateless. */
    private final FakeApplicationState state;
    private final ClusterFile file;

    AnswerTest() throws BridgeException {
        final var cluster = ClusterFileTest.cluster(3, 2, 1);
        ((com.fasterxml.jackson.databind.node.ArrayNode) cluster.get("tasks")).addObject().put("id", "1_0");
        state = FakeApplicationState.of(cluster, new AssignmentConfigs(10000L, 2, 1, 600000L, List.of()));
        file = ClusterFile.of(state, FakeApplicationState.APPLICATION_ID);
    }

    private Answer read(final String json) throws BridgeException {
        return Answer.read(json.getBytes(StandardCharsets.UTF_8), file, state, NOW);
    }

    private static String answer(final String c0, final String c1, final String probing) {
        return "{\"strategy\": \"least_movement\", \"assignment\": {\"" + C0 + "\": " + c0 + ", \"" + C1 + "\": " + c1
            + "}, \"probing_rebalance\": " + probing + ", \"metrics\": {\"active_moves\": 1}, \"assign_ms\": 0.25}";
    }

    @Test
    void activesStandbysAndWarmupsBecomeKafkasTwoKinds() throws BridgeException {
        final Answer a = read(answer(
            "{\"active\": [\"0_0\", \"0_2\"], \"standby\": [\"0_1\"], \"warmup\": [], \"threads\": {\"t0\": {}}}",
            "{\"active\": [\"0_1\", \"1_0\"], \"standby\": [\"0_0\"], \"warmup\": [\"0_2\"]}",
            "{\"needed\": true, \"after_ms\": 60000}"));
        assertEquals("least_movement", a.parsed().strategy());
        assertEquals(0.25, a.parsed().assignMs());
        assertEquals(4, a.parsed().actives());
        assertEquals(2, a.parsed().standbys());
        assertEquals(1, a.parsed().warmups());
        assertTrue(a.parsed().probing());
        final var byProcess = new java.util.HashMap<ProcessId, KafkaStreamsAssignment>();
        a.assignment().assignment().forEach(k -> byProcess.put(k.processId(), k));
        final KafkaStreamsAssignment first = byProcess.get(new ProcessId(new UUID(0, 0)));
        final KafkaStreamsAssignment second = byProcess.get(new ProcessId(new UUID(0, 1)));
        assertEquals(AssignedTask.Type.ACTIVE, first.tasks().get(new TaskId(0, 0)).type());
        assertEquals(AssignedTask.Type.STANDBY, first.tasks().get(new TaskId(0, 1)).type());
        assertEquals(AssignedTask.Type.STANDBY, second.tasks().get(new TaskId(0, 2)).type());  // the warmup
        assertEquals(AssignedTask.Type.ACTIVE, second.tasks().get(new TaskId(1, 0)).type());
        // The probing rebalance: one deadline, on the first process, after_ms from now.
        assertEquals(NOW.plusMillis(60000), first.followupRebalanceDeadline().orElseThrow());
        assertFalse(second.followupRebalanceDeadline().isPresent());
    }

    @Test
    void noProbingNoDeadline() throws BridgeException {
        final Answer a = read(answer("{\"active\": [\"0_0\", \"0_1\", \"0_2\"]}", "{\"active\": [\"1_0\"]}",
            "{\"needed\": false, \"after_ms\": 0}"));
        assertFalse(a.parsed().probing());
        a.assignment().assignment().forEach(k -> assertFalse(k.followupRebalanceDeadline().isPresent()));
    }

    @Test
    void answersThatDoNotFitTheGroupAreRefused() {
        final String ok0 = "{\"active\": [\"0_0\", \"0_1\"], \"standby\": [\"0_2\"]}";
        final String ok1 = "{\"active\": [\"0_2\", \"1_0\"], \"standby\": [\"0_0\"]}";
        final String noProbing = "{\"needed\": false}";
        refused("not valid JSON", "{\"strategy\": ");
        refused("malformed at the answer", "[1, 2]");
        refused("no 'strategy' field", "{\"assignment\": {}}");
        refused("not in the group", answer(ok0, ok1, noProbing).replace(C1, "somebody-else"));
        refused("unknown task '9_9'", answer(ok0, "{\"active\": [\"0_2\", \"1_0\", \"9_9\"]}", noProbing));
        refused("leaves out client", "{\"strategy\": \"x\", \"assignment\": {\"" + C0
            + "\": {\"active\": [\"0_0\", \"0_1\", \"0_2\", \"1_0\"]}}}");
        refused("gives task 1_0 no active", answer(ok0, "{\"active\": [\"0_2\"]}", noProbing));
        refused("active on two clients", answer(ok0, "{\"active\": [\"0_1\", \"0_2\", \"1_0\"]}", noProbing));
        refused("task 0_0 twice", answer("{\"active\": [\"0_0\", \"0_1\"], \"standby\": [\"0_0\"]}", ok1, noProbing));
        refused("which has no state stores", answer("{\"active\": [\"0_0\", \"0_1\"], \"standby\": [\"1_0\"]}", ok1,
            noProbing));
        refused("without after_ms", answer(ok0, ok1, "{\"needed\": true}"));
        refused("expected START_ARRAY", answer("{\"active\": \"0_0\"}", ok1, noProbing));
    }

    private void refused(final String why, final String json) {
        final BridgeException e = assertThrows(BridgeException.class, () -> read(json), json);
        assertTrue(e.getMessage().contains(why), "expected '" + why + "' in: " + e.getMessage());
    }
}
