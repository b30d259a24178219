#!/usr/bin/env python3
"""`assignor assign` with a plugin directory that others can write: refused with exit 3 and a message
saying why and how to fix it; loaded (with a warning) when the config allows it explicitly.

usage: unsafe_plugins.py ASSIGNOR PLUGIN_LIBRARY CLUSTER WORK_DIR
"""
import os
import shutil
import subprocess
import sys


def main():
    assignor, library, cluster, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    plugins = os.path.join(work, "plugins")
    os.makedirs(plugins)
    os.chmod(work, 0o755)
    shutil.copy(library, os.path.join(plugins, "trivial.so"))
    os.chmod(os.path.join(plugins, "trivial.so"), 0o755)
    os.chmod(plugins, 0o777)
    problems = []

    def assign(extra, strategy="test_trivial_valid"):
        config = os.path.join(work, "config.yaml")
        with open(config, "w") as f:
            f.write(f"strategy: {strategy}\nplugins:\n  paths: [{plugins}]\n{extra}")
        return subprocess.run([assignor, "assign", "--config", config, "--cluster", cluster],
                              capture_output=True, text=True, timeout=60)

    p = assign("")
    real = os.path.realpath(plugins)
    if p.returncode != 3:
        problems.append(f"world-writable directory: exit {p.returncode}, expected 3")
    for text in (real + ": refused", "writable by its group and others (mode 0777)", "chmod go-w",
                 "allow_unsafe_permissions"):
        if text not in p.stderr:
            problems.append(f"world-writable directory: stderr lacks {text!r}:\n{p.stderr}")
    # The file itself world-writable in a safe directory, named by a `strategies:` section only: the
    # plugin could not be loaded (exit 3, the reason), not "parameters never used" (exit 2).
    os.chmod(plugins, 0o755)
    os.chmod(os.path.join(plugins, "trivial.so"), 0o777)
    p = assign("strategies: {test_trivial_valid: {}}\n", strategy="high_availability")
    if p.returncode != 3 or "strategies.test_trivial_valid" not in p.stderr or \
            "writable by its group and others (mode 0777)" not in p.stderr:
        problems.append(f"world-writable file named in strategies: exit {p.returncode}, expected 3 with the reason:\n"
                        f"{p.stderr}")
    os.chmod(os.path.join(plugins, "trivial.so"), 0o755)
    os.chmod(plugins, 0o777)
    p = assign("  allow_unsafe_permissions: true\n")
    if p.returncode != 0 or "loading anyway" not in p.stderr or '"strategy": "test_trivial_valid"' not in p.stdout:
        problems.append(f"allowed explicitly: exit {p.returncode}, stderr:\n{p.stderr}")
    shutil.rmtree(work, ignore_errors=True)
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
