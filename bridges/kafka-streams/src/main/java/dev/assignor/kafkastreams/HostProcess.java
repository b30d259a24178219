package dev.assignor.kafkastreams;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code assignor} command as a child process: the cluster file on its standard input, the
 * answer from its standard output, its standard error kept for the warning line. A child that is
 * still running after the timeout is killed with everything it started (the host's own isolated
 * strategy processes included). Whatever the child does (crash, hang, garbage, a flood on stderr),
 * the caller gets a result or a {@link BridgeException}, never a stuck thread.
 */
final class HostProcess {
    /** Standard error kept for messages; the rest is read and dropped so the child never blocks on it. */
    private static final int STDERR_KEPT = 64 * 1024;

    record Result(int exitCode, byte[] stdout, String stderr, long elapsedNanos) {
        /** The first line the host wrote as an error, else the first line of stderr, for one-line messages. */
        String stderrSummary() {
            String first = null;
            for (final String line : stderr.split("\n")) {
                final String l = line.strip();
                if (l.isEmpty()) {
                    continue;
                }
                if (l.contains("error")) {
                    return l;
                }
                if (first == null) {
                    first = l;
                }
            }
            return first == null ? "(nothing on stderr)" : first;
        }
    }

    private HostProcess() {
    }

    static Result run(final List<String> command, final byte[] stdin, final long timeoutMs) throws BridgeException {
        final long start = System.nanoTime();
        final Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (final IOException e) {
            throw new BridgeException("cannot run '" + command.get(0) + "' (" + e.getMessage() + "); set "
                + BridgeSettings.COMMAND + " to the path of the assignor executable", e);
        }
        final Thread writer = daemon("assignor-bridge-stdin", () -> {
            try (OutputStream in = process.getOutputStream()) {
                in.write(stdin);
            } catch (final IOException e) {
                // The child stopped reading (it failed early): its exit status and stderr say why.
            }
        });
        final Capture out = new Capture(process.getInputStream(), Integer.MAX_VALUE);
        final Capture err = new Capture(process.getErrorStream(), STDERR_KEPT);
        final Thread outReader = daemon("assignor-bridge-stdout", out);
        final Thread errReader = daemon("assignor-bridge-stderr", err);
        try {
            if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                kill(process);
                throw new BridgeException("'" + String.join(" ", command.subList(0, Math.min(2, command.size())))
                    + "' did not finish within " + timeoutMs + " ms (" + BridgeSettings.TIMEOUT_MS + "); killed it");
            }
            // The streams end when the child and anything it left behind close them.
            outReader.join(timeoutMs);
            errReader.join(1000);
            writer.join(1000);
        } catch (final InterruptedException e) {
            kill(process);
            Thread.currentThread().interrupt();
            throw new BridgeException("interrupted while the strategy ran", e);
        }
        if (outReader.isAlive()) {
            kill(process);
            throw new BridgeException("the strategy's output was not closed within " + timeoutMs
                + " ms after it exited (a process it started still holds it)");
        }
        if (out.failure != null) {
            throw new BridgeException("could not read the strategy's output: " + out.failure.getMessage(), out.failure);
        }
        return new Result(process.exitValue(), out.bytes(), new String(err.bytes(), StandardCharsets.UTF_8),
            System.nanoTime() - start);
    }

    private static void kill(final Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(2, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread daemon(final String name, final Runnable body) {
        final Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Reads a stream to its end, keeping at most {@code limit} bytes. */
    private static final class Capture implements Runnable {
        private final InputStream in;
        private final int limit;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private volatile IOException failure;

        Capture(final InputStream in, final int limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public void run() {
            final byte[] buffer = new byte[64 * 1024];
            try (InputStream s = in) {
                int n;
                while ((n = s.read(buffer)) >= 0) {
                    final int keep = Math.min(n, limit - kept.size());
                    if (keep > 0) {
                        kept.write(buffer, 0, keep);
                    }
                }
            } catch (final IOException e) {
                failure = e;
            }
        }

        byte[] bytes() {
            return kept.toByteArray();
        }
    }
}
