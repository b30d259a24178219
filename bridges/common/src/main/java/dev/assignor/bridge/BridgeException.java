package dev.assignor.bridge;

/**
 * Why a bridge could not use the strategy's answer for one rebalance: the message is the one line
 * the log gets before Kafka's own assignment is used instead. Say what failed and, where there is
 * one, what to change ("assignor.command: no such file ..."). The reason counts in the metrics.
 */
public final class BridgeException extends Exception {
    private static final long serialVersionUID = 1L;

    private final FallbackReason reason;

    public BridgeException(final FallbackReason reason, final String message) {
        super(message);
        this.reason = reason;
    }

    public BridgeException(final FallbackReason reason, final String message, final Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public FallbackReason reason() {
        return reason;
    }
}
