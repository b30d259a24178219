package dev.assignor.kafkastreams.calibration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.assignor.kafkastreams.LoopbackBroker;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Calibration of the simulator against a real Kafka Streams group (docs/compare-and-simulate.md,
 * "Calibration"): a loopback KRaft broker ({@link LoopbackBroker}) and the application of
 * {@link CalibrationInstance}, each instance in a JVM of its own, run under Kafka's default assignor
 * (HighAvailabilityTaskAssignor) through a scenario; the instances' logs are imported with
 * {@code assignor import kafka-log} and replayed with {@code assignor replay --in-time}; the
 * calibration error is the simulated path against the real one: rebalances, and time to converged.
 *
 * <p>Scenarios ({@link Scenario}): scale-out one instance at a time, an instance killed with
 * SIGKILL and restarted with its state wiped, a rolling restart of every instance, and a short
 * scale-out for CI. Each runs in its own directory: the instances' logs ({@code NAME-x.log}), the
 * import, the replay's JSON, table and HTML report, and {@code calibration.json}.
 *
 * <p>The settings are Kafka's defaults (acceptable_recovery_lag 10,000, 2 warmups, session timeout
 * 45 s) except one standby and probing every 60 s (Kafka's minimum); each stateful task starts with
 * more state than the acceptable lag, so that a newcomer needs warmups; data keeps arriving.
 */
public final class CalibrationHarness {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE_QUIET = Duration.ofSeconds(20);
    private static final Duration PHASE_TIMEOUT = Duration.ofMinutes(15);

    /** One instance of a scenario: its name (and state directory) and stream threads. */
    record Member(String name, int threads) {
    }

    /** What a scenario does after its first members settled. */
    enum Action { SCALE_OUT, KILL_AND_WIPE, ROLLING_RESTART }

    /** A scenario: the group it starts with, what happens to it, and the size of its state. */
    record Scenario(String name, List<Member> initial, Action action, List<Member> added, int statefulPartitions,
                    int statelessPartitions, int keysPerPartition) {
    }

    static final Scenario SCALE_OUT = new Scenario("scale-out",
        List.of(new Member("a", 2), new Member("b", 1)), Action.SCALE_OUT,
        List.of(new Member("c", 2), new Member("d", 1)), 8, 6, 15000);
    static final Scenario KILL_AND_WIPE = new Scenario("kill-and-wipe",
        List.of(new Member("a", 2), new Member("b", 1), new Member("c", 1)), Action.KILL_AND_WIPE,
        List.of(), 8, 6, 15000);
    static final Scenario ROLLING_RESTART = new Scenario("rolling-restart",
        List.of(new Member("a", 1), new Member("b", 1), new Member("c", 2)), Action.ROLLING_RESTART,
        List.of(), 8, 6, 15000);
    /** The CI one: small and short (one newcomer, a handful of warmups). */
    static final Scenario SHORT_SCALE_OUT = new Scenario("short-scale-out",
        List.of(new Member("a", 1), new Member("b", 1)), Action.SCALE_OUT,
        List.of(new Member("c", 1)), 3, 2, 15000);

    static final List<Scenario> ALL = List.of(SCALE_OUT, KILL_AND_WIPE, ROLLING_RESTART);

    /**
     * Real against simulated, for one scenario (or one step of it: between two events of the
     * timeline, the rebalances from the first to the last before the next event, and the time
     * between the two).
     */
    record Result(String scenario, String from, int realRebalances, Long realMs, int simRebalances, Long simMs,
                  int decisionsEqual, int decisionsCompared, JsonNode replay) {
        /** The steps of a scenario with events after its start (scale-out: one per newcomer). */
        List<Result> steps() {
            final List<Long> starts = new ArrayList<>(List.of(0L));
            for (final JsonNode e : replay.path("timeline").path("events")) {
                final long at = e.path("at_ms").asLong();
                if (at > starts.get(starts.size() - 1)) {
                    starts.add(at);
                }
            }
            final List<Result> out = new ArrayList<>();
            if (starts.size() < 2) {
                return out;
            }
            boolean anyPath = false;  // steps of one rebalance each (a rolling restart) say nothing more
            final JsonNode realPath = replay.path("timeline").path("path");
            final int realCount = replay.path("timeline").path("rebalances").asInt();
            final JsonNode simPath = replay.path("runs").path(0).path("path");
            for (int i = 0; i < starts.size(); ++i) {
                final long from = starts.get(i);
                final long to = i + 1 < starts.size() ? starts.get(i + 1) : Long.MAX_VALUE;
                final long[] real = window(realPath, realCount, from, to);
                final long[] sim = window(simPath, simPath.size(), from, to);
                out.add(new Result(scenario + " (step " + (i + 1) + ")", "+" + from / 1000 + " s", (int) real[0],
                    real[0] == 0 ? null : real[1] - from, (int) sim[0], sim[0] == 0 ? null : sim[1] - from, 0, 0, replay));
                anyPath = anyPath || real[0] > 1 || sim[0] > 1;
            }
            return anyPath ? out : List.of();
        }

        /** {rebalances in [from, to), time of the last of them} among the first `count` of `path`. */
        private static long[] window(final JsonNode path, final int count, final long from, final long to) {
            long n = 0;
            long last = from;
            for (int i = 0; i < count && i < path.size(); ++i) {
                final long at = path.get(i).path("at_ms").asLong();
                if (at >= from && at < to) {
                    ++n;
                    last = at;
                }
            }
            return new long[] {n, last};
        }

        Double rebalanceError() {
            return realRebalances == 0 ? null : (simRebalances - realRebalances) / (double) realRebalances;
        }

        Double timeError() {
            return realMs == null || simMs == null || realMs == 0 ? null : (simMs - realMs) / (double) realMs;
        }
    }

    private CalibrationHarness() {
    }

    /**
     * Every scenario given (by name, or all), in DIR, with the built `assignor` at ASSIGNOR; with
     * --reanalyse, the logs a run already wrote there imported and replayed again (another build of
     * `assignor` on the same real runs).
     */
    public static void main(final String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: CalibrationHarness DIR ASSIGNOR [--reanalyse] [SCENARIO...]   (scenarios: "
                + ALL.stream().map(Scenario::name).collect(Collectors.joining(", ")) + ", short-scale-out)");
            System.exit(2);
        }
        final Path dir = Paths.get(args[0]).toAbsolutePath();
        final Path assignor = Paths.get(args[1]).toAbsolutePath();
        final List<Scenario> chosen = new ArrayList<>();
        boolean reanalyse = false;
        for (int i = 2; i < args.length; ++i) {
            if (args[i].equals("--reanalyse")) {
                reanalyse = true;
            } else {
                chosen.add(byName(args[i]));
            }
        }
        if (chosen.isEmpty()) {
            chosen.addAll(ALL);
        }
        final List<Result> results = new ArrayList<>();
        if (reanalyse) {
            for (final Scenario s : chosen) {
                final Path d = dir.resolve(s.name());
                final long from = Long.parseLong(Files.readString(d.resolve("scenario-start.txt")).trim());
                results.add(importAndReplay(s, d, assignor, from));
            }
        } else {
            results.addAll(runAll(chosen, dir, assignor));
        }
        System.out.println(table(results));
        System.exit(0);
    }

    static Scenario byName(final String name) {
        for (final Scenario s : List.of(SCALE_OUT, KILL_AND_WIPE, ROLLING_RESTART, SHORT_SCALE_OUT)) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no scenario '" + name + "'");
    }

    /** The scenarios one after the other on one broker; writes DIR/calibration.json and .txt. */
    static List<Result> runAll(final List<Scenario> scenarios, final Path dir, final Path assignor) throws Exception {
        Files.createDirectories(dir);
        final List<Result> results = new ArrayList<>();
        try (LoopbackBroker broker = new LoopbackBroker(dir.resolve("broker"), Map.of())) {
            for (final Scenario s : scenarios) {
                results.add(run(s, broker.bootstrapServers(), dir.resolve(s.name()), assignor));
            }
        }
        final ObjectNode summary = JSON.createObjectNode();
        summary.put("date", Instant.now().toString());
        summary.put("machine", machine());
        final var list = summary.putArray("scenarios");
        for (final Result r : results) {
            final ObjectNode o = list.addObject();
            o.put("scenario", r.scenario());
            o.put("from", r.from());
            putRebalances(o, r);
            o.put("rebalance_error", r.rebalanceError());
            o.put("time_error", r.timeError());
            o.put("decisions_equal", r.decisionsEqual());
            o.put("decisions_compared", r.decisionsCompared());
            final var steps = o.putArray("steps");
            for (final Result step : r.steps()) {
                final ObjectNode so = steps.addObject();
                so.put("from_ms", step.from());
                putRebalances(so, step);
            }
        }
        Files.write(dir.resolve("calibration.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(summary));
        Files.writeString(dir.resolve("calibration.txt"), table(results));
        return results;
    }

    static String table(final List<Result> results) {
        final StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
            "%-16s %-16s %9s %9s %7s %11s %11s %7s %9s%n", "scenario", "from", "real reb", "sim reb", "error",
            "real time", "sim time", "error", "same dec"));
        for (final Result r : results) {
            out.append(String.format(Locale.ROOT, "%-16s %-16s %9d %9d %7s %11s %11s %7s %9s%n", r.scenario(), r.from(),
                r.realRebalances(), r.simRebalances(), percent(r.rebalanceError()), seconds(r.realMs()),
                seconds(r.simMs()), percent(r.timeError()), r.decisionsEqual() + "/" + r.decisionsCompared()));
            for (final Result step : r.steps()) {
                out.append(String.format(Locale.ROOT, "  %-23s %-7s %9d %9d %7s %11s %11s %7s%n", step.scenario(),
                    step.from(), step.realRebalances(), step.simRebalances(), percent(step.rebalanceError()),
                    seconds(step.realMs()), seconds(step.simMs()), percent(step.timeError())));
            }
        }
        return out.toString();
    }

    private static String percent(final Double e) {
        return e == null ? "n/a" : String.format(Locale.ROOT, "%+.1f%%", e * 100);
    }

    private static String seconds(final Long ms) {
        return ms == null ? "-" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static String machine() {
        try {
            final String cpu = Files.readAllLines(Paths.get("/proc/cpuinfo")).stream()
                .filter(l -> l.startsWith("model name")).findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim())
                .orElse("?");
            return cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores";
        } catch (final IOException e) {
            return Runtime.getRuntime().availableProcessors() + " cores";
        }
    }

    /** One scenario, start to end: the group, the action, the import, the replay in time. */
    static Result run(final Scenario s, final String bootstrap, final Path dir, final Path assignor) throws Exception {
        deleteTree(dir);
        Files.createDirectories(dir);
        final String prefix = "cal-" + s.name() + "-" + Long.toString(System.currentTimeMillis(), 36);
        createTopics(bootstrap, prefix, s);
        final Properties app = appProperties(bootstrap, prefix);
        try (OutputStream out = Files.newOutputStream(dir.resolve("app.properties"))) {
            app.store(out, "the calibration application's Streams config (" + s.name() + ")");
        }
        final DecisionWatcher decisions = new DecisionWatcher(dir);
        final Map<String, Instance> instances = new LinkedHashMap<>();
        long from;
        try (Traffic traffic = new Traffic(bootstrap, prefix, s)) {
            traffic.preload();
            traffic.start();
            for (final Member m : s.initial()) {
                instances.put(m.name(), Instance.start(dir, app, prefix, m, 1));
            }
            awaitRunning(instances.values());
            decisions.awaitSettled(0);
            from = System.currentTimeMillis();
            Files.writeString(dir.resolve("scenario-start.txt"), from + "\n");
            log(s.name() + ": settled with " + instances.keySet() + "; the scenario starts");
            switch (s.action()) {
                case SCALE_OUT -> {
                    for (final Member m : s.added()) {
                        final int before = decisions.count();
                        instances.put(m.name(), Instance.start(dir, app, prefix, m, 1));
                        settle(instances, decisions, before,
                            s.name() + ": " + m.name() + " joined and the group settled");
                    }
                }
                case KILL_AND_WIPE -> {
                    final int before = decisions.count();
                    final Member victim = s.initial().get(1);
                    instances.remove(victim.name()).kill();
                    log(s.name() + ": " + victim.name() + " killed (SIGKILL)");
                    Thread.sleep(5000);
                    deleteTree(dir.resolve("state").resolve(victim.name()));  // a new process id
                    instances.put(victim.name(), Instance.start(dir, app, prefix, victim, 2));
                    settle(instances, decisions, before,
                        s.name() + ": " + victim.name() + " back with its state wiped; the group settled");
                }
                case ROLLING_RESTART -> {
                    final int before = decisions.count();
                    for (final Member m : s.initial()) {
                        final Instance old = instances.remove(m.name());
                        old.close();
                        final Instance again = Instance.start(dir, app, prefix, m, old.incarnation() + 1);
                        instances.put(m.name(), again);
                        again.awaitRunning();
                        log(s.name() + ": " + m.name() + " restarted (closed without leaving, state kept)");
                    }
                    settle(instances, decisions, before, s.name() + ": every instance restarted; the group settled");
                }
                default -> throw new IllegalStateException();
            }
        } finally {
            for (final Instance i : instances.values()) {
                i.close();
            }
        }
        return importAndReplay(s, dir, assignor, from);
    }

    private static Result importAndReplay(final Scenario s, final Path dir, final Path assignor, final long fromMs)
        throws IOException, InterruptedException {
        final List<String> logs;
        try (Stream<Path> files = Files.list(dir)) {
            logs = files.filter(p -> p.getFileName().toString().endsWith(".log")).map(Path::toString).sorted()
                .collect(Collectors.toList());
        }
        final Path imported = dir.resolve("import");
        deleteTree(imported);
        final List<String> importCommand = new ArrayList<>(List.of(assignor.toString(), "import", "kafka-log"));
        importCommand.addAll(logs);
        // The application's own properties, as an operator would give them (the tests' log layout
        // leaves the StreamsConfig dump out).
        importCommand.addAll(List.of("--output-dir", imported.toString(), "--streams-config",
            dir.resolve("app.properties").toString()));
        run(importCommand, dir.resolve("import.txt"));
        final JsonNode index = JSON.readTree(imported.resolve("index.json").toFile());
        String from = null;
        for (final JsonNode r : index.path("rebalances")) {
            if (r.path("time_ms").asLong(0) >= fromMs - 1000) {
                from = r.path("name").asText();
                break;
            }
        }
        if (from == null) {
            throw new IllegalStateException(s.name() + ": no rebalance logged after the scenario started");
        }
        final List<String> replay = List.of(assignor.toString(), "replay", imported.toString(), "--in-time", "--from",
            from, "--strategies", "least_movement,streams_sticky");
        run(concat(replay, List.of("--report", dir.resolve("in-time.html").toString())), dir.resolve("in-time.txt"));
        run(concat(replay, List.of("--format", "json")), dir.resolve("in-time.json"));
        final JsonNode result = JSON.readTree(dir.resolve("in-time.json").toFile());
        final JsonNode timeline = result.path("timeline");
        final JsonNode calibration = result.path("runs").path(0);
        final Result r = new Result(s.name(), from, timeline.path("rebalances").asInt(),
            timeline.path("time_to_converged_ms").isNumber() ? timeline.path("time_to_converged_ms").asLong() : null,
            calibration.path("rebalances").asInt(),
            calibration.path("time_to_converged_ms").isNumber() ? calibration.path("time_to_converged_ms").asLong() : null,
            calibration.path("decisions_equal").asInt(), calibration.path("decisions_compared").asInt(), result);
        log(s.name() + ": real " + r.realRebalances() + " rebalances, " + seconds(r.realMs()) + "; simulated "
            + r.simRebalances() + ", " + seconds(r.simMs()));
        return r;
    }

    private static List<String> concat(final List<String> a, final List<String> b) {
        final List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** Runs a command; its stdout to `out`; fails with its stderr when it fails. */
    private static void run(final List<String> command, final Path out) throws IOException, InterruptedException {
        final Path err = Files.createTempFile("calibration", ".err");
        final Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        final int exit = p.waitFor();
        final String errors = Files.readString(err);
        Files.delete(err);
        if (exit != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + exit + ": " + errors);
        }
    }

    static Properties appProperties(final String bootstrap, final String prefix) {
        final Properties app = new Properties();
        app.put(StreamsConfig.APPLICATION_ID_CONFIG, prefix);
        app.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        app.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "1");
        app.put(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG, "60000");  // Kafka's minimum
        app.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        app.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000");
        return app;
    }

    private static void createTopics(final String bootstrap, final String prefix, final Scenario s) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            final List<NewTopic> topics = new ArrayList<>(List.of(
                new NewTopic(prefix + CalibrationInstance.WORDS, s.statefulPartitions(), (short) 1),
                new NewTopic(prefix + CalibrationInstance.CLICKS, s.statefulPartitions(), (short) 1),
                new NewTopic(prefix + CalibrationInstance.EVENTS, s.statelessPartitions(), (short) 1)));
            for (final String out : CalibrationInstance.OUTPUTS) {
                topics.add(new NewTopic(prefix + out, 1, (short) 1));
            }
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
    }

    /** The rebalances and their time, real and simulated, of a scenario or one of its steps. */
    private static void putRebalances(final ObjectNode o, final Result r) {
        o.put("real_rebalances", r.realRebalances());
        o.put("simulated_rebalances", r.simRebalances());
        o.put("real_ms", r.realMs());
        o.put("simulated_ms", r.simMs());
    }

    /** Every instance running, then the group settled after its {@code before}-th decision; logs {@code what}. */
    private static void settle(final Map<String, Instance> instances, final DecisionWatcher decisions, final int before,
                               final String what) throws InterruptedException {
        awaitRunning(instances.values());
        decisions.awaitSettled(before);
        log(what);
    }

    private static void awaitRunning(final Iterable<Instance> instances) throws InterruptedException {
        for (final Instance i : instances) {
            i.awaitRunning();
        }
    }

    static void log(final String line) {
        System.out.println("[calibration " + Instant.now() + "] " + line);
        System.out.flush();
    }

    static void deleteTree(final Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (final Path p : paths.sorted((x, y) -> y.getNameCount() - x.getNameCount()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }

    /** The data: state beyond the acceptable lag on every stateful task first, then a steady trickle. */
    private static final class Traffic implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final String prefix;
        private final Scenario scenario;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private Thread thread;

        Traffic(final String bootstrap, final String prefix, final Scenario scenario) {
            // Not idempotent: a busy machine times requests out, and a retried idempotent batch can be
            // refused for ever (OutOfOrderSequenceException); a duplicate record does no harm here.
            this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, "20", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000"),
                new StringSerializer(), new StringSerializer());
            this.prefix = prefix;
            this.scenario = scenario;
        }

        /** Distinct keys, so that each store's changelog holds one record per key. */
        void preload() {
            final int keys = scenario.keysPerPartition() * scenario.statefulPartitions();
            for (int k = 0; k < keys; ++k) {
                producer.send(new ProducerRecord<>(prefix + CalibrationInstance.WORDS, "w" + k, "x"));
                producer.send(new ProducerRecord<>(prefix + CalibrationInstance.CLICKS, "u" + k, "p" + k));
            }
            producer.flush();
        }

        /** About 100 records a second on each input topic until closed. */
        void start() {
            thread = new Thread(() -> {
                final Random random = new Random(7);
                final int keys = scenario.keysPerPartition() * scenario.statefulPartitions();
                while (running.get()) {
                    for (int i = 0; i < 10; ++i) {
                        producer.send(new ProducerRecord<>(prefix + CalibrationInstance.WORDS, "w" + random.nextInt(keys), "x"));
                        producer.send(new ProducerRecord<>(prefix + CalibrationInstance.CLICKS, "u" + random.nextInt(keys), "q"));
                        producer.send(new ProducerRecord<>(prefix + CalibrationInstance.EVENTS, "e" + random.nextInt(1000), "y"));
                    }
                    try {
                        Thread.sleep(100);
                    } catch (final InterruptedException e) {
                        return;
                    }
                }
            }, "calibration-traffic");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            running.set(false);
            if (thread != null) {
                try {
                    thread.join(10000);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            producer.close(Duration.ofSeconds(10));
        }
    }

    /** One instance in a JVM of its own. */
    private static final class Instance {
        private final Member member;
        private final int incarnation;
        private final Process process;
        private volatile boolean running;
        private volatile boolean failed;

        private Instance(final Member member, final int incarnation, final Process process) {
            this.member = member;
            this.incarnation = incarnation;
            this.process = process;
            final Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        if (line.equals("RUNNING")) {
                            running = true;
                        } else if (line.equals("ERROR")) {
                            failed = true;
                        }
                    }
                } catch (final IOException e) {
                    failed = true;
                }
            }, "calibration-" + member.name());
            reader.setDaemon(true);
            reader.start();
        }

        int incarnation() {
            return incarnation;
        }

        static Instance start(final Path dir, final Properties base, final String prefix, final Member m, final int incarnation)
            throws IOException {
            final Properties p = new Properties();
            p.putAll(base);
            p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").resolve(m.name()).toString());
            p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, String.valueOf(m.threads()));
            p.put(StreamsConfig.CLIENT_ID_CONFIG, m.name() + "-" + incarnation);
            final Path props = dir.resolve(m.name() + "-" + incarnation + ".properties");
            try (OutputStream out = Files.newOutputStream(props)) {
                p.store(out, "instance " + m.name() + ", incarnation " + incarnation);
            }
            final String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            final List<String> command = List.of(java, "-Xmx384m", "-Duser.timezone=UTC",
                "-Dassignor.e2e.log=" + dir.resolve(m.name() + ".log"), "-cp", System.getProperty("java.class.path"),
                CalibrationInstance.class.getName(), props.toString(), prefix);
            final Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve(m.name() + ".stderr").toFile())).start();
            log("started " + m.name() + " (incarnation " + incarnation + ", " + m.threads() + " thread"
                + (m.threads() == 1 ? "" : "s") + ")");
            return new Instance(m, incarnation, process);
        }

        void awaitRunning() throws InterruptedException {
            final long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
            while (!running) {
                if (failed || !process.isAlive()) {
                    throw new IllegalStateException("instance " + member.name() + " failed before it ran");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("instance " + member.name() + " not running after " + PHASE_TIMEOUT);
                }
                Thread.sleep(200);
            }
        }

        /** Kafka Streams' own close: clean, checkpointed, without leaving the group. */
        void close() throws InterruptedException {
            if (!process.isAlive()) {
                return;
            }
            try (OutputStream in = process.getOutputStream()) {
                in.write("close\n".getBytes(StandardCharsets.UTF_8));
            } catch (final IOException e) {
                // the process is gone already
            }
            if (!process.waitFor(90, TimeUnit.SECONDS)) {
                kill();
            }
        }

        /** SIGKILL: no shutdown at all. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The leader's decisions as they appear in the instances' logs: how many, and whether the last
     * asked for a probing rebalance. The group has settled when the last decision asked for none
     * and none followed for a while (a follow-up comes within seconds).
     */
    private static final class DecisionWatcher {
        private final Path dir;
        private final Map<Path, Long> offsets = new LinkedHashMap<>();
        private int count;
        private boolean lastProbing = true;
        private long lastSeenNanos = System.nanoTime();

        DecisionWatcher(final Path dir) {
            this.dir = dir;
        }

        int count() {
            poll();
            return count;
        }

        private void poll() {
            try (Stream<Path> files = Files.list(dir)) {
                for (final Path log : files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted()
                    .collect(Collectors.toList())) {
                    final long from = offsets.getOrDefault(log, 0L);
                    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
                        if (f.length() <= from) {
                            continue;
                        }
                        f.seek(from);
                        final byte[] bytes = new byte[(int) (f.length() - from)];
                        f.readFully(bytes);
                        final String text = new String(bytes, StandardCharsets.UTF_8);
                        final int end = text.lastIndexOf('\n');
                        if (end < 0) {
                            continue;
                        }
                        offsets.put(log, from + text.substring(0, end + 1).getBytes(StandardCharsets.UTF_8).length);
                        for (final String line : text.substring(0, end).split("\n")) {
                            if (!line.contains("Decided on assignment")) {
                                continue;
                            }
                            ++count;
                            lastProbing = !line.contains("with no followup probing rebalance");
                            lastSeenNanos = System.nanoTime();
                        }
                    }
                }
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Until a decision after the first `after` has been made, the last asks for no probing, and none followed. */
        void awaitSettled(final int after) throws InterruptedException {
            final long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
            while (true) {
                poll();
                if (count > after && !lastProbing && System.nanoTime() - lastSeenNanos > SETTLE_QUIET.toNanos()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the group did not settle within " + PHASE_TIMEOUT + " (" + count
                        + " decisions, the last " + (lastProbing ? "asking for probing" : "not") + ")");
                }
                Thread.sleep(500);
            }
        }
    }
}
