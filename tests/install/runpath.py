#!/usr/bin/env python3
"""No library search path that reaches the current directory, in anything the build or an install
makes (issue 24: CMake's install-time rewriting used to leave RUNPATH '<build>/lib:' whose empty
last entry ld.so reads as the current directory).

  runpath.py BUILD_DIR [--allow RELATIVE_PATH ...]

Installs BUILD_DIR into a temporary prefix, then reads the dynamic section (readelf -d) of every
ELF executable and shared library in the build tree and the prefix. An RPATH/RUNPATH entry must
be non-empty and absolute or start with $ORIGIN. --allow names libraries (relative to BUILD_DIR)
that are hostile on purpose (the loader's own tests). Then runs the built and the installed
`assignor --version` in a directory holding an impostor of every library it needs: it must not
notice them."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ELF_MAGIC = b"\x7fELF"


def elf_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "CMakeFiles" and not d.startswith("assignor-")]
        for name in filenames:
            if name.endswith((".o", ".a")):
                continue
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                head = f.read(18)
            # e_type (offset 16): 2 executable, 3 shared object
            if head[:4] == ELF_MAGIC and len(head) == 18 and head[16] in (2, 3):
                yield path


def search_paths(path):
    out = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True, check=True).stdout
    found = []
    for kind, value in re.findall(r"\((RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*)\]", out):
        found.append((kind, value))
    return found


def needed(path):
    out = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", out)


def bad_entries(value):
    problems = []
    for entry in value.split(":"):
        if entry == "":
            problems.append("an empty entry (the current directory)")
        elif not (entry.startswith("/") or entry.startswith("$ORIGIN") or entry.startswith("${ORIGIN}")):
            problems.append(f"the relative entry '{entry}'")
    return problems


def main():
    args = sys.argv[1:]
    build = os.path.abspath(args[0])
    allowed = set()
    if "--allow" in args:
        allowed = {os.path.join(build, a) for a in args[args.index("--allow") + 1:]}
    failures = []
    checked = 0
    with tempfile.TemporaryDirectory(prefix="assignor-runpath-") as tmp:
        prefix = os.path.join(tmp, "prefix")
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
        for root in (build, prefix):
            for path in elf_files(root):
                if path in allowed:
                    continue
                checked += 1
                for kind, value in search_paths(path):
                    for problem in bad_entries(value):
                        failures.append(f"{path}: {kind} [{value}] has {problem}")
        # The reproduction: impostors of every needed library in the working directory.
        cwd = os.path.join(tmp, "cwd")
        os.mkdir(cwd)
        for exe in (os.path.join(build, "bin", "assignor"), os.path.join(prefix, "bin", "assignor")):
            for lib in needed(exe):
                with open(os.path.join(cwd, lib), "wb") as f:
                    f.write(b"not a library")
            run = subprocess.run([exe, "--version"], cwd=cwd, capture_output=True, text=True)
            if run.returncode != 0:
                failures.append(f"{exe} --version in a directory of impostor libraries: exit {run.returncode}: "
                                f"{run.stderr.strip()}")
    if checked < 10:
        failures.append(f"only {checked} ELF files found under {build}: is it a build tree?")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{checked} ELF files checked, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
