#!/usr/bin/env python3
"""Killing the host never leaves the strategy behind: `assignor assign` runs a hanging strategy under
`isolation: process` (time limit 60 s), the test kills the host with SIGKILL (what a CI
cancellation or the OOM killer does; no handler can run) and then with SIGTERM in a second run,
and the strategy's process must be gone (dead or a zombie) soon after. The waits are liveness
bounds, generous for a busy machine: nothing here measures speed.

Usage: host_killed.py ASSIGNOR CLUSTER PLUGIN_DIR WORK_DIR
"""
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402

WAIT_S = 60


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has ended
    except FileNotFoundError:
        return True


def wait_for(predicate):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def main():
    (assignor, cluster, plugin_dir, work), _ = script_checks.arguments(__doc__, 4)
    os.makedirs(work, exist_ok=True)
    failures = 0
    for sig in (signal.SIGKILL, signal.SIGTERM):
        config = os.path.join(work, f"config-{sig.name}.yaml")
        with open(config, "w") as f:
            f.write("strategy: test_strategy_hangs\nisolation: process\nlimits: {time_ms: 60000}\n"
                    f"plugins: {{paths: [{plugin_dir}]}}\n"
                    "strategies: {test_strategy_hangs: {hang: spin, say_pids: true}}\n")
        # An isolated strategy can write no file: it says its pid on standard error.
        host = subprocess.Popen([assignor, "assign", "--config", config, "--cluster", cluster],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        strategy = None
        deadline = time.monotonic() + WAIT_S
        while strategy is None and time.monotonic() < deadline:
            line = host.stderr.readline()
            if not line:
                break
            if line.startswith("test_strategy_hangs pids: "):
                strategy = int(line.split()[2])
        if strategy is None:
            host.kill()
            print(f"FAIL {sig.name}: the strategy never started")
            failures += 1
            continue
        host.send_signal(sig)
        host.communicate()
        if wait_for(lambda: gone(strategy)):
            print(f"ok   host ended by {sig.name}: its strategy (pid {strategy}) ended too")
        else:
            failures += 1
            os.kill(strategy, signal.SIGKILL)
            print(f"FAIL host ended by {sig.name}: its strategy (pid {strategy}) is still running")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
