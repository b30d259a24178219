package dev.assignor.kafkabroker;

import dev.assignor.bridge.AssignmentSettings;
import dev.assignor.bridge.BridgeConfig;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The broker bridge's settings. The broker instantiates each class of {@code group.streams.assignors}
 * once and, since it is {@code Configurable}, hands it the broker's own configs (server.properties:
 * {@code AbstractConfig.originals()}); the {@code assignor.*} keys are read from there with Kafka's
 * {@link ConfigDef}, never throwing (a bad value is a problem: every rebalance falls back with one
 * WARN line naming it). Kafka's assignment settings come per group from {@link GroupSpec#configs()}
 * ({@code num.standby.replicas}, {@code rack.aware.assignment.tags}: the group's
 * {@code streams.num.standby.replicas} over the broker's default), and from the broker's
 * {@code group.streams.acceptable.recovery.lag} and {@code group.streams.num.warmup.replicas} (the
 * per-group overrides of these two never reach an assignor in Kafka 4.4).
 */
final class BrokerSettings {
    /** The keys and their documentation (docs/bridge.md's table is generated from it). */
    static final ConfigDef CONFIG_DEF = BridgeConfig.baseDefinition(BridgeConfig.DEFAULT_HOST_MODE);

    static final String ACCEPTABLE_RECOVERY_LAG = "group.streams.acceptable.recovery.lag";
    static final String NUM_WARMUP_REPLICAS = "group.streams.num.warmup.replicas";
    static final long DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000L;
    static final int DEFAULT_NUM_WARMUP_REPLICAS = 2;
    /** Kafka Streams' default: a KIP-1071 group has no probing rebalance, so only strategies' inner rules see it. */
    static final long PROBING_REBALANCE_INTERVAL_MS = 600_000L;

    static final class Config extends BridgeConfig {
        Config(final Map<?, ?> originals) {
            super(CONFIG_DEF, originals);
        }
    }

    private final BridgeConfig.Read<Config> read;
    private final long acceptableRecoveryLag;
    private final int numWarmupReplicas;

    private BrokerSettings(final BridgeConfig.Read<Config> read, final long acceptableRecoveryLag,
                           final int numWarmupReplicas) {
        this.read = read;
        this.acceptableRecoveryLag = acceptableRecoveryLag;
        this.numWarmupReplicas = numWarmupReplicas;
    }

    static BrokerSettings from(final Map<String, ?> configs) {
        return new BrokerSettings(BridgeConfig.read(configs, Config::new),
            number(configs.get(ACCEPTABLE_RECOVERY_LAG), DEFAULT_ACCEPTABLE_RECOVERY_LAG),
            (int) number(configs.get(NUM_WARMUP_REPLICAS), DEFAULT_NUM_WARMUP_REPLICAS));
    }

    /** The broker validated its own keys; a value it did not (none given) takes Kafka's default. */
    private static long number(final Object value, final long defaultValue) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return value == null ? defaultValue : Long.parseLong(value.toString().trim());
        } catch (final NumberFormatException e) {
            return defaultValue;
        }
    }

    BridgeConfig config() {
        return read.config();
    }

    List<String> problems() {
        return read.problems();
    }

    String strategyForMessages() {
        return read.strategyForMessages();
    }

    /** The group's settings (standbys, tags) and the broker's (recovery lag, warmups) in the host config's terms. */
    AssignmentSettings assignmentSettings(final GroupSpec spec) {
        return new AssignmentSettings(acceptableRecoveryLag, numWarmupReplicas, spec.configs().numStandbyReplicas(),
            PROBING_REBALANCE_INTERVAL_MS, "none", OptionalInt.empty(), OptionalInt.empty(),
            spec.configs().rackAwareAssignmentTags());
    }
}
