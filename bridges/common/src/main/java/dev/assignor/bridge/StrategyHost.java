package dev.assignor.bridge;

import java.util.List;

/**
 * Where the strategy runs: a resident worker ({@link WorkerHost}, {@code assignor serve}) or a child
 * process per request ({@link ProcessHost}, {@code assignor assign}). Either way the strategy is in
 * another process (it can crash, hang or misbehave without touching Kafka's JVM), and the caller gets
 * the host's answer (DESIGN 4.4) or a {@link BridgeException} whose reason says what went wrong.
 */
public interface StrategyHost {
    /** The answer's bytes, and what the host said on its standard error meanwhile (warnings). */
    record Answer(byte[] json, List<String> hostLines) {
    }

    Answer assign(byte[] cluster, HostConfig config, BridgeConfig settings) throws BridgeException;

    /** The host for these settings: the JVM's worker host, or the process host. */
    static StrategyHost of(final BridgeConfig settings) {
        return settings.hostMode() == BridgeConfig.HostMode.WORKER ? WorkerHost.shared() : ProcessHost.INSTANCE;
    }

    /** What an exit status (or a worker's error code) of the host means (DESIGN 4.3). */
    static String meaning(final int exitCode) {
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

    /** The first line the host wrote as an error, else the first line, for one-line messages. */
    static String summary(final List<String> lines) {
        String first = null;
        for (final String line : lines) {
            final String l = line.strip();
            if (l.isEmpty()) {
                continue;
            }
            if (l.contains("error")) {
                return l;
            }
            if (first == null) {
                first = l;
            }
        }
        return first == null ? "(nothing on stderr)" : first;
    }
}
