#!/usr/bin/env python3
"""`assignor validate` on assign's own output, as a newcomer meets it:

- without --config, an assignment made with standbys fails on the budget alone (exit 4), and a
  note says which setting the assignment implies and that --config is missing;
- with the config it is valid, and the figures validate reports are the ones assign reported
  (every metric, thread_load_spread from the file's split, or from the SDK's when the file has
  none; assign_ms as the file records it, n/a when it does not);
- with --format json every outcome is one JSON document on stdout (valid, invalid with kind, task,
  client and message per error, unreadable input), and the exit status stays 0, 4 or 2.

Usage: validate_outcomes.py ASSIGNOR SOURCE_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def main():
    (assignor, source, work), _ = script_checks.arguments(__doc__, 3)
    os.makedirs(work, exist_ok=True)
    config = os.path.join(source, "examples", "config.yaml")  # num_standby_replicas: 1
    cluster = os.path.join(source, "examples", "scenarios", "scale-out.json")
    problems = []

    def expect(cond, what):
        if not cond:
            problems.append(what)

    made = run(assignor, "assign", "--config", config, "--cluster", cluster)
    expect(made.returncode == 0, f"assign failed: {made.stderr}")
    assigned = json.loads(made.stdout)
    path = os.path.join(work, "a.json")
    with open(path, "w") as f:
        f.write(made.stdout)

    # No --config: invalid on the standby budget, with the note.
    bare = run(assignor, "validate", "--cluster", cluster, "--assignment", path)
    expect(bare.returncode == 4, f"without --config: exit {bare.returncode}, expected 4")
    expect("note: no --config was given" in bare.stderr and "num_standby_replicas: 1" in bare.stderr,
           f"without --config: no note naming the implied setting:\n{bare.stderr}")
    as_json = run(assignor, "validate", "--cluster", cluster, "--assignment", path, "--format", "json")
    expect(as_json.returncode == 4, f"--format json, invalid: exit {as_json.returncode}, expected 4")
    try:
        doc = json.loads(as_json.stdout)
        expect(doc["valid"] is False, "--format json, invalid: valid is not false")
        kinds = {e["kind"] for e in doc["errors"]}
        expect(kinds == {"standby_budget_exceeded"}, f"--format json, invalid: kinds {kinds}")
        with_standbys = {t for c in assigned["assignment"].values() for t in c["standby"]}
        expect({e["task"] for e in doc["errors"]} == with_standbys,
               "--format json, invalid: the errors' tasks are not the tasks that have a standby")
        expect(all(set(e) == {"kind", "task", "client", "message"} for e in doc["errors"]),
               "--format json, invalid: an error without kind, task, client and message")
        expect("num_standby_replicas: 1" in doc.get("note", ""), "--format json, invalid: no note")
    except (ValueError, KeyError) as e:
        problems.append(f"--format json, invalid: not the documented JSON on stdout ({e}): {as_json.stdout[:300]}")

    # With the config: valid, with assign's own figures.
    ok = run(assignor, "validate", "--cluster", cluster, "--assignment", path, "--config", config, "--format", "json")
    expect(ok.returncode == 0, f"with --config: exit {ok.returncode}: {ok.stderr}")
    doc = json.loads(ok.stdout) if ok.returncode == 0 else {}
    expect(doc.get("valid") is True, "with --config: not valid")
    expect(doc.get("metrics") == assigned["metrics"],
           f"with --config: validate's metrics differ from assign's\n{doc.get('metrics')}\n{assigned['metrics']}")
    expect(doc.get("assign_ms") == assigned["assign_ms"], "with --config: assign_ms is not the file's")
    table = run(assignor, "validate", "--cluster", cluster, "--assignment", path, "--config", config)
    spread = next((l.split()[1] for l in table.stdout.splitlines() if l.strip().startswith("thread_load_spread")), None)
    expect(spread == str(assigned["metrics"]["thread_load_spread"]),
           f"table: thread_load_spread {spread}, assign reported {assigned['metrics']['thread_load_spread']}")

    # A file without the split and without assign_ms: the SDK's split, assign_ms n/a.
    stripped = json.loads(made.stdout)
    del stripped["assign_ms"]
    for entry in stripped["assignment"].values():
        entry.pop("threads", None)
    bare_path = os.path.join(work, "bare.json")
    with open(bare_path, "w") as f:
        json.dump(stripped, f)
    plain = run(assignor, "validate", "--cluster", cluster, "--assignment", bare_path, "--config", config, "--format", "json")
    doc = json.loads(plain.stdout) if plain.returncode == 0 else {}
    expect(doc.get("metrics", {}).get("thread_load_spread") == assigned["metrics"]["thread_load_spread"],
           "without a split in the file: thread_load_spread is not the SDK's split's")
    expect("assign_ms" in doc and doc["assign_ms"] is None, "without assign_ms in the file: not null")
    table = run(assignor, "validate", "--cluster", cluster, "--assignment", bare_path, "--config", config)
    expect(any(l.split() == ["assign_ms", "n/a"] for l in table.stdout.splitlines()),
           "without assign_ms in the file: the table does not say n/a")

    # Unreadable input: still one JSON document, exit 2.
    garbage = os.path.join(work, "garbage.json")
    with open(garbage, "w") as f:
        f.write('{"assignment": {"alpha": {"active": "0_0"}}')
    for name, args in [("missing file", ["--assignment", os.path.join(work, "nope.json")]),
                       ("garbled file", ["--assignment", garbage])]:
        bad = run(assignor, "validate", "--cluster", cluster, *args, "--format", "json")
        expect(bad.returncode == 2, f"{name}: exit {bad.returncode}, expected 2")
        try:
            doc = json.loads(bad.stdout)
            expect(doc["valid"] is False and doc["errors"][0]["kind"] == "unreadable_input",
                   f"{name}: not an unreadable_input error: {bad.stdout}")
            expect(doc["errors"][0]["message"] in bad.stderr, f"{name}: the message differs from stderr's")
        except (ValueError, KeyError, IndexError) as e:
            problems.append(f"{name}: no JSON document on stdout ({e}): {bad.stdout[:200]!r}")

    return script_checks.report(problems, "validate outcomes")


if __name__ == "__main__":
    sys.exit(main())
