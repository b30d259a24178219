package dev.assignor.bridge;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An assignment in the output format (DESIGN 4.4), for decisions the host did not write: Kafka's own
 * assignor's, when a bridge fell back (the decision record keeps it as NAME.kafka.json).
 */
public final class AssignmentJson {
    private static final JsonFactory JSON = new JsonFactory();

    /** One client's tasks ("S_P" names, in task order), and optionally its per-thread split. */
    public static final class Client {
        public final List<String> active = new ArrayList<>();
        public final List<String> standby = new ArrayList<>();
        public final List<String> warmup = new ArrayList<>();
        public final Map<String, Client> threads = new LinkedHashMap<>();
    }

    private AssignmentJson() {
    }

    public static byte[] write(final String strategy, final Map<String, Client> clients, final boolean probing,
                               final long probingAfterMs) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("strategy", strategy);
            g.writeObjectFieldStart("assignment");
            for (final Map.Entry<String, Client> c : clients.entrySet()) {
                g.writeFieldName(c.getKey());
                roles(g, c.getValue());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("probing_rebalance");
            g.writeBooleanField("needed", probing);
            if (probing) {
                g.writeNumberField("after_ms", probingAfterMs);
            }
            g.writeEndObject();
            g.writeEndObject();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void roles(final JsonGenerator g, final Client c) throws IOException {
        g.writeStartObject();
        list(g, "active", c.active);
        list(g, "standby", c.standby);
        list(g, "warmup", c.warmup);
        if (!c.threads.isEmpty()) {
            g.writeObjectFieldStart("threads");
            for (final Map.Entry<String, Client> t : c.threads.entrySet()) {
                g.writeFieldName(t.getKey());
                roles(g, t.getValue());
            }
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private static void list(final JsonGenerator g, final String name, final List<String> tasks) throws IOException {
        g.writeArrayFieldStart(name);
        for (final String t : tasks) {
            g.writeString(t);
        }
        g.writeEndArray();
    }
}
