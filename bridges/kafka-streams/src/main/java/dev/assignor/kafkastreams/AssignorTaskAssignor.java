package dev.assignor.kafkastreams;

import dev.assignor.bridge.AnswerReader;
import dev.assignor.bridge.AssignmentJson;
import dev.assignor.bridge.BridgeConfig;
import dev.assignor.bridge.BridgeCore;
import dev.assignor.bridge.BridgeException;
import dev.assignor.bridge.BridgeMetrics;
import dev.assignor.bridge.DecisionRecord;
import dev.assignor.bridge.FallbackReason;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs an Assignor strategy as a Kafka Streams task assignor (KIP-924). In the application's
 * config:
 * <pre>
 * task.assignor.class=dev.assignor.kafkastreams.AssignorTaskAssignor
 * assignor.strategy=least_movement
 * assignor.command=/opt/assignor/bin/assignor
 * </pre>
 * At every rebalance the group leader writes the application's state as a cluster file
 * ({@link ClusterFile}), has the host run the strategy on it in another process (a resident
 * {@code assignor serve} worker, or {@code assignor assign} per rebalance: the strategy can crash,
 * hang or misbehave without touching the application), reads the answer back ({@link Answer}) and
 * hands it to Kafka Streams. Whatever goes wrong (no executable, a crash, a timeout, an invalid
 * answer, a bad setting), the rebalance still completes: one warning line says why, and Kafka's own
 * assignment is used for that rebalance ({@link KafkaOwnAssignment}). Metrics go to JMX
 * ({@code kafka.streams.assignor:type=assignor-bridge-metrics,application-id=...}); every decision
 * can be kept for {@code assignor replay} ({@code assignor.record.dir}).
 *
 * <p>Kafka Streams creates and configures a new instance at every rebalance, on the leader only.
 * The {@code task.assignor.class} setting applies to the classic rebalance protocol only: under
 * {@code group.protocol=streams} (KIP-1071) the broker assigns, and the broker module's assignor is
 * the way (docs/bridge.md).
 */
public final class AssignorTaskAssignor implements TaskAssignor {
    private static final Logger LOG = LoggerFactory.getLogger(AssignorTaskAssignor.class);
    /** The metrics' JMX domain and type (the application id is the tag). */
    static final String METRICS_PREFIX = "kafka.streams.assignor:type=assignor-bridge-metrics,application-id=";

    private BridgeSettings settings = BridgeSettings.from(Map.of());

    @Override
    public void configure(final Map<String, ?> configs) {
        settings = BridgeSettings.from(configs);
        metrics();  // in JMX from the first rebalance on, with zeros
    }

    /** This application's metrics (the JVM keeps them across the assignor instances). */
    BridgeMetrics metrics() {
        return BridgeMetrics.named(METRICS_PREFIX + BridgeMetrics.tagValue(settings.applicationId().isEmpty()
            ? "unknown" : settings.applicationId()));
    }

    @Override
    public TaskAssignment assign(final ApplicationState applicationState) {
        final long start = System.nanoTime();
        final Instant now = Instant.now();
        ClusterFile file = null;
        try {
            file = clusterFile(applicationState);
            final Run run = runStrategy(applicationState, file, now);
            final AnswerReader.Parsed answer = run.answer.parsed();
            final double totalMs = (System.nanoTime() - start) / 1e6;
            LOG.info("Assignor bridge: strategy {} assigned {} tasks ({} with a changelog) to {} processes: {} active, "
                    + "{} standby, {} warmup, {}; {} ms in all, {} ms in the strategy",
                answer.strategy(), file.taskCount(), file.loggedTasks(), file.processOrder().size(),
                answer.actives(), answer.standbys(), answer.warmups(),
                answer.probing() ? "probing rebalance in " + answer.probingAfterMs() + " ms" : "no probing rebalance",
                String.format("%.1f", totalMs), String.format("%.1f", answer.assignMs()));
            metrics().decided(totalMs, answer.assignMs(), answer.activeMoves(), answer.restoringActives(),
                answer.warmups());
            record(file, applicationState, run.config, run.answerJson, answer.strategy(), answer.probing(),
                answer.standbys(), answer.warmups(), "by the strategy", null, null, now, totalMs, answer.assignMs());
            return run.answer.assignment();
        } catch (final BridgeException | RuntimeException | LinkageError e) {
            final KafkaOwnAssignment.Result kafka = KafkaOwnAssignment.assign(applicationState, now);
            final double totalMs = (System.nanoTime() - start) / 1e6;
            final FallbackReason reason = BridgeCore.reason(e);
            LOG.warn("Assignor bridge: strategy {} not used for this rebalance: {}; using {} instead",
                settings.strategyForMessages(), BridgeCore.describe(e), kafka.assignor());
            metrics().fellBack(reason, totalMs);
            if (file != null) {
                recordFallback(file, applicationState, kafka, reason, BridgeCore.describe(e), now, totalMs);
            }
            return kafka.assignment();
        }
    }

    @Override
    public void onAssignmentComputed(final GroupAssignment assignment, final GroupSubscription subscription,
                                     final AssignmentError error) {
        if (error != AssignmentError.NONE) {
            LOG.error("Assignor bridge: Kafka Streams reports {} for the assignment it was given", error);
        }
    }

    /** One run of the strategy: the file it was given, its answer, and what the record keeps. */
    record Run(ClusterFile file, Answer answer, byte[] config, byte[] answerJson) {
    }

    private ClusterFile clusterFile(final ApplicationState state) throws BridgeException {
        if (!settings.problems().isEmpty()) {
            throw new BridgeException(FallbackReason.SETTINGS, String.join("; ", settings.problems()));
        }
        return ClusterFile.of(state, settings.applicationId());
    }

    /** The strategy's assignment, or why it cannot be used (no fallback here: {@link #assign} does that). */
    Run runStrategy(final ApplicationState state, final Instant now) throws BridgeException {
        return runStrategy(state, clusterFile(state), now);
    }

    private Run runStrategy(final ApplicationState state, final ClusterFile file, final Instant now)
        throws BridgeException {
        final BridgeCore.Outcome outcome = BridgeCore.run(settings.config(),
            BridgeSettings.assignmentSettings(state.assignmentConfigs()), file.json(), file, LOG);
        return new Run(file, Answer.of(outcome.parsed(), file, now), outcome.config().bytes(), outcome.answer());
    }

    private void recordFallback(final ClusterFile file, final ApplicationState state,
                                final KafkaOwnAssignment.Result kafka, final FallbackReason reason,
                                final String message, final Instant now, final double totalMs) {
        final BridgeConfig config = settings.config();
        if (config == null || config.recordDir().isEmpty()) {
            return;
        }
        // Kafka's answer in the output format: warmups are inside its standbys (Kafka has no third kind).
        final Map<String, AssignmentJson.Client> clients = new LinkedHashMap<>();
        for (int c = 0; c < file.clientCount(); ++c) {
            clients.put(file.clientId(c), new AssignmentJson.Client());
        }
        int standbys = 0;
        boolean probing = false;
        for (final KafkaStreamsAssignment a : kafka.assignment().assignment()) {
            final AssignmentJson.Client client = clients.get(a.processId().id().toString());
            final TreeMap<TaskId, AssignedTask> tasks = new TreeMap<>(a.tasks());
            for (final AssignedTask t : tasks.values()) {
                final String name = t.id().subtopology() + "_" + t.id().partition();
                if (t.type() == AssignedTask.Type.ACTIVE) {
                    client.active.add(name);
                } else {
                    client.standby.add(name);
                    ++standbys;
                }
            }
            probing |= a.followupRebalanceDeadline().isPresent();
        }
        final long after = state.assignmentConfigs().probingRebalanceIntervalMs();
        final byte[] json = AssignmentJson.write("kafka: " + kafka.assignor(), clients, probing, after);
        byte[] hostConfig;
        try {
            hostConfig = dev.assignor.bridge.HostConfig.write(config,
                BridgeSettings.assignmentSettings(state.assignmentConfigs()), dev.assignor.bridge.WorkDirectory.get())
                .bytes();
        } catch (final BridgeException e) {
            hostConfig = ("# the bridge's config could not be written: " + e.getMessage() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        }
        record(file, state, hostConfig, json, kafka.assignor(), probing, standbys, 0,
            "not told apart (Kafka's assignor: warmups inside standby)", reason, message, now, totalMs, Double.NaN);
    }

    private void record(final ClusterFile file, final ApplicationState state, final byte[] config,
                        final byte[] decision, final String decidedBy,
                        final boolean probing, final int standbys, final int warmups, final String warmupsToldApart,
                        final FallbackReason reason, final String message, final Instant now, final double totalMs,
                        final double strategyMs) {
        final BridgeConfig c = settings.config();
        if (c == null || c.recordDir().isEmpty()) {
            return;
        }
        BridgeCore.record(c, c.recordDir().get(), new DecisionRecord.Decision(now,
            "kafka-streams bridge, application " + settings.applicationId(), "bridge-kafka-streams", file.json(),
            config, decision, file.clientCount(), file.taskCount(), file.loggedTasks(), probing, standbys, warmups,
            state.assignmentConfigs().numStandbyReplicas(), "the application's Streams config", warmupsToldApart, decidedBy, reason, message,
            totalMs, strategyMs), LOG);
    }
}
