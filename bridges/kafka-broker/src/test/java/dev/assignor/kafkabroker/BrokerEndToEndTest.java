package dev.assignor.kafkabroker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.assignor.bridge.BridgeConfig;
import dev.assignor.kafkastreams.LogCapture;
import dev.assignor.kafkastreams.LoopbackBroker;
import dev.assignor.kafkastreams.TestSupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.TaskId;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The broker bridge in a real KRaft broker (one node on 127.0.0.1, Kafka's own jars; the bridge on its
 * class path and named first in {@code group.streams.assignors}) serving a Kafka Streams 4.4 application
 * under {@code group.protocol=streams}: words counted into a logged store (6 tasks) and a stateless
 * filter (4 tasks), one standby. Two instances (1 and 2 threads) start, a third joins (scale out); the
 * strategy is then made to fail (the bridge's config file names a strategy that does not exist) while
 * the first instance restarts, and made to work again while the second restarts. After each phase the
 * group must settle with exactly one active per task and exactly as many members as threads. The
 * decision record must show every assignment: the strategy's while it worked, Kafka's
 * StickyTaskAssignor's (with the reason) while it failed; the bridge's log lines and its JMX
 * metrics must count the same; and {@code assignor replay} of the record must give the recorded
 * decision again wherever the strategy made it.
 *
 * <p>Runs when -Dassignor.e2e=true; its files land in -Dassignor.e2e.dir (target/e2e).
 */
@EnabledIfSystemProperty(named = "assignor.e2e", matches = "true")
class BrokerEndToEndTest {
    private static final int WORD_PARTITIONS = 6;
    private static final int EVENT_PARTITIONS = 4;
    private static final int TASKS = WORD_PARTITIONS + EVENT_PARTITIONS;
    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(180);

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void aStreamsGroupAssignedByTheBrokerBridge() throws Exception {
        final Path assignor = TestSupport.requireAssignor();
        final Path dir = Paths.get(System.getProperty("assignor.e2e.dir", "target/e2e")).toAbsolutePath()
            .resolve("broker");
        deleteTree(dir);
        Files.createDirectories(dir);
        final Path config = dir.resolve("assignor.yaml");
        final Path record = dir.resolve("record");
        strategy(config, "least_movement");
        final Map<String, String> brokerConfigs = new HashMap<>();
        brokerConfigs.put("group.streams.assignors", AssignorStreamsGroupAssignor.class.getName());
        brokerConfigs.put("group.streams.num.standby.replicas", "1");
        brokerConfigs.put("group.streams.initial.rebalance.delay.ms", "0");
        brokerConfigs.put(BridgeConfig.COMMAND_CONFIG, assignor.toString());
        brokerConfigs.put(BridgeConfig.CONFIG_FILE_CONFIG, config.toString());
        brokerConfigs.put(BridgeConfig.HOST_MODE_CONFIG, TestSupport.hostMode());
        brokerConfigs.put(BridgeConfig.RECORD_DIR_CONFIG, record.toString());
        final ObjectNode figures = TestSupport.JSON.createObjectNode();
        final List<String> phases = new ArrayList<>();
        // The JVM's counters (other tests in this JVM count too): what this test adds is compared.
        final ObjectName metrics = new ObjectName(AssignorStreamsGroupAssignor.METRICS_NAME);
        new AssignorStreamsGroupAssignor().configure(Map.of());  // registers the MBean
        final long decidedBefore = (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(metrics,
            "rebalances-decided");
        final long fallbacksBefore = (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(metrics,
            "fallbacks-total");
        try (LogCapture log = new LogCapture(AssignorStreamsGroupAssignor.class);
             LoopbackBroker broker = new LoopbackBroker(dir.resolve("broker"), brokerConfigs)) {
            final String bootstrap = broker.bootstrapServers();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("words", WORD_PARTITIONS, (short) 1),
                    new NewTopic("events", EVENT_PARTITIONS, (short) 1))).all().get();
            }
            final Map<String, KafkaStreams> instances = new LinkedHashMap<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
                produce(producer, 0);
                instances.put("a", start(bootstrap, dir, "a", 1));
                instances.put("b", start(bootstrap, dir, "b", 2));
                settle(instances, 3, "two instances");
                phases.add("start: " + summary(decisions(record)));

                instances.put("c", start(bootstrap, dir, "c", 1));
                produce(producer, 1);
                settle(instances, 4, "scaled out to three instances");
                phases.add("scale-out: " + summary(decisions(record)));

                // The strategy fails: every assignment meanwhile is Kafka's own.
                final List<JsonNode> during = phase(phases, "failing", record, () -> {
                    restartWith(config, "no_such_strategy", instances, "a", () -> start(bootstrap, dir, "a", 1));
                    produce(producer, 2);
                    settle(instances, 4, "a restarted while the strategy fails");
                });
                assertTrue(!during.isEmpty(), "assignments while the strategy failed: " + during);
                for (final JsonNode d : during) {
                    assertEquals("Kafka's StickyTaskAssignor", d.get("decided_by").asText(), d.toString());
                    assertTrue(!d.get("fallback_reason").isNull(), d.toString());
                }

                final List<JsonNode> after = phase(phases, "recovered", record, () -> {
                    restartWith(config, "least_movement", instances, "b", () -> start(bootstrap, dir, "b", 2));
                    produce(producer, 3);
                    settle(instances, 4, "b restarted with the strategy working again");
                });
                assertTrue(after.stream().anyMatch(d -> d.get("decided_by").asText().equals("least_movement")),
                    "the strategy decides again: " + after);
            } finally {
                for (final KafkaStreams s : instances.values()) {
                    s.close(Duration.ofSeconds(60));
                }
            }

            final List<JsonNode> all = decisions(record);
            final long byStrategy = all.stream().filter(d -> d.get("fallback_reason").isNull()).count();
            final long fallbacks = all.size() - byStrategy;
            assertTrue(byStrategy >= 2, "decisions by the strategy: " + all);
            for (final JsonNode d : all) {
                if (d.get("fallback_reason").isNull()) {
                    assertEquals("least_movement", d.get("decided_by").asText(), d.toString());
                }
            }
            final long logged = log.at(Level.INFO).stream()
                .filter(l -> l.contains("Assignor bridge: strategy least_movement assigned")).count();
            final long warned = log.at(Level.WARN).stream().filter(l -> l.contains("not used for this streams group"))
                .count();
            assertEquals(byStrategy, logged, "the bridge's INFO lines");
            assertEquals(fallbacks, warned, "the bridge's WARN lines");
            assertEquals(decidedBefore + byStrategy, ManagementFactory.getPlatformMBeanServer().getAttribute(metrics,
                "rebalances-decided"), "JMX: rebalances-decided");
            assertEquals(fallbacksBefore + fallbacks, ManagementFactory.getPlatformMBeanServer().getAttribute(metrics,
                "fallbacks-total"), "JMX: fallbacks-total");
            figures.put("assignments", all.size());
            figures.put("by_the_strategy", byStrategy);
            figures.put("by_kafkas_sticky_assignor", fallbacks);
            figures.put("replay", replay(assignor, topologyDir(record), all));
        }
        phases.forEach(p -> System.out.println("  " + p));
        Files.write(dir.resolve("figures.json"), TestSupport.JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsBytes(figures));
        System.out.println("broker end-to-end figures (" + dir.resolve("figures.json") + "): " + figures);
    }

    /** `assignor replay` of the record: least_movement gives every decision it made again. */
    private static String replay(final Path assignor, final Path topology, final List<JsonNode> all) {
        final JsonNode replay = TestSupport.parse(TestSupport.run(List.of(assignor.toString(), "replay",
            topology.toString(), "--strategies", "least_movement", "--format", "json")));
        final JsonNode rebalances = replay.get("rebalances");
        assertEquals(all.size(), rebalances.size(), "rebalances replayed");
        int same = 0;
        for (int i = 0; i < all.size(); ++i) {
            final boolean sameAsRecorded = rebalances.get(i).path("strategies").path("least_movement")
                .path("same_as_kafka").asBoolean(false);
            if (all.get(i).get("fallback_reason").isNull()) {
                assertTrue(sameAsRecorded, "replay of " + all.get(i).get("name") + ": " + rebalances.get(i));
            }
            same += sameAsRecorded ? 1 : 0;
        }
        return same + "/" + all.size() + " recorded decisions given again by least_movement";
    }

    /** "name: decided_by (reason)" per decision, for the test's output. */
    private static List<String> summary(final List<JsonNode> decisions) {
        return decisions.stream().map(d -> d.get("name").asText() + ": " + d.get("decided_by").asText()
            + (d.get("fallback_reason").isNull() ? "" : " (" + d.get("fallback_reason").asText() + ")")).toList();
    }

    /** One phase of the test: what it does to the group. */
    private interface Step {
        void run() throws Exception;
    }

    /** Runs the step; the decisions it added to the record, also added to the phases as "{@code name}: summary". */
    private static List<JsonNode> phase(final List<String> phases, final String name, final Path record,
                                        final Step step) throws Exception {
        final int from = decisions(record).size();
        step.run();
        final List<JsonNode> all = decisions(record);
        final List<JsonNode> since = all.subList(from, all.size());
        phases.add(name + ": " + summary(since));
        return since;
    }

    /** Sets the strategy, then closes the instance (a restart: it rejoins with its state) and starts it again. */
    private static void restartWith(final Path config, final String strategy, final Map<String, KafkaStreams> instances,
                                    final String name, final Callable<KafkaStreams> again) throws Exception {
        strategy(config, strategy);
        instances.remove(name).close(Duration.ofSeconds(60));
        instances.put(name, again.call());
    }

    private static void strategy(final Path config, final String strategy) throws Exception {
        Files.writeString(config, "strategy: " + strategy + "\n");
    }

    private static Path topologyDir(final Path record) throws Exception {
        try (var children = Files.list(record)) {
            final List<Path> all = children.filter(Files::isDirectory).toList();
            assertEquals(1, all.size(), "one application, one topology: " + all);
            return all.get(0);
        }
    }

    /** The record's entries so far (none before the first). */
    private static List<JsonNode> decisions(final Path record) throws Exception {
        final List<JsonNode> out = new ArrayList<>();
        if (!Files.isDirectory(record)) {
            return out;
        }
        final Path index = topologyDir(record).resolve("index.json");
        if (Files.exists(index)) {
            TestSupport.read(index).get("rebalances").forEach(out::add);
        }
        return out;
    }

    private static KafkaStreams start(final String bootstrap, final Path dir, final String instance,
                                      final int threads) {
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "broker-e2e");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, String.valueOf(threads));
        p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").resolve(instance).toString());
        p.put(StreamsConfig.CLIENT_ID_CONFIG, "broker-e2e-" + instance);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream("words", Consumed.with(Serdes.String(), Serdes.String())).groupByKey()
            .count(Materialized.as("word-counts")).toStream().to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        builder.stream("events", Consumed.with(Serdes.String(), Serdes.String())).filter((k, v) -> v != null)
            .to("events-out", Produced.with(Serdes.String(), Serdes.String()));
        final KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.start();
        return streams;
    }

    private static void produce(final KafkaProducer<String, String> producer, final int round) throws Exception {
        for (int i = 0; i < 600; ++i) {
            producer.send(new ProducerRecord<>("words", "w" + (i * 7 + round) % 40, "x"));
            producer.send(new ProducerRecord<>("events", "e" + i, "y"));
        }
        producer.flush();
    }

    /**
     * Until every instance runs and the group holds its assignment: each of the 10 tasks active on
     * exactly one thread, and {@code members} threads in all (the group's members).
     */
    private static void settle(final Map<String, KafkaStreams> instances, final int members, final String phase)
        throws InterruptedException {
        final String[] last = {""};
        await(phase, () -> {
            final Map<TaskId, Integer> actives = new TreeMap<>();
            int threads = 0;
            for (final KafkaStreams s : instances.values()) {
                if (s.state() != KafkaStreams.State.RUNNING) {
                    last[0] = "not every instance is running";
                    return false;
                }
                for (final ThreadMetadata t : s.metadataForLocalThreads()) {
                    ++threads;
                    for (final TaskMetadata task : t.activeTasks()) {
                        actives.merge(task.taskId(), 1, Integer::sum);
                    }
                }
            }
            last[0] = threads + " threads, actives " + actives;
            return threads == members && actives.size() == TASKS && actives.values().stream().allMatch(n -> n == 1);
        }, last);
    }

    private static void await(final String what, final BooleanSupplier condition, final String[] state)
        throws InterruptedException {
        final long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + PHASE_TIMEOUT.toSeconds() + " s waiting for: " + what + " (" + state[0] + ")");
            }
            Thread.sleep(200);
        }
    }

    private static void deleteTree(final Path root) throws Exception {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (final Path p : paths.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
