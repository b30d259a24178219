package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.state.HostInfo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.OptionalInt;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link ApplicationState} built the way Kafka Streams builds its own from the members'
 * subscriptions, for tests: from a cluster file (DESIGN 4.1) whose client ids become
 * {@code UUID(0, rank)} in string order (tests/data/kafka-golden/README.md). Lags follow Kafka's
 * {@code ClientState.computeTaskLags} (reported offset sum, or 0 when not reported; -2 and -3 kept;
 * a sum above the end-offset sum gives the end-offset sum), and a task a client reported offsets for
 * but did not list becomes a previous standby, as Kafka's {@code ClientState} makes it. A task has
 * its input partition ({@code input-S}, partition P) and, for each logged store, the partition of
 * its default changelog topic ({@code APP-STORE-changelog}).
 */
final class FakeApplicationState implements ApplicationState {
    static final String APPLICATION_ID = "app";

    private final AssignmentConfigs configs;
    private final Map<TaskId, TaskInfo> tasks;
    private final Map<ProcessId, KafkaStreamsState> processes;
    /** Client id in the cluster file -> process id. */
    final Map<String, ProcessId> processIds;
    /** Calls of lagFor and of rackIds, to check what the bridge reads. */
    final AtomicLong lagLookups = new AtomicLong();
    final AtomicLong rackLookups = new AtomicLong();

    private FakeApplicationState(final AssignmentConfigs configs, final Map<TaskId, TaskInfo> tasks,
                                 final Map<ProcessId, KafkaStreamsState> processes,
                                 final Map<String, ProcessId> processIds) {
        this.configs = configs;
        this.tasks = tasks;
        this.processes = processes;
        this.processIds = processIds;
    }

    static FakeApplicationState of(final JsonNode cluster, final AssignmentConfigs configs) {
        final boolean endOffsetsKnown = !cluster.has("end_offsets_known") || cluster.get("end_offsets_known").asBoolean();
        final Map<TaskId, TaskInfo> tasks = new TreeMap<>();
        final Map<TaskId, Long> endOffsetSums = new TreeMap<>();
        final FakeApplicationState[] self = new FakeApplicationState[1];
        for (final JsonNode t : cluster.get("tasks")) {
            final TaskId id = TaskId.parse(t.get("id").asText());
            final Set<String> stores = new TreeSet<>();
            final Set<TaskTopicPartition> partitions = new HashSet<>();
            for (final JsonNode p : t.path("partitions")) {  // the file's input partitions, with their racks
                final Set<String> r = new TreeSet<>();
                p.path("racks").forEach(x -> r.add(x.asText()));
                partitions.add(partition(p.get("topic").asText(), p.get("partition").asInt(), true, false, r, self));
            }
            if (partitions.isEmpty()) {
                partitions.add(partition("input-" + id.subtopology(), id.partition(), true, false, null, self));
            }
            long end = 0;
            boolean logged = false;
            for (final JsonNode s : t.path("stores")) {
                final String name = s.get("name").asText();
                stores.add(name);
                if (s.path("logged").asBoolean(true)) {
                    logged = true;
                    end += s.get("changelog_end_offset").asLong();
                    partitions.add(partition(APPLICATION_ID + "-" + name + "-changelog", id.partition(), false, true,
                        null, self));
                }
            }
            if (logged) {
                endOffsetSums.put(id, endOffsetsKnown ? end : ClusterFile.UNKNOWN);
            }
            tasks.put(id, new Task(id, stores, partitions));
        }
        final List<String> names = new ArrayList<>();
        for (final JsonNode c : cluster.get("clients")) {
            names.add(c.get("id").asText());
        }
        Collections.sort(names);
        final Map<String, ProcessId> processIds = new HashMap<>();
        for (int rank = 0; rank < names.size(); ++rank) {
            processIds.put(names.get(rank), new ProcessId(new UUID(0, rank)));
        }
        final Map<ProcessId, KafkaStreamsState> processes = new HashMap<>();
        for (final JsonNode c : cluster.get("clients")) {
            final ProcessId id = processIds.get(c.get("id").asText());
            final SortedSet<TaskId> active = taskSet(c.path("previous_active"));
            final SortedSet<TaskId> standby = taskSet(c.path("previous_standby"));
            final Map<TaskId, Long> offsetSums = new TreeMap<>();  // as Kafka's ClientState keeps them
            c.path("offset_sums").properties().forEach(e -> offsetSums.put(TaskId.parse(e.getKey()), e.getValue().asLong()));
            for (final TaskId task : offsetSums.keySet()) {
                if (!active.contains(task)) {
                    standby.add(task);
                }
            }
            final Lags lags = new Lags(offsetSums, endOffsetSums);
            final Map<String, String> tags = new TreeMap<>();
            c.path("tags").properties().forEach(e -> tags.put(e.getKey(), e.getValue().asText()));
            final Optional<String> rack = c.hasNonNull("rack") ? Optional.of(c.get("rack").asText()) : Optional.empty();
            processes.put(id, new Process(id, c.get("threads").asInt(), active, standby, lags, tags, rack, self));
        }
        self[0] = new FakeApplicationState(configs, Collections.unmodifiableMap(tasks),
            Collections.unmodifiableMap(processes), Collections.unmodifiableMap(processIds));
        return self[0];
    }

    /** {@code ClientState.computeTaskLags}, for one task. */
    static long kafkaLag(final long offsetSum, final long endOffsetSum) {
        if (offsetSum == ClusterFile.RUNNING || offsetSum == ClusterFile.UNKNOWN) {
            return offsetSum;
        }
        if (endOffsetSum < offsetSum) {
            return endOffsetSum;
        }
        return endOffsetSum - offsetSum;
    }

    /** Kafka's settings from a config file's {@code assignment:} (Kafka's defaults for what it leaves out). */
    static AssignmentConfigs configs(final JsonNode config) {
        final JsonNode a = config == null ? null : config.get("assignment");
        final JsonNode rack = a == null ? null : a.get("rack_aware");
        final List<String> tags = new ArrayList<>();
        if (rack != null) {
            rack.path("tags").forEach(t -> tags.add(t.asText()));
        }
        return new AssignmentConfigs(
            a != null && a.has("acceptable_recovery_lag") ? a.get("acceptable_recovery_lag").asLong() : 10000L,
            a != null && a.has("max_warmup_replicas") ? a.get("max_warmup_replicas").asInt() : 2,
            a != null && a.has("num_standby_replicas") ? a.get("num_standby_replicas").asInt() : 0,
            a != null && a.has("probing_rebalance_interval_ms") ? a.get("probing_rebalance_interval_ms").asLong()
                : 600000L,
            tags,
            rack != null && rack.has("traffic_cost") ? OptionalInt.of(rack.get("traffic_cost").asInt())
                : OptionalInt.empty(),
            rack != null && rack.has("non_overlap_cost") ? OptionalInt.of(rack.get("non_overlap_cost").asInt())
                : OptionalInt.empty(),
            rack != null && rack.has("strategy") ? rack.get("strategy").asText() : "none");
    }

    private static SortedSet<TaskId> taskSet(final JsonNode list) {
        final SortedSet<TaskId> s = new TreeSet<>();
        list.forEach(t -> s.add(TaskId.parse(t.asText())));
        return s;
    }

    private static TaskTopicPartition partition(final String topic, final int partition, final boolean source,
                                                final boolean changelog, final Set<String> r,
                                                final FakeApplicationState[] self) {
        return new TaskTopicPartition() {
            @Override
            public TopicPartition topicPartition() {
                return new TopicPartition(topic, partition);
            }

            @Override
            public boolean isSource() {
                return source;
            }

            @Override
            public boolean isChangelog() {
                return changelog;
            }

            @Override
            public Optional<Set<String>> rackIds() {
                self[0].rackLookups.incrementAndGet();
                return Optional.ofNullable(r);
            }
        };
    }

    @Override
    public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(final boolean computeTaskLags) {
        return processes;
    }

    @Override
    public AssignmentConfigs assignmentConfigs() {
        return configs;
    }

    @Override
    public Map<TaskId, TaskInfo> allTasks() {
        return tasks;
    }

    /** A process's lags, computed when asked, as Kafka computed them when the rebalance began. */
    private record Lags(Map<TaskId, Long> offsetSums, Map<TaskId, Long> endOffsetSums) {
        long of(final TaskId task) {
            final Long end = endOffsetSums.get(task);
            if (end == null) {
                throw new IllegalStateException("Tried to lookup lag for unknown task " + task);
            }
            return kafkaLag(offsetSums.getOrDefault(task, 0L), end);
        }
    }

    private record Task(TaskId id, Set<String> stateStoreNames, Set<TaskTopicPartition> topicPartitions)
        implements TaskInfo {
        @Override
        public boolean isStateful() {
            return !stateStoreNames.isEmpty();
        }
    }

    private static final class Process implements KafkaStreamsState {
        private final ProcessId id;
        private final int threads;
        private final SortedSet<TaskId> active;
        private final SortedSet<TaskId> standby;
        private final Lags lags;
        private final Map<String, String> tags;
        private final Optional<String> rack;
        private final FakeApplicationState[] self;

        Process(final ProcessId id, final int threads, final SortedSet<TaskId> active, final SortedSet<TaskId> standby,
                final Lags lags, final Map<String, String> tags, final Optional<String> rack,
                final FakeApplicationState[] self) {
            this.id = id;
            this.threads = threads;
            this.active = Collections.unmodifiableSortedSet(active);
            this.standby = Collections.unmodifiableSortedSet(standby);
            this.lags = lags;
            this.tags = tags;
            this.rack = rack;
            this.self = self;
        }

        @Override
        public ProcessId processId() {
            return id;
        }

        @Override
        public int numProcessingThreads() {
            return threads;
        }

        @Override
        public SortedSet<String> consumerClientIds() {
            final SortedSet<String> s = new TreeSet<>();
            for (int i = 1; i <= threads; ++i) {
                s.add(id + "-StreamThread-" + i + "-consumer");
            }
            return s;
        }

        @Override
        public SortedSet<TaskId> previousActiveTasks() {
            return active;
        }

        @Override
        public SortedSet<TaskId> previousStandbyTasks() {
            return standby;
        }

        @Override
        public long lagFor(final TaskId task) {
            if (self[0] != null) {
                self[0].lagLookups.incrementAndGet();
            }
            return lags.of(task);
        }

        @Override
        public SortedSet<TaskId> prevTasksByLag(final String consumerClientId) {
            return new TreeSet<>();
        }

        @Override
        public Map<TaskId, Long> statefulTasksToLagSums() {
            final Map<TaskId, Long> all = new TreeMap<>();
            lags.endOffsetSums.keySet().forEach(t -> all.put(t, lags.of(t)));
            return all;
        }

        @Override
        public Optional<HostInfo> hostInfo() {
            return Optional.empty();
        }

        @Override
        public Map<String, String> clientTags() {
            return tags;
        }

        @Override
        public Optional<String> rackId() {
            return rack;
        }
    }
}
