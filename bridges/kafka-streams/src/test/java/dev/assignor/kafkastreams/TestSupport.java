package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Paths the build hands the tests (system properties set by the pom), and small helpers. */
public final class TestSupport {
    public static final ObjectMapper JSON = new ObjectMapper();
    public static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private TestSupport() {
    }

    /** The Kafka version the tests run (the pom's kafka.version). */
    public static String kafkaVersion() {
        return System.getProperty("kafka.version", "?");
    }

    /** The host mode tests that run the real command use (-Dassignor.host.mode: worker once `serve` exists). */
    public static String hostMode() {
        return System.getProperty("assignor.host.mode", dev.assignor.bridge.BridgeConfig.DEFAULT_HOST_MODE);
    }

    /** The built `assignor` command (-Dassignor.command); tests that need it are skipped without it. */
    public static Optional<Path> assignor() {
        final String p = System.getProperty("assignor.command", "");
        return p.isBlank() ? Optional.empty() : Optional.of(Paths.get(p).toAbsolutePath());
    }

    public static Path requireAssignor() {
        final Optional<Path> p = assignor();
        assumeTrue(p.isPresent() && Files.isExecutable(p.get()),
            "no assignor command (-Dassignor.command=build/bin/assignor): skipped");
        return p.get();
    }

    /**
     * Kafka's recorded answers, the repository's tests/data/kafka-golden (-Dassignor.golden, which the pom
     * sets to it): they are part of the checkout, so a missing folder is a failure, not a skip.
     */
    public static Path golden() {
        final String p = System.getProperty("assignor.golden", "");
        assertTrue(!p.isBlank(), "-Dassignor.golden is not set (the pom sets it to tests/data/kafka-golden)");
        final Path golden = Paths.get(p).toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(golden), "Kafka's recorded answers are missing: " + golden + " is not a folder");
        return golden;
    }

    /**
     * A differential run over generated groups: the command, how many groups ({@code -D<casesProperty>}),
     * the seed ({@code -Dassignor.differential.seed}) and the random numbers drawn from it mixed with the
     * test's own {@code salt} (each test draws its own groups), a folder for the cases' files, and the
     * groups found to differ.
     */
    public static final class Differential {
        public final Path assignor;
        public final int cases;
        public final long seed;
        public final Random rng;
        public final Path work;
        public final List<String> failures = new ArrayList<>();

        /** Skipped (as {@link #requireAssignor()}) without the command. */
        public Differential(final String casesProperty, final int defaultCases, final long salt, final String folder)
            throws IOException {
            assignor = requireAssignor();
            cases = Integer.getInteger(casesProperty, defaultCases);
            seed = Long.getLong("assignor.differential.seed", 20261201L);
            rng = new Random(seed ^ salt);
            work = Files.createTempDirectory(folder);
        }

        /** Groups equal so far. */
        public int equal() {
            return cases - failures.size();
        }

        /**
         * Prints "{@code ours} vs Kafka V {@code kafka}: E/N generated groups equal{@code more} (seed S)", then
         * fails naming the first ten groups that differ, if any did.
         */
        public void finish(final String ours, final String kafka, final String more) {
            System.out.printf("%s vs Kafka %s %s: %d/%d generated groups equal%s (seed %d)%n", ours, kafkaVersion(),
                kafka, equal(), cases, more, seed);
            if (!failures.isEmpty()) {
                fail(failures.size() + " of " + cases + " groups differ from Kafka:\n  "
                    + String.join("\n  ", failures.subList(0, Math.min(10, failures.size()))));
            }
        }
    }

    public static JsonNode read(final Path file) {
        try {
            return (file.toString().endsWith(".json") ? JSON : YAML).readTree(file.toFile());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JsonNode parse(final byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Per client name: "active" and "standby" task sets (Kafka's two kinds), as sorted strings. */
    static Map<String, Map<String, SortedSet<String>>> roles(final TaskAssignment assignment,
                                                            final Map<String, ProcessId> processIds) {
        final Map<ProcessId, String> names = new HashMap<>();
        processIds.forEach((name, id) -> names.put(id, name));
        final Map<String, Map<String, SortedSet<String>>> out = new TreeMap<>();
        for (final KafkaStreamsAssignment a : assignment.assignment()) {
            final Map<String, SortedSet<String>> r = new TreeMap<>();
            r.put("active", new TreeSet<>());
            r.put("standby", new TreeSet<>());
            for (final AssignedTask t : a.tasks().values()) {
                r.get(t.type() == AssignedTask.Type.ACTIVE ? "active" : "standby").add(name(t.id()));
            }
            out.put(names.get(a.processId()), r);
        }
        return out;
    }

    /** The same from an answer or a recorded Kafka answer (warmups counted as standbys, as Kafka sends them). */
    static Map<String, Map<String, SortedSet<String>>> roles(final JsonNode assignment) {
        final Map<String, Map<String, SortedSet<String>>> out = new TreeMap<>();
        assignment.properties().forEach(client -> {
            final Map<String, SortedSet<String>> r = new TreeMap<>();
            r.put("active", new TreeSet<>());
            r.put("standby", new TreeSet<>());
            client.getValue().path("active").forEach(t -> r.get("active").add(t.asText()));
            client.getValue().path("standby").forEach(t -> r.get("standby").add(t.asText()));
            client.getValue().path("warmup").forEach(t -> r.get("standby").add(t.asText()));
            out.put(client.getKey(), r);
        });
        return out;
    }

    static boolean probing(final TaskAssignment assignment) {
        return assignment.assignment().stream().anyMatch(a -> a.followupRebalanceDeadline().isPresent());
    }

    static String name(final TaskId id) {
        return id.subtopology() + "_" + id.partition();
    }

    /** Where two role maps differ, one line per client and role, for failure messages. */
    public static List<String> differences(final Map<String, Map<String, SortedSet<String>>> expected,
                                    final Map<String, Map<String, SortedSet<String>>> actual) {
        final List<String> out = new ArrayList<>();
        final SortedSet<String> clients = new TreeSet<>(expected.keySet());
        clients.addAll(actual.keySet());
        for (final String c : clients) {
            for (final String role : List.of("active", "standby")) {
                final SortedSet<String> e = expected.getOrDefault(c, Map.of()).getOrDefault(role, new TreeSet<>());
                final SortedSet<String> a = actual.getOrDefault(c, Map.of()).getOrDefault(role, new TreeSet<>());
                if (!e.equals(a)) {
                    final SortedSet<String> missing = new TreeSet<>(e);
                    missing.removeAll(a);
                    final SortedSet<String> extra = new TreeSet<>(a);
                    extra.removeAll(e);
                    out.add(c + " " + role + ": expected also " + missing + ", not " + extra);
                }
            }
        }
        return out;
    }

    /** Runs a command to its end; its stdout, or a failure naming the command and its stderr. */
    public static byte[] run(final List<String> command) {
        try {
            final Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
            p.getOutputStream().close();
            // Both pipes drained at once: a command that writes more than a pipe holds (64 KiB) to
            // stderr before its stdout ends would otherwise wait on us while we wait on it.
            final CompletableFuture<byte[]> errBytes = CompletableFuture.supplyAsync(() -> {
                try {
                    return p.getErrorStream().readAllBytes();
                } catch (final IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            final byte[] out = p.getInputStream().readAllBytes();
            final String err = new String(errBytes.join(), StandardCharsets.UTF_8);
            final int exit = p.waitFor();
            if (exit != 0) {
                throw new AssertionError(String.join(" ", command) + " exited " + exit + ": " + err);
            }
            return out;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static Path write(final Path file, final String text) {
        try {
            Files.writeString(file, text);
            return file;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
