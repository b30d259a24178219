package dev.assignor.kafkastreams;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.FallbackPriorTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.LegacyTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What Kafka Streams itself would have decided without the bridge: the answer used whenever the
 * strategy fails. A custom KIP-924 assignor cannot hand the decision back to Kafka (an exception
 * from {@code assign} fails the rebalance for every member, and an invalid answer kills the leader's
 * thread), so the bridge runs Kafka's own default assignor itself, from the same
 * {@link ApplicationState}:
 * <ol>
 *   <li>Kafka's {@code HighAvailabilityTaskAssignor} (its default), or its
 *       {@code FallbackPriorTaskAssignor} when Kafka could not fetch the changelogs' end offsets,
 *       exactly as Kafka Streams picks between them, on client states built from the application
 *       state (previous tasks, lags, capacity, tags). These are Kafka's internal classes; rack-aware
 *       optimisation ({@code rack.aware.assignment.strategy}) is left out, since it needs the
 *       cluster metadata that only Kafka's own path holds;</li>
 *   <li>if those classes are missing or changed (another Kafka Streams version), Kafka's public
 *       KIP-924 {@code StickyTaskAssignor}.</li>
 * </ol>
 */
final class KafkaOwnAssignment {
    record Result(TaskAssignment assignment, String assignor) {
    }

    private KafkaOwnAssignment() {
    }

    static Result assign(final ApplicationState state, final Instant now) {
        try {
            return kafkaDefault(state, now);
        } catch (final RuntimeException | LinkageError e) {
            return new Result(new StickyTaskAssignor().assign(state),
                "Kafka's StickyTaskAssignor (its default assignor could not run: " + e + ")");
        }
    }

    private static Result kafkaDefault(final ApplicationState state, final Instant now) {
        final Map<ProcessId, KafkaStreamsState> processes = state.kafkaStreamsStates(true);
        final Set<TaskId> allTasks = new TreeSet<>(state.allTasks().keySet());
        final Set<TaskId> statefulTasks = new TreeSet<>();
        for (final TaskInfo task : state.allTasks().values()) {
            if (ClusterFile.hasChangelog(task)) {
                statefulTasks.add(task.id());
            }
        }
        boolean anyUnknown = false;
        boolean anyKnown = false;
        final TreeMap<ProcessId, ClientState> clients = new TreeMap<>();
        for (final KafkaStreamsState process : processes.values()) {
            final Map<TaskId, Long> lags = new TreeMap<>();
            for (final TaskId task : statefulTasks) {
                final long lag = process.lagFor(task);
                lags.put(task, lag);
                anyUnknown |= lag == ClusterFile.UNKNOWN;
                anyKnown |= lag != ClusterFile.UNKNOWN && lag != ClusterFile.RUNNING;
            }
            final Set<TaskId> previousActive = new HashSet<>(process.previousActiveTasks());
            previousActive.retainAll(allTasks);
            final Set<TaskId> previousStandby = new HashSet<>(process.previousStandbyTasks());
            previousStandby.retainAll(allTasks);
            clients.put(process.processId(), new ClientState(previousActive, previousStandby, lags,
                process.clientTags(), process.numProcessingThreads(), process.processId()));
        }
        // Kafka Streams' own choice (StreamsPartitionAssignor.createTaskAssignor): when it could not
        // fetch the end offsets every lag but "running" is unknown, and it keeps the previous actives.
        final boolean endOffsetsFetched = !anyUnknown || anyKnown;
        final LegacyTaskAssignor assignor =
            endOffsetsFetched ? new HighAvailabilityTaskAssignor() : new FallbackPriorTaskAssignor();
        final AssignmentConfigs configs = withoutRackOptimisation(state.assignmentConfigs());
        final RackAwareTaskAssignor noRacks = new RackAwareTaskAssignor(null, Map.of(), Map.of(), Map.of(), null, null,
            configs, Time.SYSTEM);
        final boolean probing = assignor.assign(clients, allTasks, statefulTasks, noRacks, configs);

        final List<KafkaStreamsAssignment> assignments = new ArrayList<>(clients.size());
        for (final Map.Entry<ProcessId, ClientState> client : clients.entrySet()) {
            final Set<AssignedTask> tasks = new HashSet<>();
            for (final TaskId task : client.getValue().activeTasks()) {
                tasks.add(new AssignedTask(task, AssignedTask.Type.ACTIVE));
            }
            for (final TaskId task : client.getValue().standbyTasks()) {
                tasks.add(new AssignedTask(task, AssignedTask.Type.STANDBY));
            }
            KafkaStreamsAssignment a = KafkaStreamsAssignment.of(client.getKey(), tasks);
            if (probing && assignments.isEmpty()) {
                a = a.withFollowupRebalance(now.plusMillis(configs.probingRebalanceIntervalMs()));
            }
            assignments.add(a);
        }
        return new Result(new TaskAssignment(assignments),
            "Kafka's " + assignor.getClass().getSimpleName());
    }

    private static AssignmentConfigs withoutRackOptimisation(final AssignmentConfigs c) {
        return new AssignmentConfigs(c.acceptableRecoveryLag(), c.maxWarmupReplicas(), c.numStandbyReplicas(),
            c.probingRebalanceIntervalMs(), c.rackAwareAssignmentTags(), c.rackAwareTrafficCost(),
            c.rackAwareNonOverlapCost(), StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE);
    }
}
