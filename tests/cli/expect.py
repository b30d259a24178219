#!/usr/bin/env python3
"""Runs a command and checks its exit status and output: the driver of the command-line tests.

usage: expect.py --exit N [--stderr S]... [--stdout S]... [--no-stdout S]... [--no-stderr S]...
                 [--timeout SECONDS]
                 [--from-file CASE] -- CMD ARGS...

--from-file CASE reads expectations from lines of CASE that start with '# expect-exit: N' and
'# expect-stderr: TEXT' (so that a bad input file carries its own expectations). The test fails
when the status differs, an expected text is missing, or the command died of a signal.
"""
import argparse
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", type=int)
    ap.add_argument("--stderr", action="append", default=[])
    ap.add_argument("--stdout", action="append", default=[])
    ap.add_argument("--no-stdout", action="append", default=[])  # texts that must not appear on stdout
    ap.add_argument("--no-stderr", action="append", default=[])  # texts that must not appear on stderr
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--from-file")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    want_exit = a.exit
    if a.from_file:
        with open(a.from_file, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("# expect-exit:"):
                    want_exit = int(line.split(":", 1)[1])
                elif line.startswith("# expect-stderr:"):
                    a.stderr.append(line.split(":", 1)[1].strip())
    if want_exit is None:
        print("expect.py: no expected exit status given", file=sys.stderr)
        return 2
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout, errors="replace")
    problems = []
    if p.returncode < 0:
        problems.append(f"killed by signal {-p.returncode}")
    elif p.returncode != want_exit:
        problems.append(f"exit status {p.returncode}, expected {want_exit}")
    for s in a.stderr:
        if s not in p.stderr:
            problems.append(f"stderr lacks {s!r}")
    for s in a.stdout:
        if s not in p.stdout:
            problems.append(f"stdout lacks {s!r}")
    for s in a.no_stdout:
        if s in p.stdout:
            problems.append(f"stdout has {s!r}")
    for s in a.no_stderr:
        if s in p.stderr:
            problems.append(f"stderr has {s!r}")
    if problems:
        print("command:", " ".join(cmd))
        print("--- stdout ---\n" + p.stdout[-4000:])
        print("--- stderr ---\n" + p.stderr[-4000:])
        for pr in problems:
            print("FAIL:", pr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
