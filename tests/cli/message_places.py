#!/usr/bin/env python3
"""Every error about a file names the file and the place in it: over the bad-input corpora
(tests/cli/bad_clusters, bad_configs, bad_events, plus tab-indented YAML written here), the
first line on stderr must be `assignor: error: FILE:LINE:COLUMN: ...` with the file as given and
a line and column that exist in it, and the exit status 2 (3 for a strategy name no plugin carries,
DESIGN 4.3). Errors that have no place in the file
(an empty file) must still start with `assignor: error: FILE: `. A YAML file indented with tabs
must say so.

Usage: message_places.py ASSIGNOR SOURCE_DIR WORK_DIR
"""
import glob
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402

PLACELESS = {"empty.yaml"}  # no line or column to point at


def check(assignor, args, path, problems):
    run = subprocess.run([assignor] + args, capture_output=True, text=True, timeout=120)
    first = run.stderr.splitlines()[0] if run.stderr else ""
    name = os.path.basename(path)
    if run.returncode not in (2, 3):
        problems.append(f"{name}: exit {run.returncode}, expected 2 or 3 ({first})")
        return first
    m = re.match(r"assignor: error: (.+?):(\d+):(\d+): \S", first)
    if not m:
        if name in PLACELESS and first.startswith(f"assignor: error: {path}: "):
            return first
        problems.append(f"{name}: no FILE:LINE:COLUMN prefix: {first}")
        return first
    file, line, column = m.group(1), int(m.group(2)), int(m.group(3))
    if file != path:
        problems.append(f"{name}: the message names {file}, not the file given ({path})")
        return first
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    if not 1 <= line <= len(lines) or not 1 <= column <= len(lines[line - 1]) + 1:
        problems.append(f"{name}: {line}:{column} is not a place in the file ({len(lines)} lines)")
    return first


def main():
    (assignor, source, work), _ = script_checks.arguments(__doc__, 3)
    os.makedirs(work, exist_ok=True)
    cli = os.path.join(source, "tests", "cli")
    examples = os.path.join(source, "examples")
    problems, checked = [], 0
    for path in sorted(glob.glob(os.path.join(cli, "bad_clusters", "*"))):
        check(assignor, ["assign", "--config", os.path.join(examples, "config.yaml"), "--cluster", path], path, problems)
        checked += 1
    for path in sorted(glob.glob(os.path.join(cli, "bad_configs", "*"))):
        check(assignor, ["assign", "--config", path, "--cluster", os.path.join(examples, "small-scale-out.yaml")],
              path, problems)
        checked += 1
    for path in sorted(glob.glob(os.path.join(cli, "bad_events", "*"))):
        check(assignor, ["simulate", "--config", os.path.join(examples, "config.yaml"), "--cluster",
                         os.path.join(examples, "scenarios", "steady.json"), "--events", path], path, problems)
        checked += 1
    # Tabs in indentation, in each place yaml-cpp reports differently.
    tabbed = {
        "tab_map_value.yaml": "strategy: high_availability\nassignment:\n\tnum_standby_replicas: 1\n",
        "tab_block_entry.yaml": "strategy: high_availability\nplugins:\n  paths:\n\t- x\n",
        "tab_after_spaces.yaml": "strategy: high_availability\nassignment:\n  num_standby_replicas: 1\n\tmax_warmup_replicas: 1\n",
    }
    for name, text in tabbed.items():
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        first = check(assignor, ["assign", "--config", path, "--cluster", os.path.join(examples, "small-scale-out.yaml")],
                      path, problems)
        if "tab" not in first:
            problems.append(f"{name}: the message does not mention the tab: {first}")
        checked += 1
    return script_checks.report(problems, f"{checked} bad inputs")


if __name__ == "__main__":
    sys.exit(main())
