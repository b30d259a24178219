package dev.assignor.bridge;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the host's answer (DESIGN 4.4) against the group it was asked about, refusing anything that
 * does not fit: an unknown client or task, a client named twice or left out, a task given twice to one
 * client, with no active or with two, a standby or warmup of a task without state stores, and (when the
 * answer splits a client's tasks over its threads) a thread that is not the client's, or a task of the
 * client's lists on no thread or on two. Both bridges check this before Kafka sees the answer: Kafka
 * kills the leader's thread (KIP-924) or fails the group (KIP-1071) on an invalid assignment, while a
 * refused answer only means Kafka's own assignor for that rebalance.
 */
public final class AnswerReader {
    private static final JsonFactory JSON = new JsonFactory();

    /** Role indices in {@link Parsed#tasks}. */
    public static final int ACTIVE = 0;
    public static final int STANDBY = 1;
    public static final int WARMUP = 2;
    private static final String[] ROLE_NAMES = {"active", "standby", "warmup"};

    private AnswerReader() {
    }

    /** The group the answer is about: clients and tasks by their names in the cluster file. */
    public interface Shape {
        int clientCount();

        /** The client's index, or -1 when the file has no such client. */
        int clientIndex(String id);

        String clientId(int client);

        int taskCount();

        /** The task's index, or -1. */
        int taskIndex(String name);

        String taskName(int task);

        /** Whether the task may have standby and warmup copies (it has state stores). */
        boolean hasStores(int task);

        /**
         * Whether the per-thread split is read (and checked): the KIP-1071 bridge assigns per member;
         * Kafka Streams (KIP-924) splits a process's tasks over its threads itself.
         */
        default boolean readsThreads() {
            return false;
        }

        /** Whether {@code thread} names one of the client's threads (the KIP-1071 bridge: its member ids). */
        default boolean isThreadOf(final int client, final String thread) {
            return true;
        }
    }

    /** An answer that fits the group. Task lists are task indices, in the answer's order. */
    public record Parsed(String strategy, double assignMs, boolean probing, long probingAfterMs,
                         int[][][] tasks, List<Map<String, int[][]>> threads, long activeMoves,
                         long restoringActives, int actives, int standbys, int warmups) {
        /** Client {@code c}'s tasks in role {@code role} ({@link #ACTIVE}, {@link #STANDBY}, {@link #WARMUP}). */
        public int[] tasks(final int client, final int role) {
            return tasks[client][role];
        }

        /** Client {@code c}'s per-thread split (thread name -> roles), empty when the answer has none. */
        public Map<String, int[][]> threads(final int client) {
            return threads.get(client);
        }
    }

    public static Parsed read(final byte[] json, final Shape shape) throws BridgeException {
        final int clients = shape.clientCount();
        final int[][][] tasks = new int[clients][][];
        final List<Map<String, int[][]>> threads = new ArrayList<>(clients);
        for (int c = 0; c < clients; ++c) {
            threads.add(Map.of());
        }
        final int[] activeOwner = new int[shape.taskCount()];
        Arrays.fill(activeOwner, -1);
        final Scalars a = new Scalars();
        final int[] counts = new int[3];
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken(), JsonToken.START_OBJECT, "the answer");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                final JsonToken value = p.nextToken();
                switch (field) {
                    case "strategy":
                        expect(value, JsonToken.VALUE_STRING, "strategy");
                        a.strategy = p.getText();
                        break;
                    case "assign_ms":
                        if (value.isNumeric()) {
                            a.assignMs = p.getDoubleValue();
                        }
                        break;
                    case "assignment":
                        expect(value, JsonToken.START_OBJECT, "assignment");
                        readAssignment(p, shape, tasks, threads, activeOwner, counts);
                        break;
                    case "probing_rebalance":
                    case "metrics":
                        expect(value, JsonToken.START_OBJECT, field);
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            final String key = p.currentName();
                            if (!a.read(field + "." + key, p.nextToken(), p)) {
                                p.skipChildren();
                            }
                        }
                        break;
                    default:
                        p.skipChildren();  // whatever later versions add
                }
            }
        } catch (final IOException e) {
            throw invalid("the strategy's answer is not valid JSON: "
                + String.valueOf(e.getMessage()).lines().findFirst().orElse(""), e);
        }
        if (a.strategy == null) {
            throw invalid("the strategy's answer has no 'strategy' field", null);
        }
        for (int c = 0; c < clients; ++c) {
            if (tasks[c] == null) {
                throw invalid("the answer leaves out client " + shape.clientId(c), null);
            }
        }
        for (int t = 0; t < activeOwner.length; ++t) {
            if (activeOwner[t] < 0) {
                throw invalid("the answer gives task " + shape.taskName(t) + " no active", null);
            }
        }
        if (a.probing && a.probingAfterMs < 0) {
            throw invalid("the answer asks for a probing rebalance without after_ms", null);
        }
        return new Parsed(a.strategy, a.assignMs, a.probing, a.probingAfterMs, tasks, threads, a.moves, a.restoring,
            counts[ACTIVE], counts[STANDBY], counts[WARMUP]);
    }

    /** The answer's single values, as read so far (-1 and NaN: not given). */
    private static final class Scalars {
        String strategy;
        double assignMs = Double.NaN;
        boolean probing;
        long probingAfterMs = -1;
        long moves = -1;
        long restoring = -1;

        /** Takes {@code place} ("object.key") of probing_rebalance or metrics; false when it is not one read here. */
        boolean read(final String place, final JsonToken value, final JsonParser p) throws IOException {
            if (place.equals("probing_rebalance.needed")) {
                probing = value == JsonToken.VALUE_TRUE;
                return true;
            }
            if (!value.isNumeric()) {
                return false;
            }
            switch (place) {
                case "probing_rebalance.after_ms":
                    probingAfterMs = p.getLongValue();
                    return true;
                case "metrics.active_moves":
                    moves = p.getLongValue();
                    return true;
                case "metrics.restoring_actives":
                    restoring = p.getLongValue();
                    return true;
                default:
                    return false;
            }
        }
    }

    private static void readAssignment(final JsonParser p, final Shape shape, final int[][][] tasks,
                                       final List<Map<String, int[][]>> threads, final int[] activeOwner,
                                       final int[] counts) throws IOException, BridgeException {
        // Per task: the last client it was read for (a task given twice to one client).
        final int[] lastHolder = new int[shape.taskCount()];
        Arrays.fill(lastHolder, -1);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String client = p.currentName();
            final int c = shape.clientIndex(client);
            if (c < 0) {
                throw invalid("the answer names client '" + client + "', which is not in the group", null);
            }
            if (tasks[c] != null) {
                throw invalid("the answer names client '" + client + "' twice", null);
            }
            final int[][] roles = {new int[0], new int[0], new int[0]};
            tasks[c] = roles;
            Map<String, int[][]> split = null;
            expect(p.nextToken(), JsonToken.START_OBJECT, "assignment." + client);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                final JsonToken value = p.nextToken();
                final int kind = role(field);
                if (field.equals("threads") && shape.readsThreads()) {
                    expect(value, JsonToken.START_OBJECT, "assignment." + client + ".threads");
                    split = readThreads(p, shape, c, client);
                    continue;
                }
                if (kind < 0) {
                    p.skipChildren();
                    continue;
                }
                final String place = "assignment." + client + "." + field;
                final int[] list = readTasks(p, value, shape, place);
                for (final int t : list) {
                    if (lastHolder[t] == c) {
                        throw invalid("the answer gives client '" + client + "' task " + shape.taskName(t) + " twice",
                            null);
                    }
                    lastHolder[t] = c;
                    if (kind == ACTIVE) {
                        if (activeOwner[t] >= 0) {
                            throw invalid("the answer makes task " + shape.taskName(t) + " active on two clients ("
                                + shape.clientId(activeOwner[t]) + " and " + client + ")", null);
                        }
                        activeOwner[t] = c;
                    } else if (!shape.hasStores(t)) {
                        throw invalid("the answer gives client '" + client + "' a " + field + " copy of "
                            + shape.taskName(t) + ", which has no state stores", null);
                    }
                }
                roles[kind] = list;
                counts[kind] += list.length;
            }
            if (split != null && !split.isEmpty()) {
                checkSplit(shape, client, roles, split);
                threads.set(c, split);
            }
        }
    }

    private static Map<String, int[][]> readThreads(final JsonParser p, final Shape shape, final int c,
                                                    final String client) throws IOException, BridgeException {
        final Map<String, int[][]> split = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String thread = p.currentName();
            if (!shape.isThreadOf(c, thread)) {
                throw invalid("the answer names thread '" + thread + "' of client '" + client + "', which is not one of"
                    + " its members", null);
            }
            if (split.containsKey(thread)) {
                throw invalid("the answer names thread '" + thread + "' of client '" + client + "' twice", null);
            }
            final int[][] roles = {new int[0], new int[0], new int[0]};
            expect(p.nextToken(), JsonToken.START_OBJECT, "assignment." + client + ".threads." + thread);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String field = p.currentName();
                final JsonToken value = p.nextToken();
                final int kind = role(field);
                if (kind < 0) {
                    p.skipChildren();
                    continue;
                }
                roles[kind] = readTasks(p, value, shape, "assignment." + client + ".threads." + thread + "." + field);
            }
            split.put(thread, roles);
        }
        return split;
    }

    /** Every task of the client's lists on exactly one of its threads, in the same role. */
    private static void checkSplit(final Shape shape, final String client, final int[][] roles,
                                   final Map<String, int[][]> split) throws BridgeException {
        for (int kind = 0; kind < 3; ++kind) {
            final Map<Integer, String> onThread = new java.util.HashMap<>();
            for (final Map.Entry<String, int[][]> thread : split.entrySet()) {
                for (final int t : thread.getValue()[kind]) {
                    final String other = onThread.put(t, thread.getKey());
                    if (other != null) {
                        throw invalid("the answer puts " + ROLE_NAMES[kind] + " task " + shape.taskName(t) + " of client '"
                            + client + "' on two threads, '" + other + "' and '" + thread.getKey() + "'", null);
                    }
                }
            }
            for (final int t : roles[kind]) {
                if (onThread.remove(t) == null) {
                    throw invalid("the answer's thread split of client '" + client + "' has no thread for its "
                        + ROLE_NAMES[kind] + " task " + shape.taskName(t), null);
                }
            }
            if (!onThread.isEmpty()) {
                final int t = onThread.keySet().iterator().next();
                throw invalid("the answer puts " + ROLE_NAMES[kind] + " task " + shape.taskName(t) + " on thread '"
                    + onThread.get(t) + "' of client '" + client + "', whose " + ROLE_NAMES[kind] + " list lacks it",
                    null);
            }
        }
    }

    private static int[] readTasks(final JsonParser p, final JsonToken value, final Shape shape, final String place)
        throws IOException, BridgeException {
        expect(value, JsonToken.START_ARRAY, place);
        int[] out = new int[8];
        int n = 0;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            expect(token, JsonToken.VALUE_STRING, place + "[]");
            final String name = p.getText();
            final int t = shape.taskIndex(name);
            if (t < 0) {
                throw invalid("the answer's " + place + " names the unknown task '" + name + "'", null);
            }
            if (n == out.length) {
                out = Arrays.copyOf(out, n * 2);
            }
            out[n++] = t;
        }
        return Arrays.copyOf(out, n);
    }

    private static int role(final String field) {
        switch (field) {
            case "active":
                return ACTIVE;
            case "standby":
                return STANDBY;
            case "warmup":
                return WARMUP;
            default:
                return -1;
        }
    }

    private static void expect(final JsonToken got, final JsonToken wanted, final String where) throws BridgeException {
        if (got != wanted) {
            throw invalid("the strategy's answer is malformed at " + where + ": expected " + wanted + ", got " + got,
                null);
        }
    }

    private static BridgeException invalid(final String message, final Throwable cause) {
        return new BridgeException(FallbackReason.INVALID_ANSWER, message, cause);
    }
}
