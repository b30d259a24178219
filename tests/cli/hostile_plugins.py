#!/usr/bin/env python3
"""The hostile-plugin suite (issue 32): every strategy of tests/plugins/broken/ that tries to cross
the isolation boundary, in every isolation mode (process, auto, in_process), with and without a
fallback, through the real `assignor assign`. Each run is checked by its outcome, never by a time:

  isolated (process, and auto: a plugin from --plugin-path)
    - the host is never seen stopped, and the command ends (a liveness bound of minutes);
    - exit 0 with one JSON document on stdout that `assignor validate` accepts, holding nothing the
      plugin wrote; or, when the plugin's answer cannot be taken, exit 4 naming why (and with a
      fallback, exit 0 and the fallback's assignment);
    - assign_ms is a finite number >= 0 (the host measures it: a forged record cannot set it);
    - the plugin says "refused" for every way it tried, never "REACHED the host".
  in process (isolation: in_process): what docs/reliability.md says it does not protect against,
    shown to be so (the host stops, stdout carries forged bytes, memory and descriptors are reached),
    and what it does (fd 1 is standard error).

Every run is a session of its own (start_new_session), so a plugin that signals "the host's process
group" can reach nothing of the test's.

usage: hostile_plugins.py ASSIGNOR BROKEN_PLUGINS_DIR CLUSTER WORK_DIR
"""
import json
import math
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402

LIVENESS_S = 240  # a run that has not ended by then is hung (healthy runs take well under a second)


def state_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def run_watched(cmd):
    """Runs cmd; returns (returncode, stdout, stderr, seen_stopped). A stopped host is continued
    (so that the run ends) and reported."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    seen_stopped = False
    out = err = b""
    deadline = time.monotonic() + LIVENESS_S
    while True:
        try:
            out, err = p.communicate(timeout=0.02)
            break
        except subprocess.TimeoutExpired:
            pass
        if state_of(p.pid) in ("T", "t"):
            seen_stopped = True
            os.kill(p.pid, signal.SIGCONT)
        if time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return None, out.decode(errors="replace"), err.decode(errors="replace"), seen_stopped
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), seen_stopped


# (plugin library directory, strategy, parameters when isolated, parameters in process, what the
# plugin's answer is when isolated: "taken" (exit 0, its assignment) or "refused" (exit 4, malformed),
# what happens in process)
def cases():
    out = []
    w = ("strategy_writes_host_output", "test_strategy_writes_host_output")
    out.append((*w, "{via: proc_fd1}", "{via: proc_fd1, target: self}", "taken", "fd1_is_stderr"))
    out.append((*w, "{via: every_fd}", "{via: every_fd, target: self}", "refused", "stdout_forged"))
    s = ("strategy_stops_host", "test_strategy_stops_host")
    for via in ("kill", "group", "join_group", "tgkill", "sigqueue", "pidfd", "ptrace", "sigio"):
        # In process only `kill` of itself: the other ways would reach the group it shares.
        out.append((*s, f"{{via: {via}}}", "{via: kill, target: self}" if via == "kill" else None, "taken",
                    "stopped"))
    m = ("strategy_reaches_host_memory", "test_strategy_reaches_host_memory")
    for via in ("proc_mem", "vm_write", "ptrace", "pidfd_getfd"):
        out.append((*m, f"{{via: {via}}}", f"{{via: {via}, target: self}}", "taken",
                    "refused_self" if via == "ptrace" else "reached"))
    f = ("strategy_forges_result", "test_strategy_forges_result")
    out.append((*f, "{forge: valid_frame, sleep_ms: 200}", "{forge: valid_frame}", "taken", "stdout_forged"))
    for forge in ("negative_time", "nan_time", "huge_count"):
        out.append((*f, f"{{forge: {forge}}}", f"{{forge: {forge}}}", "refused", "stdout_forged"))
    out.append(("strategy_daemon_writes", "test_strategy_daemon_writes", "{delay_ms: 300, hold_s: 600}",
                "{delay_ms: 300, hold_s: 2}", "taken", "daemon_after_json"))
    return out


def main():
    (assignor, broken, cluster, work), _ = script_checks.arguments(__doc__, 4)
    os.makedirs(work, exist_ok=True)
    failures = []
    runs = 0

    def check(ok, what, detail=""):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)
            if detail:
                print("     " + detail.strip().replace("\n", "\n     ")[-1500:])

    for index, (directory, strategy, isolated_params, own_params, answer, in_process) in enumerate(cases()):
        for mode in ("process", "auto", "in_process"):
            params = own_params if mode == "in_process" else isolated_params
            if params is None:
                continue
            for fallback in (None, "high_availability"):
                runs += 1
                name = f"{strategy} {params} isolation={mode}" + (f" fallback={fallback}" if fallback else "")
                config = os.path.join(work, f"case-{index}-{mode}-{'fb' if fallback else 'none'}.yaml")
                with open(config, "w") as f:
                    f.write(f"strategy: {strategy}\nassignment: {{num_standby_replicas: 1}}\n"
                            f"strategies: {{{strategy}: {params}}}\nlimits: {{time_ms: 60000}}\n")
                    if mode != "auto":
                        f.write(f"isolation: {mode}\n")
                    if fallback:
                        f.write(f"fallback: {fallback}\n")
                output = config + ".out.json"
                code, stdout, stderr, stopped = run_watched(
                    [assignor, "assign", "--config", config, "--cluster", cluster,
                     "--plugin-path", os.path.join(broken, directory)])
                with open(output, "w") as f:
                    f.write(stdout)
                detail = f"exit {code}\nstdout: {stdout[:300]!r}\nstderr: {stderr[-1200:]}"
                if code is None:
                    check(False, f"{name}: ended within {LIVENESS_S} s", detail)
                    continue
                if mode == "in_process":
                    expect_in_process(check, name, in_process, code, stdout, stderr, stopped, detail)
                    continue
                check(not stopped, f"{name}: the host was never stopped", detail)
                check("REACHED" not in stderr, f"{name}: the plugin reached nothing of the host's", detail)
                if strategy in ("test_strategy_stops_host", "test_strategy_reaches_host_memory") or "proc_fd1" in params:
                    check("refused" in stderr, f"{name}: the plugin says the boundary refused it", detail)
                taken = answer == "taken"
                if taken or fallback:
                    try:
                        doc = json.loads(stdout)
                    except ValueError:
                        doc = None
                    ok = code == 0 and doc is not None and doc.get("strategy") == (strategy if taken else fallback)
                    check(ok, f"{name}: exit 0, stdout is one JSON document of "
                              f"{'its' if taken else 'the fallback' + chr(39) + 's'} answer", detail)
                    if not ok:
                        continue
                    ms = doc.get("assign_ms")
                    check(isinstance(ms, (int, float)) and math.isfinite(ms) and ms >= 0,
                          f"{name}: assign_ms {ms} is the host's own measure (finite, >= 0)", detail)
                    if "sleep_ms: 200" in params and taken:
                        check(ms >= 200, f"{name}: assign_ms {ms} counts the strategy's 200 ms", detail)
                    v = subprocess.run([assignor, "validate", "--cluster", cluster, "--assignment", output,
                                        "--config", config], capture_output=True, text=True, timeout=LIVENESS_S)
                    check(v.returncode == 0, f"{name}: validate accepts the output",
                          f"validate exit {v.returncode}: {v.stderr[-800:]}")
                    if fallback and not taken:
                        check("using the fallback strategy" in stderr, f"{name}: a warning says why", detail)
                else:
                    check(code == 4 and "returned a malformed result from its process" in stderr
                          and stdout == "", f"{name}: exit 4, 'returned a malformed result', nothing on stdout",
                          detail)
    print(f"{runs} runs, {len(failures)} failure(s)")
    return 1 if failures else 0


def expect_in_process(check, name, outcome, code, stdout, stderr, stopped, detail):
    """What in_process does not protect against (docs/reliability.md), shown to be so; and the one
    thing it does (fd 1 is standard error)."""
    if outcome == "fd1_is_stderr":
        check(code == 0 and "FORGED" not in stdout and json.loads(stdout or "{}").get("strategy"),
              f"{name}: /proc/self/fd/1 is standard error in process: stdout is clean", detail)
    elif outcome == "stdout_forged":
        check("FORGED" in stdout or stdout.startswith("assignment "),
              f"{name}: NOT PROTECTED in process: its bytes are on stdout (the host's reserved descriptor)",
              detail)
    elif outcome == "stopped":
        check(stopped, f"{name}: NOT PROTECTED in process: the host stopped (limits.time_ms cannot fire)", detail)
    elif outcome == "reached":
        check("REACHED the host" in stderr, f"{name}: NOT PROTECTED in process: it shares the host's memory "
                                            "and descriptors", detail)
    elif outcome == "refused_self":
        check("refused" in stderr, f"{name}: a process cannot ptrace itself", detail)
    elif outcome == "daemon_after_json":
        check(code == 0 and "WRITTEN-BY-A-DAEMON" in stdout and stdout.index("WRITTEN-BY-A-DAEMON") > stdout.index("}"),
              f"{name}: NOT PROTECTED in process: a daemon writes into stdout after the JSON", detail)


if __name__ == "__main__":
    sys.exit(main())
