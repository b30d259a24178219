#!/usr/bin/env python3
"""The state-aware metrics (DESIGN 4.5: stateful_load_spread, stale_standbys, copy_restore_offsets,
colocated_standbys) as every bundled strategy's output reports them equal what
tests/tools/check_assignment.py --metrics recomputes from the files alone, on clusters with and
without racks and tags.

usage: metrics_check.py ASSIGNOR CHECKER EXAMPLES_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    global check_assignment
    assignor, checker, examples, work = sys.argv[1:5]
    # The checker runs in this process (check()): 81 outputs, one Python start each, cost more than the checks.
    check_assignment = script_checks.load_module("check_assignment", checker)
    os.makedirs(work, exist_ok=True)
    racks = os.path.join(work, "racks.json")
    with open(racks, "w") as f:
        f.write(run([assignor, "generate", "--clients", "9", "--threads", "2", "--subtopologies", "4", "--partitions",
                     "12", "--racks", "3", "--standbys", "2", "--scenario", "scale-out", "--seed", "5"]).stdout)
    tags = os.path.join(work, "tags.yaml")
    with open(tags, "w") as f:
        f.write("tasks:\n")
        for p in range(6):
            f.write(f"  - {{id: \"0_{p}\", stores: [{{name: s, changelog_end_offset: {20000 + p * 9000}}}]}}\n")
        f.write("  - {id: \"1_0\"}\nclients:\n")  # quoted: YAML 1.1 readers take 1_0 for the integer 10
        for i, zone in enumerate(["a", "a", "b", "b", "c"]):
            held = [f"0_{p}" for p in range(6) if p % 5 == i]
            f.write(f"  - {{id: c{i}, threads: 1, tags: {{zone: {zone}}}, previous_active: {json.dumps(held)}, "
                    f"offset_sums: {{{', '.join(json.dumps(t) + ': -2' for t in held)}}}}}\n")
    plain = os.path.join(work, "plain.yaml")
    with open(plain, "w") as f:
        f.write("strategy: high_availability\nassignment: {num_standby_replicas: 1}\n")
    tagged = os.path.join(work, "tagged.yaml")
    with open(tagged, "w") as f:
        f.write("strategy: high_availability\nassignment: {num_standby_replicas: 1, rack_aware: {tags: [zone]}}\n")
    cases = [(os.path.join(examples, "small-scale-out.yaml"), plain, []), (racks, plain, []),
             (tags, tagged, ["--tags", "zone"])]
    for name in sorted(os.listdir(os.path.join(examples, "scenarios"))):
        cases.append((os.path.join(examples, "scenarios", name), plain, []))
    strategies = [p["name"] for p in json.loads(run([assignor, "plugins", "--format", "json"]).stdout)]
    failures = checked = 0
    for cluster, config, extra in cases:
        for strategy in strategies:
            out = os.path.join(work, f"{os.path.basename(cluster)}.{strategy}.json")
            p = run([assignor, "assign", "--config", config, "--cluster", cluster, "--strategy", strategy, "--output", out])
            if p.returncode != 0:
                print(f"FAIL {strategy} on {cluster}: exit {p.returncode}: {p.stderr[-300:]}")
                failures += 1
                continue
            status, lines = check_assignment.check([cluster, out, "--kind", "any", "--lag", "10000", "--standbys", "1",
                                                    "--warmups", "2", "--metrics", *extra])
            if status == 2 or not lines:
                print(f"FAIL {strategy} on {os.path.basename(cluster)}: the checker cannot read it: {lines}")
                failures += 1
                continue
            recomputed = json.loads(lines[0])
            with open(out) as f:
                reported = json.load(f)["metrics"]
            wrong = [f"{k}: reported {reported.get(k)}, recomputed {v}" for k, v in recomputed.items()
                     if (v is None) != (reported.get(k) is None) or (v is not None and abs(float(v) - float(reported[k])) > 1e-9)]
            if status != 0 or wrong:
                print(f"FAIL {strategy} on {os.path.basename(cluster)}:\n  " + "\n  ".join(wrong + lines[1:]))
                failures += 1
            checked += 1
    print(f"{checked} outputs checked, {failures} disagreement(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
