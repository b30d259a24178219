package dev.assignor.bridge;

/**
 * Why a rebalance fell back to Kafka's own assignor: one counter per reason in the metrics
 * ({@code fallbacks-<name>}), one word in the decision record.
 */
public enum FallbackReason {
    /** An invalid {@code assignor.*} setting or no strategy named. */
    SETTINGS("settings"),
    /** Kafka's state cannot be written as a cluster file (named topologies, sub-topology ids that are not numbers). */
    MAPPING("mapping"),
    /** The host could not be started (no executable, a worker that exits at start). */
    START("start"),
    /** The host crashed or exited while answering (a signal, an exit status, a closed stream). */
    CRASH("crash"),
    /** No answer within {@code assignor.timeout.ms}: the host was killed. */
    TIMEOUT("timeout"),
    /** A worker's answer broke the framing (a bad header, a short body, bytes after the frame). */
    OUT_OF_FRAME("out-of-frame"),
    /** The host refused (exit status, or a worker's {@code error CODE}): invalid input, no plugin, the strategy failed. */
    HOST_ERROR("host-error"),
    /** The answer does not fit the group (unknown client or task, a task without an active, ...). */
    INVALID_ANSWER("invalid-answer"),
    /** Anything else (a bug of the bridge's): still never an exception into Kafka. */
    INTERNAL("internal");

    private final String metricName;

    FallbackReason(final String metricName) {
        this.metricName = metricName;
    }

    /** The reason as metrics and the record name it (kebab-case, as Kafka names its metrics). */
    public String metricName() {
        return metricName;
    }
}
