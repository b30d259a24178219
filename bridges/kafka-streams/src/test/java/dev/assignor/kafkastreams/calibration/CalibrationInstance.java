package dev.assignor.kafkastreams.calibration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Properties;

/**
 * One instance of the calibration application, in a JVM of its own so that the harness can kill it
 * with SIGKILL (a {@code kill -9}: no clean shutdown, no leave-group request). Two stateful
 * sub-topologies (a count and a reduce, each with a changelogged store) and a stateless one, as
 * {@link #topology(String)} builds them. Its log (Kafka Streams at INFO, in Kafka's layout) goes to the
 * file {@code -Dassignor.e2e.log} names (the tests' log4j2 configuration).
 *
 * <p>Usage: {@code CalibrationInstance APP.properties PREFIX} (PREFIX names the scenario's topics). Prints {@code RUNNING} each time the instance
 * reaches RUNNING; a line {@code close} (or the end of its standard input) closes it as Kafka Streams
 * closes by default: cleanly, its state checkpointed, without leaving the group (the group notices
 * at the session timeout).
 */
public final class CalibrationInstance {
    /** Input topics and their partition counts: each stateful one feeds a store with a changelog. */
    static final String WORDS = "-words";
    static final String CLICKS = "-clicks";
    static final String EVENTS = "-events";

    private CalibrationInstance() {
    }

    /** The output topics, fed by the three sub-topologies in order. */
    static final String[] OUTPUTS = {"-word-counts-out", "-latest-click-out", "-events-out"};

    static Topology topology(final String prefix) {
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(prefix + WORDS, Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count(Materialized.as("word-counts"))
            .toStream()
            .to(prefix + OUTPUTS[0], Produced.with(Serdes.String(), Serdes.Long()));
        builder.stream(prefix + CLICKS, Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .reduce((a, b) -> b, Materialized.as("latest-click"))
            .toStream()
            .to(prefix + OUTPUTS[1], Produced.with(Serdes.String(), Serdes.String()));
        builder.stream(prefix + EVENTS, Consumed.with(Serdes.String(), Serdes.String()))
            .filter((k, v) -> v != null)
            .to(prefix + OUTPUTS[2], Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    public static void main(final String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: CalibrationInstance APP.properties PREFIX");
            System.exit(2);
        }
        final Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            p.load(in);
        }
        final KafkaStreams streams = new KafkaStreams(topology(args[1]), p);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                System.out.println("RUNNING");
                System.out.flush();
            }
            if (now == KafkaStreams.State.ERROR) {
                System.out.println("ERROR");
                System.out.flush();
            }
        });
        streams.start();
        final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = stdin.readLine(); line != null; line = stdin.readLine()) {
            if (line.trim().equals("close")) {
                break;
            }
        }
        streams.close(Duration.ofSeconds(60));
        System.out.println("CLOSED");
        System.out.flush();
        System.exit(0);
    }
}
