package dev.assignor.bridge;

import org.slf4j.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One rebalance through the host, the part both bridges share: the host's config written from the
 * settings and Kafka's, the cluster file handed to the host (worker or process), the answer read and
 * checked against the group; then the metrics, the decision record and the log lines. Each bridge
 * maps Kafka's state to the cluster file and the answer back to Kafka's types itself.
 */
public final class BridgeCore {
    /** Host stderr lines relayed to the log per run, at most. */
    private static final int RELAYED_LINES = 10;

    /** One run of the strategy: the config it ran with, its answer's bytes and the answer as read. */
    public record Outcome(HostConfig config, byte[] answer, AnswerReader.Parsed parsed) {
    }

    private BridgeCore() {
    }

    /**
     * Runs the strategy on {@code cluster}. A refusal by the host or an answer that does not fit keeps
     * the input in the work directory (for {@code assignor assign --cluster FILE}) and says where.
     */
    public static Outcome run(final BridgeConfig settings, final AssignmentSettings kafka, final byte[] cluster,
                              final AnswerReader.Shape shape, final Logger log) throws BridgeException {
        final HostConfig config = HostConfig.write(settings, kafka, WorkDirectory.get());
        if (!config.replacedSettings().isEmpty()) {
            log.info("Assignor bridge: Kafka's settings replace {} of {}: {}", config.replacedSettings().size(),
                settings.configFile().orElse(null), config.replacedSettings());
        }
        final StrategyHost.Answer answer;
        try {
            answer = StrategyHost.of(settings).assign(cluster, config, settings);
        } catch (final BridgeException e) {
            throw withInput(e, cluster);
        }
        relay(log, answer.hostLines());
        try {
            return new Outcome(config, answer.json(), AnswerReader.read(answer.json(), shape));
        } catch (final BridgeException e) {
            throw withInput(e, cluster);
        }
    }

    /** The host's warnings (suspect local state, its own fallback) go to the log, at INFO. */
    public static void relay(final Logger log, final List<String> lines) {
        int relayed = 0;
        for (final String line : lines) {
            if (relayed == RELAYED_LINES) {
                log.info("Assignor bridge: host: ... {} more lines", lines.size() - relayed);
                return;
            }
            log.info("Assignor bridge: host: {}", line);
            ++relayed;
        }
    }

    /** Keeps the decision when the settings ask for a record; a record that cannot be written is one WARN line. */
    public static void record(final BridgeConfig settings, final Path dir, final DecisionRecord.Decision decision,
                              final Logger log) {
        if (dir == null) {
            return;
        }
        try {
            new DecisionRecord(dir, settings.recordMaxDecisions()).keep(decision);
        } catch (final IOException | RuntimeException e) {
            log.warn("Assignor bridge: could not keep this decision in {} ({}): {}", dir,
                BridgeConfig.RECORD_DIR_CONFIG, e.toString());
        }
    }

    /** The message of any failure, for the one warning line. */
    public static String describe(final Throwable e) {
        if (e instanceof BridgeException) {
            return e.getMessage();
        }
        return e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    public static FallbackReason reason(final Throwable e) {
        return e instanceof BridgeException b ? b.reason() : FallbackReason.INTERNAL;
    }

    private static BridgeException withInput(final BridgeException e, final byte[] cluster) {
        if (e.reason() != FallbackReason.HOST_ERROR && e.reason() != FallbackReason.INVALID_ANSWER
            && e.reason() != FallbackReason.CRASH && e.reason() != FallbackReason.TIMEOUT
            && e.reason() != FallbackReason.OUT_OF_FRAME) {
            return e;
        }
        try {
            final Path path = Files.createTempFile(WorkDirectory.get(), "failed-", ".cluster.json");
            Files.write(path, cluster);
            return new BridgeException(e.reason(), e.getMessage() + "; its input is in " + path, e.getCause());
        } catch (final IOException | BridgeException kept) {
            return e;
        }
    }
}
