"""What the scripted command-line tests share: `check` prints "ok" or "FAIL" with what was checked
and records a failure, `run` runs a command with its output captured, `status` says how many checks
failed and gives the script's exit status; `arguments` reads the script's command line (or prints its
usage), `report` ends a script that collects its problems as lines, `load_module` imports a script
by path (the independent checker, tests/tools/check_assignment.py, run in-process).

A script in tests/<folder>/ reaches it with
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
"""
import importlib.util
import subprocess
import sys

FAILURES = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)
        if detail:
            print("     " + str(detail)[:2000])


def run(cmd, timeout=600, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def status():
    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


def arguments(usage, count, flags=()):
    """The script's `count` arguments and the set of `flags` given after them; anything else (too few,
    too many, a flag not in `flags`) exits with the script's usage."""
    given, extra = sys.argv[1:count + 1], sys.argv[count + 1:]
    if len(given) != count or any(a not in flags for a in extra):
        sys.exit(usage)
    return given, set(extra)


def report(problems, summary):
    """Prints each problem and a summary line (`summary` and the count); the exit status: 1 if any."""
    for p in problems:
        print(p)
    print(f"{summary}, {len(problems)} problems")
    return 1 if problems else 0


def load_module(name, path):
    """The Python file at `path` imported as module `name` (without adding its folder to sys.path)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
