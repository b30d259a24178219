package dev.assignor.bridge;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A cluster file a bridge wrote ({@link ClusterFileWriter}), with its clients and tasks by name and
 * index: what {@link AnswerReader} reads the answer against. Each bridge extends it with the maps back
 * to its own Kafka objects (process ids, task ids, members).
 */
public abstract class WrittenClusterFile implements AnswerReader.Shape {
    private final byte[] json;
    private final List<String> clientIds;
    private final Map<String, Integer> clientIndex;
    private final String[] taskNames;
    private final Map<String, Integer> taskIndex;
    private final boolean[] hasStores;
    private final int loggedTasks;

    /**
     * @param clientIds   the file's client ids, in the order of the bridge's client indices
     * @param taskNames   the file's task ids ("S_P"), in the order of the bridge's task indices
     * @param hasStores   per task: whether it has state stores (only those may have standbys)
     * @param loggedTasks how many tasks have a changelog
     */
    protected WrittenClusterFile(final byte[] json, final List<String> clientIds, final String[] taskNames,
                                 final boolean[] hasStores, final int loggedTasks) {
        this.json = json;
        this.clientIds = clientIds;
        this.taskNames = taskNames;
        this.hasStores = hasStores;
        this.loggedTasks = loggedTasks;
        clientIndex = indexOf(clientIds);
        taskIndex = indexOf(List.of(taskNames));
    }

    private static Map<String, Integer> indexOf(final List<String> names) {
        final Map<String, Integer> index = new HashMap<>(names.size() * 2);
        for (int i = 0; i < names.size(); ++i) {
            index.put(names.get(i), i);
        }
        return index;
    }

    /** The file's bytes (JSON). */
    public byte[] json() {
        return json;
    }

    /** Tasks with a changelog (the ones with a lag). */
    public int loggedTasks() {
        return loggedTasks;
    }

    @Override
    public int clientCount() {
        return clientIds.size();
    }

    @Override
    public int clientIndex(final String id) {
        return clientIndex.getOrDefault(id, -1);
    }

    @Override
    public String clientId(final int c) {
        return clientIds.get(c);
    }

    @Override
    public int taskCount() {
        return taskNames.length;
    }

    @Override
    public int taskIndex(final String name) {
        return taskIndex.getOrDefault(name, -1);
    }

    @Override
    public String taskName(final int t) {
        return taskNames[t];
    }

    /** Whether task {@code t} has state stores: only those may have standbys. */
    @Override
    public boolean hasStores(final int t) {
        return hasStores[t];
    }
}
