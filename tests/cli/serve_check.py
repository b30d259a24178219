#!/usr/bin/env python3
"""`assignor serve` (DESIGN 4.9) against `assignor assign`: the same answers, framed.

Sends a sequence of requests to one resident worker and checks every answer against what a separate
`assignor assign` process gives for the same input (the expectation comes from the command, not
from the worker): the same output JSON but for assign_ms, and for each failure the exit status
`assign` exits with, as the answer's CODE, with its message. Then the stream cases: a clean end
(exit 0), a malformed header and a stream cut inside a frame (exit 2 with the reason).

Usage: serve_check.py ASSIGNOR EXAMPLES_DIR BAD_CLUSTER THROWS_CONFIG
"""
import json
import os
import subprocess
import sys
import tempfile


def frame(kind, payload):
    return f"{kind} {len(payload)}\n".encode() + payload


def read_frames(data):
    frames = []
    while data:
        header, _, rest = data.partition(b"\n")
        words = header.decode("ascii").split(" ")
        n = int(words[-1])
        frames.append((words[:-1], rest[:n]))
        if len(rest) < n:
            raise ValueError(f"answer cut short: {header!r}")
        data = rest[n:]
    return frames


def assign(assignor, config, cluster_bytes):
    with tempfile.NamedTemporaryFile("wb", suffix=".yaml", delete=False) as f:
        f.write(cluster_bytes)
    try:
        p = subprocess.run([assignor, "assign", "--config", config, "--cluster", f.name], capture_output=True,
                           timeout=300)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout, p.stderr.decode()


def without_timing(text):
    doc = json.loads(text)
    doc.pop("assign_ms", None)
    return doc


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    assignor, examples, bad_cluster, throws_config = sys.argv[1:]
    config = os.path.join(examples, "config.yaml")
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    inputs = [open(os.path.join(examples, "small-scale-out.yaml"), "rb").read(),
              open(os.path.join(examples, "scenarios", "steady.json"), "rb").read(),
              open(bad_cluster, "rb").read(),
              b"version: 1\ntasks: [{id: '0_0'}]\nclients: []\n"]
    requests = b"".join(frame("assign", body) for body in inputs) + frame("describe", b"")
    p = subprocess.run([assignor, "serve", "--config", config], input=requests, capture_output=True, timeout=300)
    check(p.returncode == 0, f"a clean end of the request stream exits 0 (exit {p.returncode}: {p.stderr[-300:]!r})")
    answers = read_frames(p.stdout)
    check(len(answers) == len(inputs) + 1, f"one answer per request ({len(answers)} for {len(inputs) + 1})")
    for i, body in enumerate(inputs):
        if i >= len(answers):
            break
        status, out, err = assign(assignor, config, body)
        words, payload = answers[i]
        if status == 0:
            check(words == ["ok"] and without_timing(payload) == without_timing(out),
                  f"request {i + 1}: the answer equals assign's output but for assign_ms")
        else:
            check(words == ["error", str(status)], f"request {i + 1}: 'error {status}' as assign exits {status} "
                                                   f"(got {' '.join(words)})")
            first = err.splitlines()[0].split(": ", 3)[-1] if err else ""
            check(first and first in payload.decode(), f"request {i + 1}: the message is assign's ({first!r})")
    if len(answers) > len(inputs):
        words, payload = answers[len(inputs)]
        check(words == ["error", "2"] and b"unknown request 'describe'" in payload,
              "an unknown request is an error 2 answer, and the worker goes on")

    # A strategy that throws, no fallback: 'error 4', as assign exits 4.
    example = inputs[0]
    p = subprocess.run([assignor, "serve", "--config", throws_config], input=frame("assign", example) * 2,
                       capture_output=True, timeout=300)
    answers = read_frames(p.stdout) if p.returncode == 0 else []
    status, _, _ = assign(assignor, throws_config, example)
    check(status == 4 and len(answers) == 2 and all(w == ["error", "4"] for w, _ in answers),
          f"a failing strategy answers 'error 4' each time (assign exits {status}; answers {[w for w, _ in answers]})")

    # Streams that are not the protocol: exit 2 with the reason, after answering what came before.
    for name, stream, reason, before in (
            ("a header that is not words and a length", frame("assign", example) + b"hello\n",
             "without a kind and a length", 1),
            ("a stream cut inside a frame", b"assign 100\nversion: 1", "ended inside a frame", 0),
            ("a length that is not a number", b"assign 1e3\n", "not a decimal number", 0)):
        p = subprocess.run([assignor, "serve", "--config", config], input=stream, capture_output=True, timeout=300)
        answered = len(read_frames(p.stdout)) if p.stdout else 0
        check(p.returncode == 2 and reason in p.stderr.decode() and answered == before,
              f"{name}: exit 2 naming it (exit {p.returncode}, {p.stderr.decode().strip()[-200:]!r})")

    # A strategy the config names but no plugin provides: known at start (exit 3), not per request.
    p = subprocess.run([assignor, "serve", "--config", config, "--strategy", "no_such_strategy"], input=b"",
                       capture_output=True, timeout=300)
    check(p.returncode == 3 and b"no_such_strategy" in p.stderr, f"an unknown strategy exits 3 at start ({p.returncode})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
