#!/usr/bin/env python3
"""The reproductions of issue 24's adversarial review, through the real command, each checked by
its outcome (exit status, what stdout holds, what an independent count says), never by a time:

  in-process strategy thread printing after assign() returned   stdout is one JSON document, 6 runs
  num_standby_replicas 4294967295 and 1e8 on 12 tasks, 5 clients  exit 0, the assignment validates,
                                                                 standby_shortfall counts against the
                                                                 configured number (computed here)
  '-' for an input                                               reads standard input; two inputs
                                                                 on '-' are refused
  validate: warmups without a probing rebalance, an unbalanced   exit 4 naming the problem
  per-thread split

usage: hostile_runs.py ASSIGNOR MISBEHAVING_PLUGIN_DIR EXAMPLES_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, errors="replace", **kw)


def main():
    assignor, plugin_dir, examples, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    failures = []

    def check(ok, what, p=None):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)
            if p is not None:
                print("  exit", p.returncode, "stderr:", p.stderr.strip()[-800:])

    cluster = os.path.join(examples, "small-scale-out.yaml")

    # 1. A strategy thread that keeps printing after assign() returned (isolation: in_process).
    config = os.path.join(work, "keeps-printing.yaml")
    with open(config, "w") as f:
        f.write(f"strategy: test_strategy_misbehaves\nisolation: in_process\nplugins: {{paths: ['{plugin_dir}']}}\n"
                "strategies: {test_strategy_misbehaves: {mode: keeps_printing, lines: 50000}}\n")
    for i in range(6):
        p = run([assignor, "assign", "--config", config, "--cluster", cluster])
        try:
            doc = json.loads(p.stdout)
            ok = p.returncode == 0 and doc["strategy"] == "test_strategy_misbehaves"
        except ValueError:
            ok = False
        check(ok and "late chatter" not in p.stdout, f"late printing thread, run {i + 1}: stdout is the JSON alone", p)

    # 2. A standby count far above clients - 1: bounded work, shortfall against the configured number.
    # streams_sticky gets the configured number (kCapabilityConfiguredStandbys) and bounds the work
    # itself; high_availability gets it capped by the host.
    small = os.path.join(work, "twelve-tasks.json")
    tasks = [{"id": f"{s}_{q}", "stores": [{"name": "st", "changelog_end_offset": 1000}]}
             for s in range(3) for q in range(4)]
    clients = [{"id": f"c{i}", "threads": 2, "previous_active": [t["id"] for k, t in enumerate(tasks) if k % 5 == i],
                "offset_sums": {t["id"]: -2 for k, t in enumerate(tasks) if k % 5 == i}} for i in range(5)]
    with open(small, "w") as f:
        json.dump({"tasks": tasks, "clients": clients}, f)
    for strategy, n in (("high_availability", 4294967295), ("high_availability", 100000000),
                        ("streams_sticky", 4294967295), ("streams_sticky", 100000000)):
        cfg = os.path.join(work, f"standbys-{strategy}-{n}.yaml")
        with open(cfg, "w") as f:
            f.write(f"strategy: {strategy}\nassignment: {{num_standby_replicas: {n}}}\n")
        out = os.path.join(work, f"standbys-{strategy}-{n}.json")
        p = run([assignor, "assign", "--config", cfg, "--cluster", small, "--output", out])
        ok = p.returncode == 0
        if ok:
            with open(out) as f:
                metrics = json.load(f)["metrics"]
            # 5 clients: each task can have 4 standbys at most; the rest of the n asked for are short.
            ok = metrics["standbys"] == 12 * 4 and metrics["standby_shortfall"] == 12 * (n - 4)
        check(ok, f"{strategy}, num_standby_replicas {n}: exit 0, 48 standbys, shortfall 12 x ({n} - 4)", p)
        v = run([assignor, "validate", "--cluster", small, "--assignment", out, "--config", cfg])
        check(v.returncode == 0, f"{strategy}, num_standby_replicas {n}: validate accepts the result", v)

    # 3. '-' is standard input.
    with open(cluster) as f:
        p = run([assignor, "assign", "--config", os.path.join(examples, "config.yaml"), "--cluster", "-"], stdin=f)
    ref = run([assignor, "assign", "--config", os.path.join(examples, "config.yaml"), "--cluster", cluster])

    def without_time(text):
        doc = json.loads(text)
        doc.pop("assign_ms", None)
        return doc
    check(p.returncode == 0 and without_time(p.stdout) == without_time(ref.stdout),
          "--cluster - reads standard input, same result as the file", p)
    with open(cluster) as f:
        p = run([assignor, "assign", "--config", "-", "--cluster", "-"], stdin=f)
    check(p.returncode == 2 and "--config and --cluster both read standard input" in p.stderr,
          "two inputs on '-' are refused", p)
    with open(cluster) as f:
        p = run([assignor, "assign", "--config", os.path.join(examples, "config.yaml"), "--cluster", "-"],
                stdin=subprocess.DEVNULL)
    check(p.returncode == 2 and "standard input" in p.stderr, "an empty standard input is an error naming it", p)

    # 4. validate: warmups need a probing rebalance; a client's threads are within one task.
    base = {"strategy": "hand-written",
            "assignment": {"alpha": {"active": ["0_0", "0_1", "1_0"], "standby": ["0_2"], "warmup": []},
                           "beta": {"active": ["0_2", "1_1", "2_1"], "standby": ["0_0"], "warmup": []},
                           "gamma": {"active": ["2_0"], "standby": ["0_1"], "warmup": []}},
            "probing_rebalance": {"needed": False, "after_ms": 600000}}
    config_yaml = os.path.join(examples, "config.yaml")

    def validate(doc, name):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return run([assignor, "validate", "--cluster", cluster, "--assignment", path, "--config", config_yaml])
    check(validate(base, "base.json").returncode == 0, "the hand-written base assignment is valid")
    warm = json.loads(json.dumps(base))
    warm["assignment"]["gamma"]["warmup"] = ["0_2"]
    p = validate(warm, "warmup-no-probing.json")
    check(p.returncode == 4 and "warmup_without_probing" in p.stderr, "validate: a warmup without probing", p)
    warm["probing_rebalance"]["needed"] = True
    check(validate(warm, "warmup-probing.json").returncode == 0, "validate: the same with probing is valid")
    lopsided = json.loads(json.dumps(base))
    lopsided["assignment"]["alpha"]["threads"] = {"t0": {"active": ["0_0", "0_1", "1_0"], "standby": ["0_2"]}}
    p = validate(lopsided, "lopsided-threads.json")
    check(p.returncode == 4 and "within one task" in p.stderr and "'t0' holds 4 tasks" in p.stderr,
          "validate: a per-thread split 4 to 0 is refused", p)
    balanced = json.loads(json.dumps(base))
    balanced["assignment"]["alpha"]["threads"] = {"t0": {"active": ["0_0", "0_1"]},
                                                  "t1": {"active": ["1_0"], "standby": ["0_2"]}}
    check(validate(balanced, "balanced-threads.json").returncode == 0, "validate: a 2-2 split is valid")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
