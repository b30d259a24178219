package dev.assignor.kafkabroker;

import dev.assignor.bridge.AnswerReader;
import dev.assignor.bridge.AssignmentJson;
import dev.assignor.bridge.AssignmentSettings;
import dev.assignor.bridge.BridgeConfig;
import dev.assignor.bridge.BridgeCore;
import dev.assignor.bridge.BridgeException;
import dev.assignor.bridge.BridgeMetrics;
import dev.assignor.bridge.DecisionRecord;
import dev.assignor.bridge.FallbackReason;
import dev.assignor.bridge.HostConfig;
import dev.assignor.bridge.WorkDirectory;

import org.apache.kafka.common.Configurable;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Runs an Assignor strategy as the group coordinator's task assignor for streams groups (Kafka 4.4+,
 * KIP-1071, {@code group.protocol=streams}, where the broker assigns and Kafka Streams'
 * {@code task.assignor.class} is ignored). In the broker's server.properties:
 * <pre>
 * group.streams.assignors=dev.assignor.kafkabroker.AssignorStreamsGroupAssignor,org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor
 * assignor.strategy=least_movement
 * assignor.command=/opt/assignor/bin/assignor
 * </pre>
 * (the first assignor is every group's default; a group picks one by name with its
 * {@code streams.assignor.name} config: this one is {@value #NAME}). At every assignment the group's
 * state is written as a cluster file ({@link GroupFile}: process = client, member = thread), the host
 * runs the strategy in another process (a resident {@code assignor serve} worker, or a process per
 * assignment), and the answer's per-thread split becomes Kafka's per-member {@link GroupAssignment}
 * (a warmup goes as a standby task: Kafka 4.4's {@link MemberAssignment} has no third kind).
 * Whatever goes wrong, the group still gets an assignment: Kafka's own {@link StickyTaskAssignor}'s,
 * with one WARN line saying why; never an exception into the coordinator. Thread-safe: the coordinator
 * may assign several groups at once (requests to the host are serialized).
 */
public final class AssignorStreamsGroupAssignor implements TaskAssignor, Configurable {
    /** The name groups select this assignor by ({@code streams.assignor.name}). */
    public static final String NAME = "assignor";
    static final String METRICS_NAME = "kafka.coordinator.group:type=streams-assignor-bridge-metrics,assignor=" + NAME;
    private static final Logger LOG = LoggerFactory.getLogger(AssignorStreamsGroupAssignor.class);

    private volatile BrokerSettings settings = BrokerSettings.from(Map.of());

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void configure(final Map<String, ?> configs) {
        settings = BrokerSettings.from(configs);
        metrics();  // in JMX from the start, with zeros
        if (!settings.problems().isEmpty()) {
            LOG.warn("Assignor bridge: the assignor.* settings cannot be used ({}); every streams group this assignor "
                + "serves gets Kafka's StickyTaskAssignor", String.join("; ", settings.problems()));
        }
    }

    BridgeMetrics metrics() {
        return BridgeMetrics.named(METRICS_NAME);
    }

    /** What one assignment came to: the assignment, and why the strategy's was not used (null when it was). */
    record Outcome(GroupAssignment assignment, FallbackReason fallback, String message) {
    }

    @Override
    public GroupAssignment assign(final GroupSpec groupSpec, final TopologyDescriber topology)
        throws TaskAssignorException {
        return decide(groupSpec, topology).assignment();
    }

    Outcome decide(final GroupSpec groupSpec, final TopologyDescriber topology) throws TaskAssignorException {
        final long start = System.nanoTime();
        final Instant now = Instant.now();
        final BrokerSettings s = settings;
        GroupFile file = null;
        try {
            if (!s.problems().isEmpty()) {
                throw new BridgeException(FallbackReason.SETTINGS, String.join("; ", s.problems()));
            }
            file = GroupFile.of(groupSpec, topology);
            final AssignmentSettings kafka = s.assignmentSettings(groupSpec);
            final BridgeCore.Outcome outcome = BridgeCore.run(s.config(), kafka, file.json(), file, LOG);
            final AnswerReader.Parsed answer = outcome.parsed();
            final GroupAssignment assignment = perMember(answer, file);
            final double totalMs = (System.nanoTime() - start) / 1e6;
            LOG.info("Assignor bridge: strategy {} assigned {} tasks ({} stateful) to {} processes, {} members: {} "
                    + "active, {} standby, {} warmup (sent as standby){}; {} ms in all, {} ms in the strategy",
                answer.strategy(), file.taskCount(), file.loggedTasks(), file.clientCount(), file.memberCount(),
                answer.actives(), answer.standbys(), answer.warmups(),
                answer.probing() ? "; it asked for a probing rebalance, which KIP-1071 has not: the group's next "
                    + "rebalance moves the warmed-up tasks" : "",
                String.format("%.1f", totalMs), String.format("%.1f", answer.assignMs()));
            metrics().decided(totalMs, answer.assignMs(), answer.activeMoves(), answer.restoringActives(),
                answer.warmups());
            record(s, file, outcome.config().bytes(), outcome.answer(), answer.strategy(), answer.probing(),
                answer.standbys(), answer.warmups(), "by the strategy", kafka.numStandbyReplicas(), null, null, now,
                totalMs, answer.assignMs());
            return new Outcome(assignment, null, null);
        } catch (final BridgeException | RuntimeException | LinkageError | StackOverflowError e) {
            final GroupAssignment kafka = new StickyTaskAssignor().assign(groupSpec, topology);
            final double totalMs = (System.nanoTime() - start) / 1e6;
            final FallbackReason reason = BridgeCore.reason(e);
            final String message = BridgeCore.describe(e);
            LOG.warn("Assignor bridge: strategy {} not used for this streams group ({} members): {}; using Kafka's "
                + "StickyTaskAssignor instead", s.strategyForMessages(), groupSpec.memberIds().size(), message);
            metrics().fellBack(reason, totalMs);
            if (file != null) {
                recordFallback(s, groupSpec, file, kafka, reason, message, now, totalMs);
            }
            return new Outcome(kafka, reason, message);
        }
    }

    /** The answer's per-thread split as Kafka's per-member assignment (every member appears). */
    static GroupAssignment perMember(final AnswerReader.Parsed answer, final GroupFile file) throws BridgeException {
        final Map<String, MemberAssignment> members = new HashMap<>();
        for (int c = 0; c < file.clientCount(); ++c) {
            final Map<String, int[][]> split = answer.threads(c);
            final boolean holdsTasks = answer.tasks(c, AnswerReader.ACTIVE).length
                + answer.tasks(c, AnswerReader.STANDBY).length + answer.tasks(c, AnswerReader.WARMUP).length > 0;
            if (split.isEmpty() && holdsTasks) {
                throw new BridgeException(FallbackReason.INVALID_ANSWER, "the answer has no per-thread split for "
                    + "process " + file.clientId(c) + " (the broker assigns per member)");
            }
            for (final String member : file.members(c)) {
                final int[][] roles = split.get(member);
                final Map<String, Set<Integer>> active = new HashMap<>();
                final Map<String, Set<Integer>> standby = new HashMap<>();
                if (roles != null) {
                    add(file, roles[AnswerReader.ACTIVE], active);
                    add(file, roles[AnswerReader.STANDBY], standby);
                    add(file, roles[AnswerReader.WARMUP], standby);
                }
                members.put(member, new MemberAssignment(active, standby));
            }
        }
        return new GroupAssignment(members);
    }

    private static void add(final GroupFile file, final int[] tasks, final Map<String, Set<Integer>> into) {
        for (final int t : tasks) {
            into.computeIfAbsent(file.subtopology(t), k -> new HashSet<>()).add(file.partition(t));
        }
    }

    private void recordFallback(final BrokerSettings s, final GroupSpec spec, final GroupFile file,
                                final GroupAssignment kafka, final FallbackReason reason, final String message,
                                final Instant now, final double totalMs) {
        final BridgeConfig config = s.config();
        if (config == null || config.recordDir().isEmpty()) {
            return;
        }
        final Map<String, AssignmentJson.Client> clients = new LinkedHashMap<>();
        int standbys = 0;
        for (int c = 0; c < file.clientCount(); ++c) {
            final AssignmentJson.Client client = new AssignmentJson.Client();
            final TreeSet<Integer> active = new TreeSet<>();
            final TreeSet<Integer> standby = new TreeSet<>();
            for (final String member : file.members(c)) {
                final MemberAssignment m = kafka.members().get(member);
                if (m == null) {
                    continue;
                }
                final AssignmentJson.Client thread = new AssignmentJson.Client();
                final TreeSet<Integer> memberActive = indices(file, m.activeTasks());
                final TreeSet<Integer> memberStandby = indices(file, m.standbyTasks());
                memberActive.forEach(t -> thread.active.add(file.taskName(t)));
                memberStandby.forEach(t -> thread.standby.add(file.taskName(t)));
                active.addAll(memberActive);
                standby.addAll(memberStandby);
                if (!memberActive.isEmpty() || !memberStandby.isEmpty()) {
                    client.threads.put(member, thread);
                }
            }
            active.forEach(t -> client.active.add(file.taskName(t)));
            standby.forEach(t -> client.standby.add(file.taskName(t)));
            standbys += standby.size();
            clients.put(file.clientId(c), client);
        }
        final AssignmentSettings kafkaSettings = s.assignmentSettings(spec);
        byte[] hostConfig;
        try {
            hostConfig = HostConfig.write(config, kafkaSettings, WorkDirectory.get()).bytes();
        } catch (final BridgeException e) {
            hostConfig = ("# the bridge's config could not be written: " + e.getMessage() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        }
        record(s, file, hostConfig, AssignmentJson.write("kafka: StickyTaskAssignor", clients, false, 0),
            "Kafka's StickyTaskAssignor", false, standbys, 0, "none (Kafka's StickyTaskAssignor places no warmups)",
            kafkaSettings.numStandbyReplicas(), reason, message, now, totalMs, Double.NaN);
    }

    private static TreeSet<Integer> indices(final GroupFile file, final Map<String, Set<Integer>> tasks) {
        final TreeSet<Integer> out = new TreeSet<>();
        tasks.forEach((sub, ps) -> ps.forEach(p -> {
            final int t = file.taskIndex(sub + "_" + p);
            if (t >= 0) {
                out.add(t);
            }
        }));
        return out;
    }

    private void record(final BrokerSettings s, final GroupFile file, final byte[] config, final byte[] decision,
                        final String decidedBy, final boolean probing, final int standbys, final int warmups,
                        final String warmupsToldApart, final int numStandbys, final FallbackReason reason,
                        final String message, final Instant now, final double totalMs, final double strategyMs) {
        final BridgeConfig c = s.config();
        if (c == null || c.recordDir().isEmpty()) {
            return;
        }
        // The API names no group: decisions are kept per topology shape (one directory per application).
        final Path dir = c.recordDir().get().resolve("topology-" + file.topologyKey());
        BridgeCore.record(c, dir, new DecisionRecord.Decision(now, "kafka-broker bridge", "bridge-kafka-broker",
            file.json(), config, decision, file.clientCount(), file.taskCount(), file.loggedTasks(), probing,
            standbys, warmups, numStandbys, "the group's num.standby.replicas and rack.aware.assignment.tags, the "
            + "broker's group.streams.acceptable.recovery.lag and group.streams.num.warmup.replicas",
            warmupsToldApart, decidedBy, reason, message, totalMs, strategyMs), LOG);
    }

    /** For tests and messages: a group's assignment per member as sorted "S_P" lists. */
    static Map<String, Map<String, TreeSet<String>>> roles(final GroupAssignment assignment) {
        final Map<String, Map<String, TreeSet<String>>> out = new TreeMap<>();
        assignment.members().forEach((member, m) -> {
            final Map<String, TreeSet<String>> r = new TreeMap<>();
            r.put("active", new TreeSet<>());
            r.put("standby", new TreeSet<>());
            m.activeTasks().forEach((sub, ps) -> ps.forEach(p -> r.get("active").add(sub + "_" + p)));
            m.standbyTasks().forEach((sub, ps) -> ps.forEach(p -> r.get("standby").add(sub + "_" + p)));
            out.put(member, r);
        });
        return out;
    }
}
