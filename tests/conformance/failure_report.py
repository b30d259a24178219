#!/usr/bin/env python3
"""The conformance runner on a strategy that returns invalid assignments: it must fail, name the
task and client at fault, keep case names readable, and print reproduction lines that, run as
they are (with this build's `assignor`), rebuild the case and show the same failure.

usage: failure_report.py RUNNER INVALID_PLUGIN ASSIGNOR
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    runner, plugin, assignor = sys.argv[1:4]
    case = "fresh_standbys0_racks0_mixed_n0"
    run = subprocess.run([runner, "--plugin", plugin, f"--gtest_filter=Conformance.{case}"],
                         capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    problems = []
    if run.returncode != 1:
        problems.append(f"exit status {run.returncode}, expected 1")
    if "byte object" in out:
        problems.append("a case is printed as bytes")
    # validate() names the task (0_0 active twice) and the clients.
    if not re.search(r"invalid assignment: active_assigned_multiple_times: .*task 0_0", out):
        problems.append("the failure does not name the task")
    if f"reproduce case {case}:" not in out:
        problems.append("no reproduction")
    lines = [l.strip() for l in out.splitlines()]
    try:
        start = lines.index(f"reproduce case {case}:")
    except ValueError:
        start = None
    if start is not None:
        commands = lines[start + 1:start + 4]
        if not (commands[0].startswith("assignor generate") and commands[1].startswith("printf")
                and commands[2].startswith("assignor assign")):
            problems.append(f"unexpected reproduction lines: {commands}")
        else:
            with tempfile.TemporaryDirectory() as work:
                for command in commands:
                    command = re.sub(r"^assignor ", f"'{assignor}' ", command)
                    done = subprocess.run(command, shell=True, cwd=work, capture_output=True, text=True, timeout=120)
                    if command is commands[-1]:
                        # The reproduced run fails the way the case did: an invalid assignment, exit 4.
                        if done.returncode != 4 or "active_assigned_multiple_times" not in done.stderr + done.stdout:
                            problems.append(f"the reproduction did not reproduce (exit {done.returncode}):\n"
                                            f"{done.stdout}{done.stderr}")
                    elif done.returncode != 0:
                        problems.append(f"reproduction step failed: {command}\n{done.stderr}")
                        break
    if problems:
        print(out)
        print("\n".join("PROBLEM: " + p for p in problems))
        return 1
    print("the invalid strategy failed with a readable, reproducible report")
    return 0


if __name__ == "__main__":
    sys.exit(main())
