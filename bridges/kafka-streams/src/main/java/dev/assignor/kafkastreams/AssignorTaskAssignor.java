package dev.assignor.kafkastreams;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs an Assignor strategy as a Kafka Streams task assignor (KIP-924). In the application's
 * config:
 * <pre>
 * task.assignor.class=dev.assignor.kafkastreams.AssignorTaskAssignor
 * assignor.strategy=least_movement
 * assignor.command=/opt/assignor/bin/assignor
 * </pre>
 * At every rebalance the group leader writes the application's state as a cluster file
 * ({@link ClusterFile}), runs {@code assignor assign} on it in a child process (the strategy can
 * crash, hang or misbehave without touching the application), reads the answer back
 * ({@link Answer}) and hands it to Kafka Streams. Whatever goes wrong (no executable, a crash, a
 * timeout, an invalid answer, a bad setting), the rebalance still completes: one warning line says
 * why, and Kafka's own assignment is used for that rebalance ({@link KafkaOwnAssignment}).
 *
 * <p>Kafka Streams creates and configures a new instance at every rebalance, on the leader only.
 */
public final class AssignorTaskAssignor implements TaskAssignor {
    private static final Logger LOG = LoggerFactory.getLogger(AssignorTaskAssignor.class);
    /** Host stderr lines relayed to the log per run, at most. */
    private static final int RELAYED_LINES = 10;

    private BridgeSettings settings = BridgeSettings.from(Map.of());

    @Override
    public void configure(final Map<String, ?> configs) {
        settings = BridgeSettings.from(configs);
    }

    @Override
    public TaskAssignment assign(final ApplicationState applicationState) {
        final long start = System.nanoTime();
        final Instant now = Instant.now();
        try {
            final Run run = runStrategy(applicationState, now);
            final double totalMs = (System.nanoTime() - start) / 1e6;
            LOG.info("Assignor bridge: strategy {} assigned {} tasks ({} with a changelog) to {} processes: {} active, "
                    + "{} standby, {} warmup, {}; {} ms in all, {} ms in the strategy",
                run.answer.strategy(), run.file.taskCount(), run.file.loggedTasks(), run.file.processOrder().size(),
                run.answer.actives(), run.answer.standbys(), run.answer.warmups(),
                run.answer.probing() ? "probing rebalance in " + run.answer.probingAfterMs() + " ms"
                    : "no probing rebalance",
                String.format("%.1f", totalMs), String.format("%.1f", run.answer.assignMs()));
            return run.answer.assignment();
        } catch (final BridgeException | RuntimeException | LinkageError e) {
            final KafkaOwnAssignment.Result kafka = KafkaOwnAssignment.assign(applicationState, now);
            LOG.warn("Assignor bridge: strategy {} not used for this rebalance: {}; using {} instead",
                settings.strategyForMessages(), describe(e), kafka.assignor());
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

    /** One run of the strategy: the file it was given and its answer. */
    record Run(ClusterFile file, Answer answer) {
    }

    /** The strategy's assignment, or why it cannot be used (no fallback here: {@link #assign} does that). */
    Run runStrategy(final ApplicationState state, final Instant now) throws BridgeException {
        if (!settings.problems().isEmpty()) {
            throw new BridgeException(String.join("; ", settings.problems()));
        }
        final HostConfig config = HostConfig.write(settings, state.assignmentConfigs(), WorkDirectory.get());
        if (!config.replacedSettings().isEmpty()) {
            LOG.info("Assignor bridge: the application's Streams config replaces {} of {}: {}",
                config.replacedSettings().size(), settings.configFile().orElse(null), config.replacedSettings());
        }
        final ClusterFile file = ClusterFile.of(state, settings.applicationId());
        final List<String> command = new ArrayList<>(List.of(settings.command(), "assign", "--config",
            config.path().toString(), "--cluster", "-", "--format", "json"));
        settings.strategy().ifPresent(s -> command.addAll(List.of("--strategy", s)));
        for (final String path : settings.pluginPaths()) {
            command.addAll(List.of("--plugin-path", path));
        }
        final HostProcess.Result result = HostProcess.run(command, file.json(), settings.timeoutMs());
        relay(result.stderr());
        if (result.exitCode() != 0) {
            final Path kept = keep(file);
            throw new BridgeException("assignor exited with status " + result.exitCode() + " ("
                + meaning(result.exitCode()) + "): " + result.stderrSummary()
                + (kept == null ? "" : "; its input is in " + kept));
        }
        try {
            return new Run(file, Answer.read(result.stdout(), file, state, now));
        } catch (final BridgeException e) {
            final Path kept = keep(file);
            throw new BridgeException(e.getMessage() + (kept == null ? "" : "; its input is in " + kept), e);
        }
    }

    private static String meaning(final int exitCode) {
        switch (exitCode) {
            case 2:
                return "invalid input, config or arguments";
            case 3:
                return "a plugin could not be loaded or the strategy does not exist";
            case 4:
                return "the strategy failed or returned an invalid assignment";
            default:
                return exitCode > 128 ? "killed by signal " + (exitCode - 128) : "unexpected";
        }
    }

    /** The host's warnings (suspect local state, its own fallback) go to the application's log. */
    private static void relay(final String stderr) {
        int relayed = 0;
        int dropped = 0;
        for (final String line : stderr.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (relayed < RELAYED_LINES) {
                LOG.info("Assignor bridge: host: {}", line.strip());
                ++relayed;
            } else {
                ++dropped;
            }
        }
        if (dropped > 0) {
            LOG.info("Assignor bridge: host: ... {} more lines", dropped);
        }
    }

    /** The cluster file of a failed run, kept so that `assignor assign` can reproduce the failure. */
    private static Path keep(final ClusterFile file) {
        try {
            final Path path = Files.createTempFile(WorkDirectory.get(), "failed-", ".cluster.json");
            Files.write(path, file.json());
            return path;
        } catch (final IOException | BridgeException e) {
            return null;
        }
    }

    private static String describe(final Throwable e) {
        if (e instanceof BridgeException) {
            return e.getMessage();
        }
        return e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
