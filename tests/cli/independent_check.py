#!/usr/bin/env python3
"""Runs `assignor assign` and checks its JSON with shared/tools/check-assignment, a checker written
from the contract alone. Exit 77 (ctest: skipped) when the checkout has no shared/ beside it.

usage: independent_check.py CLI CONFIG CLUSTER OUT CHECKER [checker args...]
"""
import os
import subprocess
import sys


def main():
    cli, config, cluster, out, checker, *checker_args = sys.argv[1:]
    if not os.path.exists(checker):
        print(f"independent checker not found at {checker}: skipped")
        return 77
    p = subprocess.run([cli, "assign", "--config", config, "--cluster", cluster, "--output", out],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"assignor assign exited {p.returncode}:\n{p.stderr}")
        return 1
    p = subprocess.run([sys.executable, checker, cluster, out, *checker_args],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"check-assignment found problems:\n{p.stdout}{p.stderr}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
