package dev.assignor.kafkastreams;

import dev.assignor.bridge.BridgeException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The application state -> cluster file mapping (docs/bridge.md): what each field becomes. */
class ClusterFileTest {
    private static final AssignmentConfigs DEFAULTS = new AssignmentConfigs(10000L, 2, 1, 600000L, List.of());

    /**
     * For every process and every task with a changelog, the lag the host computes from the file
     * (DESIGN 2: running, not reported, reported) equals Kafka's lagFor, on random groups with
     * running tasks, stale copies, state on disk for tasks never listed, and sums above the end.
     */
    @Test
    void everyLagIsKeptExactly() {
        final Random rng = new Random(7);
        for (int round = 0; round < 200; ++round) {
            final FakeApplicationState state = FakeApplicationState.of(randomCluster(rng), DEFAULTS);
            final JsonNode file = TestSupport.parse(write(state).json());
            assertTrue(file.get("end_offsets_known").asBoolean());
            final Map<String, Long> ends = new HashMap<>();
            for (final JsonNode t : file.get("tasks")) {
                long end = 0;
                boolean logged = false;
                for (final JsonNode s : t.path("stores")) {
                    if (s.path("logged").asBoolean(true)) {
                        logged = true;
                        end += s.get("changelog_end_offset").asLong();
                    }
                }
                if (logged) {
                    ends.put(t.get("id").asText(), end);
                }
            }
            for (final JsonNode c : file.get("clients")) {
                final KafkaStreamsState process = state.kafkaStreamsStates(true).get(processOf(state, c));
                for (final Map.Entry<String, Long> task : ends.entrySet()) {
                    final JsonNode reported = c.get("offset_sums").get(task.getKey());
                    final long fromFile = reported == null ? task.getValue()
                        : reported.asLong() < 0 ? reported.asLong() : task.getValue() - reported.asLong();
                    assertEquals(process.lagFor(TaskId.parse(task.getKey())), fromFile,
                        "round " + round + ", client " + c.get("id") + ", task " + task.getKey());
                }
            }
        }
    }

    /** Lags are read for the previous tasks of each process and one more process per task: never tasks x processes. */
    @Test
    void readsLagsInLinearTime() {
        final ObjectNode cluster = cluster(200, 50, 0);
        final FakeApplicationState state = FakeApplicationState.of(cluster, DEFAULTS);
        write(state);
        long previous = 0;
        for (final KafkaStreamsState p : state.kafkaStreamsStates(true).values()) {
            previous += p.previousActiveTasks().size() + p.previousStandbyTasks().size();
        }
        assertTrue(state.lagLookups.get() <= previous + 200,
            state.lagLookups.get() + " lag lookups for 200 tasks, 50 processes, " + previous + " previous tasks");
    }

    @Test
    void processesKeepTheirIdsThreadsRacksAndTags() {
        final ObjectNode cluster = cluster(4, 2, 0);
        ((ObjectNode) cluster.get("clients").get(0)).put("rack", "az1").putObject("tags").put("zone", "z1");
        ((ObjectNode) cluster.get("clients").get(1)).put("threads", 3);
        final FakeApplicationState state = FakeApplicationState.of(cluster, DEFAULTS);
        final JsonNode file = TestSupport.parse(write(state).json());
        final JsonNode first = file.get("clients").get(0);
        assertEquals(new ProcessId(new java.util.UUID(0, 0)).id().toString(), first.get("id").asText());
        assertEquals("az1", first.get("rack").asText());
        assertEquals("z1", first.get("tags").get("zone").asText());
        assertEquals(3, file.get("clients").get(1).get("threads").asInt());
        // A process has a rack, so every partition is written with its replicas' racks.
        assertTrue(file.get("tasks").get(0).has("partitions"));
    }

    /** Rack ids of partitions cost Kafka a metadata lookup: read only when some process has a rack. */
    @Test
    void partitionRacksAreNotReadWithoutProcessRacks() {
        final FakeApplicationState state = FakeApplicationState.of(cluster(8, 3, 0), DEFAULTS);
        final JsonNode file = TestSupport.parse(write(state).json());
        assertEquals(0, state.rackLookups.get());
        assertFalse(file.get("tasks").get(0).has("partitions"));
    }

    @Test
    void storesAreLoggedByTheirChangelogTopic() {
        final ObjectNode cluster = cluster(2, 2, 0);
        final ArrayNode stores = ((ObjectNode) cluster.get("tasks").get(0)).putArray("stores");
        stores.addObject().put("name", "counts").put("changelog_end_offset", 500);
        stores.addObject().put("name", "cache").put("logged", false);
        final ArrayNode nonLogged = ((ObjectNode) cluster.get("tasks").get(1)).putArray("stores");
        nonLogged.addObject().put("name", "scratch").put("logged", false);
        final JsonNode file = TestSupport.parse(write(FakeApplicationState.of(cluster, DEFAULTS)).json());
        final JsonNode t0 = file.get("tasks").get(0).get("stores");
        assertEquals("cache", t0.get(0).get("name").asText());
        assertFalse(t0.get(0).get("logged").asBoolean(true));
        assertEquals("counts", t0.get(1).get("name").asText());
        assertEquals(500, t0.get(1).get("changelog_end_offset").asLong());
        final JsonNode t1 = file.get("tasks").get(1).get("stores");
        assertEquals(1, t1.size());
        assertFalse(t1.get(0).get("logged").asBoolean(true));
    }

    /** Kafka could not fetch the end offsets: every lag but "running" is -3, and the file says so. */
    @Test
    void unknownEndOffsets() {
        final ObjectNode cluster = cluster(6, 3, 0);
        cluster.put("end_offsets_known", false);
        final ClusterFile file = write(FakeApplicationState.of(cluster, DEFAULTS));
        assertFalse(file.endOffsetsKnown());
        final JsonNode json = TestSupport.parse(file.json());
        assertFalse(json.get("end_offsets_known").asBoolean());
        for (final JsonNode c : json.get("clients")) {
            c.get("offset_sums").forEach(v -> assertEquals(-2, v.asLong()));
        }
    }

    /** One pre-2.6 member's unknown offsets (-3) stay its own; the group's end offsets are known. */
    @Test
    void oneMembersUnknownOffsetsStayItsOwn() {
        final ObjectNode cluster = cluster(6, 3, 0);
        ((ObjectNode) cluster.get("clients").get(1).get("offset_sums")).put("0_0", -3);
        final ClusterFile file = write(FakeApplicationState.of(cluster, DEFAULTS));
        assertTrue(file.endOffsetsKnown());
        assertEquals(-3, TestSupport.parse(file.json()).get("clients").get(1).get("offset_sums").get("0_0").asLong());
    }

    @Test
    void namedTopologiesAreRefused() {
        final FakeApplicationState plain = FakeApplicationState.of(cluster(2, 1, 0), DEFAULTS);
        final TaskId named = new TaskId(0, 0, "orders");
        final var tasks = new HashMap<>(plain.allTasks());
        tasks.put(named, tasks.get(new TaskId(0, 0)));
        final var withNamed = withTasks(plain, tasks);
        final BridgeException e = assertThrows(BridgeException.class, () -> ClusterFile.of(withNamed, "app"));
        assertTrue(e.getMessage().contains("named topology 'orders'"), e.getMessage());
    }

    /** A task a process reports but Kafka's topology no longer has is not written (the host would refuse it). */
    @Test
    void previousTasksOfAnOlderTopologyAreLeftOut() {
        final ObjectNode cluster = cluster(2, 2, 0);
        final FakeApplicationState state = FakeApplicationState.of(cluster, DEFAULTS);
        final var tasks = new HashMap<>(state.allTasks());
        tasks.remove(new TaskId(0, 1));
        final var smaller = withTasks(state, tasks);
        final String json = new String(write(smaller).json(), java.nio.charset.StandardCharsets.UTF_8);
        assertFalse(json.contains("\"0_1\""), json);
    }

    /** {@code base}'s processes with other tasks (the default configs). */
    private static org.apache.kafka.streams.processor.assignment.ApplicationState withTasks(
        final FakeApplicationState base, final Map<TaskId, org.apache.kafka.streams.processor.assignment.TaskInfo> tasks) {
        return new org.apache.kafka.streams.processor.assignment.ApplicationState() {
            @Override
            public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(final boolean computeTaskLags) {
                return base.kafkaStreamsStates(computeTaskLags);
            }

            @Override
            public AssignmentConfigs assignmentConfigs() {
                return DEFAULTS;
            }

            @Override
            public Map<TaskId, org.apache.kafka.streams.processor.assignment.TaskInfo> allTasks() {
                return tasks;
            }
        };
    }

    private static ClusterFile write(final org.apache.kafka.streams.processor.assignment.ApplicationState state) {
        try {
            return ClusterFile.of(state, FakeApplicationState.APPLICATION_ID);
        } catch (final BridgeException e) {
            throw new AssertionError(e);
        }
    }

    private static ProcessId processOf(final FakeApplicationState state, final JsonNode client) {
        for (final ProcessId id : state.kafkaStreamsStates(true).keySet()) {
            if (id.id().toString().equals(client.get("id").asText())) {
                return id;
            }
        }
        throw new AssertionError("no process " + client.get("id"));
    }

    /** {@code tasks} tasks 0_p with one logged store, {@code clients} clients, previous actives dealt round-robin. */
    static ObjectNode cluster(final int tasks, final int clients, final int standbys) {
        final ObjectNode cluster = TestSupport.JSON.createObjectNode();
        final ArrayNode ts = cluster.putArray("tasks");
        for (int p = 0; p < tasks; ++p) {
            ts.addObject().put("id", "0_" + p).putArray("stores").addObject().put("name", "s")
                .put("changelog_end_offset", 1000 + p);
        }
        final ArrayNode cs = cluster.putArray("clients");
        for (int c = 0; c < clients; ++c) {
            final ObjectNode client = cs.addObject().put("id", String.format("c%03d", c)).put("threads", 1);
            final ArrayNode active = client.putArray("previous_active");
            final ArrayNode standby = client.putArray("previous_standby");
            final ObjectNode sums = client.putObject("offset_sums");
            for (int p = 0; p < tasks; ++p) {
                if (p % clients == c) {
                    active.add("0_" + p);
                    sums.put("0_" + p, -2);
                } else if (standbys > 0 && (p + 1) % clients == c) {
                    standby.add("0_" + p);
                    sums.put("0_" + p, 900);
                }
            }
        }
        return cluster;
    }

    /** A random group: several sub-topologies (logged, mixed, non-logged, stateless), odd reports. */
    static ObjectNode randomCluster(final Random rng) {
        final ObjectNode cluster = TestSupport.JSON.createObjectNode();
        final ArrayNode ts = cluster.putArray("tasks");
        final List<String> logged = new ArrayList<>();
        final int subtopologies = 1 + rng.nextInt(4);
        for (int s = 0; s < subtopologies; ++s) {
            final int kind = rng.nextInt(4);  // 0 logged, 1 logged + not logged, 2 not logged, 3 stateless
            final int partitions = 1 + rng.nextInt(8);
            for (int p = 0; p < partitions; ++p) {
                final ObjectNode t = ts.addObject().put("id", s + "_" + p);
                if (kind == 3) {
                    continue;
                }
                final ArrayNode stores = t.putArray("stores");
                if (kind <= 1) {
                    stores.addObject().put("name", "a" + s).put("changelog_end_offset", rng.nextInt(3) == 0 ? 0
                        : rng.nextInt(1_000_000));
                    logged.add(s + "_" + p);
                }
                if (kind >= 1) {
                    stores.addObject().put("name", "b" + s).put("logged", false);
                }
            }
        }
        final ArrayNode cs = cluster.putArray("clients");
        final int clients = 1 + rng.nextInt(6);
        for (int c = 0; c < clients; ++c) {
            cs.addObject().put("id", "client-" + c).put("threads", 1 + rng.nextInt(3));
            ((ObjectNode) cs.get(c)).putArray("previous_active");
            ((ObjectNode) cs.get(c)).putArray("previous_standby");
            ((ObjectNode) cs.get(c)).putObject("offset_sums");
        }
        for (final JsonNode t : ts) {
            final String id = t.get("id").asText();
            final int owner = rng.nextInt(clients + 1);  // clients: nobody ran it
            final boolean isLogged = logged.contains(id);
            for (int c = 0; c < clients; ++c) {
                final ObjectNode client = (ObjectNode) cs.get(c);
                if (c == owner) {
                    ((ArrayNode) client.get("previous_active")).add(id);
                    if (isLogged) {
                        ((ObjectNode) client.get("offset_sums")).put(id, rng.nextInt(4) == 0 ? rng.nextInt(2000) : -2);
                    }
                } else if (isLogged && rng.nextInt(3) == 0) {
                    final long[] reports = {0, rng.nextInt(1_000_000), 2_000_000, -3};
                    final long report = reports[rng.nextInt(rng.nextInt(10) == 0 ? 4 : 3)];
                    ((ObjectNode) client.get("offset_sums")).put(id, report);
                    if (rng.nextBoolean()) {  // else: state on disk for a task it does not list
                        ((ArrayNode) client.get("previous_standby")).add(id);
                    }
                }
            }
        }
        return cluster;
    }
}
