package dev.assignor.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;

/**
 * Kafka's own code as the oracle for the KIP-1071 strategies: the group coordinator's
 * {@code StickyTaskAssignor} (the kafka-group-coordinator jar of the pom's kafka.version) against
 * {@code assignor assign --strategy streams_sticky} with {@code refiner: false}, on Kafka's recorded
 * answers and on generated groups; and {@code streams_balanced} against its recorded answers.
 *
 * <p>Inputs are given to Kafka as tests/data/kafka-golden/README.md says: a client is a process (its id
 * as is), each thread a member (its name in {@code previous_by_thread}, else {@code <client>/t<k>}
 * with k counting from 0 over the names previous_by_thread leaves free)
 * in a {@code HashMap} as in the group coordinator; previous tasks of a client without
 * {@code previous_by_thread} are dealt over its threads (actives, then standbys, each in task order
 * to the thread holding fewest: what the recorded streams_balanced inputs show, whatever their README
 * says, and what streams_sticky's member split assumes); a thread reports the
 * offsets of the tasks it held, and the offsets of tasks its client holds no copy of go to its
 * threads round-robin in task order; running (-2) offsets are not sent (nor take a thread's turn).
 *
 * <p>{@code streams_sticky} reproduces more than one Kafka (its {@code kafka_version} parameter): the
 * generated groups run it with the version of this jar ({@link #stickyVersion()}, "4.4" for 4.4.0),
 * and so do the recorded inputs: every difference from the jar's assignor is a failure. The
 * recorded answers come from an unreleased trunk commit (apache/kafka 058944c8144d), which
 * tests/kafka/golden.py checks with {@code kafka_version: trunk-058944c} (the strategy's default);
 * here the jar's own answers on those inputs are counted against them (a fact about Kafka's
 * versions, reported, not a failure).
 * {@code BalancedTaskAssignor} is in no released Kafka jar (4.0 to 4.4; it is apache/kafka pull
 * request 23419), so its recorded answers are its only oracle here.
 */
public class StreamsGroupDifferentialTest {
    private static final String[] SCENARIOS = {"fresh", "scale-out", "scale-in", "rolling-restart"};

    /** The oracle against the recorded KIP-1071 answers (apache/kafka 058944c8144d). */
    @Test
    void kafkasStickyAssignorFromThisJarAgainstTheRecordedAnswers() throws IOException {
        final List<Path> cases = golden("streams_sticky");
        final Path assignor = TestSupport.requireAssignor();  // for streams_sticky on the same inputs
        final Path work = Files.createTempDirectory("sticky-recorded-");
        final List<String> different = new ArrayList<>();
        final Map<String, String> oursDifferent = new TreeMap<>();
        for (final Path kafkaJson : cases) {
            final JsonNode cluster = TestSupport.read(clusterOf(kafkaJson));
            final int standbys = TestSupport.read(configOf(kafkaJson)).path("assignment").path("num_standby_replicas")
                .asInt(0);
            final var kafka = kafkaSticky(cluster, standbys);
            final List<String> d = TestSupport.differences(withEveryClient(TestSupport.roles(
                TestSupport.read(kafkaJson).get("assignment")), cluster), kafka);
            if (!d.isEmpty()) {
                different.add(kafkaJson.getFileName() + ": " + d.subList(0, Math.min(3, d.size())));
            }
            final List<String> o = TestSupport.differences(kafka,
                streamsSticky(assignor, clusterOf(kafkaJson), standbys, work, kafkaJson.getFileName().toString()));
            if (!o.isEmpty()) {
                oursDifferent.put(kafkaJson.getFileName().toString(),
                    kafkaJson.getFileName() + ": " + o.subList(0, Math.min(3, o.size())));
            }
        }
        final String summary = String.format("Kafka %s StickyTaskAssignor (KIP-1071): %d/%d answers recorded from "
            + "apache/kafka 058944c8144d (later trunk) equal; streams_sticky with kafka_version %s equal to this "
            + "jar on %d/%d of those inputs", TestSupport.kafkaVersion(), cases.size() - different.size(),
            cases.size(), stickyVersion(), cases.size() - oursDifferent.size(), cases.size());
        System.out.println(summary);
        different.stream().limit(3).forEach(d -> System.out.println("  " + d.substring(0, Math.min(300, d.length()))));
        assertEquals(Map.of(), oursDifferent, summary);
        // The released assignor is not the one recorded (KIP-1071's assignor kept changing after 4.4):
        // a fact about Kafka's versions, reported with its count, not a failure of ours.
        if (!different.isEmpty()) {
            abort(summary + ": the released assignor differs from the recorded trunk one (tests/kafka/golden.py "
                + "checks streams_sticky against those answers with kafka_version trunk-058944c)");
        }
    }

    /** streams_sticky (refiner off, this jar's kafka_version) against this jar's StickyTaskAssignor on generated groups. */
    @Test
    void streamsStickyAgainstKafkasStickyAssignor() throws IOException {
        final TestSupport.Differential run = new TestSupport.Differential("assignor.differential.cases", 300, 0L,
            "sticky-differential-");
        final Map<String, String> different = new TreeMap<>();
        for (int i = 0; i < run.cases; ++i) {
            final int standbys = run.rng.nextInt(3);
            final ObjectNode cluster = HighAvailabilityDifferentialTest.generatedCluster(run.assignor, run.rng, i,
                run.work);
            final var kafka = kafkaSticky(cluster, standbys);
            final Path clusterFile = run.work.resolve("case" + i + ".cluster.json");
            Files.write(clusterFile, TestSupport.JSON.writeValueAsBytes(cluster));
            final List<String> d = TestSupport.differences(kafka,
                streamsSticky(run.assignor, clusterFile, standbys, run.work, "case" + i));
            if (!d.isEmpty()) {
                different.put("case " + i + " seed " + run.seed, "case " + i + " (" + clusterFile + ", " + standbys
                    + " standbys): " + String.join("; ", d.subList(0, Math.min(3, d.size()))));
            } else {
                Files.delete(clusterFile);
                Files.delete(run.work.resolve("case" + i + ".config.yaml"));
            }
        }
        final String summary = String.format("streams_sticky (kafka_version %s) vs Kafka %s StickyTaskAssignor "
            + "(KIP-1071): %d/%d generated groups equal, %d differ (seed %d)", stickyVersion(),
            TestSupport.kafkaVersion(), run.cases - different.size(), run.cases, different.size(), run.seed);
        System.out.println(summary);
        different.values().stream().limit(5).forEach(d -> System.out.println("  " + d));
        assertTrue(different.isEmpty(), summary + ":\n  " + String.join("\n  ", different.values().stream().limit(10).toList()));
    }

    /**
     * The kafka_version of streams_sticky that this jar's StickyTaskAssignor is: its major.minor
     * ("4.4" for 4.4.0). A jar whose version streams_sticky does not know fails the run with the
     * strategy's own message (the accepted values).
     */
    public static String stickyVersion() {
        final String[] parts = TestSupport.kafkaVersion().split("\\.");
        return parts.length >= 2 ? parts[0] + "." + parts[1] : TestSupport.kafkaVersion();
    }

    /** `assignor assign --strategy streams_sticky` (refiner off, this jar's kafka_version), per client. */
    private static Map<String, Map<String, SortedSet<String>>> streamsSticky(final Path assignor, final Path cluster,
                                                                         final int standbys, final Path work,
                                                                         final String name) {
        final Path config = TestSupport.write(work.resolve(name + ".config.yaml"),
            "strategy: streams_sticky\nassignment: {num_standby_replicas: " + standbys + "}\n"
                + "strategies: {streams_sticky: {refiner: false, kafka_version: \"" + stickyVersion() + "\"}}\n");
        return TestSupport.roles(TestSupport.parse(TestSupport.run(List.of(assignor.toString(), "assign",
            "--config", config.toString(), "--cluster", cluster.toString()))).get("assignment"));
    }

    /** streams_balanced against its recorded answers: Kafka's BalancedTaskAssignor is in no released jar. */
    @Test
    void streamsBalancedGivesTheRecordedAnswers() throws IOException {
        final Path assignor = TestSupport.requireAssignor();
        final List<Path> cases = golden("streams_balanced");
        final List<String> different = new ArrayList<>();
        for (final Path kafkaJson : cases) {
            final JsonNode cluster = TestSupport.read(clusterOf(kafkaJson));
            final var ours = TestSupport.roles(TestSupport.parse(TestSupport.run(List.of(assignor.toString(), "assign",
                "--config", configOf(kafkaJson).toString(), "--cluster", clusterOf(kafkaJson).toString())))
                .get("assignment"));
            final List<String> d = TestSupport.differences(withEveryClient(TestSupport.roles(
                TestSupport.read(kafkaJson).get("assignment")), cluster), ours);
            if (!d.isEmpty()) {
                different.add(kafkaJson.getFileName() + ": " + d.subList(0, Math.min(3, d.size())));
            }
        }
        System.out.printf("streams_balanced: %d/%d recorded BalancedTaskAssignor answers equal%n",
            cases.size() - different.size(), cases.size());
        assertEquals(List.of(), different);
    }

    /**
     * A cluster file as Kafka's group coordinator would hold it (the class comment says how): the
     * group spec, the topology, and each member's process. The broker bridge's tests feed the same
     * groups to the bridge.
     */
    public record KafkaGroup(GroupSpecImpl spec, TopologyDescriber topology, Map<String, String> processOfMember) {
    }

    public static KafkaGroup kafkaGroup(final JsonNode cluster, final int standbys) {
        final Map<String, Boolean> logged = new HashMap<>();
        final Map<String, Integer> partitions = new TreeMap<>();
        final List<String> taskOrder = new ArrayList<>();
        for (final JsonNode t : cluster.get("tasks")) {
            final String id = t.get("id").asText();
            final String s = id.substring(0, id.indexOf('_'));
            final int p = Integer.parseInt(id.substring(id.indexOf('_') + 1));
            partitions.merge(s, p + 1, Math::max);
            boolean l = false;
            for (final JsonNode store : t.path("stores")) {
                l |= store.path("logged").asBoolean(true);
            }
            logged.merge(s, l, Boolean::logicalOr);
            taskOrder.add(id);
        }
        taskOrder.sort((a, b) -> compareTasks(a, b));
        final List<String> subtopologies = new ArrayList<>(partitions.keySet());
        subtopologies.sort((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b)));
        final TopologyDescriber topology = new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return subtopologies;
            }

            @Override
            public int maxNumInputPartitions(final String subtopology) {
                return partitions.get(subtopology);
            }

            @Override
            public boolean isStateful(final String subtopology) {
                return logged.get(subtopology);
            }
        };

        final Map<String, MemberMetadataAndStateImpl> members = new HashMap<>();
        final Map<String, String> processOfMember = new HashMap<>();
        for (final JsonNode c : cluster.get("clients")) {
            final String client = c.get("id").asText();
            final int threads = c.get("threads").asInt();
            final List<String> names = new ArrayList<>();
            final List<List<String>> active = new ArrayList<>();
            final List<List<String>> standby = new ArrayList<>();
            c.path("previous_by_thread").properties().forEach(e -> {
                names.add(e.getKey());
                active.add(texts(e.getValue().path("active")));
                standby.add(texts(e.getValue().path("standby")));
            });
            // The other threads are t0, t1, ... skipping the names previous_by_thread already uses
            // (the numbering assignor's thread split gives them).
            final Set<String> named = new HashSet<>(names);
            for (int i = 0; names.size() < threads; ++i) {
                if (!named.contains("t" + i)) {
                    names.add(client + "/t" + i);
                    active.add(new ArrayList<>());
                    standby.add(new ArrayList<>());
                }
            }
            if (!c.has("previous_by_thread")) {
                deal(sorted(texts(c.path("previous_active"))), active, standby, active);
                deal(sorted(texts(c.path("previous_standby"))), active, standby, standby);
            }
            final Map<String, Long> sums = new TreeMap<>((a, b) -> compareTasks(a, b));
            c.path("offset_sums").properties().forEach(e -> sums.put(e.getKey(), e.getValue().asLong()));
            final List<Map<String, Map<Integer, Long>>> offsets = new ArrayList<>();
            for (int k = 0; k < names.size(); ++k) {
                final Map<String, Map<Integer, Long>> o = new HashMap<>();
                for (final String t : active.get(k)) {
                    report(o, t, sums);
                }
                for (final String t : standby.get(k)) {
                    report(o, t, sums);
                }
                offsets.add(o);
            }
            final Set<String> held = new HashSet<>();
            active.forEach(held::addAll);
            standby.forEach(held::addAll);
            int next = 0;
            for (final Map.Entry<String, Long> e : sums.entrySet()) {
                // A running (-2) sum is not sent, and takes no thread's turn.
                if (!held.contains(e.getKey()) && e.getValue() != ClusterFile.RUNNING) {
                    report(offsets.get(next++ % names.size()), e.getKey(), sums);
                }
            }
            for (int k = 0; k < names.size(); ++k) {
                members.put(names.get(k), new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), client,
                    Map.of(), compact(active.get(k)), compact(standby.get(k)), Map.of(), offsets.get(k), Map.of()));
                processOfMember.put(names.get(k), client);
            }
        }
        return new KafkaGroup(new GroupSpecImpl(members, new AssignmentConfigsImpl(standbys, List.of())), topology,
            processOfMember);
    }

    /** Kafka's KIP-1071 StickyTaskAssignor on a cluster file, per client: active and standby tasks. */
    static Map<String, Map<String, SortedSet<String>>> kafkaSticky(final JsonNode cluster, final int standbys) {
        final KafkaGroup group = kafkaGroup(cluster, standbys);
        final Map<String, String> processOfMember = group.processOfMember();
        final GroupAssignment result = new StickyTaskAssignor().assign(group.spec(), group.topology());
        final Map<String, Map<String, SortedSet<String>>> out = new TreeMap<>();
        for (final JsonNode c : cluster.get("clients")) {
            final Map<String, SortedSet<String>> r = new TreeMap<>();
            r.put("active", new TreeSet<>());
            r.put("standby", new TreeSet<>());
            out.put(c.get("id").asText(), r);
        }
        for (final Map.Entry<String, MemberAssignment> m : result.members().entrySet()) {
            final Map<String, SortedSet<String>> r = out.get(processOfMember.get(m.getKey()));
            m.getValue().activeTasks().forEach((s, ps) -> ps.forEach(p -> r.get("active").add(s + "_" + p)));
            m.getValue().standbyTasks().forEach((s, ps) -> ps.forEach(p -> r.get("standby").add(s + "_" + p)));
        }
        return out;
    }

    /** Each task to the thread holding fewest so far (ties: lowest index). */
    private static void deal(final List<String> tasks, final List<List<String>> active,
                             final List<List<String>> standby, final List<List<String>> into) {
        for (final String t : tasks) {
            int best = 0;
            for (int k = 1; k < into.size(); ++k) {
                if (active.get(k).size() + standby.get(k).size() < active.get(best).size() + standby.get(best).size()) {
                    best = k;
                }
            }
            into.get(best).add(t);
        }
    }

    private static void report(final Map<String, Map<Integer, Long>> offsets, final String task,
                               final Map<String, Long> sums) {
        final Long sum = sums.get(task);
        if (sum != null && sum != ClusterFile.RUNNING) {
            offsets.computeIfAbsent(task.substring(0, task.indexOf('_')), s -> new HashMap<>())
                .put(Integer.parseInt(task.substring(task.indexOf('_') + 1)), sum);
        }
    }

    private static Map<String, Set<Integer>> compact(final List<String> tasks) {
        final Map<String, Set<Integer>> m = new HashMap<>();
        for (final String t : tasks) {
            m.computeIfAbsent(t.substring(0, t.indexOf('_')), s -> new HashSet<>())
                .add(Integer.parseInt(t.substring(t.indexOf('_') + 1)));
        }
        return m;
    }

    private static int compareTasks(final String a, final String b) {
        final int sa = Integer.parseInt(a.substring(0, a.indexOf('_')));
        final int sb = Integer.parseInt(b.substring(0, b.indexOf('_')));
        if (sa != sb) {
            return Integer.compare(sa, sb);
        }
        return Integer.compare(Integer.parseInt(a.substring(a.indexOf('_') + 1)),
            Integer.parseInt(b.substring(b.indexOf('_') + 1)));
    }

    private static List<String> sorted(final List<String> tasks) {
        tasks.sort((a, b) -> compareTasks(a, b));
        return tasks;
    }

    private static List<String> texts(final JsonNode list) {
        final List<String> out = new ArrayList<>();
        list.forEach(t -> out.add(t.asText()));
        return out;
    }

    private static Map<String, Map<String, SortedSet<String>>> withEveryClient(
        final Map<String, Map<String, SortedSet<String>>> roles, final JsonNode cluster) {
        for (final JsonNode c : cluster.get("clients")) {
            roles.computeIfAbsent(c.get("id").asText(), n -> Map.of("active", new TreeSet<>(), "standby", new TreeSet<>()));
        }
        return roles;
    }

    private static Path clusterOf(final Path kafkaJson) {
        final String base = kafkaJson.toString().substring(0, kafkaJson.toString().length() - ".kafka.json".length());
        return Files.exists(Path.of(base + ".cluster.json")) ? Path.of(base + ".cluster.json")
            : Path.of(base + ".cluster.yaml");
    }

    private static Path configOf(final Path kafkaJson) {
        final String base = kafkaJson.toString().substring(0, kafkaJson.toString().length() - ".kafka.json".length());
        return Path.of(base + ".config.yaml");
    }

    private static List<Path> golden(final String folder) throws IOException {
        final Path golden = TestSupport.golden();
        assertTrue(Files.isDirectory(golden.resolve(folder)), "no folder " + golden.resolve(folder));
        final List<Path> cases = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(golden.resolve(folder), "*.kafka.json")) {
            files.forEach(cases::add);
        }
        cases.sort(null);
        assertTrue(!cases.isEmpty());
        return cases;
    }
}
