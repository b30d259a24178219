package dev.assignor.kafkabroker;

import dev.assignor.bridge.BridgeException;
import dev.assignor.bridge.ClusterFileWriter;
import dev.assignor.bridge.FallbackReason;
import dev.assignor.bridge.WrittenClusterFile;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentMetadata;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignmentState;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A KIP-1071 streams group at one assignment, as the group coordinator hands it to an assignor
 * ({@link GroupSpec}, {@link TopologyDescriber}), written as an Assignor cluster file (DESIGN 4.1,
 * 4.9), with the maps that turn the answer back into Kafka's names. docs/bridge.md has the table:
 * <ul>
 *   <li>a process ({@code processId}) is a client; its members are its threads, each named by its
 *       member id in {@code previous_by_thread} (every member, even one that held nothing), so that the
 *       answer's per-thread split is a split over members (members in id order);</li>
 *   <li>tasks are {@code S_P} for every sub-topology {@code S} (its id must be a number, as Kafka Streams
 *       numbers them) and partition {@code P < maxNumInputPartitions(S)}; a task of a stateful
 *       sub-topology ({@code isStateful}) has one logged store, {@code changelog}; another task that
 *       members report offsets for has one store that is not logged, {@code local};</li>
 *   <li>a member's active tasks are its client's previous actives (a task two processes report as
 *       active stays with the first, in client order, and is the other's previous standby), its standby
 *       and warmup tasks previous standbys;</li>
 *   <li>offset sums: per client and task the largest offset its members report ({@code taskOffsets};
 *       -2, running, wins); a task's end-offset sum is the largest end offset any member reports
 *       ({@code taskEndOffsets}, sent by members that restore it), else the largest offset reported
 *       (the most advanced copy counts as caught up), else 0;</li>
 *   <li>a client's rack and tags are its first member's ({@code rackId}, {@code clientTags}).</li>
 * </ul>
 */
final class GroupFile extends WrittenClusterFile {
    private static final long RUNNING = -2L;
    private static final long UNKNOWN = -3L;

    private final List<List<String>> membersOf;
    private final Map<String, Integer> clientOfMember;
    private final String[] subtopologyIds;
    private final int[] taskSubtopology;
    private final int[] taskPartition;
    private final String topologyKey;

    private GroupFile(final byte[] json, final List<String> clientIds, final List<List<String>> membersOf,
                      final String[] subtopologyIds, final int[] taskSubtopology, final int[] taskPartition,
                      final String[] taskNames, final boolean[] stateful, final int loggedTasks,
                      final String topologyKey) {
        super(json, clientIds, taskNames, stateful, loggedTasks);
        this.membersOf = membersOf;
        this.subtopologyIds = subtopologyIds;
        this.taskSubtopology = taskSubtopology;
        this.taskPartition = taskPartition;
        this.topologyKey = topologyKey;
        clientOfMember = new HashMap<>();
        for (int c = 0; c < clientIds.size(); ++c) {
            for (final String m : membersOf.get(c)) {
                clientOfMember.put(m, c);
            }
        }
    }

    /** Client c's members (its threads), in the file's order. */
    List<String> members(final int c) {
        return membersOf.get(c);
    }

    int memberCount() {
        return clientOfMember.size();
    }

    /** Kafka's sub-topology id and partition of task t. */
    String subtopology(final int t) {
        return subtopologyIds[taskSubtopology[t]];
    }

    int partition(final int t) {
        return taskPartition[t];
    }

    /** A short digest of the topology's shape (sub-topologies, partitions, stateful): the record's directory. */
    String topologyKey() {
        return topologyKey;
    }

    @Override
    public boolean readsThreads() {
        return true;
    }

    @Override
    public boolean isThreadOf(final int client, final String thread) {
        final Integer c = clientOfMember.get(thread);
        return c != null && c == client;
    }

    static GroupFile of(final GroupSpec spec, final TopologyDescriber topology) throws BridgeException {
        // Sub-topologies by number (Kafka Streams numbers them 0, 1, ...), tasks in (S, P) order.
        final TreeMap<Integer, String> byNumber = new TreeMap<>();
        for (final String id : topology.subtopologies()) {
            final int n = subtopologyNumber(id);
            if (byNumber.put(n, id) != null) {
                throw new BridgeException(FallbackReason.MAPPING, "sub-topology ids '" + byNumber.get(n) + "' and '" + id
                    + "' are one number");
            }
        }
        final String[] subtopologyIds = byNumber.values().toArray(new String[0]);
        final Map<String, Integer> subtopologyIndex = new HashMap<>();
        final int[] partitions = new int[subtopologyIds.length];
        final boolean[] statefulSub = new boolean[subtopologyIds.length];
        final StringBuilder shape = new StringBuilder();
        int tasksSoFar = 0;
        for (int s = 0; s < subtopologyIds.length; ++s) {
            subtopologyIndex.put(subtopologyIds[s], s);
            partitions[s] = topology.maxNumInputPartitions(subtopologyIds[s]);
            if (partitions[s] < 0) {
                throw new BridgeException(FallbackReason.MAPPING, "sub-topology " + subtopologyIds[s] + " has "
                    + partitions[s] + " partitions");
            }
            statefulSub[s] = topology.isStateful(subtopologyIds[s]);
            shape.append(subtopologyIds[s]).append(':').append(partitions[s]).append(statefulSub[s] ? 's' : 'l')
                .append(';');
            tasksSoFar += partitions[s];
        }
        final int taskCount = tasksSoFar;
        final int[] taskSubtopology = new int[taskCount];
        final int[] taskPartition = new int[taskCount];
        final String[] taskNames = new String[taskCount];
        final boolean[] stateful = new boolean[taskCount];
        final int[] firstTask = new int[subtopologyIds.length];
        int loggedTasks = 0;
        for (int s = 0, t = 0; s < subtopologyIds.length; ++s) {
            firstTask[s] = t;
            for (int p = 0; p < partitions[s]; ++p, ++t) {
                taskSubtopology[t] = s;
                taskPartition[t] = p;
                taskNames[t] = subtopologyIds[s] + "_" + p;
                stateful[t] = statefulSub[s];
                loggedTasks += stateful[t] ? 1 : 0;
            }
        }
        final TaskLookup lookup = (sub, p) -> {
            final Integer s = subtopologyIndex.get(sub);
            return s == null || p == null || p < 0 || p >= partitions[s] ? -1 : firstTask[s] + p;
        };

        // Clients: processes in id order; members (threads) in id order within each, whatever order the
        // coordinator's HashMap gives them.
        final TreeMap<String, List<String>> byProcess = new TreeMap<>();
        for (final String member : spec.memberIds()) {
            final String process = spec.memberMetadata(member).processId();
            if (process == null || process.isEmpty()) {
                throw new BridgeException(FallbackReason.MAPPING, "member " + member + " has no process id");
            }
            byProcess.computeIfAbsent(process, k -> new ArrayList<>()).add(member);
        }
        byProcess.values().forEach(members -> members.sort(null));
        final List<String> clientIds = new ArrayList<>(byProcess.keySet());
        final List<List<String>> membersOf = new ArrayList<>(byProcess.values());

        // End-offset sums: the largest any member reports, else the largest offset reported.
        final long[] end = new long[taskCount];
        final long[] largestOffset = new long[taskCount];
        final boolean[] endReported = new boolean[taskCount];
        final boolean[] offsetReported = new boolean[taskCount];
        for (final String member : spec.memberIds()) {
            final MemberAssignmentState state = spec.memberAssignmentState(member);
            forEach(state.taskEndOffsets(), lookup, (t, v) -> {
                if (v >= 0 && (!endReported[t] || v > end[t])) {
                    end[t] = v;
                    endReported[t] = true;
                }
            });
            forEach(state.taskOffsets(), lookup, (t, v) -> {
                largestOffset[t] = Math.max(largestOffset[t], v);
                offsetReported[t] = true;
            });
        }
        for (int t = 0; t < taskCount; ++t) {
            if (!endReported[t]) {
                end[t] = largestOffset[t];
            }
        }

        final boolean[] previousActive = new boolean[taskCount];  // on some earlier client
        final byte[] json = ClusterFileWriter.write(256 + taskCount * 48, null, file -> {
            for (int t = 0; t < taskCount; ++t) {
                file.beginTask(taskNames[t]);
                if (stateful[t]) {
                    file.beginStores();
                    file.loggedStore("changelog", end[t]);
                    file.endList();
                } else if (offsetReported[t]) {
                    // Offsets reported for a task without a changelog: local state only (Kafka's sticky
                    // assignor ranks previous holders by them all the same).
                    file.beginStores();
                    file.unloggedStore("local");
                    file.endList();
                }
                file.endTask();
            }
        }, file -> {
            final Scratch scratch = new Scratch(taskCount);
            Arrays.fill(scratch.holder, -1);
            for (int c = 0; c < clientIds.size(); ++c) {
                writeClient(file, spec, clientIds.get(c), membersOf.get(c), lookup, taskNames, scratch, previousActive);
            }
        });
        return new GroupFile(json, clientIds, membersOf, subtopologyIds, taskSubtopology, taskPartition,
            taskNames, stateful, loggedTasks, digest(shape.toString()));
    }

    /**
     * Per-task scratch arrays shared by every client (allocated once per group), and the tasks the
     * current client touched: each client costs what its members hold and report, never tasks times
     * clients.
     */
    private static final class Scratch {
        final byte[] role;        // 1 previous active here, 2 previous standby here
        final int[] holder;       // the member (index in the client) that held it
        final long[] offset;
        final boolean[] reported;
        final boolean[] touched;
        int[] list = new int[64];
        int size;

        Scratch(final int taskCount) {
            role = new byte[taskCount];
            holder = new int[taskCount];
            offset = new long[taskCount];
            reported = new boolean[taskCount];
            touched = new boolean[taskCount];
        }

        void touch(final int t) {
            if (!touched[t]) {
                touched[t] = true;
                if (size == list.length) {
                    list = Arrays.copyOf(list, size * 2);
                }
                list[size++] = t;
            }
        }

        /** The touched tasks in task order. */
        int[] sorted() {
            final int[] out = Arrays.copyOf(list, size);
            Arrays.sort(out);
            return out;
        }

        void reset() {
            for (int i = 0; i < size; ++i) {
                final int t = list[i];
                role[t] = 0;
                holder[t] = -1;
                offset[t] = 0;
                reported[t] = false;
                touched[t] = false;
            }
            size = 0;
        }
    }

    private static void writeClient(final ClusterFileWriter file, final GroupSpec spec, final String client,
                                    final List<String> members, final TaskLookup lookup, final String[] taskNames,
                                    final Scratch x, final boolean[] previousActive) throws IOException {
        for (int k = 0; k < members.size(); ++k) {
            final MemberAssignmentState state = spec.memberAssignmentState(members.get(k));
            final int member = k;
            forEach(state.activeTasks(), lookup, t -> {
                x.touch(t);
                if (previousActive[t]) {
                    // Active on an earlier client too: it stays there, and is a previous standby here.
                    if (x.role[t] == 0) {
                        x.role[t] = 2;
                        x.holder[t] = member;
                    }
                } else if (x.role[t] != 1) {
                    x.role[t] = 1;
                    x.holder[t] = member;
                }
            });
            for (final Map<String, Set<Integer>> copies : List.of(state.standbyTasks(), state.warmupTasks())) {
                forEach(copies, lookup, t -> {
                    x.touch(t);
                    if (x.role[t] == 0) {
                        x.role[t] = 2;
                        x.holder[t] = member;
                    }
                });
            }
            forEach(state.taskOffsets(), lookup, (t, v) -> {
                x.touch(t);
                if (v == RUNNING || (x.reported[t] && x.offset[t] == RUNNING)) {
                    x.offset[t] = RUNNING;
                } else if (v >= 0 || v == UNKNOWN) {
                    x.offset[t] = x.reported[t] ? Math.max(x.offset[t], v) : v;
                }
                x.reported[t] = x.reported[t] || v >= 0 || v == RUNNING || v == UNKNOWN;
            });
        }
        final int[] tasks = x.sorted();
        final MemberAssignmentMetadata first = spec.memberMetadata(members.get(0));
        file.beginClient(client, members.size(), first.rackId(), first.clientTags());
        file.tasks("previous_active", tasks, taskNames, i -> x.role[tasks[i]] == 1);
        file.tasks("previous_standby", tasks, taskNames, i -> x.role[tasks[i]] == 2);
        file.beginOffsetSums();
        for (final int t : tasks) {
            if (x.reported[t]) {
                file.offsetSum(taskNames[t], x.offset[t]);
            }
        }
        file.endObject();
        // Each member's tasks, by one pass over the client's tasks grouped by member.
        final List<List<Integer>> held = new ArrayList<>(members.size());
        for (int k = 0; k < members.size(); ++k) {
            held.add(new ArrayList<>());
        }
        for (final int t : tasks) {
            if (x.role[t] != 0) {
                held.get(x.holder[t]).add(t);
            }
        }
        file.beginPreviousByThread();
        for (int k = 0; k < members.size(); ++k) {
            final int[] own = held.get(k).stream().mapToInt(Integer::intValue).toArray();
            file.beginThread(members.get(k));
            file.tasks("active", own, taskNames, i -> x.role[own[i]] == 1);
            file.tasks("standby", own, taskNames, i -> x.role[own[i]] == 2);
            file.endObject();
        }
        file.endObject();
        file.endClient();
        for (final int t : tasks) {
            if (x.role[t] == 1) {
                previousActive[t] = true;
            }
        }
        x.reset();
    }

    /** Kafka Streams numbers sub-topologies 0, 1, ...: the cluster file's task ids need that number. */
    private static int subtopologyNumber(final String id) throws BridgeException {
        try {
            final int n = Integer.parseInt(id);
            if (n >= 0 && Integer.toString(n).equals(id)) {
                return n;
            }
        } catch (final NumberFormatException e) {
            // below
        }
        throw new BridgeException(FallbackReason.MAPPING, "sub-topology id '" + id + "' is not a number (the cluster "
            + "file's task ids are <sub-topology>_<partition>)");
    }

    private interface TaskLookup {
        int task(String subtopology, Integer partition);
    }

    private interface TaskConsumer {
        void accept(int task);
    }

    private interface TaskValueConsumer {
        void accept(int task, long value);
    }

    /** Tasks of this topology only (a member may still report tasks of an older one). */
    private static void forEach(final Map<String, Set<Integer>> tasks, final TaskLookup lookup,
                                final TaskConsumer body) {
        for (final Map.Entry<String, Set<Integer>> e : tasks.entrySet()) {
            for (final Integer p : e.getValue()) {
                final int t = lookup.task(e.getKey(), p);
                if (t >= 0) {
                    body.accept(t);
                }
            }
        }
    }

    private static void forEach(final Map<String, Map<Integer, Long>> values, final TaskLookup lookup,
                                final TaskValueConsumer body) {
        for (final Map.Entry<String, Map<Integer, Long>> e : values.entrySet()) {
            for (final Map.Entry<Integer, Long> v : e.getValue().entrySet()) {
                final int t = lookup.task(e.getKey(), v.getKey());
                if (t >= 0 && v.getValue() != null) {
                    body.accept(t, v.getValue());
                }
            }
        }
    }

    private static String digest(final String text) {
        try {
            final byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            final StringBuilder s = new StringBuilder();
            for (int i = 0; i < 4; ++i) {
                s.append(String.format("%02x", d[i]));
            }
            return s.toString();
        } catch (final NoSuchAlgorithmException e) {
            return Integer.toHexString(text.hashCode());
        }
    }
}
