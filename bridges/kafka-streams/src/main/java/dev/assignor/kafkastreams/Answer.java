package dev.assignor.kafkastreams;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * The host's answer (DESIGN 4.4) turned into Kafka's {@link TaskAssignment}: {@code active} tasks are
 * ACTIVE, {@code standby} and {@code warmup} tasks are STANDBY (Kafka has no third kind: a warmup is
 * a standby copy that the next probing rebalance may promote), and when the answer asks for a probing
 * rebalance the first process (in Kafka's order) gets a follow-up rebalance deadline {@code after_ms}
 * from now. Anything that does not fit the group (an unknown client or task, a task without an
 * active or with two, two roles of one task on one process, a process missing, a standby of a task
 * without stores) is refused with a message naming it. These checks include all of Kafka's own
 * ({@code TaskAssignmentUtils.validateTaskAssignment}, which Kafka Streams runs on what the assignor
 * returns and which kills the leader's thread when it fails), so a refused answer falls back instead.
 */
final class Answer {
    private static final JsonFactory JSON = new JsonFactory();

    private final TaskAssignment assignment;
    private final String strategy;
    private final double assignMs;
    private final boolean probing;
    private final long probingAfterMs;
    private final int actives;
    private final int standbys;
    private final int warmups;

    private Answer(final TaskAssignment assignment, final String strategy, final double assignMs, final boolean probing,
                   final long probingAfterMs, final int actives, final int standbys, final int warmups) {
        this.assignment = assignment;
        this.strategy = strategy;
        this.assignMs = assignMs;
        this.probing = probing;
        this.probingAfterMs = probingAfterMs;
        this.actives = actives;
        this.standbys = standbys;
        this.warmups = warmups;
    }

    TaskAssignment assignment() {
        return assignment;
    }

    /** The strategy the host says it ran (its configured fallback, when the host used that). */
    String strategy() {
        return strategy;
    }

    /** The strategy's own time, as the host measured it. */
    double assignMs() {
        return assignMs;
    }

    boolean probing() {
        return probing;
    }

    long probingAfterMs() {
        return probingAfterMs;
    }

    int actives() {
        return actives;
    }

    int standbys() {
        return standbys;
    }

    int warmups() {
        return warmups;
    }

    /** Per process: the tasks it was given, as read. */
    private static final class Roles {
        final List<AssignedTask> tasks = new ArrayList<>();
    }

    static Answer read(final byte[] json, final ClusterFile file, final ApplicationState state, final Instant now)
        throws BridgeException {
        final Map<ProcessId, Roles> roles = new HashMap<>();
        // Per task (dense index): the process holding its active, and the last process it was read
        // for (to find a task given twice to one process). Kafka's TaskId hashes poorly: no maps by it.
        final ProcessId[] activeOwner = new ProcessId[file.taskCount()];
        final int[] lastHolder = new int[file.taskCount()];
        Arrays.fill(lastHolder, -1);
        String strategy = null;
        double assignMs = Double.NaN;
        boolean probing = false;
        long probingAfterMs = -1;
        final int[] counts = new int[3];
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken(), JsonToken.START_OBJECT, "the answer");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                final JsonToken value = p.nextToken();
                switch (field) {
                    case "strategy":
                        expect(value, JsonToken.VALUE_STRING, "strategy");
                        strategy = p.getText();
                        break;
                    case "assign_ms":
                        if (value.isNumeric()) {
                            assignMs = p.getDoubleValue();
                        }
                        break;
                    case "assignment":
                        expect(value, JsonToken.START_OBJECT, "assignment");
                        readAssignment(p, file, roles, activeOwner, lastHolder, counts);
                        break;
                    case "probing_rebalance":
                        expect(value, JsonToken.START_OBJECT, "probing_rebalance");
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            final String key = p.currentName();
                            final JsonToken v = p.nextToken();
                            if ("needed".equals(key)) {
                                probing = v == JsonToken.VALUE_TRUE;
                            } else if ("after_ms".equals(key) && v.isNumeric()) {
                                probingAfterMs = p.getLongValue();
                            } else {
                                p.skipChildren();
                            }
                        }
                        break;
                    default:
                        p.skipChildren();  // metrics, and whatever later versions add
                }
            }
        } catch (final IOException e) {
            throw new BridgeException("the strategy's answer is not valid JSON: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
        if (strategy == null) {
            throw new BridgeException("the strategy's answer has no 'strategy' field");
        }
        for (final ProcessId process : file.processOrder()) {
            if (!roles.containsKey(process)) {
                throw new BridgeException("the answer leaves out process " + process);
            }
        }
        for (int t = 0; t < activeOwner.length; ++t) {
            if (activeOwner[t] == null) {
                throw new BridgeException("the answer gives task " + file.task(t) + " no active");
            }
        }
        if (probing && probingAfterMs < 0) {
            throw new BridgeException("the answer asks for a probing rebalance without after_ms");
        }

        final List<KafkaStreamsAssignment> assignments = new ArrayList<>(file.processOrder().size());
        for (final ProcessId process : file.processOrder()) {
            KafkaStreamsAssignment a = KafkaStreamsAssignment.of(process, new HashSet<>(roles.get(process).tasks));
            if (probing && assignments.isEmpty()) {
                a = a.withFollowupRebalance(now.plusMillis(probingAfterMs));
            }
            assignments.add(a);
        }
        return new Answer(new TaskAssignment(assignments), strategy, assignMs, probing, probingAfterMs, counts[0], counts[1], counts[2]);
    }

    private static void readAssignment(final JsonParser p, final ClusterFile file, final Map<ProcessId, Roles> roles,
                                       final ProcessId[] activeOwner, final int[] lastHolder, final int[] counts)
        throws IOException, BridgeException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String client = p.currentName();
            final ProcessId process = file.processes().get(client);
            if (process == null) {
                throw new BridgeException("the answer names client '" + client + "', which is not in the group");
            }
            if (roles.containsKey(process)) {
                throw new BridgeException("the answer names client '" + client + "' twice");
            }
            final Roles r = new Roles();
            roles.put(process, r);
            expect(p.nextToken(), JsonToken.START_OBJECT, "assignment." + client);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String role = p.currentName();
                final JsonToken value = p.nextToken();
                final int kind;
                switch (role) {
                    case "active":
                        kind = 0;
                        break;
                    case "standby":
                        kind = 1;
                        break;
                    case "warmup":
                        kind = 2;
                        break;
                    default:
                        p.skipChildren();  // the per-thread split: Kafka Streams splits over its threads itself
                        continue;
                }
                expect(value, JsonToken.START_ARRAY, "assignment." + client + "." + role);
                JsonToken token;
                while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
                    expect(token, JsonToken.VALUE_STRING, "assignment." + client + "." + role + "[]");
                    final String name = p.getText();
                    final Integer t = file.taskIndex(name);
                    if (t == null) {
                        throw new BridgeException("the answer gives client '" + client + "' the unknown task '" + name
                            + "'");
                    }
                    if (lastHolder[t] == roles.size()) {
                        throw new BridgeException("the answer gives client '" + client + "' task " + name + " twice");
                    }
                    lastHolder[t] = roles.size();
                    if (kind == 0) {
                        if (activeOwner[t] != null) {
                            throw new BridgeException("the answer makes task " + name + " active on two processes ("
                                + activeOwner[t] + " and " + process + ")");
                        }
                        activeOwner[t] = process;
                    } else if (!file.hasStores(t)) {
                        throw new BridgeException("the answer gives client '" + client + "' a " + role + " copy of "
                            + name + ", which has no state stores (Kafka: INVALID_STANDBY_TASK)");
                    }
                    r.tasks.add(new AssignedTask(file.task(t),
                        kind == 0 ? AssignedTask.Type.ACTIVE : AssignedTask.Type.STANDBY));
                    ++counts[kind];
                }
            }
        }
    }

    private static void expect(final JsonToken got, final JsonToken wanted, final String where) throws BridgeException {
        if (got != wanted) {
            throw new BridgeException("the strategy's answer is malformed at " + where + ": expected " + wanted
                + ", got " + got);
        }
    }
}
