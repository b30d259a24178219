package dev.assignor.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

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
 * from Kafka's (the application's Streams config, or the group's and the broker's settings): Kafka
 * decides how many standbys a group has, not a second file. Relative plugin paths are made absolute
 * (they are relative to the user's file, and the written file lives elsewhere). Written as JSON
 * (valid YAML) under a name made from its content, so an unchanged config is written once.
 */
public final class HostConfig {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;
    private final byte[] bytes;
    private final List<String> replacedSettings;

    private HostConfig(final Path path, final byte[] bytes, final List<String> replacedSettings) {
        this.path = path;
        this.bytes = bytes;
        this.replacedSettings = replacedSettings;
    }

    /** The file to pass as {@code --config}. */
    public Path path() {
        return path;
    }

    /** Its content (JSON, which is valid YAML): what the decision record keeps as NAME.config.yaml. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Settings of the user's file that Kafka's settings replaced ("key: file -> kafka"). */
    public List<String> replacedSettings() {
        return replacedSettings;
    }

    public static HostConfig write(final BridgeConfig settings, final AssignmentSettings kafka, final Path directory)
        throws BridgeException {
        final ObjectNode config = settings.configFile().isPresent()
            ? readUserConfig(settings.configFile().get())
            : JsonNodeFactory.instance.objectNode();
        settings.strategy().ifPresent(s -> config.put("strategy", s));
        final ObjectNode assignment = assignmentSettings(kafka);
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
            throw new BridgeException(FallbackReason.INTERNAL, "could not write the host's config: " + e.getMessage(), e);
        }
        final Path path = directory.resolve("config-" + digest(bytes) + ".json");
        if (!Files.exists(path)) {
            try {
                final Path partial = Files.createTempFile(directory, "config-", ".partial");
                Files.write(partial, bytes);
                Files.move(partial, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (final IOException e) {
                throw new BridgeException(FallbackReason.START, "could not write the host's config to " + directory + ": " + e, e);
            }
        }
        return new HostConfig(path, bytes, replaced);
    }

    private static ObjectNode readUserConfig(final Path file) throws BridgeException {
        final JsonNode tree;
        try {
            tree = YAML.readTree(file.toFile());
        } catch (final IOException e) {
            throw new BridgeException(FallbackReason.SETTINGS, BridgeConfig.CONFIG_FILE_CONFIG + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        if (tree == null || !tree.isObject()) {
            throw new BridgeException(FallbackReason.SETTINGS, BridgeConfig.CONFIG_FILE_CONFIG + ": " + file
                + " is not a YAML mapping");
        }
        return (ObjectNode) tree;
    }

    /** Kafka's settings under Assignor's names (DESIGN 4.2; the same defaults). */
    static ObjectNode assignmentSettings(final AssignmentSettings kafka) {
        final ObjectNode a = JsonNodeFactory.instance.objectNode();
        a.put("acceptable_recovery_lag", kafka.acceptableRecoveryLag());
        a.put("max_warmup_replicas", kafka.maxWarmupReplicas());
        a.put("num_standby_replicas", kafka.numStandbyReplicas());
        a.put("probing_rebalance_interval_ms", kafka.probingRebalanceIntervalMs());
        final ObjectNode rack = a.putObject("rack_aware");
        rack.put("strategy", kafka.rackAwareStrategy());
        kafka.trafficCost().ifPresent(c -> rack.put("traffic_cost", c));
        kafka.nonOverlapCost().ifPresent(c -> rack.put("non_overlap_cost", c));
        final ArrayNode tags = rack.putArray("tags");
        kafka.rackAwareTags().forEach(tags::add);
        return a;
    }

    private static void absolutePluginPaths(final ObjectNode config, final BridgeConfig settings) {
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
