#!/usr/bin/env python3
"""The independent checker (check_assignment.py) on hand-made assignments: each breaks one rule of
the contract and must be reported (exit 1, a line naming the place), the valid ones must pass
(exit 0), and its recomputed metrics must equal the values worked out by hand below.

The group (acceptable_recovery_lag 10000, num_standby_replicas 1, max_warmup_replicas 2):
  0_0  one logged store, end offset 100000     a runs it (-2); b has nothing (lag 100000);
                                                c reports 200000 > end: suspect (lag 100000)
  0_1  one logged store, end offset 50000      a reports 49000 (lag 1000, caught up); b 10 (lag
                                                49990); c reports -5: suspect (lag 50000)
  1_0  one non-logged store: stateful, nothing to copy (lag 0 everywhere)
  2_0, 2_1  stateless
  clients a (2 threads, rack r1, zone z1), b (1 thread, r2, z2), c (1 thread, r1, z1)

usage: test_check_assignment.py CHECKER WORK_DIR
"""
import copy
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402

CLUSTER = """\
version: 1
tasks:
  - {id: 0_0, stores: [{name: counts, changelog_end_offset: 100000}]}
  - {id: 0_1, stores: [{name: counts, changelog_end_offset: 50000}]}
  - {id: 1_0, stores: [{name: scratch, logged: false}]}
  - {id: 2_0}
  - {id: 2_1}
clients:
  - {id: a, threads: 2, rack: r1, tags: {zone: z1}, previous_active: [0_0], offset_sums: {0_0: -2, 0_1: 49000}}
  - {id: b, threads: 1, rack: r2, tags: {zone: z2}, offset_sums: {0_1: 10}}
  - {id: c, threads: 1, rack: r1, tags: {zone: z1}, offset_sums: {0_0: 200000, 0_1: -5}}
"""
# Task ids above are unquoted on purpose: YAML 1.1 would read 1_0 as the integer 10.

# Worked by hand: logged actives per thread a 2/2, b 0, c 0 -> spread 1; standbys b:0_0 (lag
# 100000) and c:0_1 (lag 50000) both above 10000 -> 2 stale, 150000 offsets to copy; c's standby of
# 0_1 shares rack r1 (and zone z1) with the active a, b's standby of 0_0 does not -> 1 colocated.
METRICS = {"stateful_load_spread": 1.0, "stale_standbys": 2, "copy_restore_offsets": 150000, "colocated_standbys": 1}

VALID = {
    "strategy": "hand",
    "assignment": {
        "a": {"active": ["0_0", "0_1", "2_0"], "standby": [], "warmup": [],
              "threads": {"t0": {"active": ["0_0", "2_0"]}, "t1": {"active": ["0_1"]}}},
        "b": {"active": ["1_0"], "standby": ["0_0"], "warmup": []},
        "c": {"active": ["2_1"], "standby": ["0_1"], "warmup": []},
    },
    "probing_rebalance": {"needed": False},
    "metrics": dict(METRICS),
}

SETTINGS = ["--lag", "10000", "--standbys", "1", "--warmups", "2"]


def changed(edit):
    out = copy.deepcopy(VALID)
    edit(out)
    return out


def roles(client, **lists):
    """Replaces some of a client's lists; threads=None removes its thread split."""
    def edit(out):
        out["assignment"][client].update(lists)
        if out["assignment"][client].get("threads", {}) is None:
            del out["assignment"][client]["threads"]
    return edit


def both(*edits):
    def edit(out):
        for e in edits:
            e(out)
    return edit


def set_key(path, value):
    def edit(out):
        node = out
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


def delete(path):
    def edit(out):
        node = out
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return edit


WARMUP = roles("b", warmup=["0_1"])
PROBING = set_key(["probing_rebalance"], {"needed": True, "after_ms": 600000})
# The warmup's copy adds b's lag for 0_1 (49990) to the offsets copied.
WARMUP_METRICS = set_key(["metrics", "copy_restore_offsets"], 150000 + 49990)

# (name, output edit, extra arguments, expected exit, text the output must contain)
CASES = [
    ("valid", None, ["--metrics"], 0, ""),
    ("valid, a warmup with a probing rebalance", both(WARMUP, PROBING, WARMUP_METRICS), ["--metrics"], 0, ""),
    ("valid, balanced", None, ["--balanced"], 0, ""),
    ("valid, colocation by tags", None, ["--metrics", "--tags", "zone"], 0, ""),
    ("valid under --kind any: a missing standby", roles("c", standby=[]), ["--kind", "any"], 0, ""),
    ("valid under --kind any: an active on a lagging client",
     both(roles("a", active=["0_0", "2_0"], threads=None), roles("b", active=["0_1", "1_0"])), ["--kind", "any"], 0, ""),
    ("no assignment object", delete(["assignment"]), [], 1, "no `assignment` object"),
    ("a client left out", delete(["assignment", "c"]), [], 1, "client c: missing from the output"),
    ("a client the cluster does not have", set_key(["assignment", "z"], {"active": [], "standby": [], "warmup": []}),
     [], 1, "client z: in the output but not in the cluster file"),
    ("an unknown task", roles("c", active=["2_1", "9_9"]), [], 1, "active task 9_9 is not in the cluster file"),
    ("a task listed twice", roles("c", active=["2_1", "2_1"]), [], 1, "task 2_1 is listed twice as active"),
    ("a list out of task order", roles("a", active=["0_1", "0_0", "2_0"]), [], 1, "client a: `active` is not in task order"),
    ("two roles on one client", roles("b", standby=["0_0", "1_0"]), [], 1, "client b: task 1_0 is both active and standby"),
    ("a task active twice", roles("c", active=["2_0", "2_1"]), [], 1, "task 2_0: active on both a and c"),
    ("a task with no active", roles("c", active=[]), [], 1, "task 2_1: no client runs it as active"),
    ("a standby of a task with only a non-logged store", roles("c", standby=["0_1", "1_0"]), [], 1,
     "task 1_0: a standby copy on c, but it has no logged store"),
    ("a standby of a stateless task", roles("c", standby=["0_1", "2_0"]), [], 1,
     "task 2_0: a standby copy on c, but it has no logged store"),
    ("a warmup of a task with only a non-logged store", both(roles("c", warmup=["1_0"]), PROBING), [], 1,
     "task 1_0: a warmup copy on c, but it has no logged store"),
    ("a standby missing", roles("c", standby=[]), [], 1, "task 0_1: 0 standbys, 1 wanted"),
    ("a standby too many", roles("c", standby=["0_0", "0_1"]), ["--kind", "any"], 1,
     "task 0_0: 2 standbys, more than num_standby_replicas 1"),
    ("more warmups than allowed", both(WARMUP, roles("c", warmup=["0_0"]), PROBING), ["--warmups", "1"], 1,
     "2 warmups in all, more than max_warmup_replicas 1"),
    ("a warmup without a probing rebalance", WARMUP, [], 1, "1 warmups placed but no probing rebalance"),
    ("an active restoring while a caught-up client exists",
     both(roles("a", active=["0_0", "2_0"], threads={"t0": {"active": ["0_0", "2_0"]}}), roles("b", active=["0_1", "1_0"])),
     [], 1, "task 0_1: active on b (lag 49990) while a is caught up"),
    ("a suspect offset sum is a full restore",
     both(roles("a", active=["0_1", "2_0"], threads=None), roles("c", active=["0_0", "2_1"], standby=[]),
          roles("b", standby=["0_1"]), roles("a", standby=["0_0"])),
     [], 1, "task 0_0: active on c (lag 100000) while a is caught up"),
    ("the threads' tasks differ from the client's", set_key(["assignment", "a", "threads", "t1"], {"active": []}), [], 1,
     "client a: the threads' active tasks differ from the client's"),
    ("a task on two threads", set_key(["assignment", "a", "threads", "t1"], {"active": ["0_1", "2_0"]}), [], 1,
     "client a: active task 2_0 is on more than one thread"),
    ("more threads than the client has",
     set_key(["assignment", "b", "threads"], {"t0": {"active": ["1_0"]}, "t1": {"standby": ["0_0"]}}), [], 1,
     "client b: 2 threads hold tasks, the client has 1"),
    ("not balanced", both(roles("a", active=["0_0", "0_1", "1_0", "2_0", "2_1"], threads=None), roles("b", active=[]),
                           roles("c", active=[])), ["--balanced"], 1, "not balanced: a runs 5 actives on 2 threads"),
    ("a metric reported wrong", set_key(["metrics", "stale_standbys"], 1), ["--metrics"], 1,
     "metric stale_standbys: the output says 1, recomputed 2"),
    ("a spread reported wrong", set_key(["metrics", "stateful_load_spread"], 0.5), ["--metrics"], 1,
     "metric stateful_load_spread: the output says 0.5, recomputed 1.0"),
    ("colocation reported where there are racks", set_key(["metrics", "colocated_standbys"], None), ["--metrics"], 1,
     "metric colocated_standbys: the output says None, recomputed 1"),
]

UNKNOWN = CLUSTER.replace("version: 1\n", "version: 1\nend_offsets_known: false\n")


CHECKER = None  # the module under test, loaded from the path given


def run(checker, cluster, output, args, work, name, command_line=False):
    """(exit status, text printed): in-process through check(), or as a command when asked (the
    command line itself is checked on a few cases; a Python start per case costs more than the check)."""
    safe = "".join(ch if ch.isalnum() else "-" for ch in name)
    out_path = os.path.join(work, safe + ".json")
    with open(out_path, "w") as f:
        json.dump(output, f)
    if command_line:
        p = subprocess.run([sys.executable, checker, cluster, out_path, *args], capture_output=True, text=True,
                           timeout=60)
        return p.returncode, p.stdout + p.stderr
    status, lines = CHECKER.check([cluster, out_path, *args])
    return status, "".join(line + "\n" for line in lines)


def main():
    global CHECKER
    checker, work = sys.argv[1:3]
    CHECKER = script_checks.load_module("check_assignment", checker)
    os.makedirs(work, exist_ok=True)
    cluster = os.path.join(work, "cluster.yaml")
    with open(cluster, "w") as f:
        f.write(CLUSTER)
    unknown = os.path.join(work, "unknown.yaml")
    with open(unknown, "w") as f:
        f.write(UNKNOWN)
    failures = []

    def expect(name, cluster_path, output, args, status, text, command_line=False):
        rc, out = run(checker, cluster_path, output, args, work, name, command_line)
        if rc != status or text not in out or (status == 0 and len(out.strip().splitlines()) > ("--metrics" in args)):
            failures.append(f"{name}: exit {rc} (want {status}), want {text!r} in:\n    " + out.replace("\n", "\n    "))

    for name, edit, args, status, text in CASES:
        expect(name, cluster, changed(edit) if edit else VALID, SETTINGS + args, status, text)
    # The command itself: exit 0 and the metrics line on a valid output, exit 1 and the line on a broken one.
    expect("valid, as a command", cluster, VALID, SETTINGS + ["--metrics"], 0, '"stale_standbys": 2', True)
    expect("a task active twice, as a command", cluster, changed(roles("c", active=["2_0", "2_1"])), SETTINGS, 1,
           "task 2_0: active on both a and c", True)

    # The recomputed metrics themselves, against the hand-worked values.
    rc, out = run(checker, cluster, VALID, SETTINGS + ["--metrics"], work, "metrics")
    if json.loads(out.splitlines()[0]) != METRICS:
        failures.append(f"metrics: recomputed {out.splitlines()[0]}, worked by hand {METRICS}")
    # A larger acceptable lag: no standby is stale any more.
    rc, out = run(checker, cluster, VALID, ["--lag", "100000", "--standbys", "1", "--metrics"], work, "metrics-lag")
    if json.loads(out.splitlines()[0])["stale_standbys"] != 0:
        failures.append(f"metrics with acceptable lag 100000: {out.splitlines()[0]}, want stale_standbys 0")
    # Neither racks nor tags: colocated_standbys is null.
    no_racks = os.path.join(work, "no-racks.yaml")
    with open(no_racks, "w") as f:
        f.write(CLUSTER.replace("rack: r1, ", "").replace("rack: r2, ", ""))
    rc, out = run(checker, no_racks, VALID, SETTINGS + ["--metrics"], work, "metrics-no-racks")
    if json.loads(out.splitlines()[0])["colocated_standbys"] is not None:
        failures.append(f"metrics without racks or tags: {out.splitlines()[0]}, want colocated_standbys null")

    # End offsets unknown: previous actives stay, and a probing rebalance is asked for.
    expect("unknown end offsets, valid", unknown, changed(PROBING), SETTINGS, 0, "")
    expect("unknown end offsets, no probing rebalance", unknown, VALID, SETTINGS, 1,
           "end offsets unknown but no probing rebalance asked for")
    expect("unknown end offsets, a previous active moved", unknown,
           changed(both(PROBING, roles("a", active=["0_1", "2_0"], standby=["0_0"], threads=None),
                        roles("b", active=["0_0", "1_0"], standby=["0_1"]), roles("c", standby=[]))),
           SETTINGS, 1, "task 0_0: end offsets unknown, yet its previous active a lost it to b")

    # Files that cannot be read: exit 2, naming the file.
    broken = os.path.join(work, "broken.yaml")
    with open(broken, "w") as f:
        f.write("tasks: [\n")
    for name, path in (("a cluster that is not YAML", broken), ("a missing cluster", os.path.join(work, "nothing.yaml"))):
        rc, out = run(checker, path, VALID, SETTINGS, work, name, command_line=True)
        if rc != 2 or path not in out:
            failures.append(f"{name}: exit {rc} (want 2) and the file named, got:\n    {out}")

    total = len(CASES) + 11
    for f in failures:
        print("FAIL " + f)
    print(f"{total - len(failures)}/{total} checks of the checker as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
