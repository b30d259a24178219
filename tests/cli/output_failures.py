#!/usr/bin/env python3
"""Output is written or the command fails: every command whose standard output is a full device
(/dev/full) or closed (`>&-`) exits 2 with a message naming standard output, never 0 with nothing
written. Runs each command both ways.

Usage: output_failures.py ASSIGNOR EXAMPLES_DIR
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    assignor, examples = sys.argv[1:]
    config = os.path.join(examples, "config.yaml")
    cluster = os.path.join(examples, "small-scale-out.yaml")
    steady = os.path.join(examples, "scenarios", "steady.json")
    commands = {
        "assign json": ["assign", "--config", config, "--cluster", cluster],
        "assign table": ["assign", "--config", config, "--cluster", cluster, "--format", "table"],
        "generate": ["generate", "--clients", "3", "--threads", "1", "--subtopologies", "1", "--partitions", "2"],
        "plugins": ["plugins"],
        "plugins json": ["plugins", "--format", "json"],
        "compare": ["compare", "--config", config, "--cluster", cluster, "--strategies", "sticky", "--runs", "1"],
        "simulate": ["simulate", "--config", config, "--cluster", steady, "--max-rounds", "2"],
    }
    failures = 0
    for name, args in commands.items():
        for how, expected in (("full", "write failed: No space left on device"), ("closed", "standard output is closed")):
            if how == "full":
                with open("/dev/full", "w") as full:
                    p = subprocess.run([assignor, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
            else:
                p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", assignor, *args], stderr=subprocess.PIPE,
                                   text=True, timeout=120)
            if p.returncode != 2 or expected not in p.stderr:
                failures += 1
                print(f"FAIL {name}, stdout {how}: exit {p.returncode}, stderr: {p.stderr.strip()!r}")
            else:
                print(f"ok   {name}, stdout {how}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
