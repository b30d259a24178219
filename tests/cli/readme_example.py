#!/usr/bin/env python3
"""README.md's worked example must be what the command prints: runs the command the README names
(`assignor assign --config examples/config.yaml --cluster examples/small-scale-out.yaml --format
table`) and compares every line of the README's block with the output, except the timing.

Usage: readme_example.py ASSIGNOR SOURCE_DIR
"""
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    assignor, root = sys.argv[1:]
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read()
    match = re.search(r"`scripts/demo` runs .*?```\n(strategy: .*?)```", readme, re.S)
    if not match:
        print("README.md: no worked example block after '`scripts/demo` runs'")
        return 1
    expected = match.group(1).splitlines()
    run = subprocess.run([assignor, "assign", "--config", os.path.join(root, "examples/config.yaml"),
                          "--cluster", os.path.join(root, "examples/small-scale-out.yaml"), "--format", "table"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"assignor exited {run.returncode}: {run.stderr}")
        return 1
    actual = run.stdout.splitlines()
    untimed = lambda lines: [l for l in lines if not l.strip().startswith("assign_ms")]
    if untimed(expected) != untimed(actual):
        print("README.md's worked example differs from the command's output.\n--- README\n" +
              "\n".join(expected) + "\n--- command\n" + "\n".join(actual))
        return 1
    print(f"README example: {len(untimed(expected))} lines equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
