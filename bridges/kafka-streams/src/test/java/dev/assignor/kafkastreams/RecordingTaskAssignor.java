package dev.assignor.kafkastreams;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.TaskInfo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The bridge, with what the end-to-end test needs to check each real rebalance: Kafka's lags as
 * the leader saw them and the assignment it handed back. Set as task.assignor.class; everything is
 * delegated to {@link AssignorTaskAssignor} unchanged.
 */
public final class RecordingTaskAssignor implements TaskAssignor {
    /** One rebalance decided on some leader. */
    record Decision(long acceptableRecoveryLag, Map<ProcessId, Map<TaskId, Long>> lags,
                    Map<ProcessId, List<TaskId>> actives, Map<ProcessId, List<TaskId>> standbys, boolean followup) {
    }

    static final Queue<Decision> DECISIONS = new ConcurrentLinkedQueue<>();

    private final AssignorTaskAssignor bridge = new AssignorTaskAssignor();

    @Override
    public void configure(final Map<String, ?> configs) {
        bridge.configure(configs);
    }

    @Override
    public TaskAssignment assign(final ApplicationState state) {
        final Map<ProcessId, Map<TaskId, Long>> lags = new HashMap<>();
        for (final KafkaStreamsState process : state.kafkaStreamsStates(true).values()) {
            final Map<TaskId, Long> l = new HashMap<>();
            for (final TaskInfo task : state.allTasks().values()) {
                if (ClusterFile.hasChangelog(task)) {
                    l.put(task.id(), process.lagFor(task.id()));
                }
            }
            lags.put(process.processId(), l);
        }
        final TaskAssignment assignment = bridge.assign(state);
        final Map<ProcessId, List<TaskId>> actives = new HashMap<>();
        final Map<ProcessId, List<TaskId>> standbys = new HashMap<>();
        boolean followup = false;
        for (final KafkaStreamsAssignment a : assignment.assignment()) {
            final List<TaskId> act = new ArrayList<>();
            final List<TaskId> stb = new ArrayList<>();
            for (final AssignedTask t : a.tasks().values()) {
                (t.type() == AssignedTask.Type.ACTIVE ? act : stb).add(t.id());
            }
            actives.put(a.processId(), act);
            standbys.put(a.processId(), stb);
            followup |= a.followupRebalanceDeadline().isPresent();
        }
        DECISIONS.add(new Decision(state.assignmentConfigs().acceptableRecoveryLag(), lags, actives, standbys, followup));
        return assignment;
    }

    @Override
    public void onAssignmentComputed(final GroupAssignment assignment, final GroupSubscription subscription,
                                     final AssignmentError error) {
        bridge.onAssignmentComputed(assignment, subscription, error);
    }
}
