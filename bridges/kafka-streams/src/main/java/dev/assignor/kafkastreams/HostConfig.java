package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The config file the host runs with (DESIGN 4.2): the user's {@code assignor.config} when there is
 * one, with the strategy of {@code assignor.strategy}, and the {@code assignment:} settings taken
 * from the application's own Streams config (acceptable.recovery.lag, max.warmup.replicas,
 * num.standby.replicas, probing.rebalance.interval.ms, rack.aware.assignment.*): the application
 * decides how many standbys it has, not a second file. Relative plugin paths are made absolute
 * (they are relative to the user's file, and the written file lives elsewhere). Written as JSON
 * (valid YAML) under a name made from its content, so an unchanged config is written once.
 */
final class HostConfig {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;
    private final List<String> replacedSettings;

    private HostConfig(final Path path, final List<String> replacedSettings) {
        this.path = path;
        this.replacedSettings = replacedSettings;
    }

    /** The file to pass as {@code --config}. */
    Path path() {
        return path;
    }

    /** Settings of the user's file that the application's Streams config replaced ("key: file -> streams"). */
    List<String> replacedSettings() {
        return replacedSettings;
    }

    static HostConfig write(final BridgeSettings settings, final AssignmentConfigs streams, final Path directory)
        throws BridgeException {
        final ObjectNode config = settings.configFile().isPresent()
            ? readUserConfig(settings.configFile().get())
            : JsonNodeFactory.instance.objectNode();
        settings.strategy().ifPresent(s -> config.put("strategy", s));
        final ObjectNode assignment = assignmentSettings(streams);
        final List<String> replaced = new ArrayList<>();
        final JsonNode before = config.get("assignment");
        if (before != null && before.isObject()) {
            before.properties().forEach(e -> {
                final JsonNode now = assignment.get(e.getKey());
                if (now == null || !now.equals(e.getValue())) {
                    replaced.add("assignment." + e.getKey() + ": " + e.getValue() + " -> "
                        + (now == null ? "(Kafka's default)" : now));
                }
            });
        }
        config.set("assignment", assignment);
        absolutePluginPaths(config, settings);

        final byte[] bytes;
        try {
            bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(config);
        } catch (final IOException e) {
            throw new BridgeException("could not write the host's config: " + e.getMessage(), e);
        }
        final Path path = directory.resolve("config-" + digest(bytes) + ".json");
        if (!Files.exists(path)) {
            try {
                final Path partial = Files.createTempFile(directory, "config-", ".partial");
                Files.write(partial, bytes);
                Files.move(partial, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (final IOException e) {
                throw new BridgeException("could not write the host's config to " + directory + ": " + e, e);
            }
        }
        return new HostConfig(path, replaced);
    }

    private static ObjectNode readUserConfig(final Path file) throws BridgeException {
        final JsonNode tree;
        try {
            tree = YAML.readTree(file.toFile());
        } catch (final IOException e) {
            throw new BridgeException(BridgeSettings.CONFIG + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        if (tree == null || !tree.isObject()) {
            throw new BridgeException(BridgeSettings.CONFIG + ": " + file + " is not a YAML mapping");
        }
        return (ObjectNode) tree;
    }

    /** Kafka's settings under Assignor's names (DESIGN 4.2; the same defaults). */
    static ObjectNode assignmentSettings(final AssignmentConfigs streams) {
        final ObjectNode a = JsonNodeFactory.instance.objectNode();
        a.put("acceptable_recovery_lag", streams.acceptableRecoveryLag());
        a.put("max_warmup_replicas", streams.maxWarmupReplicas());
        a.put("num_standby_replicas", streams.numStandbyReplicas());
        a.put("probing_rebalance_interval_ms", streams.probingRebalanceIntervalMs());
        final ObjectNode rack = a.putObject("rack_aware");
        rack.put("strategy", streams.rackAwareAssignmentStrategy());
        streams.rackAwareTrafficCost().ifPresent(c -> rack.put("traffic_cost", c));
        streams.rackAwareNonOverlapCost().ifPresent(c -> rack.put("non_overlap_cost", c));
        final ArrayNode tags = rack.putArray("tags");
        streams.rackAwareAssignmentTags().forEach(tags::add);
        return a;
    }

    private static void absolutePluginPaths(final ObjectNode config, final BridgeSettings settings) {
        final JsonNode plugins = config.get("plugins");
        if (plugins == null || !plugins.isObject() || settings.configFile().isEmpty()) {
            return;
        }
        final JsonNode paths = plugins.get("paths");
        if (paths == null || !paths.isArray()) {
            return;  // the host says what is wrong with it
        }
        final Path base = settings.configFile().get().toAbsolutePath().getParent();
        final ArrayNode absolute = JsonNodeFactory.instance.arrayNode();
        for (final JsonNode p : paths) {
            absolute.add(p.isTextual() ? base.resolve(p.asText()).normalize().toString() : p.toString());
        }
        ((ObjectNode) plugins).set("paths", absolute);
    }

    private static String digest(final byte[] bytes) {
        try {
            final byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            final StringBuilder s = new StringBuilder();
            for (int i = 0; i < 8; ++i) {
                s.append(String.format("%02x", d[i]));
            }
            return s.toString();
        } catch (final NoSuchAlgorithmException e) {
            return Integer.toHexString(new String(bytes, StandardCharsets.UTF_8).hashCode());
        }
    }
}
