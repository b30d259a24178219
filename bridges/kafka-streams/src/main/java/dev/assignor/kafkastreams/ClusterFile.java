package dev.assignor.kafkastreams;

import dev.assignor.bridge.BridgeException;
import dev.assignor.bridge.ClusterFileWriter;
import dev.assignor.bridge.FallbackReason;
import dev.assignor.bridge.WrittenClusterFile;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A Kafka Streams application's state at one rebalance as an Assignor cluster file (DESIGN 4.1,
 * 4.9), with the maps that turn the answer's ids back into Kafka's.
 *
 * <p>What maps to what (docs/bridge.md has the table): a process is a client whose id is its
 * process UUID, its processing threads are the client's threads, its rack id and client tags are the
 * client's. A task with changelog partitions has logged stores; its end-offset sum and each process's
 * offset sum are chosen so that the file gives back exactly the lag Kafka computed
 * ({@code KafkaStreamsState.lagFor}): with {@code E} the task's largest lag over all processes, a
 * process whose lag is {@code L < E} reports {@code E - L}, a running task reports -2, and one whose
 * lag is {@code E} reports nothing (lag = end-offset sum), and one whose offsets Kafka could not use
 * (a pre-2.6 member: lag -3) reports -3, as it did to Kafka. Kafka gives every process that reported no
 * offsets for a task that task's whole end-offset sum as its lag, and a process reports offsets only
 * for tasks it lists as previous active or standby, so only those lags are read: linear in tasks and
 * previous tasks, never tasks times processes. When Kafka could not fetch the end offsets (every lag but
 * "running" is -3), the file says {@code end_offsets_known: false}.
 */
public final class ClusterFile extends WrittenClusterFile {
    /** Kafka's lag for a task its process is running, caught up ({@code Task.LATEST_OFFSET}). */
    static final long RUNNING = -2L;
    /** Kafka's lag when end offsets or the process's offsets are unknown ({@code UNKNOWN_OFFSET_SUM}). */
    static final long UNKNOWN = -3L;

    private final Map<String, ProcessId> processes;
    private final TaskId[] taskOrder;
    private final List<ProcessId> processOrder;
    private final boolean endOffsetsKnown;

    private ClusterFile(final byte[] json, final Map<String, ProcessId> processes, final TaskId[] taskOrder,
                        final String[] taskNames, final boolean[] hasStores, final List<ProcessId> processOrder,
                        final int loggedTasks, final boolean endOffsetsKnown) {
        super(json, clientIds(processOrder), taskNames, hasStores, loggedTasks);
        this.processes = processes;
        this.taskOrder = taskOrder;
        this.processOrder = processOrder;
        this.endOffsetsKnown = endOffsetsKnown;
    }

    /** Client ids in the file: the process UUIDs. */
    private static List<String> clientIds(final List<ProcessId> processOrder) {
        final List<String> ids = new ArrayList<>(processOrder.size());
        for (final ProcessId id : processOrder) {
            ids.add(id.id().toString());
        }
        return ids;
    }

    /** Client id in the file -> Kafka's process id. */
    public Map<String, ProcessId> processes() {
        return processes;
    }

    /** Kafka's task id of index {@code t} (tasks in Kafka's order). */
    public TaskId task(final int t) {
        return taskOrder[t];
    }

    /** Kafka's processes in Kafka's order (ProcessId, i.e. UUID order): client {@code c} is the c-th. */
    public List<ProcessId> processOrder() {
        return processOrder;
    }

    public boolean endOffsetsKnown() {
        return endOffsetsKnown;
    }

    /**
     * Writes the file for {@code state}.
     *
     * @param applicationId Kafka Streams' application.id: tells which of a task's stores have their
     *                      default changelog topic ({@code <id>-<store>-changelog}); may be empty
     * @throws BridgeException when the state cannot be written faithfully (named topologies, a lag
     *                         Kafka never produces)
     */
    public static ClusterFile of(final ApplicationState state, final String applicationId) throws BridgeException {
        for (final TaskId id : state.allTasks().keySet()) {  // before sorting: Kafka refuses to compare them
            if (id.topologyName() != null) {
                throw new BridgeException(FallbackReason.MAPPING, "task " + id + " belongs to the named topology '"
                    + id.topologyName()
                    + "': named topologies have no place in a cluster file");
            }
        }
        final TreeMap<TaskId, TaskInfo> allTasks = new TreeMap<>(state.allTasks());
        final TreeMap<ProcessId, KafkaStreamsState> clients = new TreeMap<>(state.kafkaStreamsStates(true));
        // Tasks by dense index. Kafka's TaskId hashes poorly (Objects.hash of two small ints): lookups
        // go through a table by sub-topology and partition instead of a map.
        final TaskId[] taskOrder = allTasks.keySet().toArray(new TaskId[0]);
        final String[] taskNames = new String[taskOrder.length];
        final TaskTable taskIndex = new TaskTable(taskOrder);
        final boolean[] logged = new boolean[taskOrder.length];
        final boolean[] hasStores = new boolean[taskOrder.length];
        for (int t = 0; t < taskOrder.length; ++t) {
            final TaskInfo info = allTasks.get(taskOrder[t]);
            taskNames[t] = taskOrder[t].subtopology() + "_" + taskOrder[t].partition();
            logged[t] = hasChangelog(info);
            hasStores[t] = info.isStateful();
        }
        final List<KafkaStreamsState> clientList = new ArrayList<>(clients.values());
        final List<HeldTasks> held = new ArrayList<>(clientList.size());
        final long[] largestHeldLag = new long[taskOrder.length];
        final int[] firstNonHolder = new int[taskOrder.length];
        boolean anyUnknown = false;
        boolean anyKnown = false;
        for (int c = 0; c < clientList.size(); ++c) {
            final HeldTasks h = HeldTasks.of(clientList.get(c), taskIndex, taskOrder, logged);
            held.add(h);
            for (int i = 0; i < h.tasks.length; ++i) {
                final int t = h.tasks[i];
                if (firstNonHolder[t] == c) {
                    firstNonHolder[t] = c + 1;
                }
                if (h.lags[i] == UNKNOWN) {
                    anyUnknown = true;
                } else if (h.lags[i] >= 0 && logged[t]) {
                    anyKnown = true;
                    largestHeldLag[t] = Math.max(largestHeldLag[t], h.lags[i]);
                }
            }
        }
        // End-offset sum per logged task: the lag of a client that holds no copy of it (Kafka gives
        // it the whole sum), at least the largest lag of its holders.
        final long[] endOffsets = new long[taskOrder.length];
        int loggedTasks = 0;
        for (int t = 0; t < taskOrder.length; ++t) {
            if (!logged[t]) {
                continue;
            }
            ++loggedTasks;
            long end = largestHeldLag[t];
            if (firstNonHolder[t] < clientList.size()) {
                final long lag = lag(clientList.get(firstNonHolder[t]), taskOrder[t]);
                if (lag == UNKNOWN) {
                    anyUnknown = true;
                } else if (lag >= 0) {
                    anyKnown = true;
                    end = Math.max(end, lag);
                }
            }
            endOffsets[t] = end;
        }
        // Kafka Streams could not fetch the end offsets: every lag but "running" is unknown. A single
        // process's unknown offsets (a pre-2.6 member) stay in the file as its offset sum -3.
        final boolean endOffsetsKnown = !(anyUnknown && !anyKnown);

        final boolean withRacks = wantsRacks(clientList);
        final byte[] json = ClusterFileWriter.write(64 + taskOrder.length * 64, endOffsetsKnown, file -> {
            for (int t = 0; t < taskOrder.length; ++t) {
                writeTask(file, allTasks.get(taskOrder[t]), taskNames[t],
                    logged[t] ? endOffsets[t] : null, applicationId, withRacks);
            }
        }, file -> {
            for (int c = 0; c < clientList.size(); ++c) {
                writeClient(file, clientList.get(c), held.get(c), taskNames, logged, endOffsets, endOffsetsKnown);
            }
        });

        final Map<String, ProcessId> processIds = new HashMap<>(clients.size() * 2);
        for (final ProcessId id : clients.keySet()) {
            processIds.put(id.id().toString(), id);
        }
        return new ClusterFile(json, Collections.unmodifiableMap(processIds), taskOrder, taskNames, hasStores,
            List.copyOf(clients.keySet()), loggedTasks, endOffsetsKnown);
    }

    /** Task index by sub-topology and partition (both dense from 0 in Kafka); -1 when not a task. */
    static final class TaskTable {
        private final int[][] bySubtopology;

        TaskTable(final TaskId[] tasks) {
            int subtopologies = 0;
            for (final TaskId t : tasks) {
                subtopologies = Math.max(subtopologies, t.subtopology() + 1);
            }
            final int[] partitions = new int[subtopologies];
            for (final TaskId t : tasks) {
                partitions[t.subtopology()] = Math.max(partitions[t.subtopology()], t.partition() + 1);
            }
            bySubtopology = new int[subtopologies][];
            for (int s = 0; s < subtopologies; ++s) {
                bySubtopology[s] = new int[partitions[s]];
                Arrays.fill(bySubtopology[s], -1);
            }
            for (int i = 0; i < tasks.length; ++i) {
                bySubtopology[tasks[i].subtopology()][tasks[i].partition()] = i;
            }
        }

        int get(final TaskId task) {
            final int s = task.subtopology();
            final int p = task.partition();
            if (task.topologyName() != null || s < 0 || s >= bySubtopology.length || p < 0
                || p >= bySubtopology[s].length) {
                return -1;
            }
            return bySubtopology[s][p];
        }
    }

    /** One client's previous tasks (known to this rebalance), as task indices, with its lag for each logged one. */
    private static final class HeldTasks {
        final int[] tasks;        // task indices, ascending; previous actives and standbys
        final boolean[] active;   // per entry: previous active (else previous standby)
        final long[] lags;        // per entry: Kafka's lag, or 0 for a task without changelog

        private HeldTasks(final int[] tasks, final boolean[] active, final long[] lags) {
            this.tasks = tasks;
            this.active = active;
            this.lags = lags;
        }

        static HeldTasks of(final KafkaStreamsState client, final TaskTable taskIndex,
                            final TaskId[] taskOrder, final boolean[] logged) throws BridgeException {
            final TreeMap<Integer, Boolean> roles = new TreeMap<>();
            for (final TaskId task : client.previousStandbyTasks()) {
                final int t = taskIndex.get(task);  // tasks of an older topology are not this rebalance's
                if (t >= 0) {
                    roles.put(t, false);
                }
            }
            for (final TaskId task : client.previousActiveTasks()) {
                final int t = taskIndex.get(task);
                if (t >= 0) {
                    roles.put(t, true);
                }
            }
            final int[] tasks = new int[roles.size()];
            final boolean[] active = new boolean[roles.size()];
            final long[] lags = new long[roles.size()];
            int i = 0;
            for (final Map.Entry<Integer, Boolean> role : roles.entrySet()) {
                tasks[i] = role.getKey();
                active[i] = role.getValue();
                if (logged[tasks[i]]) {
                    lags[i] = lag(client, taskOrder[tasks[i]]);
                }
                ++i;
            }
            return new HeldTasks(tasks, active, lags);
        }
    }

    static boolean hasChangelog(final TaskInfo task) {
        for (final TaskTopicPartition partition : task.topicPartitions()) {
            if (partition.isChangelog()) {
                return true;
            }
        }
        return false;
    }

    private static long lag(final KafkaStreamsState client, final TaskId task) throws BridgeException {
        final long lag;
        try {
            lag = client.lagFor(task);
        } catch (final RuntimeException e) {
            throw new BridgeException(FallbackReason.MAPPING, "Kafka Streams has no lag for task " + task
                + " on process " + client.processId()
                + " (" + e.getMessage() + ")", e);
        }
        if (lag < 0 && lag != RUNNING && lag != UNKNOWN) {
            throw new BridgeException(FallbackReason.MAPPING, "task " + task + " on process " + client.processId()
                + " has lag " + lag
                + ", which Kafka Streams never reports");
        }
        return lag;
    }

    /** Partition racks matter only when processes have racks; reading them costs Kafka a metadata lookup. */
    private static boolean wantsRacks(final List<KafkaStreamsState> clients) {
        for (final KafkaStreamsState client : clients) {
            if (client.rackId().isPresent()) {
                return true;
            }
        }
        return false;
    }

    private static void writeTask(final ClusterFileWriter file, final TaskInfo task, final String name,
                                  final Long endOffset, final String applicationId, final boolean withRacks)
        throws IOException {
        file.beginTask(name);
        final Set<String> storeNames = new TreeSet<>(task.stateStoreNames());
        if (!storeNames.isEmpty() || endOffset != null) {
            writeStores(file, task, storeNames, endOffset, applicationId);
        }
        if (withRacks) {
            writePartitions(file, task);
        }
        file.endTask();
    }

    /**
     * A task's stores. The end-offset sum goes to its first logged store (the lag is a sum over the
     * task's stores, so one store carrying it keeps every lag exact); a store is logged when its
     * default changelog topic is among the task's changelog partitions. When none is recognised
     * (a source table's changelog is its input topic; a custom name), every store of a task with a
     * changelog counts as logged. A task without changelog partitions has only non-logged stores.
     */
    private static void writeStores(final ClusterFileWriter file, final TaskInfo task, final Set<String> storeNames,
                                    final Long endOffset, final String applicationId) throws IOException {
        final Set<String> changelogTopics = new TreeSet<>();
        for (final TaskTopicPartition partition : task.topicPartitions()) {
            if (partition.isChangelog()) {
                changelogTopics.add(partition.topicPartition().topic());
            }
        }
        final Set<String> logged = new TreeSet<>();
        if (endOffset != null) {
            for (final String store : storeNames) {
                if (changelogTopics.contains(applicationId + "-" + store + "-changelog")) {
                    logged.add(store);
                }
            }
            if (logged.isEmpty()) {
                logged.addAll(storeNames);
            }
        }
        final List<String> names = new ArrayList<>(storeNames);
        if (endOffset != null && names.isEmpty()) {
            names.add("changelog");  // changelog partitions but no store name given: the lag needs a store
            logged.add("changelog");
        }
        file.beginStores();
        boolean endWritten = false;
        for (final String store : names) {
            if (logged.contains(store)) {
                file.loggedStore(store, endWritten ? 0 : endOffset);
                endWritten = true;
            } else {
                file.unloggedStore(store);
            }
        }
        file.endList();
    }

    /** Every partition the task reads or writes (input and changelog) with its replicas' racks. */
    private static void writePartitions(final ClusterFileWriter file, final TaskInfo task) throws IOException {
        final TreeMap<String, TreeMap<Integer, Optional<Set<String>>>> partitions = new TreeMap<>();
        for (final TaskTopicPartition partition : task.topicPartitions()) {
            final TopicPartition tp = partition.topicPartition();
            partitions.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), partition.rackIds());
        }
        file.beginPartitions();
        for (final Map.Entry<String, TreeMap<Integer, Optional<Set<String>>>> topic : partitions.entrySet()) {
            for (final Map.Entry<Integer, Optional<Set<String>>> partition : topic.getValue().entrySet()) {
                file.partition(topic.getKey(), partition.getKey(), new TreeSet<>(partition.getValue().orElse(Set.of())));
            }
        }
        file.endList();
    }

    private static void writeClient(final ClusterFileWriter file, final KafkaStreamsState client,
                                    final HeldTasks held, final String[] taskNames, final boolean[] logged,
                                    final long[] endOffsets, final boolean endOffsetsKnown) throws IOException {
        file.beginClient(client.processId().id().toString(), client.numProcessingThreads(), client.rackId(),
            client.clientTags());
        file.tasks("previous_active", held.tasks, taskNames, i -> held.active[i]);
        file.tasks("previous_standby", held.tasks, taskNames, i -> !held.active[i]);
        file.beginOffsetSums();
        for (int i = 0; i < held.tasks.length; ++i) {
            final int t = held.tasks[i];
            if (!logged[t]) {
                continue;  // no changelog: no lag
            }
            final long lag = held.lags[i];
            if (lag == RUNNING || (lag == UNKNOWN && endOffsetsKnown)) {
                file.offsetSum(taskNames[t], lag);
            } else if (endOffsetsKnown && lag < endOffsets[t]) {
                file.offsetSum(taskNames[t], endOffsets[t] - lag);
            }
        }
        file.endObject();
        file.endClient();
    }
}
