#!/usr/bin/env python3
"""The conformance kit's reproduction lines run as printed, from an install.

Installs the build into a temporary prefix, builds tests/install/broken_kit_plugin (a strategy
that leaves the last task without an active) against that prefix alone, as a third party would,
and makes the kit fail twice: through the plugin's own conformance test (assignor_add_conformance_test
with SOURCES) and through the installed runner (assignor_conformance --plugin LIB). Each time the
first failing case's reproduction lines are taken from the output and run as printed, in an empty
directory whose PATH has no assignor on it: the assign line must fail with exit 4 and report the
task the kit named as task_without_active. The failure messages must not point into the kit's
sources (a path a plugin author does not have).

Usage: kit_reproduction.py BUILD_DIR SOURCE_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=900, **kw)


def reproduction(output):
    """(case name, [shell lines], the task the kit says has no active) of the first failure."""
    m = re.search(r"reproduce case (\S+):\n((?:  .*\n){3})", output)
    if not m:
        return None
    lines = [l[2:] for l in m.group(2).splitlines()]
    # GoogleTest prints a failure's message, then its trace (the reproduction lines).
    tasks = re.findall(r"task_without_active: task (\d+_\d+)", output[:m.start()])
    return m.group(1), lines, tasks[-1] if tasks else None


def check_lines(what, output, work, source, problems):
    found = reproduction(output)
    if not found:
        problems.append(f"{what}: no reproduction lines in the output:\n{output[-2000:]}")
        return
    name, lines, task = found
    kit_sources = os.path.join(source, "conformance", "src")
    if kit_sources in output:
        problems.append(f"{what}: the failure points into the kit's sources ({kit_sources})")
    if task is None:
        problems.append(f"{what}: the failure does not name the task without an active")
    case_dir = os.path.join(work, f"repro-{what}")
    os.makedirs(case_dir)
    env = {"PATH": "/usr/bin:/bin", "HOME": work}  # no assignor on PATH: the lines must name it
    for i, line in enumerate(lines):
        done = run(["bash", "-c", line], cwd=case_dir, env=env)
        last = i == len(lines) - 1
        if not last and done.returncode != 0:
            problems.append(f"{what}: '{line}' failed ({done.returncode}): {done.stderr}")
            return
        if last:
            if done.returncode != 4:
                problems.append(f"{what}: the assign line exited {done.returncode}, not 4: {done.stderr}")
            elif f"task_without_active: task {task} " not in done.stderr:
                problems.append(f"{what}: the assign line does not report task {task} without an active:\n"
                                f"{done.stderr}")
    print(f"{what}: case {name}, {len(lines)} lines run as printed, task {task} reproduced")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    build, source, work = (os.path.abspath(p) for p in sys.argv[1:])
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    prefix = os.path.join(work, "prefix")
    problems = []
    done = run(["cmake", "--install", build, "--prefix", prefix])
    if done.returncode != 0:
        print(f"install failed: {done.stderr}")
        return 1
    plugin_src = os.path.join(source, "tests", "install", "broken_kit_plugin")
    plugin_build = os.path.join(work, "plugin")
    for args in (["cmake", "-S", plugin_src, "-B", plugin_build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                  f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"],
                 ["cmake", "--build", plugin_build]):
        done = run(args)
        if done.returncode != 0:
            print(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
            return 1
    # 1. The plugin's own conformance test, as ctest runs it.
    done = run(["ctest", "--test-dir", plugin_build, "--output-on-failure"])
    if done.returncode == 0:
        problems.append("the plugin's conformance test passed: the kit missed a task without an active")
    else:
        check_lines("ctest", done.stdout + done.stderr, work, source, problems)
    # 2. The installed runner on the built library.
    library = os.path.join(plugin_build, "drops_last_task.so")
    done = run([os.path.join(prefix, "bin", "assignor_conformance"), "--plugin", library])
    if done.returncode != 1:
        problems.append(f"assignor_conformance exited {done.returncode}, expected 1 (a failing case)")
    check_lines("runner", done.stdout + done.stderr, work, source, problems)
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
