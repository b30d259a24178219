package dev.assignor.kafkastreams;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A single-node Kafka broker (KRaft: broker and controller in one), from Kafka's own jars, listening
 * on 127.0.0.1 only; its storage is formatted in a directory of the test's. Closing it shuts it down.
 */
public final class LoopbackBroker implements AutoCloseable {
    private final KafkaRaftServer server;
    private final String bootstrap;

    public LoopbackBroker(final Path directory, final Map<String, String> extraConfigs) throws Exception {
        final Path logDir = Files.createDirectories(directory.resolve("kraft"));
        final int brokerPort = freePort();
        final int controllerPort = freePort();
        bootstrap = "127.0.0.1:" + brokerPort;
        final Map<String, Object> p = new HashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + bootstrap);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.putAll(extraConfigs);
        new Formatter()
            .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
            .setNodeId(1)
            .setClusterId(Uuid.randomUuid().toString())
            .addDirectory(logDir.toString())
            .setMetadataLogDirectory(logDir.toString())
            .setControllerListenerName("CONTROLLER")
            .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
            .run();
        server = new KafkaRaftServer(new KafkaConfig(p), Time.SYSTEM);
        server.startup();
    }

    /** bootstrap.servers for clients: 127.0.0.1 and the broker's port. */
    public String bootstrapServers() {
        return bootstrap;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
