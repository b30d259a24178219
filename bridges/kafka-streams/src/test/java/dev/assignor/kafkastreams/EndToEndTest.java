package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The bridge in a real Kafka Streams application on a real broker: a single-node KRaft broker
 * ({@link LoopbackBroker}, on 127.0.0.1) and a counting application (a logged store, one standby,
 * exactly-once) of two instances, scaled out to three and with one instance restarted, first with
 * the bridge running {@code least_movement}, then with Kafka's default assignor. Checks that every
 * rebalance of the first run was decided by the strategy (no fallback), that no active was placed
 * on a restoring instance while a caught-up one existed, that the newcomer was given counting work
 * after warmups, at a later rebalance, and that every count is exactly right in both runs
 * (nothing lost, nothing doubled). The second run's leader log ({@code Decided on assignment}
 * lines, written by Kafka's own assignor) is imported with {@code assignor import kafka-log} and
 * replayed: {@code high_availability} must give Kafka's decision at every rebalance.
 *
 * <p>Runs when -Dassignor.e2e=true (scripts/test's Release pass); its files and figures land in
 * -Dassignor.e2e.dir (target/e2e): the two logs, the import, the replay and figures.json.
 */
@EnabledIfSystemProperty(named = "assignor.e2e", matches = "true")
class EndToEndTest {
    private static final int WORD_PARTITIONS = 6;
    private static final int EVENT_PARTITIONS = 4;
    private static final int KEYS = 60;
    private static final long ACCEPTABLE_RECOVERY_LAG = 100;
    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(150);

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void leastMovementOnARealBrokerThenKafkasOwnLogReplayed() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Path dir = Paths.get(System.getProperty("assignor.e2e.dir", "target/e2e")).toAbsolutePath();
        deleteTree(dir);
        Files.createDirectories(dir);
        final ObjectNode figures = TestSupport.JSON.createObjectNode();
        try (LoopbackBroker broker = new LoopbackBroker(dir.resolve("broker"), Map.of())) {
            final String bootstrap = broker.bootstrapServers();
            final Map<String, Object> bridge = Map.of(
                StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, RecordingTaskAssignor.class.getName(),
                BridgeSettings.STRATEGY, "least_movement",
                BridgeSettings.COMMAND, assignor.toString(),
                BridgeSettings.HOST_MODE, TestSupport.hostMode());
            RecordingTaskAssignor.DECISIONS.clear();
            final ObjectNode bridgeRun = new Scenario("bridge", bootstrap, dir, bridge, true).run();
            checkBridgeRun(dir.resolve("bridge.log"), bridgeRun);
            figures.set("bridge_least_movement", bridgeRun);

            figures.set("kafka_default", new Scenario("kafka", bootstrap, dir, Map.of(), false).run());
            figures.set("import_and_replay", importAndReplay(assignor, dir));
        }
        Files.write(dir.resolve("figures.json"), TestSupport.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(figures));
        System.out.println("end-to-end figures (" + dir.resolve("figures.json") + "):\n"
            + TestSupport.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(figures));
    }

    /** Every rebalance decided by the strategy, none with an active on a restoring instance. */
    private static void checkBridgeRun(final Path log, final ObjectNode figures) throws IOException {
        final List<RecordingTaskAssignor.Decision> decisions = new ArrayList<>(RecordingTaskAssignor.DECISIONS);
        final List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        final long decided = lines.stream().filter(l -> l.contains("Assignor bridge: strategy least_movement assigned"))
            .count();
        final List<String> fallbacks = lines.stream().filter(l -> l.contains("not used for this rebalance"))
            .collect(Collectors.toList());
        assertEquals(List.of(), fallbacks, "the strategy failed at some rebalance");
        assertTrue(decisions.size() >= 4, "rebalances seen by the bridge: " + decisions.size());
        assertEquals(decisions.size(), decided, "rebalances decided by least_movement (the bridge's log lines)");
        int restoringActives = 0;
        final List<String> problems = new ArrayList<>();
        for (int i = 0; i < decisions.size(); ++i) {
            final RecordingTaskAssignor.Decision d = decisions.get(i);
            for (final Map.Entry<ProcessId, List<TaskId>> process : d.actives().entrySet()) {
                for (final TaskId task : process.getValue()) {
                    final Long lag = d.lags().get(process.getKey()).get(task);
                    if (lag == null || caughtUp(lag, d.acceptableRecoveryLag())) {
                        continue;
                    }
                    for (final Map.Entry<ProcessId, Map<TaskId, Long>> other : d.lags().entrySet()) {
                        if (caughtUp(other.getValue().get(task), d.acceptableRecoveryLag())) {
                            ++restoringActives;
                            problems.add("rebalance " + i + ": task " + task + " active on " + process.getKey()
                                + " (lag " + lag + ") while " + other.getKey() + " was caught up");
                            break;
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
        figures.put("rebalances_decided_by_the_strategy", decided);
        figures.put("with_probing_rebalance", decisions.stream().filter(RecordingTaskAssignor.Decision::followup).count());
        figures.put("restoring_actives", restoringActives);
    }

    private static boolean caughtUp(final long lag, final long acceptable) {
        return lag == ClusterFile.RUNNING || (lag >= 0 && lag <= acceptable);
    }

    /** The second run's log through `assignor import kafka-log` and `assignor replay`. */
    private static ObjectNode importAndReplay(final Path assignor, final Path dir) throws IOException {
        final Path log = dir.resolve("kafka.log");
        final long logged = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
            .filter(l -> l.contains("Decided on assignment")).count();
        assertTrue(logged >= 3, "Kafka's assignor logged " + logged + " decisions");
        final Path imported = dir.resolve("import");
        TestSupport.run(List.of(assignor.toString(), "import", "kafka-log", log.toString(), "--output-dir",
            imported.toString(), "--streams-config", dir.resolve("kafka.properties").toString()));
        final JsonNode index = TestSupport.read(imported.resolve("index.json"));
        final int rebalances = index.path("rebalances").size();
        assertEquals(logged, rebalances, "rebalances imported from " + log);
        final byte[] replayJson = TestSupport.run(List.of(assignor.toString(), "replay", imported.toString(),
            "--strategies", "high_availability,least_movement", "--format", "json"));
        Files.write(dir.resolve("replay.json"), replayJson);
        final JsonNode replay = TestSupport.parse(replayJson);
        final JsonNode agreement = replay.path("agreement");
        final ObjectNode out = TestSupport.JSON.createObjectNode();
        out.put("decisions_logged_by_kafka", logged);
        out.put("rebalances_imported", rebalances);
        out.set("agreement", agreement);
        assertEquals(rebalances, agreement.path("high_availability").path("same_as_kafka").asInt(-1),
            "high_availability gives Kafka's decision at every rebalance of the log: " + agreement);
        return out;
    }

    /** One run of the application: two instances, a third joins, the first restarts. */
    private static final class Scenario {
        private final String name;
        private final String bootstrap;
        private final Path dir;
        private final Map<String, Object> assignorConfigs;
        private final boolean waitForTheNewcomer;
        private final Random random = new Random(20261201);
        private final Map<String, Long> expectedCounts = new TreeMap<>();
        private long expectedEvents;
        private final Map<String, Long> counts = new ConcurrentHashMap<>();
        private final AtomicLong events = new AtomicLong();
        private final AtomicLong restores = new AtomicLong();
        private final AtomicLong restoredOffsets = new AtomicLong();
        private final AtomicLong restoreMsTotal = new AtomicLong();
        private final AtomicLong restoreMsMax = new AtomicLong();
        private final Map<String, Long> restoreStarts = new ConcurrentHashMap<>();
        private final AtomicLong copyOffsets = new AtomicLong();

        Scenario(final String name, final String bootstrap, final Path dir, final Map<String, Object> assignorConfigs,
                 final boolean waitForTheNewcomer) {
            this.name = name;
            this.bootstrap = bootstrap;
            this.dir = dir;
            this.assignorConfigs = assignorConfigs;
            this.waitForTheNewcomer = waitForTheNewcomer;
        }

        ObjectNode run() throws Exception {
            logTo(dir.resolve(name + ".log"));
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("words-" + name, WORD_PARTITIONS, (short) 1),
                    new NewTopic("events-" + name, EVENT_PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            }
            final Properties app = new Properties();
            app.put(StreamsConfig.APPLICATION_ID_CONFIG, "e2e-" + name);
            app.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            app.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            app.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "1");
            app.put(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, String.valueOf(ACCEPTABLE_RECOVERY_LAG));
            app.put(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG, "60000");  // Kafka's minimum
            app.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");  // every update in the changelog
            app.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
            app.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
            // Kafka Streams does not leave the group on close: a member that went away is noticed at
            // the session timeout (45 s by default; shorter here so a restart costs less waiting).
            app.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
            app.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "1000");
            try (OutputStream out = Files.newOutputStream(dir.resolve(name + ".properties"))) {
                app.store(out, "the application's Streams config in the " + name + " run");
            }
            app.putAll(assignorConfigs);

            final ObjectNode figures = TestSupport.JSON.createObjectNode();
            final long start = System.nanoTime();
            try (KafkaProducer<String, String> producer = producer();
                 KafkaConsumer<String, Long> countsReader = reader("counts-" + name, LongDeserializer.class);
                 KafkaConsumer<String, String> eventsReader = reader("events-out-" + name, StringDeserializer.class)) {
                final Map<String, KafkaStreams> instances = new TreeMap<>();
                instances.put("a", start(app, "a", 1));
                instances.put("b", start(app, "b", 2));
                awaitRunning(instances);
                produce(producer, 3000, 300);
                awaitProcessed(countsReader, eventsReader);

                // Scale out: a third instance with nothing on disk.
                final long joined = System.nanoTime();
                instances.put("c", start(app, "c", 1));
                awaitRunning(instances);
                produce(producer, 3000, 300);
                if (waitForTheNewcomer) {
                    await("instance c runs a counting task", () -> !countingTasks(instances.get("c")).isEmpty());
                    figures.put("seconds_until_the_newcomer_counted", (System.nanoTime() - joined) / 1_000_000_000L);
                }
                awaitProcessed(countsReader, eventsReader);

                // Restart: instance a stops (cleanly: its state is checkpointed) and comes back with
                // its state directory, hence its process id, while the others go on.
                instances.remove("a").close(Duration.ofSeconds(60));
                produce(producer, 2000, 200);
                instances.put("a", start(app, "a", 1));
                awaitRunning(instances);
                awaitProcessed(countsReader, eventsReader);

                for (final KafkaStreams s : instances.values()) {
                    s.close(Duration.ofSeconds(60));
                }
                awaitProcessed(countsReader, eventsReader);
            }
            assertEquals(expectedCounts, new TreeMap<>(counts), name + ": the final count of every word");
            assertEquals(expectedEvents, events.get(), name + ": stateless events passed through");
            figures.put("words_counted", expectedCounts.values().stream().mapToLong(Long::longValue).sum());
            figures.put("keys_checked", expectedCounts.size());
            figures.put("events_passed", expectedEvents);
            figures.put("active_restores", restores.get());
            figures.put("offsets_restored", restoredOffsets.get());
            figures.put("restore_ms_total", restoreMsTotal.get());
            figures.put("restore_ms_longest", restoreMsMax.get());
            figures.put("offsets_replayed_by_standbys_and_warmups", copyOffsets.get());
            figures.put("run_seconds", (System.nanoTime() - start) / 1_000_000_000L);
            return figures;
        }

        private KafkaStreams start(final Properties base, final String instance, final int threads) {
            final Properties p = new Properties();
            p.putAll(base);
            p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve(name + "-state").resolve(instance).toString());
            p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, String.valueOf(threads));
            p.put(StreamsConfig.CLIENT_ID_CONFIG, name + "-" + instance);
            final KafkaStreams streams = new KafkaStreams(topology(), p);
            streams.setGlobalStateRestoreListener(new StateRestoreListener() {
                @Override
                public void onRestoreStart(final TopicPartition tp, final String store, final long from, final long to) {
                    restoreStarts.put(instance + tp, System.nanoTime());
                }

                @Override
                public void onBatchRestored(final TopicPartition tp, final String store, final long end, final long n) {
                }

                @Override
                public void onRestoreEnd(final TopicPartition tp, final String store, final long total) {
                    final Long started = restoreStarts.remove(instance + tp);
                    restores.incrementAndGet();
                    restoredOffsets.addAndGet(total);
                    if (started != null) {
                        final long ms = (System.nanoTime() - started) / 1_000_000;
                        restoreMsTotal.addAndGet(ms);
                        restoreMsMax.accumulateAndGet(ms, Math::max);
                    }
                }
            });
            streams.setStandbyUpdateListener(new StandbyUpdateListener() {
                @Override
                public void onUpdateStart(final TopicPartition tp, final String store, final long from) {
                }

                @Override
                public void onBatchLoaded(final TopicPartition tp, final String store, final TaskId task,
                                          final long batchEnd, final long batchSize, final long end) {
                    copyOffsets.addAndGet(batchSize);
                }

                @Override
                public void onUpdateSuspended(final TopicPartition tp, final String store, final long offset,
                                              final long end, final SuspendReason reason) {
                }
            });
            streams.start();
            return streams;
        }

        private Topology topology() {
            final StreamsBuilder builder = new StreamsBuilder();
            builder.stream("words-" + name, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.as("word-counts"))
                .toStream()
                .to("counts-" + name, Produced.with(Serdes.String(), Serdes.Long()));
            builder.stream("events-" + name, Consumed.with(Serdes.String(), Serdes.String()))
                .filter((k, v) -> v != null)
                .to("events-out-" + name, Produced.with(Serdes.String(), Serdes.String()));
            return builder.build();
        }

        private void produce(final KafkaProducer<String, String> producer, final int words, final int evts)
            throws Exception {
            for (int i = 0; i < words; ++i) {
                final String key = "w" + random.nextInt(KEYS);
                producer.send(new ProducerRecord<>("words-" + name, key, "x"));
                expectedCounts.merge(key, 1L, Long::sum);
            }
            for (int i = 0; i < evts; ++i) {
                producer.send(new ProducerRecord<>("events-" + name, "e" + i, "y"));
            }
            expectedEvents += evts;
            producer.flush();
        }

        /** Until the committed output holds every word's count and every event, or the phase times out. */
        private void awaitProcessed(final KafkaConsumer<String, Long> countsReader,
                                    final KafkaConsumer<String, String> eventsReader) throws InterruptedException {
            await("every record processed", () -> {
                for (final ConsumerRecord<String, Long> r : countsReader.poll(Duration.ofMillis(200))) {
                    counts.put(r.key(), r.value());
                }
                events.addAndGet(eventsReader.poll(Duration.ofMillis(50)).count());
                return counts.equals(expectedCounts) && events.get() >= expectedEvents;
            });
        }

        private KafkaProducer<String, String> producer() {
            return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
        }

        private <V> KafkaConsumer<String, V> reader(final String topic,
                                                    final Class<? extends org.apache.kafka.common.serialization.Deserializer<V>> values)
            throws Exception {
            final Map<String, Object> c = new HashMap<>();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            c.put(ConsumerConfig.GROUP_ID_CONFIG, "e2e-reader-" + topic);
            c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            final KafkaConsumer<String, V> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
                values.getDeclaredConstructor().newInstance());
            consumer.subscribe(List.of(topic));
            return consumer;
        }

        private static List<TaskId> countingTasks(final KafkaStreams streams) {
            final List<TaskId> tasks = new ArrayList<>();
            for (final ThreadMetadata thread : streams.metadataForLocalThreads()) {
                for (final TaskMetadata task : thread.activeTasks()) {
                    if (task.taskId().subtopology() == 0) {
                        tasks.add(task.taskId());
                    }
                }
            }
            return tasks;
        }

        private static void awaitRunning(final Map<String, KafkaStreams> instances) throws InterruptedException {
            await("every instance running", () -> instances.values().stream()
                .allMatch(s -> s.state() == KafkaStreams.State.RUNNING));
        }
    }

    private static void await(final String what, final BooleanSupplier condition) throws InterruptedException {
        final long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + PHASE_TIMEOUT.toSeconds() + " s waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }

    /** Sends the application's log (Kafka Streams at INFO, the bridge) to this file from now on. */
    private static void logTo(final Path file) {
        System.setProperty("assignor.e2e.log", file.toString());
        ((LoggerContext) LogManager.getContext(false)).reconfigure();
    }

    private static void deleteTree(final Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (final Path p : paths.sorted((x, y) -> y.getNameCount() - x.getNameCount()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }
}
