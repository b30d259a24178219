package dev.assignor.bridge;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The host as resident workers ({@code assignor.host.mode=worker}, DESIGN 4.9): {@code assignor serve
 * --config C [--plugin-path P]} loads the config's strategy once and answers one request at a time,
 * so that a rebalance pays neither a process start nor plugin loading. One worker per JVM and
 * config: the config carries Kafka's settings, so a broker whose groups differ in standbys keeps one
 * per distinct config (at most {@link #MAX_WORKERS}, the least recently used closed first). Requests
 * to one worker are serialized (the broker may assign several groups at once).
 */
public final class WorkerHost implements StrategyHost {
    /** Workers kept at once (distinct configs); more are started as needed and the oldest closed. */
    static final int MAX_WORKERS = 4;

    private static final WorkerHost SHARED = new WorkerHost();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(SHARED::closeAll, "assignor-worker-shutdown"));
    }

    private final Map<List<String>, ResidentWorker> workers = new LinkedHashMap<>(8, 0.75f, true);

    /** The JVM's workers. */
    public static WorkerHost shared() {
        return SHARED;
    }

    WorkerHost() {
    }

    @Override
    public Answer assign(final byte[] cluster, final HostConfig config, final BridgeConfig settings)
        throws BridgeException {
        return worker(command(config, settings)).request(cluster, settings.timeoutMs());
    }

    static List<String> command(final HostConfig config, final BridgeConfig settings) {
        final List<String> command = new ArrayList<>(List.of(settings.command(), "serve", "--config",
            config.path().toString()));
        for (final String path : settings.pluginPaths()) {
            command.addAll(List.of("--plugin-path", path));
        }
        return command;
    }

    synchronized ResidentWorker worker(final List<String> command) {
        ResidentWorker w = workers.get(command);
        if (w == null) {
            w = new ResidentWorker(command);
            workers.put(command, w);
            final Iterator<ResidentWorker> oldest = workers.values().iterator();
            while (workers.size() > MAX_WORKERS) {
                final ResidentWorker old = oldest.next();
                oldest.remove();
                old.close();
            }
        }
        return w;
    }

    synchronized void closeAll() {
        workers.values().forEach(ResidentWorker::close);
        workers.clear();
    }
}
