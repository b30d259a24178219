#!/usr/bin/env python3
"""Runs `assignor assign` and checks its JSON with tests/tools/check_assignment.py, a checker written
from the contract alone.

usage: independent_check.py CLI CONFIG CLUSTER OUT CHECKER [checker args...]
"""
import subprocess
import sys


def main():
    cli, config, cluster, out, checker, *checker_args = sys.argv[1:]
    p = subprocess.run([cli, "assign", "--config", config, "--cluster", cluster, "--output", out],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"assignor assign exited {p.returncode}:\n{p.stderr}")
        return 1
    p = subprocess.run([sys.executable, checker, cluster, out, *checker_args],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"check_assignment.py found problems:\n{p.stdout}{p.stderr}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
