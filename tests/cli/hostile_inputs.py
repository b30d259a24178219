#!/usr/bin/env python3
"""Issue 32's hostile inputs through the real command: each is refused with a message naming the
file and the place (or imported whole), never a hang, never exit 0 with wrong or partial output.

  - a truncated .gz log: exit 2 naming the file, the compressed offset and how much was read
    before; nothing written in --output-dir (it used to import 9 of 21 rebalances with exit 0);
  - /dev/zero and a gzip bomb (a long text without a newline): refused at --max-file-mb, the line
    buffer held at --max-line-mb (peak resident memory under 100 MB, the kernel's count);
  - a FIFO without a writer given to import kafka-log, import streams-group, and as replay's
    DIR/index.json: an error, never a wait for a writer (the subprocess timeout is a hang guard,
    not a measure);
  - a properties file whose keys and values are separated by white space: read, not ignored;
  - import into a non-empty directory: refused; --replace replaces the previous import (a stale
    rebalance-0099 file goes, the user's own file stays);
  - import streams-group: an escape sequence in an id, a task on two members of one process, and
    a task active on two processes are refused naming file:line;
  - sweep --merge: a shard whose rounds are -5, whose shard label is not K/N, whose run's labels
    contradict its combination, a FIFO named like a shard, and shards of another sweep than the one
    --cluster and --vary describe: each refused naming the file and the field;
  - compare --scenarios DIR holding a dangling *.json link: refused naming it, not skipped.

Usage: hostile_inputs.py ASSIGNOR EXAMPLES WORK_DIR [--sanitizer]
  --sanitizer: an AddressSanitizer build: the memory figures are not checked (its shadow memory).
"""
import datetime
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "import"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import import_cli as logs  # noqa: E402  (the log writer of the import tests)
import script_checks  # noqa: E402
from script_checks import check  # noqa: E402

MB = 1 << 20

# The command's peak resident memory, from a fresh Python process (ru_maxrss of its only child).
PEAK = ("import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)\n"
        "sys.stderr.write(p.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, p.returncode)\n")


def run(cmd):
    return script_checks.run(cmd, timeout=300)


def run_peak(cmd):
    p = subprocess.run([sys.executable, "-c", PEAK, *cmd], capture_output=True, text=True, timeout=300)
    peak, status = (int(x) for x in p.stdout.split()[-2:])
    p.returncode = status
    return p, peak


def write_log(path, rebalances):
    rng = random.Random(7)
    group = logs.make_group(rng, 3)
    t0 = datetime.datetime(2024, 1, 1)
    lines = []
    for i in range(rebalances):
        ts = (t0 + datetime.timedelta(minutes=i)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        lines += [logs.chatter(ts)] * 200 + [logs.log4j(ts, logs.decided(group, "3.2+"))]
    text = "\n".join(lines) + "\n"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        f.write(text)


def import_cases(assignor, work, sanitizer):
    full = os.path.join(work, "full.log.gz")
    write_log(full, 21)
    with open(full, "rb") as f:
        data = f.read()
    cut = os.path.join(work, "cut.log.gz")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 2])
    out = os.path.join(work, "cut-out")
    p = run([assignor, "import", "kafka-log", cut, "--output-dir", out])
    check(p.returncode == 2 and "cut.log.gz: the compressed log is cut short at byte " in p.stderr
          and "rebalances had been read from it before; nothing was imported" in p.stderr
          and "<fd:" not in p.stderr,
          "a truncated .gz: exit 2 naming the file, the offset and what was read before", p.stderr)
    check(not os.path.exists(out) or os.listdir(out) == [], "a truncated .gz: nothing left in --output-dir",
          os.listdir(out) if os.path.exists(out) else "")
    damaged = os.path.join(work, "damaged.log.gz")
    with open(damaged, "wb") as f:
        f.write(data[:len(data) // 2] + bytes(b ^ 0x5A for b in data[len(data) // 2:]))
    p = run([assignor, "import", "kafka-log", damaged, "--output-dir", os.path.join(work, "damaged-out")])
    check(p.returncode == 2 and "damaged.log.gz: the compressed log is" in p.stderr and " at byte " in p.stderr,
          "a damaged .gz: exit 2 naming the file and the offset", p.stderr)

    # The whole log imports: 21 rebalances (what the truncated one must never pass for).
    good = os.path.join(work, "good")
    p = run([assignor, "import", "kafka-log", full, "--output-dir", good])
    with open(os.path.join(good, "index.json")) as f:
        index = json.load(f)
    check(p.returncode == 0 and len(index["rebalances"]) == 21, "the whole .gz imports its 21 rebalances", p.stderr)

    # A non-empty directory: refused; --replace replaces the previous import only.
    stale = os.path.join(good, "rebalance-0099.cluster.json")
    open(stale, "w").close()
    mine = os.path.join(good, "notes.txt")
    with open(mine, "w") as f:
        f.write("mine\n")
    p = run([assignor, "import", "kafka-log", full, "--output-dir", good])
    check(p.returncode == 2 and "not empty" in p.stderr and "--replace" in p.stderr and os.path.exists(stale),
          "import into a non-empty directory is refused (and touches nothing)", p.stderr)
    p = run([assignor, "import", "kafka-log", full, "--output-dir", good, "--replace"])
    left = sorted(os.listdir(good))
    check(p.returncode == 0 and not os.path.exists(stale) and os.path.exists(mine)
          and len([n for n in left if n.startswith("rebalance-")]) == 3 * 21 and not any(n.startswith(".") for n in left),
          "--replace: the stale rebalance file goes, the user's file stays, no staging directory is left", left)

    # Properties separated by white space (valid java.util.Properties) are read, not ignored.
    props = os.path.join(work, "app.properties")
    with open(props, "w") as f:
        f.write("num.standby.replicas 1\nacceptable.recovery.lag   : 5000\nmax.warmup.replicas=3\n")
    spaced = os.path.join(work, "spaced")
    p = run([assignor, "import", "kafka-log", full, "--output-dir", spaced, "--streams-config", props])
    with open(os.path.join(spaced, "rebalance-0001.config.yaml")) as f:
        yaml = f.read()
    check(p.returncode == 0 and "num_standby_replicas: 1\n" in yaml and "acceptable_recovery_lag: 5000\n" in yaml
          and "max_warmup_replicas: 3\n" in yaml and "inferred" not in p.stderr,
          "--streams-config 'num.standby.replicas 1' (space separated) is read", p.stderr + yaml)

    # Endless and blocking inputs.
    p, peak = run_peak([assignor, "import", "kafka-log", "/dev/zero", "--output-dir", os.path.join(work, "zero"),
                        "--max-file-mb", "64"])
    check(p.returncode == 2 and "/dev/zero: the log holds more than 67108864 bytes (--max-file-mb)" in p.stderr,
          "import kafka-log /dev/zero: refused at --max-file-mb", p.stderr)
    if not sanitizer:
        check(peak < 100 * MB, f"/dev/zero: peak {peak // MB} MiB < 100 MiB (a 32 MiB line buffer)", peak)
    print(f"     /dev/zero (64 MiB limit): peak {peak / MB:.1f} MiB")
    bomb = os.path.join(work, "bomb.log.gz")
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        chunk = b"x" * (4 * MB)
        for _ in range(64):  # 256 MiB of text without a newline, ~250 KB compressed
            f.write(chunk)
    p, peak = run_peak([assignor, "import", "kafka-log", bomb, "--output-dir", os.path.join(work, "bomb"),
                        "--max-line-mb", "8"])
    check(p.returncode == 2, "a gzip bomb without a newline: exit 2 (nothing imported)", p.stderr)
    if not sanitizer:
        check(peak < 60 * MB, f"gzip bomb: peak {peak // MB} MiB < 60 MiB (the line buffer is --max-line-mb 8)", peak)
    print(f"     gzip bomb (256 MiB text, --max-line-mb 8): peak {peak / MB:.1f} MiB")

    fifo = os.path.join(work, "fifo.log")
    os.mkfifo(fifo)
    p = run([assignor, "import", "kafka-log", fifo, "--output-dir", os.path.join(work, "fifo-out")])
    check(p.returncode == 2, "import kafka-log FIFO: exit 2, no wait for a writer", p.stderr)
    p = run([assignor, "import", "streams-group", fifo, "--output-dir", os.path.join(work, "fifo-group")])
    check(p.returncode == 2 and "fifo.log" in p.stderr, "import streams-group FIFO: exit 2 naming it", p.stderr)
    replay_dir = os.path.join(work, "fifo-replay")
    os.makedirs(replay_dir)
    os.mkfifo(os.path.join(replay_dir, "index.json"))
    p = run([assignor, "replay", replay_dir])
    check(p.returncode == 2 and "index.json" in p.stderr, "replay DIR with a FIFO index.json: exit 2 naming it",
          p.stderr)


GROUP_HEADER = ("GROUP           TARGET-ASSIGNMENT-EPOCH   TOPOLOGY-EPOCH MEMBER                               "
                "MEMBER-PROTOCOL MEMBER-EPOCH    PROCESS                              CLIENT-ID                  "
                "         ASSIGNMENTS\n")


def member_row(member, process, assignments):
    return (f"{'word-count':<16}{'7':<26}{'0':<15}{member:<37}{'streams':<16}{'7':<16}{process:<37}"
            f"{'word-count-1-StreamThread-1-consumer':<36}{assignments}\n")


def streams_group_cases(assignor, work):
    p1, p2 = "11111111-2222-4333-8444-555555555555", "66666666-7777-4888-9999-aaaaaaaaaaaa"
    cases = [
        ("escape", member_row("m-1", p1, "ACTIVE: 0:[0]; ") + member_row("m-\x1b]0;pwned\x07", p2, "ACTIVE: 0:[1]; "),
         ["escape.txt:3:", "MEMBER", "control character"]),
        ("two-members", member_row("m-1", p1, "ACTIVE: 0:[0]; ") + member_row("m-2", p1, "STANDBY: 0:[0]; "),
         ["two-members.txt:3:", "task 0_0", "one process"]),
        ("two-actives", member_row("m-1", p1, "ACTIVE: 0:[0]; ") + member_row("m-2", p2, "ACTIVE: 0:[0]; "),
         ["two-actives.txt:3:", "task 0_0", "active on one process"]),
    ]
    for name, rows, expected in cases:
        path = os.path.join(work, name + ".txt")
        with open(path, "w") as f:
            f.write(GROUP_HEADER + rows)
        out = os.path.join(work, name + "-out")
        p = run([assignor, "import", "streams-group", path, "--output-dir", out])
        check(p.returncode == 2 and all(e in p.stderr for e in expected) and "\x1b" not in p.stderr
              and (not os.path.exists(out) or os.listdir(out) == []),
              f"import streams-group ({name}): refused naming file:line, nothing written", p.stderr)


def sweep_cases(assignor, examples, work):
    config = os.path.join(examples, "config.yaml")
    cluster = os.path.join(examples, "scenarios", "scale-out.json")
    base = [assignor, "sweep", "--config", config, "--cluster", cluster, "--vary", "assignment.max_warmup_replicas=1,2",
            "--format", "json"]
    shards = os.path.join(work, "shards")
    os.makedirs(shards)
    texts = {}
    for k in (1, 2):
        p = run(base + ["--shard", f"{k}/2"])
        check(p.returncode == 0, f"sweep shard {k}/2", p.stderr)
        texts[k] = p.stdout
    whole = run(base)

    def merge(edit, extra=()):
        for k in (1, 2):
            with open(os.path.join(shards, f"{k}.json"), "w") as f:
                f.write(texts[k])
        doc = json.loads(texts[1])
        edit(doc)
        with open(os.path.join(shards, "1.json"), "w") as f:
            json.dump(doc, f, indent=2)
        return run([assignor, "sweep", "--config", config, "--merge", shards, "--format", "json", *extra])

    p = merge(lambda d: None)
    check(p.returncode == 0 and json.loads(p.stdout) == json.loads(whole.stdout), "two shards merge to the whole sweep",
          p.stderr)
    p = merge(lambda d: None, ["--cluster", cluster, "--vary", "assignment.max_warmup_replicas=1,2"])
    check(p.returncode == 0 and json.loads(p.stdout) == json.loads(whole.stdout),
          "two shards merge, checked against the sweep the options describe", p.stderr)

    def negative_rounds(d):
        d["runs"][0]["summary"]["rounds"] = -5
    p = merge(negative_rounds)
    check(p.returncode == 2 and "1.json" in p.stderr and "runs[0].summary: rounds" in p.stderr and "-5" in p.stderr,
          "--merge: rounds -5 refused naming the file and the field", p.stderr)

    def bad_label(d):
        d["shard"] = "3/2"
    p = merge(bad_label)
    check(p.returncode == 2 and "1.json" in p.stderr and "shard" in p.stderr and "3/2" in p.stderr,
          "--merge: shard label 3/2 refused naming the file and the field", p.stderr)

    def contradicting(d):
        d["runs"][0]["assignment.max_warmup_replicas"] = "7"
    p = merge(contradicting)
    check(p.returncode == 2 and "1.json" in p.stderr and "runs[0]: assignment.max_warmup_replicas" in p.stderr
          and "contradicts" in p.stderr, "--merge: a run whose label contradicts its combination is refused", p.stderr)

    p = merge(lambda d: None, ["--cluster", cluster, "--vary", "assignment.max_warmup_replicas=1,3"])
    check(p.returncode == 2 and "two different sweeps" in p.stderr and "--vary" in p.stderr,
          "--merge: shards of another sweep than the options describe are refused", p.stderr)

    fifo = os.path.join(shards, "3.json")
    os.mkfifo(fifo)
    p = merge(lambda d: None)
    check(p.returncode == 2 and "3.json" in p.stderr and "FIFO" in p.stderr, "--merge: a FIFO named *.json is refused",
          p.stderr)
    os.remove(fifo)

    scenarios = os.path.join(work, "scenarios")
    os.makedirs(scenarios)
    shutil.copy(cluster, scenarios)
    os.symlink(os.path.join(work, "nowhere.json"), os.path.join(scenarios, "gone.json"))
    p = run([assignor, "compare", "--config", config, "--scenarios", scenarios])
    check(p.returncode == 2 and "gone.json" in p.stderr and "does not exist" in p.stderr,
          "compare --scenarios: a dangling *.json link is refused naming it", p.stderr)


def main():
    (assignor, examples, work), flags = script_checks.arguments(__doc__, 3, flags=("--sanitizer",))
    sanitizer = "--sanitizer" in flags
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    import_cases(assignor, work, sanitizer)
    streams_group_cases(assignor, work)
    sweep_cases(assignor, examples, work)
    return script_checks.status()


if __name__ == "__main__":
    sys.exit(main())
