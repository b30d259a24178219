package dev.assignor.kafkastreams;

import dev.assignor.bridge.AssignmentSettings;
import dev.assignor.bridge.BridgeConfig;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The bridge's Streams config keys (the {@code assignor.*} keys of {@link BridgeConfig}, read from the
 * application's configs with Kafka's {@link ConfigDef}). Reading never throws: Kafka Streams
 * instantiates and configures the task assignor at every rebalance on the group leader, so a bad value
 * must not kill the leader's thread. A problem is kept and reported (one warning line, then Kafka's own
 * assignment) when the bridge is asked to assign.
 */
public final class BridgeSettings {
    public static final String COMMAND = BridgeConfig.COMMAND_CONFIG;
    public static final String STRATEGY = BridgeConfig.STRATEGY_CONFIG;
    public static final String CONFIG = BridgeConfig.CONFIG_FILE_CONFIG;
    public static final String PLUGIN_PATH = BridgeConfig.PLUGIN_PATH_CONFIG;
    public static final String TIMEOUT_MS = BridgeConfig.TIMEOUT_MS_CONFIG;
    public static final String HOST_MODE = BridgeConfig.HOST_MODE_CONFIG;
    public static final String RECORD_DIR = BridgeConfig.RECORD_DIR_CONFIG;
    public static final String RECORD_MAX_DECISIONS = BridgeConfig.RECORD_MAX_DECISIONS_CONFIG;

    /** The keys and their documentation (docs/bridge.md's table is generated from it). */
    public static final ConfigDef CONFIG_DEF = BridgeConfig.baseDefinition(BridgeConfig.DEFAULT_HOST_MODE);

    /** The Streams bridge's settings as Kafka's AbstractConfig reads them. */
    static final class StreamsBridgeConfig extends BridgeConfig {
        StreamsBridgeConfig(final Map<?, ?> originals) {
            super(CONFIG_DEF, originals);
        }
    }

    private final BridgeConfig.Read<StreamsBridgeConfig> read;
    private final String applicationId;

    private BridgeSettings(final BridgeConfig.Read<StreamsBridgeConfig> read, final String applicationId) {
        this.read = read;
        this.applicationId = applicationId;
    }

    public static BridgeSettings from(final Map<String, ?> configs) {
        final Object id = configs.get("application.id");
        return new BridgeSettings(BridgeConfig.read(configs, StreamsBridgeConfig::new), id == null ? "" : id.toString());
    }

    /** The settings as read (null when they could not be: {@link #problems()} says why). */
    public BridgeConfig config() {
        return read.config();
    }

    /** What is wrong with the settings; empty when the bridge can run. */
    public List<String> problems() {
        return read.problems();
    }

    public String command() {
        return read.config().command();
    }

    public Optional<String> strategy() {
        return read.config().strategy();
    }

    public Optional<Path> configFile() {
        return read.config().configFile();
    }

    public List<String> pluginPaths() {
        return read.config().pluginPaths();
    }

    public long timeoutMs() {
        return read.config().timeoutMs();
    }

    /** Kafka Streams' application.id: default changelog topics are named {@code <id>-<store>-changelog}. */
    public String applicationId() {
        return applicationId;
    }

    /** The strategy named for messages: the override, else the config file's (read by the host). */
    public String strategyForMessages() {
        return read.strategyForMessages();
    }

    /** Kafka Streams' assignment settings (all of DESIGN 2's) in the host config's terms. */
    public static AssignmentSettings assignmentSettings(final AssignmentConfigs streams) {
        return new AssignmentSettings(streams.acceptableRecoveryLag(), streams.maxWarmupReplicas(),
            streams.numStandbyReplicas(), streams.probingRebalanceIntervalMs(), streams.rackAwareAssignmentStrategy(),
            streams.rackAwareTrafficCost(), streams.rackAwareNonOverlapCost(), streams.rackAwareAssignmentTags());
    }
}
