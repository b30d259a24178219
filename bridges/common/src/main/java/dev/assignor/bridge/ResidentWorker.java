package dev.assignor.bridge;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One resident {@code assignor serve} process and the framed protocol of DESIGN 4.9: both ways, a
 * header line of ASCII words, then exactly N bytes. Request {@code assign N} + a cluster document;
 * answer {@code ok N} + the output JSON, or {@code error CODE N} + a message (CODE = the exit status
 * {@code assign} would have given).
 *
 * <p>Started on first use; one request at a time. A worker that crashes (the stream ends, a write
 * fails), does not answer within the timeout, or answers out of frame (a header that is not one of the
 * two, a body shorter than its header said, bytes after the frame) is killed with everything it
 * started, and the next request starts a new one; the request it failed is that rebalance's fallback.
 * An {@code error} answer is in frame: the worker stays.
 */
final class ResidentWorker implements AutoCloseable {
    /** A header is a few ASCII words: anything longer is not a header. */
    static final int MAX_HEADER_BYTES = 128;
    /** The largest body accepted (an answer for 100k tasks is a few MB). */
    static final int MAX_BODY_BYTES = 1 << 30;
    /** Standard error lines kept between two requests (the rest counted). */
    private static final int STDERR_LINES_KEPT = 200;

    private final List<String> command;
    private Process process;
    private OutputStream toWorker;
    private InputStream fromWorker;
    private StderrTail stderr;
    private int served;
    private int started;
    private ExecutorService io = ioThread();

    ResidentWorker(final List<String> command) {
        this.command = List.copyOf(command);
    }

    /** Processes started so far (1 after the first request; each replacement adds one). */
    synchronized int started() {
        return started;
    }

    /** The running process's id, or -1. */
    synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    /**
     * One request: the answer's bytes, or a {@link BridgeException} (after which the worker is gone,
     * unless the worker answered {@code error}).
     */
    synchronized StrategyHost.Answer request(final byte[] cluster, final long timeoutMs) throws BridgeException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        if (process != null && (!process.isAlive() || pendingBytes() > 0)) {
            // It died between two requests, or wrote after its last frame: out of step either way.
            kill();
        }
        if (process == null) {
            start();
        }
        final Process current = process;
        final Future<Frame> exchange = io.submit(() -> exchange(cluster));
        final Frame frame;
        try {
            frame = exchange.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (final TimeoutException e) {
            exchange.cancel(true);
            kill();
            throw new BridgeException(FallbackReason.TIMEOUT, "'" + String.join(" ", command.subList(0,
                Math.min(2, command.size()))) + "' gave no answer within " + timeoutMs + " ms ("
                + BridgeConfig.TIMEOUT_MS_CONFIG + "); killed it (a new worker starts at the next rebalance)");
        } catch (final InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
            throw new BridgeException(FallbackReason.INTERNAL, "interrupted while the worker answered", e);
        } catch (final ExecutionException e) {
            throw failed(current, e.getCause());
        }
        ++served;
        if (pendingBytes() > 0) {
            kill();
            throw new BridgeException(FallbackReason.OUT_OF_FRAME, "the worker wrote more after its answer's "
                + frame.body.length + " bytes (out of frame); killed it");
        }
        final List<String> lines = stderr.drain();
        if (frame.errorCode >= 0) {
            final String message = new String(frame.body, StandardCharsets.UTF_8).strip();
            throw new BridgeException(FallbackReason.HOST_ERROR, "assignor serve answered error " + frame.errorCode
                + " (" + StrategyHost.meaning(frame.errorCode) + "): "
                + (message.isEmpty() ? StrategyHost.summary(lines) : message.lines().findFirst().orElse("")));
        }
        return new StrategyHost.Answer(frame.body, lines);
    }

    private BridgeException failed(final Process current, final Throwable cause) {
        final boolean atStart = served == 0;
        if (cause instanceof FrameException) {
            kill();
            return new BridgeException(FallbackReason.OUT_OF_FRAME, "the worker answered out of frame: "
                + cause.getMessage() + "; killed it", cause);
        }
        // The stream ended or a write failed: the worker is gone, or going. Its status and last words.
        int status = -1;
        try {
            if (current.waitFor(2, TimeUnit.SECONDS)) {
                status = current.exitValue();
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        final List<String> lines = stderr == null ? List.of() : stderr.drainAfterEnd();
        kill();
        final String how = status < 0 ? "stopped answering (" + cause.getMessage() + ")"
            : "exited with status " + status + " (" + StrategyHost.meaning(status) + ")";
        return new BridgeException(atStart ? FallbackReason.START : FallbackReason.CRASH,
            "the assignor worker " + how + (atStart ? " before its first answer" : "") + ": "
                + StrategyHost.summary(lines), cause);
    }

    private void start() throws BridgeException {
        try {
            process = new ProcessBuilder(command).start();
        } catch (final IOException e) {
            process = null;
            throw new BridgeException(FallbackReason.START, "cannot run '" + command.get(0) + "' (" + e.getMessage()
                + "); set " + BridgeConfig.COMMAND_CONFIG + " to the path of the assignor executable", e);
        }
        ++started;
        served = 0;
        toWorker = process.getOutputStream();
        fromWorker = process.getInputStream();
        stderr = new StderrTail(process.getErrorStream());
        final Thread t = new Thread(stderr, "assignor-worker-stderr");
        t.setDaemon(true);
        t.start();
    }

    private int pendingBytes() {
        try {
            return fromWorker == null ? 0 : fromWorker.available();
        } catch (final IOException e) {
            return 0;
        }
    }

    /** Runs on the io thread: the request out, the answer's frame in. */
    private Frame exchange(final byte[] cluster) throws IOException {
        toWorker.write(("assign " + cluster.length + "\n").getBytes(StandardCharsets.US_ASCII));
        toWorker.write(cluster);
        toWorker.flush();
        final String header = readHeader(fromWorker);
        final String[] words = header.split(" ", -1);
        final int errorCode;
        final String length;
        if (words.length == 2 && words[0].equals("ok")) {
            errorCode = -1;
            length = words[1];
        } else if (words.length == 3 && words[0].equals("error")) {
            errorCode = number(words[1], header, 255);
            length = words[2];
        } else {
            throw new FrameException("header '" + printable(header) + "' is neither 'ok N' nor 'error CODE N'");
        }
        final int n = number(length, header, MAX_BODY_BYTES);
        final byte[] body = fromWorker.readNBytes(n);
        if (body.length < n) {
            throw new FrameException("the answer ends after " + body.length + " of the " + n + " bytes its header "
                + "announced");
        }
        return new Frame(errorCode, body);
    }

    private static int number(final String word, final String header, final int max) throws FrameException {
        if (word.isEmpty() || word.length() > 10 || !word.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new FrameException("'" + printable(word) + "' in header '" + printable(header) + "' is not a number");
        }
        final long value = Long.parseLong(word);
        if (value > max) {
            throw new FrameException("header '" + printable(header) + "': " + value + " is above " + max);
        }
        return (int) value;
    }

    /** One line of ASCII, at most MAX_HEADER_BYTES; the end of the stream before it is a crash. */
    private static String readHeader(final InputStream in) throws IOException {
        final ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            final int b = in.read();
            if (b < 0) {
                if (line.size() == 0) {
                    throw new EOFException("the worker closed its output");
                }
                throw new FrameException("the output ends inside a header ('" + printable(line.toString(
                    StandardCharsets.US_ASCII)) + "')");
            }
            if (b == '\n') {
                return line.toString(StandardCharsets.US_ASCII);
            }
            if (b < 0x20 || b > 0x7e) {
                throw new FrameException("byte 0x" + Integer.toHexString(b) + " in a header (after '" + printable(
                    line.toString(StandardCharsets.US_ASCII)) + "')");
            }
            if (line.size() >= MAX_HEADER_BYTES) {
                throw new FrameException("a header longer than " + MAX_HEADER_BYTES + " bytes ('" + printable(
                    line.toString(StandardCharsets.US_ASCII)) + "...')");
            }
            line.write(b);
        }
    }

    private static String printable(final String s) {
        final String cut = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }

    /** Kills the worker and everything it started; the next request starts a new one. */
    synchronized void kill() {
        if (process != null) {
            ProcessHost.kill(process);
            process = null;
            // Its io thread may still be in a read that the kill ends: the next worker gets its own.
            io.shutdownNow();
            io = ioThread();
        }
    }

    private static ExecutorService ioThread() {
        return Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "assignor-worker-io");
            t.setDaemon(true);
            return t;
        });
    }

    /** Closes its input (a worker stops when stdin closes), then kills what is left. */
    @Override
    public synchronized void close() {
        if (process != null) {
            try {
                toWorker.close();
                process.waitFor(1, TimeUnit.SECONDS);
            } catch (final IOException e) {
                // killed below
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            kill();
        }
        io.shutdownNow();
    }

    private record Frame(int errorCode, byte[] body) {
    }

    /** The answer broke the framing. */
    static final class FrameException extends IOException {
        private static final long serialVersionUID = 1L;

        FrameException(final String message) {
            super(message);
        }
    }

    /** Reads the worker's standard error as it comes (so it never blocks on it), keeping recent lines. */
    private static final class StderrTail implements Runnable {
        private final InputStream in;
        private final Deque<String> lines = new ArrayDeque<>();
        private int dropped;
        private boolean ended;

        StderrTail(final InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    add(line.length() > 4096 ? line.substring(0, 4096) + "..." : line);
                }
            } catch (final IOException e) {
                // the worker is gone
            }
            synchronized (this) {
                ended = true;
                notifyAll();
            }
        }

        private synchronized void add(final String line) {
            if (line.isBlank()) {
                return;
            }
            lines.addLast(line.strip());
            if (lines.size() > STDERR_LINES_KEPT) {
                lines.removeFirst();
                ++dropped;
            }
        }

        synchronized List<String> drain() {
            final List<String> out = new ArrayList<>(lines);
            if (dropped > 0) {
                out.add("... " + dropped + " more lines");
            }
            lines.clear();
            dropped = 0;
            return out;
        }

        /** What it wrote before its end (waits a little for the stream to close). */
        synchronized List<String> drainAfterEnd() {
            final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (!ended && System.nanoTime() < until) {
                try {
                    wait(50);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return drain();
        }
    }
}
