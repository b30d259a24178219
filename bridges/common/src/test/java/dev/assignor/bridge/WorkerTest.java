package dev.assignor.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The resident worker client against a fake worker (fake-worker.py) that speaks DESIGN 4.9's framing
 * and misbehaves on demand: one process serves request after request; a crash, a hang past the
 * timeout, a header that is no header, a short body, bytes after a frame each fail that request with
 * its reason and leave no process behind, and the next request is served by a new worker; an
 * {@code error} answer is in frame (the worker stays); a worker that exits at start says why.
 */
class WorkerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] CLUSTER = "{\"version\": 1, \"tasks\": [], \"clients\": []}".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private ResidentWorker worker;

    private ResidentWorker worker(final String behaviour) {
        worker = new ResidentWorker(List.of(FakeWorker.command(dir, behaviour).toString(), "serve", "--config",
            dir.resolve("config.json").toString()));
        return worker;
    }

    @AfterEach
    void close() {
        if (worker != null) {
            worker.close();
        }
    }

    private static JsonNode answer(final StrategyHost.Answer a) throws IOException {
        return JSON.readTree(a.json());
    }

    /**
     * The worker answers a first request, then fails the second (given {@code timeoutMs}) for
     * {@code reason}, its message saying each of {@code says}; the pid that answered the first.
     */
    private static long answersThenFails(final ResidentWorker w, final long timeoutMs, final FallbackReason reason,
                                         final String... says) throws Exception {
        final long firstPid = answer(w.request(CLUSTER, 10_000)).get("pid").asLong();
        final BridgeException e = assertThrows(BridgeException.class, () -> w.request(CLUSTER, timeoutMs));
        assertEquals(reason, e.reason());
        for (final String s : says) {
            assertTrue(e.getMessage().contains(s), e.getMessage());
        }
        return firstPid;
    }

    @Test
    void oneProcessServesEveryRequestStartedOnFirstUse() throws Exception {
        final ResidentWorker w = worker("");
        assertEquals(0, w.started());
        assertEquals(-1, w.pid());
        final JsonNode first = answer(w.request(CLUSTER, 10_000));
        final JsonNode second = answer(w.request(CLUSTER, 10_000));
        final JsonNode third = answer(w.request(CLUSTER, 10_000));
        assertEquals(1, w.started());
        assertEquals(first.get("pid"), third.get("pid"));
        assertEquals(List.of(1, 2, 3), List.of(first.get("request").asInt(), second.get("request").asInt(),
            third.get("request").asInt()));
        assertEquals(CLUSTER.length, first.get("bytes").asInt(), "the request's body arrived whole");
        assertTrue(first.get("config").asText().endsWith("config.json"));
    }

    @Test
    void aCrashFailsThatRequestAndANewWorkerServesTheNext() throws Exception {
        final ResidentWorker w = worker("2:crash");
        final long firstPid = answersThenFails(w, 10_000, FallbackReason.CRASH, "exited with status 70",
            "crashing on request 2");
        final JsonNode next = answer(w.request(CLUSTER, 10_000));
        assertNotEquals(firstPid, next.get("pid").asLong());
        assertEquals(1, next.get("request").asInt());
        assertEquals(2, w.started());
        assertTrue(ProcessHandle.of(firstPid).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void aSignalIsACrash() {
        final BridgeException e = assertThrows(BridgeException.class, () -> worker("1:segv").request(CLUSTER, 10_000));
        assertEquals(FallbackReason.START, e.reason(), "it died before its first answer");
        assertTrue(e.getMessage().contains("killed by signal 11"), e.getMessage());
    }

    @Test
    void aHangPastTheTimeoutIsKilledAndReplaced() throws Exception {
        final ResidentWorker w = worker("2:hang");
        final long firstPid = answersThenFails(w, 300, FallbackReason.TIMEOUT,
            "no answer within 300 ms (assignor.timeout.ms); killed it");
        assertTrue(ProcessHandle.of(firstPid).map(p -> !p.isAlive()).orElse(true), "the hung worker is gone");
        assertEquals(1, answer(w.request(CLUSTER, 10_000)).get("request").asInt());
    }

    @Test
    void outOfFrameAnswersKillTheWorker() throws Exception {
        for (final String bad : List.of("garbage", "short", "extra")) {
            final ResidentWorker w = worker("2:" + bad);
            final long firstPid = answer(w.request(CLUSTER, 10_000)).get("pid").asLong();
            final BridgeException e = assertThrows(BridgeException.class, () -> w.request(CLUSTER, 10_000));
            assertEquals(FallbackReason.OUT_OF_FRAME, e.reason(), bad + ": " + e.getMessage());
            assertTrue(ProcessHandle.of(firstPid).map(p -> !p.isAlive()).orElse(true), bad);
            assertEquals(1, answer(w.request(CLUSTER, 10_000)).get("request").asInt(), bad);
            w.close();
        }
    }

    @Test
    void messagesNameTheFrame() {
        assertTrue(assertThrows(BridgeException.class, () -> worker("1:garbage").request(CLUSTER, 10_000))
            .getMessage().contains("header 'hello world' is neither 'ok N' nor 'error CODE N'"));
        worker.close();
        assertTrue(assertThrows(BridgeException.class, () -> worker("1:short").request(CLUSTER, 10_000))
            .getMessage().contains("the answer ends after 10 of the 100 bytes its header announced"));
    }

    @Test
    void anErrorAnswerIsInFrameAndTheWorkerStays() throws Exception {
        final ResidentWorker w = worker("1:error");
        final BridgeException e = assertThrows(BridgeException.class, () -> w.request(CLUSTER, 10_000));
        assertEquals(FallbackReason.HOST_ERROR, e.reason());
        assertTrue(e.getMessage().contains("error 4 (the strategy failed or returned an invalid assignment): "
            + "assignor: error: strategy least_movement threw: boom"), e.getMessage());
        assertEquals(2, answer(w.request(CLUSTER, 10_000)).get("request").asInt(), "the same worker goes on");
        assertEquals(1, w.started());
    }

    @Test
    void aWorkerThatExitsAtStartSaysWhy() {
        final BridgeException e = assertThrows(BridgeException.class,
            () -> worker("start:exit").request(CLUSTER, 10_000));
        assertEquals(FallbackReason.START, e.reason());
        assertTrue(e.getMessage().contains("exited with status 2 (invalid input, config or arguments)")
            && e.getMessage().contains("unknown key 'strategey'"), e.getMessage());
    }

    @Test
    void noExecutable() {
        worker = new ResidentWorker(List.of(dir.resolve("no-such-assignor").toString(), "serve"));
        final BridgeException e = assertThrows(BridgeException.class, () -> worker.request(CLUSTER, 10_000));
        assertEquals(FallbackReason.START, e.reason());
        assertTrue(e.getMessage().contains("set assignor.command"), e.getMessage());
    }

    @Test
    void bigAnswersAndStderrComeThrough() throws Exception {
        final ResidentWorker w = worker("1:big,2:chatter");
        final StrategyHost.Answer big = w.request(CLUSTER, 30_000);
        assertTrue(big.json().length > 5 * 1024 * 1024);
        final StrategyHost.Answer chatty = w.request(CLUSTER, 10_000);
        assertEquals(List.of("assignor: warning: chatter 0 of request 2", "assignor: warning: chatter 1 of request 2",
            "assignor: warning: chatter 2 of request 2"), chatty.hostLines());
    }

    /** The JVM's host keeps one worker per config: the second config gets its own process. */
    @Test
    void oneWorkerPerConfig() throws Exception {
        final WorkerHost host = new WorkerHost();
        try {
            final Path command = FakeWorker.command(dir, "");
            final ResidentWorker a = host.worker(List.of(command.toString(), "serve", "--config", "a.json"));
            final ResidentWorker again = host.worker(List.of(command.toString(), "serve", "--config", "a.json"));
            final ResidentWorker b = host.worker(List.of(command.toString(), "serve", "--config", "b.json"));
            assertEquals(a, again);
            assertNotEquals(answer(a.request(CLUSTER, 10_000)).get("pid"), answer(b.request(CLUSTER, 10_000)).get("pid"));
        } finally {
            host.closeAll();
        }
    }
}
