package dev.assignor.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every decision a bridge makes, kept in a bounded, rotating directory in the layout
 * {@code assignor import} writes (docs/formats.md), so that {@code assignor replay DIR} reads a
 * deployment's own history: per decision {@code NAME.cluster.json} (the input), {@code NAME.config.yaml}
 * (the settings the host ran with; JSON, which is YAML), {@code NAME.kafka.json} (what was decided: the
 * strategy's answer, or Kafka's own assignor's when the bridge fell back), and one {@code index.json}
 * whose entries carry the import's fields plus the bridge's own ({@code decided_by},
 * {@code fallback_reason}, {@code fallback_message}, {@code total_ms}, {@code strategy_ms}). Names are
 * {@code rebalance-NNNNNN}, increasing across restarts; beyond {@code max} decisions the oldest go. Each
 * file is written whole, then renamed; the index is updated under a file lock, so instances of an
 * application that share the directory (leaders change) add to one history.
 */
public final class DecisionRecord {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern NAME = Pattern.compile("rebalance-(\\d+)");
    private static final Map<Path, Object> LOCKS = new ConcurrentHashMap<>();

    /** One decision: the files' contents and the index entry's facts. */
    public record Decision(Instant time, String source, String variant, byte[] cluster, byte[] config,
                           byte[] decision, int clients, int tasks, int loggedTasks, boolean probing, int standbys,
                           int warmups, int numStandbyReplicas, String settingsFrom, String warmupsToldApart,
                           String decidedBy, FallbackReason fallbackReason, String fallbackMessage, double totalMs,
                           double strategyMs) {
    }

    private final Path dir;
    private final int max;

    public DecisionRecord(final Path dir, final int max) {
        this.dir = dir.toAbsolutePath();
        this.max = max;
    }

    public Path dir() {
        return dir;
    }

    /** Adds one decision (and drops the oldest beyond the bound); its name. */
    public String keep(final Decision d) throws IOException {
        Files.createDirectories(dir);
        synchronized (LOCKS.computeIfAbsent(dir, k -> new Object())) {
            try (FileChannel lockFile = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE)) {
                final FileLock lock = lockFile.lock();  // released when the channel closes
                assert lock.isValid();
                final ObjectNode index = readIndex();
                final ArrayNode rebalances = (ArrayNode) index.get("rebalances");
                long last = 0;
                for (final JsonNode e : rebalances) {
                    final Matcher m = NAME.matcher(e.path("name").asText());
                    if (m.matches()) {
                        last = Math.max(last, Long.parseLong(m.group(1)));
                    }
                }
                final String name = String.format("rebalance-%06d", last + 1);
                write(name + ".cluster.json", d.cluster());
                write(name + ".config.yaml", d.config());
                write(name + ".kafka.json", d.decision());
                rebalances.add(entry(name, d));
                while (rebalances.size() > max) {
                    final String old = rebalances.get(0).path("name").asText();
                    rebalances.remove(0);
                    if (NAME.matcher(old).matches()) {
                        for (final String kind : new String[] {".cluster.json", ".config.yaml", ".kafka.json"}) {
                            Files.deleteIfExists(dir.resolve(old + kind));
                        }
                    }
                }
                write("index.json", JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(index));
                return name;
            }
        }
    }

    private ObjectNode readIndex() {
        final Path path = dir.resolve("index.json");
        if (Files.exists(path)) {
            try {
                final JsonNode read = JSON.readTree(path.toFile());
                if (read != null && read.isObject() && read.path("rebalances").isArray()) {
                    return (ObjectNode) read;
                }
            } catch (final IOException e) {
                // a damaged index is replaced by a new one (the decisions' own files stay)
            }
        }
        final ObjectNode index = JSON.createObjectNode();
        index.put("version", 1);
        index.put("kafka_assignor", "assignor bridge");
        index.putArray("rebalances");
        index.putArray("warnings");
        index.put("duplicates_skipped", 0);
        return index;
    }

    private static ObjectNode entry(final String name, final Decision d) {
        final ObjectNode e = JSON.createObjectNode();
        e.put("name", name);
        e.put("timestamp", d.time().toString());
        e.put("time_ms", d.time().toEpochMilli());
        e.put("source", d.source());
        e.put("instance", ManagementFactory.getRuntimeMXBean().getName());
        e.put("kafka_variant", d.variant());
        e.put("clients", d.clients());
        e.put("tasks", d.tasks());
        e.put("logged_tasks", d.loggedTasks());
        e.put("probing", d.probing());
        e.put("standbys", d.standbys());
        e.put("warmups", d.warmups());
        e.put("settings_from", d.settingsFrom());
        e.put("num_standby_replicas", d.numStandbyReplicas());
        e.put("num_standby_replicas_inferred", false);
        e.put("warmups_told_apart", d.warmupsToldApart());
        e.put("warmups_chosen_by_lag_among_equals", 0);
        e.putArray("notes");
        e.put("decided_by", d.decidedBy());
        if (d.fallbackReason() == null) {
            e.putNull("fallback_reason");
            e.putNull("fallback_message");
        } else {
            e.put("fallback_reason", d.fallbackReason().metricName());
            e.put("fallback_message", d.fallbackMessage());
        }
        e.put("total_ms", Math.round(d.totalMs() * 1000) / 1000.0);
        if (Double.isNaN(d.strategyMs())) {
            e.putNull("strategy_ms");
        } else {
            e.put("strategy_ms", d.strategyMs());
        }
        return e;
    }

    private void write(final String file, final byte[] bytes) throws IOException {
        final Path partial = Files.createTempFile(dir, ".partial-", ".tmp");
        try {
            Files.write(partial, bytes);
            Files.move(partial, dir.resolve(file), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }
}
