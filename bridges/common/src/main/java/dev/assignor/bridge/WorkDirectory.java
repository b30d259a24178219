package dev.assignor.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One private directory per JVM for the files the host is handed (the written config, the input of
 * a failed run for reproduction), created on first use under java.io.tmpdir and removed at exit.
 */
public final class WorkDirectory {
    private static Path directory;

    private WorkDirectory() {
    }

    public static synchronized Path get() throws BridgeException {
        if (directory == null || !Files.isDirectory(directory)) {
            try {
                directory = Files.createTempDirectory("assignor-bridge-");
            } catch (final IOException e) {
                throw new BridgeException(FallbackReason.START, "cannot create a work directory under "
                    + System.getProperty("java.io.tmpdir") + ": " + e.getMessage(), e);
            }
            final Path created = directory;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> removeTree(created), "assignor-bridge-cleanup"));
        }
        return directory;
    }

    static void removeTree(final Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (final IOException e) {
                    // best effort at exit
                }
            });
        } catch (final IOException e) {
            // best effort at exit
        }
    }
}
