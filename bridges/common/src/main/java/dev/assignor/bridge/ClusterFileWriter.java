package dev.assignor.bridge;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * Writes a cluster file (DESIGN 4.1, 4.9) in the shapes both bridges give it: the header, a task's
 * stores and partitions, a client's id, threads, rack, tags, previous tasks, offset sums and per-thread
 * previous tasks. Each bridge keeps only how it reads its own Kafka objects (KIP-924's ApplicationState,
 * KIP-1071's GroupSpec) and says here what goes in. One pass straight to bytes with Jackson's streaming
 * generator: no tree, so 100k tasks cost what the bytes cost.
 */
public final class ClusterFileWriter {
    private static final JsonFactory JSON = new JsonFactory();

    /** One part of the file (the tasks, or the clients), written through the writer. */
    public interface Part {
        void write(ClusterFileWriter file) throws IOException;
    }

    private final JsonGenerator g;

    private ClusterFileWriter(final JsonGenerator g) {
        this.g = g;
    }

    /**
     * The file's bytes: {@code version} 1, {@code end_offsets_known} unless it is null, then the
     * {@code tasks} and {@code clients} arrays with what {@code tasks} and {@code clients} write into them.
     *
     * @param sizeHint the bytes expected (the buffer's first size)
     */
    public static byte[] write(final int sizeHint, final Boolean endOffsetsKnown, final Part tasks, final Part clients)
        throws BridgeException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            final ClusterFileWriter file = new ClusterFileWriter(g);
            g.writeStartObject();
            g.writeNumberField("version", 1);
            if (endOffsetsKnown != null) {
                g.writeBooleanField("end_offsets_known", endOffsetsKnown);
            }
            g.writeArrayFieldStart("tasks");
            tasks.write(file);
            g.writeEndArray();
            g.writeArrayFieldStart("clients");
            clients.write(file);
            g.writeEndArray();
            g.writeEndObject();
        } catch (final IOException e) {
            throw new BridgeException(FallbackReason.INTERNAL, "could not write the cluster file: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    /** Opens a task: its id ("S_P"); then its stores and partitions, if any, and {@link #endTask()}. */
    public void beginTask(final String id) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", id);
    }

    public void endTask() throws IOException {
        g.writeEndObject();
    }

    /** Opens the task's {@code stores}: then {@link #loggedStore} and {@link #unloggedStore}, and {@link #endList()}. */
    public void beginStores() throws IOException {
        g.writeArrayFieldStart("stores");
    }

    /** A store with a changelog: the task's lags are measured against its end offset. */
    public void loggedStore(final String name, final long changelogEndOffset) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeNumberField("changelog_end_offset", changelogEndOffset);
        g.writeEndObject();
    }

    /** A store without a changelog (local state only). */
    public void unloggedStore(final String name) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeBooleanField("logged", false);
        g.writeEndObject();
    }

    /** Opens the task's {@code partitions}: then {@link #partition}, and {@link #endList()}. */
    public void beginPartitions() throws IOException {
        g.writeArrayFieldStart("partitions");
    }

    /** A partition the task reads or writes, with its replicas' racks (in the order given). */
    public void partition(final String topic, final int partition, final Iterable<String> racks) throws IOException {
        g.writeStartObject();
        g.writeStringField("topic", topic);
        g.writeNumberField("partition", partition);
        g.writeArrayFieldStart("racks");
        for (final String rack : racks) {
            g.writeString(rack);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** Closes what {@link #beginStores()} or {@link #beginPartitions()} opened. */
    public void endList() throws IOException {
        g.writeEndArray();
    }

    /**
     * Opens a client: its id, threads, rack (when it has one) and tags (when it has any, in key
     * order); then {@link #tasks} for its previous tasks, its offset sums, and {@link #endClient()}.
     */
    public void beginClient(final String id, final int threads, final Optional<String> rack,
                            final Map<String, String> tags) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", id);
        g.writeNumberField("threads", threads);
        if (rack.isPresent()) {
            g.writeStringField("rack", rack.get());
        }
        if (!tags.isEmpty()) {
            g.writeObjectFieldStart("tags");
            for (final Map.Entry<String, String> tag : new TreeMap<>(tags).entrySet()) {
                g.writeStringField(tag.getKey(), tag.getValue());
            }
            g.writeEndObject();
        }
    }

    public void endClient() throws IOException {
        g.writeEndObject();
    }

    /**
     * A task list named {@code field} ({@code previous_active}, {@code previous_standby}, a thread's
     * {@code active} or {@code standby}): {@code names[tasks[i]]} for each position {@code i} that
     * {@code at} accepts, in that order.
     */
    public void tasks(final String field, final int[] tasks, final String[] names, final IntPredicate at)
        throws IOException {
        g.writeArrayFieldStart(field);
        for (int i = 0; i < tasks.length; ++i) {
            if (at.test(i)) {
                g.writeString(names[tasks[i]]);
            }
        }
        g.writeEndArray();
    }

    /** Opens the client's {@code offset_sums}: then {@link #offsetSum} per task, and {@link #endObject()}. */
    public void beginOffsetSums() throws IOException {
        g.writeObjectFieldStart("offset_sums");
    }

    public void offsetSum(final String task, final long sum) throws IOException {
        g.writeNumberField(task, sum);
    }

    /**
     * Opens the client's {@code previous_by_thread}: then per thread {@link #beginThread}, its
     * {@link #tasks} lists and {@link #endObject()}; then {@link #endObject()}.
     */
    public void beginPreviousByThread() throws IOException {
        g.writeObjectFieldStart("previous_by_thread");
    }

    public void beginThread(final String thread) throws IOException {
        g.writeObjectFieldStart(thread);
    }

    /** Closes what {@link #beginOffsetSums()}, {@link #beginPreviousByThread()} or {@link #beginThread} opened. */
    public void endObject() throws IOException {
        g.writeEndObject();
    }
}
