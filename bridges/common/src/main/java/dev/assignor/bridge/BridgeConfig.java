package dev.assignor.bridge;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The settings both bridges read, as Kafka reads its own: a {@link ConfigDef} with types, defaults,
 * validators and documentation (docs/bridge.md's settings table is generated from it by
 * {@link ConfigDocs}). Kafka Streams hands the KIP-924 assignor the application's configs; the
 * broker hands the KIP-1071 assignor its own (server.properties). Reading never throws into Kafka:
 * {@link #read} turns a {@link ConfigException} into a problem, which makes every rebalance fall back
 * with one warning line that names the setting.
 */
public abstract class BridgeConfig extends AbstractConfig {
    public static final String COMMAND_CONFIG = "assignor.command";
    public static final String COMMAND_DOC = "The assignor executable: a path, or a name looked up on PATH.";
    public static final String DEFAULT_COMMAND = "assignor";

    public static final String STRATEGY_CONFIG = "assignor.strategy";
    public static final String STRATEGY_DOC = "The strategy to run (a plugin name such as least_movement); replaces "
        + "the config file's. Either this or assignor.config must name one.";

    public static final String CONFIG_FILE_CONFIG = "assignor.config";
    public static final String CONFIG_FILE_DOC = "A config file in Assignor's format (YAML): the strategy and its "
        + "parameters, fallback, plugins.paths, isolation, limits, logging. Its assignment: section is replaced by "
        + "Kafka's settings. Read again at every rebalance.";

    public static final String PLUGIN_PATH_CONFIG = "assignor.plugin.path";
    public static final String PLUGIN_PATH_DOC = "Extra plugin directories or libraries (--plugin-path each).";

    public static final String TIMEOUT_MS_CONFIG = "assignor.timeout.ms";
    public static final String TIMEOUT_MS_DOC = "How long one assignment may take (writing the request, the strategy, "
        + "reading the answer) before the host is killed and Kafka's own assignor is used.";
    public static final long DEFAULT_TIMEOUT_MS = 10_000;

    public static final String HOST_MODE_CONFIG = "assignor.host.mode";
    public static final String HOST_MODE_DOC = "worker: one resident 'assignor serve' per JVM and config, started on "
        + "first use, killed and replaced when it crashes, hangs or answers out of frame; process: one 'assignor "
        + "assign' process per rebalance.";

    public static final String RECORD_DIR_CONFIG = "assignor.record.dir";
    public static final String RECORD_DIR_DOC = "A directory in which to keep every decision (input, answer, settings, "
        + "timing) in the layout 'assignor import' writes, for 'assignor replay DIR'. None: nothing is kept.";

    public static final String RECORD_MAX_DECISIONS_CONFIG = "assignor.record.max.decisions";
    public static final String RECORD_MAX_DECISIONS_DOC = "How many decisions the record keeps; the oldest are "
        + "removed first.";
    public static final int DEFAULT_RECORD_MAX_DECISIONS = 1000;

    /**
     * The host mode when none is set: the resident {@code assignor serve} worker (a rebalance pays
     * neither a process start nor plugin loading); {@code process} stays for commands without
     * {@code serve} (older installs) and for hosts where a resident process is not wanted.
     */
    public static final String DEFAULT_HOST_MODE = "worker";

    /** How the host is run. */
    public enum HostMode {
        WORKER, PROCESS;

        static HostMode of(final String value) {
            return valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }

    protected BridgeConfig(final ConfigDef definition, final Map<?, ?> originals) {
        super(definition, originals, false);
    }

    /** The keys every bridge reads; a bridge adds its own to a copy. */
    public static ConfigDef baseDefinition(final String defaultHostMode) {
        return new ConfigDef()
            .define(STRATEGY_CONFIG, Type.STRING, null, Importance.HIGH, STRATEGY_DOC)
            .define(CONFIG_FILE_CONFIG, Type.STRING, null, Importance.HIGH, CONFIG_FILE_DOC)
            .define(COMMAND_CONFIG, Type.STRING, DEFAULT_COMMAND, new ConfigDef.NonEmptyString(), Importance.HIGH,
                COMMAND_DOC)
            .define(PLUGIN_PATH_CONFIG, Type.LIST, "", Importance.MEDIUM, PLUGIN_PATH_DOC)
            .define(TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_TIMEOUT_MS, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                TIMEOUT_MS_DOC)
            .define(HOST_MODE_CONFIG, Type.STRING, defaultHostMode,
                ConfigDef.CaseInsensitiveValidString.in("worker", "process"), Importance.MEDIUM, HOST_MODE_DOC)
            .define(RECORD_DIR_CONFIG, Type.STRING, null, Importance.LOW, RECORD_DIR_DOC)
            .define(RECORD_MAX_DECISIONS_CONFIG, Type.INT, DEFAULT_RECORD_MAX_DECISIONS, ConfigDef.Range.atLeast(1),
                Importance.LOW, RECORD_MAX_DECISIONS_DOC);
    }

    /**
     * The settings as read, or why they cannot be used: never an exception. {@code strategyForMessages}
     * names the strategy in log lines even when the settings could not be read.
     */
    public record Read<C extends BridgeConfig>(C config, List<String> problems, String strategyForMessages) {
        public boolean usable() {
            return config != null && problems.isEmpty();
        }
    }

    /** Reads {@code originals} with {@code make}; a bad value or a missing strategy is a problem, not an exception. */
    public static <C extends BridgeConfig> Read<C> read(final Map<String, ?> originals,
                                                       final Function<Map<String, ?>, C> make) {
        final C config;
        final Object raw = originals.get(STRATEGY_CONFIG);
        final String named = raw == null ? "(unreadable settings)" : String.valueOf(raw);
        try {
            config = make.apply(originals);
        } catch (final ConfigException e) {
            return new Read<>(null, List.of(e.getMessage()), named);
        } catch (final RuntimeException e) {
            return new Read<>(null, List.of("cannot read the assignor.* settings: " + e), named);
        }
        return new Read<>(config, Collections.unmodifiableList(config.problems()), config.strategyForMessages());
    }

    /** What is wrong beyond single values (the types and ranges are the ConfigDef's). */
    protected List<String> problems() {
        final List<String> problems = new ArrayList<>();
        if (strategy().isEmpty() && configFile().isEmpty()) {
            problems.add("no strategy: set " + STRATEGY_CONFIG + " (for example least_movement) or " + CONFIG_FILE_CONFIG
                + " (a config file that names one)");
        }
        return problems;
    }

    public String command() {
        return getString(COMMAND_CONFIG).trim();
    }

    public Optional<String> strategy() {
        return text(STRATEGY_CONFIG);
    }

    public Optional<Path> configFile() {
        return text(CONFIG_FILE_CONFIG).map(Paths::get);
    }

    public List<String> pluginPaths() {
        final List<String> out = new ArrayList<>();
        for (final String p : getList(PLUGIN_PATH_CONFIG)) {
            if (!p.isBlank()) {
                out.add(p.trim());
            }
        }
        return out;
    }

    public long timeoutMs() {
        return getLong(TIMEOUT_MS_CONFIG);
    }

    public HostMode hostMode() {
        return HostMode.of(getString(HOST_MODE_CONFIG));
    }

    public Optional<Path> recordDir() {
        return text(RECORD_DIR_CONFIG).map(Paths::get);
    }

    public int recordMaxDecisions() {
        return getInt(RECORD_MAX_DECISIONS_CONFIG);
    }

    /** The strategy named for messages: the override, else the config file's (read by the host). */
    public String strategyForMessages() {
        return strategy().orElseGet(() -> "the strategy of " + configFile().map(Path::toString).orElse("?"));
    }

    protected Optional<String> text(final String key) {
        final String value = getString(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }
}
