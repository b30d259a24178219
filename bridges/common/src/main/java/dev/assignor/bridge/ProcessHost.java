package dev.assignor.bridge;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The host as a child process per request ({@code assignor.host.mode=process}): {@code assignor
 * assign --cluster -}, the cluster file on its standard input, the answer from its standard output,
 * its standard error kept for the warning line. A child that is
 * still running after the timeout is killed with everything it started (the host's own isolated
 * strategy processes included). Whatever the child does (crash, hang, garbage, a flood on stderr),
 * the caller gets a result or a {@link BridgeException}, never a stuck thread.
 */
public final class ProcessHost implements StrategyHost {
    public static final ProcessHost INSTANCE = new ProcessHost();

    /** Standard error kept for messages; the rest is read and dropped so the child never blocks on it. */
    private static final int STDERR_KEPT = 64 * 1024;

    record Result(int exitCode, byte[] stdout, String stderr, long elapsedNanos) {
        List<String> stderrLines() {
            final List<String> lines = new ArrayList<>();
            for (final String line : stderr.split("\n")) {
                if (!line.isBlank()) {
                    lines.add(line.strip());
                }
            }
            return lines;
        }
    }

    private ProcessHost() {
    }

    @Override
    public Answer assign(final byte[] cluster, final HostConfig config, final BridgeConfig settings)
        throws BridgeException {
        final List<String> command = new ArrayList<>(List.of(settings.command(), "assign", "--config",
            config.path().toString(), "--cluster", "-", "--format", "json"));
        settings.strategy().ifPresent(s -> command.addAll(List.of("--strategy", s)));
        for (final String path : settings.pluginPaths()) {
            command.addAll(List.of("--plugin-path", path));
        }
        final Result result = run(command, cluster, settings.timeoutMs());
        final List<String> lines = result.stderrLines();
        if (result.exitCode() != 0) {
            final int code = result.exitCode();
            throw new BridgeException(code == 2 || code == 3 || code == 4 ? FallbackReason.HOST_ERROR
                : FallbackReason.CRASH, "assignor exited with status " + code + " (" + StrategyHost.meaning(code)
                + "): " + StrategyHost.summary(lines));
        }
        return new Answer(result.stdout(), lines);
    }

    static Result run(final List<String> command, final byte[] stdin, final long timeoutMs) throws BridgeException {
        final long start = System.nanoTime();
        final Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (final IOException e) {
            throw new BridgeException(FallbackReason.START, "cannot run '" + command.get(0) + "' (" + e.getMessage()
                + "); set " + BridgeConfig.COMMAND_CONFIG + " to the path of the assignor executable", e);
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
                throw new BridgeException(FallbackReason.TIMEOUT, "'" + String.join(" ", command.subList(0,
                    Math.min(2, command.size()))) + "' did not finish within " + timeoutMs + " ms ("
                    + BridgeConfig.TIMEOUT_MS_CONFIG + "); killed it");
            }
            // The streams end when the child and anything it left behind close them.
            outReader.join(timeoutMs);
            errReader.join(1000);
            writer.join(1000);
        } catch (final InterruptedException e) {
            kill(process);
            Thread.currentThread().interrupt();
            throw new BridgeException(FallbackReason.INTERNAL, "interrupted while the strategy ran", e);
        }
        if (outReader.isAlive()) {
            kill(process);
            throw new BridgeException(FallbackReason.TIMEOUT, "the strategy's output was not closed within " + timeoutMs
                + " ms after it exited (a process it started still holds it)");
        }
        if (out.failure != null) {
            throw new BridgeException(FallbackReason.CRASH, "could not read the strategy's output: "
                + out.failure.getMessage(), out.failure);
        }
        return new Result(process.exitValue(), out.bytes(), new String(err.bytes(), StandardCharsets.UTF_8),
            System.nanoTime() - start);
    }

    static void kill(final Process process) {
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
