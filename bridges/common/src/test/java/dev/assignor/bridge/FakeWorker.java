package dev.assignor.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A fake {@code assignor} command whose {@code serve} is fake-worker.py (this module's test
 * resources): the framed protocol, and misbehaviour on demand (see the script's own comment). The
 * bridges' tests point {@code assignor.command} at it.
 */
public final class FakeWorker {
    private FakeWorker() {
    }

    /** An executable in {@code dir} that runs the fake worker with {@code behaviour} ("" = always answer). */
    public static Path command(final Path dir, final String behaviour) {
        try {
            final Path script = dir.resolve("fake-worker.py");
            if (!Files.exists(script)) {
                try (InputStream in = FakeWorker.class.getResourceAsStream("/fake-worker.py")) {
                    Files.copy(in, script);
                }
            }
            final Path command = Files.createTempFile(dir, "fake-assignor-", "");
            Files.writeString(command, "#!/bin/sh\nexec python3 '" + script + "' '" + behaviour + "' \"$@\"\n");
            Files.setPosixFilePermissions(command, PosixFilePermissions.fromString("rwx------"));
            return command;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
