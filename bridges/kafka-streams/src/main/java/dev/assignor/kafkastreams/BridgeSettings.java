package dev.assignor.kafkastreams;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The bridge's own Streams config keys, read from the application's configs. Reading never throws:
 * Kafka Streams instantiates and configures the task assignor at every rebalance on the group
 * leader, so a bad value must not kill the leader's thread. A problem is kept and reported (one
 * warning line, then Kafka's own assignment) when the bridge is asked to assign.
 */
public final class BridgeSettings {
    /** The `assignor` executable: a path, or a name looked up on PATH. */
    public static final String COMMAND = "assignor.command";
    /** The strategy to run (`assignor assign --strategy`); overrides the config file's. */
    public static final String STRATEGY = "assignor.strategy";
    /** A config file in Assignor's format (YAML): strategy, its parameters, plugins, limits. */
    public static final String CONFIG = "assignor.config";
    /** Extra plugin directories or libraries, comma-separated (`--plugin-path` each). */
    public static final String PLUGIN_PATH = "assignor.plugin.path";
    /** Wall-clock limit for one run of the strategy, then the child is killed. */
    public static final String TIMEOUT_MS = "assignor.timeout.ms";

    static final String DEFAULT_COMMAND = "assignor";
    static final long DEFAULT_TIMEOUT_MS = 10_000;

    private final String command;
    private final Optional<String> strategy;
    private final Optional<Path> configFile;
    private final List<String> pluginPaths;
    private final long timeoutMs;
    private final String applicationId;
    private final List<String> problems;

    private BridgeSettings(final String command, final Optional<String> strategy, final Optional<Path> configFile,
                           final List<String> pluginPaths, final long timeoutMs, final String applicationId,
                           final List<String> problems) {
        this.command = command;
        this.strategy = strategy;
        this.configFile = configFile;
        this.pluginPaths = pluginPaths;
        this.timeoutMs = timeoutMs;
        this.applicationId = applicationId;
        this.problems = problems;
    }

    public static BridgeSettings from(final Map<String, ?> configs) {
        final List<String> problems = new ArrayList<>();
        final String command = text(configs, COMMAND, problems).orElse(DEFAULT_COMMAND);
        final Optional<String> strategy = text(configs, STRATEGY, problems);
        final Optional<Path> configFile = text(configs, CONFIG, problems).map(Paths::get);
        final List<String> pluginPaths = new ArrayList<>();
        text(configs, PLUGIN_PATH, problems).ifPresent(value -> {
            for (final String part : value.split(",")) {
                if (!part.isBlank()) {
                    pluginPaths.add(part.trim());
                }
            }
        });
        long timeoutMs = DEFAULT_TIMEOUT_MS;
        final Optional<String> timeout = text(configs, TIMEOUT_MS, problems);
        if (timeout.isPresent()) {
            try {
                timeoutMs = Long.parseLong(timeout.get().trim());
                if (timeoutMs < 1) {
                    problems.add(TIMEOUT_MS + ": must be >= 1, got " + timeoutMs);
                    timeoutMs = DEFAULT_TIMEOUT_MS;
                }
            } catch (final NumberFormatException e) {
                problems.add(TIMEOUT_MS + ": expected a number of milliseconds, got '" + timeout.get() + "'");
            }
        }
        if (strategy.isEmpty() && configFile.isEmpty()) {
            problems.add("no strategy: set " + STRATEGY + " (for example least_movement) or " + CONFIG
                + " (a config file that names one)");
        }
        final String applicationId = text(configs, "application.id", problems).orElse("");
        return new BridgeSettings(command, strategy, configFile, Collections.unmodifiableList(pluginPaths), timeoutMs,
            applicationId, Collections.unmodifiableList(problems));
    }

    private static Optional<String> text(final Map<String, ?> configs, final String key, final List<String> problems) {
        final Object value = configs.get(key);
        if (value == null) {
            return Optional.empty();
        }
        if (value instanceof String || value instanceof Number) {
            final String s = value.toString();
            return s.isBlank() ? Optional.empty() : Optional.of(s);
        }
        if (value instanceof Path) {
            return Optional.of(value.toString());
        }
        if (value instanceof List) {  // Kafka's ConfigDef LIST values arrive as lists
            final List<String> parts = new ArrayList<>();
            for (final Object part : (List<?>) value) {
                parts.add(String.valueOf(part));
            }
            return parts.isEmpty() ? Optional.empty() : Optional.of(String.join(",", parts));
        }
        problems.add(key + ": expected a string, got a " + value.getClass().getSimpleName());
        return Optional.empty();
    }

    public String command() {
        return command;
    }

    public Optional<String> strategy() {
        return strategy;
    }

    public Optional<Path> configFile() {
        return configFile;
    }

    public List<String> pluginPaths() {
        return pluginPaths;
    }

    public long timeoutMs() {
        return timeoutMs;
    }

    /** Kafka Streams' application.id: default changelog topics are named {@code <id>-<store>-changelog}. */
    public String applicationId() {
        return applicationId;
    }

    /** What is wrong with the settings; empty when the bridge can run. */
    public List<String> problems() {
        return problems;
    }

    /** The strategy named for messages: the override, else the config file's (read by the host). */
    public String strategyForMessages() {
        return strategy.orElseGet(() -> "the strategy of " + configFile.map(Path::toString).orElse("?"));
    }
}
