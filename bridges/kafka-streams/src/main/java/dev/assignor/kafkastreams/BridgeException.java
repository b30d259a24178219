package dev.assignor.kafkastreams;

/**
 * Why the bridge could not use the strategy's answer for one rebalance: the message is the one line
 * the application's log gets before Kafka's own assignment is used instead. Say what failed and,
 * where there is one, what to change ("assignor.command: no such file ...").
 */
public final class BridgeException extends Exception {
    private static final long serialVersionUID = 1L;

    public BridgeException(final String message) {
        super(message);
    }

    public BridgeException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
