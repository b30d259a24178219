"""What the scripted command-line tests share: `check` prints "ok" or "FAIL" with what was checked
and records a failure, `run` runs a command with its output captured, `status` says how many checks
failed and gives the script's exit status.

A script in tests/<folder>/ reaches it with
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
"""
import subprocess

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
