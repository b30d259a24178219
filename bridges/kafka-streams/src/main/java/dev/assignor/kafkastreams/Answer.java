package dev.assignor.kafkastreams;

import dev.assignor.bridge.AnswerReader;
import dev.assignor.bridge.BridgeException;

import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The host's answer (DESIGN 4.4, checked against the group by {@link AnswerReader}) turned into
 * Kafka's {@link TaskAssignment}: {@code active} tasks are ACTIVE, {@code standby} and {@code warmup}
 * tasks are STANDBY (Kafka has no third kind: a warmup is a standby copy that the next probing
 * rebalance may promote), and when the answer asks for a probing rebalance the first process (in
 * Kafka's order) gets a follow-up rebalance deadline {@code after_ms} from now. The reader's checks
 * include all of Kafka's own ({@code TaskAssignmentUtils.validateTaskAssignment}, which Kafka Streams
 * runs on what the assignor returns and which kills the leader's thread when it fails), so a refused
 * answer falls back instead. The per-thread split is ignored: Kafka Streams spreads each process's
 * tasks over its threads itself. What the host says of its run (strategy, times, counts) is in
 * {@link #parsed()}.
 */
record Answer(TaskAssignment assignment, AnswerReader.Parsed parsed) {
    static Answer read(final byte[] json, final ClusterFile file, final ApplicationState state, final Instant now)
        throws BridgeException {
        return of(AnswerReader.read(json, file), file, now);
    }

    static Answer of(final AnswerReader.Parsed parsed, final ClusterFile file, final Instant now) {
        final List<ProcessId> processes = file.processOrder();
        final List<KafkaStreamsAssignment> assignments = new ArrayList<>(processes.size());
        for (int c = 0; c < processes.size(); ++c) {
            final Set<AssignedTask> tasks = new HashSet<>();
            for (final int t : parsed.tasks(c, AnswerReader.ACTIVE)) {
                tasks.add(new AssignedTask(file.task(t), AssignedTask.Type.ACTIVE));
            }
            for (final int role : new int[] {AnswerReader.STANDBY, AnswerReader.WARMUP}) {
                for (final int t : parsed.tasks(c, role)) {
                    tasks.add(new AssignedTask(file.task(t), AssignedTask.Type.STANDBY));
                }
            }
            KafkaStreamsAssignment a = KafkaStreamsAssignment.of(processes.get(c), tasks);
            if (parsed.probing() && assignments.isEmpty()) {
                a = a.withFollowupRebalance(now.plusMillis(parsed.probingAfterMs()));
            }
            assignments.add(a);
        }
        return new Answer(new TaskAssignment(assignments), parsed);
    }
}
