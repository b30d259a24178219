#!/usr/bin/env python3
"""`assignor import kafka-log`, `import streams-group` and `replay` through the real command, on logs
this script writes in the shapes Kafka's ClientState.toString had (2.6, 2.7-3.1, 3.2+) and the
layouts users ship (log4j, Spring Boot/logback, docker compose, JSON lines, gzip), and checks
what was imported against the group the script built (independent of the C++ code):

  - several files in time order (leaders change between files), a duplicate line skipped;
  - cut, garbled and unknown lines: a warning naming file:line each, the rest imported;
  - nothing importable: exit 2;
  - each rebalance's cluster file: tasks, stateful ones and their end-offset sums, clients with
    threads, previous tasks and offset sums, as built;
  - replay runs on the import, its JSON has every rebalance and strategy, its report is XML;
  - a KIP-1071 group description becomes a cluster file with a thread per member.

usage: import_cli.py ASSIGNOR WORK_DIR
"""
import gzip
import json
import os
import random
import shutil
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402
from script_checks import check, status  # noqa: E402


def run(cmd, **kw):
    return script_checks.run(cmd, timeout=300, **kw)


def uuid(rng):
    return "%08x-%04x-4%03x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                          0x8000 | rng.getrandbits(14), rng.getrandbits(48))


def task_key(t):
    s, p = t.split("_")
    return int(s), int(p)


def make_group(rng, clients):
    """A group: logged tasks 0_0..0_5 with end-offset sums, stateless 1_0..1_2; each client runs some,
    holds state of others; Kafka's decision invented (valid, one standby per logged task)."""
    logged = [f"0_{p}" for p in range(6)]
    stateless = [f"1_{p}" for p in range(3)]
    ends = {t: rng.randint(5_000, 90_000) for t in logged}
    ids = [uuid(rng) for _ in range(clients)]
    group = []
    for i, cid in enumerate(ids):
        prev_active = [t for k, t in enumerate(logged + stateless) if k % clients == i]
        prev_standby = [t for k, t in enumerate(logged) if (k + 1) % clients == i and t not in prev_active]
        offsets = {t: -2 for t in prev_active if t in ends}
        for t in prev_standby:
            offsets[t] = ends[t] - rng.randint(0, 3000)
        lags = {t: (-2 if offsets.get(t) == -2 else ends[t] - offsets.get(t, 0)) for t in logged}
        group.append({"id": cid, "threads": 1 + i % 3, "prev_active": prev_active, "prev_standby": prev_standby,
                      "offsets": offsets, "lags": lags})
    # Kafka's decision: the previous actives stay, one standby each on the next client.
    for i, c in enumerate(group):
        c["active"] = list(c["prev_active"])
        c["standby"] = [t for k, t in enumerate(logged) if (k + 1) % clients == i]
    return {"clients": group, "ends": ends, "logged": logged, "stateless": stateless}


def entries(values):
    return ", ".join(f"{t}={v}" for t, v in sorted(values.items(), key=lambda kv: task_key(kv[0])))


def tasks(lst):
    return ", ".join(sorted(lst, key=task_key))


def decided(group, variant, probing=False):
    parts = []
    for c in group["clients"]:
        s = (f"[activeTasks: ([{tasks(c['active'])}]) standbyTasks: ([{tasks(c['standby'])}]) "
             f"prevActiveTasks: ([{tasks(c['prev_active'])}]) prevStandbyTasks: ([{tasks(c['prev_standby'])}]) ")
        if variant == "2.6":
            s += "prevOwnedPartitionsByConsumerId: ([orders-0, orders-1]) "
        s += f"changelogOffsetTotalsByTask: ([{entries(c['offsets'])}]) taskLagTotals: ([{entries(c['lags'])}]) "
        if variant == "3.2+":
            s += "clientTags: ([]) "
        s += f"capacity: {c['threads']} assigned: {len(c['active']) + len(c['standby'])}]"
        parts.append(f"{c['id']}={s}")
    return "Decided on assignment: {" + ", ".join(parts) + "} with" + ("" if probing else " no") + \
        " followup probing rebalance."


def log4j(ts, msg):
    return f"[{ts.replace('.', ',')}] INFO {msg} (org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor)"


def logback(ts, msg, prefix=""):
    return f"{prefix}{ts}  INFO 1 --- [-StreamThread-1] a.k.s.p.i.a.HighAvailabilityTaskAssignor : {msg}"


def jsonline(ts, msg):
    return json.dumps({"@timestamp": ts.replace(" ", "T") + "Z", "level": "INFO", "message": msg,
                       "logger_name": "org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor"})


def chatter(ts):
    return f"[{ts.replace('.', ',')}] INFO [Consumer clientId=x-StreamThread-1-consumer, groupId=orders] (Re-)joining group (o.a.k.c.c.i.ConsumerCoordinator)"


def compare_cluster(path, group, where):
    with open(path) as f:
        c = json.load(f)
    got_tasks = {t["id"]: (t["stores"][0]["changelog_end_offset"] if t.get("stores") else None) for t in c["tasks"]}
    want_tasks = {t: group["ends"][t] for t in group["logged"]}
    want_tasks.update({t: None for t in group["stateless"]})
    check(got_tasks == want_tasks, f"{where}: tasks, stateful ones and end-offset sums as built",
          f"got {got_tasks} want {want_tasks}")
    by_id = {x["id"]: x for x in c["clients"]}
    ok = len(by_id) == len(group["clients"])
    for g in group["clients"]:
        x = by_id.get(g["id"], {})
        ok = ok and x.get("threads") == g["threads"] and sorted(x.get("previous_active", []), key=task_key) == \
            sorted(g["prev_active"], key=task_key) and sorted(x.get("previous_standby", []), key=task_key) == \
            sorted(g["prev_standby"], key=task_key) and x.get("offset_sums", {}) == g["offsets"]
    check(ok, f"{where}: clients (threads, previous tasks, offset sums) as built")


def main():
    assignor, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = random.Random(20261201)
    g1, g2, g3, g4 = (make_group(rng, n) for n in (3, 4, 4, 2))
    a = os.path.join(work, "leader-a.log")
    b = os.path.join(work, "leader-b.log")
    c = os.path.join(work, "leader-c.jsonl.gz")
    with open(a, "w") as f:
        f.write(chatter("2026-11-20 09:00:00.001") + "\n")
        f.write(log4j("2026-11-20 09:00:01.100", decided(g1, "3.2+")) + "\n")              # line 2: t1
        cut = decided(g2, "3.2+")
        f.write(log4j("2026-11-20 09:05:00.000", cut[: len(cut) // 2]) + "\n")              # line 3: cut
        f.write(log4j("2026-11-20 09:06:00.000", decided(g2, "3.2+").replace("taskLagTotals", "taskLags")) + "\n")  # 4
        f.write(log4j("2026-11-20 09:20:00.500", decided(g3, "3.2+", probing=True)) + "\n")  # line 5: t3
    with open(b, "w") as f:
        f.write(logback("2026-11-20 09:10:00.250", decided(g2, "2.6"), prefix="app_2  | ") + "\n")  # t2
    with gzip.open(c, "wt") as f:
        f.write(jsonline("2026-11-20 09:20:00.500", decided(g3, "3.2+", probing=True)) + "\n")  # duplicate of t3
        f.write(jsonline("2026-11-20 09:30:00.000", decided(g4, "2.7-3.1")) + "\n")           # t4
    out = os.path.join(work, "imported")
    props = os.path.join(work, "app.properties")
    with open(props, "w") as f:
        f.write("num.standby.replicas = 1\nacceptable.recovery.lag: 5000\n")
    p = run([assignor, "import", "kafka-log", a, b, c, "--output-dir", out, "--streams-config", props])
    check(p.returncode == 0, "import of three files (log4j, logback behind a compose prefix, gzip JSON lines)", p.stderr)
    check("leader-a.log:3: cut: the line ends before 'followup probing rebalance.'" in p.stderr,
          "a cut line is a warning naming file:line", p.stderr)
    check("leader-a.log:4: unknown ClientState variant: field 'taskLags'" in p.stderr,
          "an unknown variant is a warning naming file:line", p.stderr)
    try:
        with open(os.path.join(out, "index.json")) as f:
            index = json.load(f)
    except OSError:
        index = {"rebalances": [], "duplicates_skipped": 0}
    names = [(e["name"], e["source"].split("/")[-1], e["kafka_variant"]) for e in index["rebalances"]]
    check(names == [("rebalance-0001", "leader-a.log:2", "3.2+"), ("rebalance-0002", "leader-b.log:1", "2.6"),
                    ("rebalance-0003", "leader-a.log:5", "3.2+"), ("rebalance-0004", "leader-c.jsonl.gz:2", "2.7-3.1")],
          "rebalances in time order across files, each with its source and variant", str(names))
    check(index.get("duplicates_skipped") == 1, "the same line in two files is imported once")
    check(all(e["settings_from"].startswith("--streams-config") for e in index["rebalances"]),
          "settings from --streams-config")
    for name, group in zip(("rebalance-0001", "rebalance-0002", "rebalance-0003", "rebalance-0004"), (g1, g2, g3, g4)):
        if os.path.exists(os.path.join(out, name + ".cluster.json")):
            compare_cluster(os.path.join(out, name + ".cluster.json"), group, name)
        else:
            check(False, f"{name}.cluster.json written")
    with open(os.path.join(out, "rebalance-0001.config.yaml")) as f:
        config = f.read()
    check("num_standby_replicas: 1" in config and "acceptable_recovery_lag: 5000" in config,
          "NAME.config.yaml has the application's settings", config)
    v = run([assignor, "validate", "--cluster", os.path.join(out, "rebalance-0003.cluster.json"), "--assignment",
             os.path.join(out, "rebalance-0003.kafka.json"), "--config", os.path.join(out, "rebalance-0003.config.yaml")])
    check(v.returncode == 0, "Kafka's decision as imported is a valid assignment", v.stderr)

    # Only unreadable lines: exit 2.
    bad = os.path.join(work, "bad.log")
    with open(bad, "w") as f:
        f.write(log4j("2026-11-20 09:05:00.000", cut[: len(cut) // 3]) + "\n")
    p = run([assignor, "import", "kafka-log", bad, "--output-dir", os.path.join(work, "none")])
    check(p.returncode == 2 and "no rebalance imported" in p.stderr and "bad.log:1:" in p.stderr,
          "nothing importable: exit 2, the warning names the line", p.stderr)
    # Defaults: said on stderr.
    p = run([assignor, "import", "kafka-log", b, "--output-dir", os.path.join(work, "defaults")])
    check(p.returncode == 0 and "Kafka's default settings assumed" in p.stderr and "1 inferred" in p.stderr,
          "no --streams-config: defaults said, the standby count inferred and said", p.stderr)

    # Replay.
    p = run([assignor, "replay", out, "--strategies", "high_availability,sticky", "--format", "json", "--report",
             os.path.join(work, "replay.html")])
    ok = p.returncode == 0
    if ok:
        r = json.loads(p.stdout)
        ok = len(r["rebalances"]) == 4 and all(set(e["strategies"]) == {"high_availability", "sticky"} for e in r["rebalances"]) \
            and r["agreement"]["high_availability"]["rebalances"] == 4
    check(ok, "replay: every rebalance, every strategy, the agreement", p.stderr)
    try:
        ET.parse(os.path.join(work, "replay.html"))
        check(True, "replay's report is well-formed XHTML")
    except (ET.ParseError, OSError) as e:
        check(False, "replay's report is well-formed XHTML", str(e))
    p = run([assignor, "replay", a, b, "--streams-config", props, "--strategies", "high_availability"])
    check(p.returncode == 0 and "high_availability gave Kafka's decision at" in p.stdout,
          "replay straight from logs", p.stderr)

    # A KIP-1071 group description.
    desc = os.path.join(work, "group.txt")
    with open(desc, "w") as f:
        f.write("GROUP           TARGET-ASSIGNMENT-EPOCH   TOPOLOGY-EPOCH MEMBER                               MEMBER-PROTOCOL MEMBER-EPOCH    PROCESS                              CLIENT-ID                           ASSIGNMENTS\n")
        f.write("word-count      7                         0              m-1                                  streams         7               11111111-2222-4333-8444-555555555555 word-count-1-StreamThread-1-consumer ACTIVE: 0:[0,1]; 1:[0]; STANDBY: 0:[2]; TARGET-ACTIVE: 0:[0,1]; 1:[0]; TARGET-STANDBY: 0:[2]; \n")
        f.write("word-count      7                         0              m-2                                  streams         7               11111111-2222-4333-8444-555555555555 word-count-1-StreamThread-2-consumer ACTIVE: 1:[1]; TARGET-ACTIVE: 1:[1]; \n")
        f.write("word-count      7                         0              m-3                                  streams         6               66666666-7777-4888-9999-aaaaaaaaaaaa word-count-2-StreamThread-1-consumer ACTIVE: 0:[2]; 1:[2]; STANDBY: 0:[0]; TARGET-ACTIVE: 0:[2]; 1:[2]; TARGET-WARMUP: 0:[1]; \n")
    p = run([assignor, "import", "streams-group", desc, "--output-dir", os.path.join(work, "group")])
    ok = p.returncode == 0 and "assumed" not in p.stdout and "caught up" in p.stderr
    if ok:
        with open(os.path.join(work, "group", "word-count.cluster.json")) as f:
            gc = json.load(f)
        clients = {x["id"]: x for x in gc["clients"]}
        one = clients.get("11111111-2222-4333-8444-555555555555", {})
        ok = len(clients) == 2 and one.get("threads") == 2 and set(one.get("previous_by_thread", {})) == {"m-1", "m-2"} \
            and sorted(one.get("previous_active", [])) == ["0_0", "0_1", "1_0", "1_1"] and one.get("previous_standby") == ["0_2"] \
            and {t["id"] for t in gc["tasks"] if t.get("stores")} == {"0_0", "0_1", "0_2"}
        ok = ok and os.path.exists(os.path.join(work, "group", "word-count.target.json"))
    check(ok, "streams-group: a client per process, a thread per member, stateful = tasks with copies", p.stderr + p.stdout)
    return status()


if __name__ == "__main__":
    sys.exit(main())
