#!/usr/bin/env python3
"""The Debian packages (scripts/package, cmake/AssignorPackaging.cmake) built from a fresh copy of the
checkout, unpacked and used as installed.

  debian_package.py SOURCE_DIR WORK_DIR PLUGIN...

- scripts/package makes exactly assignor_<v>-1_<arch>.deb and libassignor-sdk-dev_<v>-1_<arch>.deb;
- every file is under /usr, libraries in /usr/lib/<multiarch> (the tuple from gcc -print-multiarch),
  the command in /usr/bin, each bundled PLUGIN in /usr/lib/<multiarch>/assignor/plugins/;
- Depends covers every shared library the package's ELF files need and do not carry themselves: for
  each, the Debian package that holds it on this machine (dpkg -S) is named;
- unpacked (dpkg-deb -x) into a scratch root: every RUNPATH entry starts with $ORIGIN and every
  library a file needs from the package resolves through it inside the root; the unpacked
  `assignor plugins` lists every PLUGIN, one `assign` of the bundled example and one request as the
  Kafka Streams bridge makes it (the cluster as JSON on standard input) succeed, and the unpacked
  SDK builds examples/third_party_plugin, which passes its conformance test with the unpacked runner;
- `apt-get install --simulate` of assignor, and of both packages together, resolves its dependencies from
  what this Debian 12 machine has or its apt sources offer (a simulation needs no root).
Slow (a whole build, from ccache when the machine has one): ctest label `install`.
"""
import glob
import json
import os
import re
import subprocess
import sys

from fresh_copy import fresh_copy, run


def deb_field(deb, field):
    return subprocess.run(["dpkg-deb", "-f", deb, field], capture_output=True, text=True, check=True).stdout.strip()


def elf_files(root):
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                head = f.read(18)
            if head[:4] == b"\x7fELF" and len(head) == 18 and head[16] in (2, 3):
                yield path


def dynamic(path):
    out = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", out)
    runpath = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*)\]", out)
    soname = re.findall(r"\(SONAME\)\s+Library soname: \[(.*)\]", out)
    return needed, (runpath[0].split(":") if runpath else []), (soname[0] if soname else None)


def depends_names(depends):
    """The package names of a Depends field ("a (>= 1), b | c" -> {a, b, c})."""
    return {alt.strip().split(" ")[0].split(":")[0] for part in depends.split(",") for alt in part.split("|") if alt.strip()}


def main():
    source, work, plugins = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    problems = []
    src = fresh_copy(source, os.path.join(work, "src"))
    rc, out = run([os.path.join(src, "scripts/package")], cwd=src)
    if rc != 0:
        print(f"FAIL: scripts/package: exit status {rc}\n{out[-4000:]}")
        return 1
    version = re.search(r"project\(Assignor VERSION ([0-9.]+)", open(os.path.join(src, "CMakeLists.txt")).read()).group(1)
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    multiarch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True, check=True).stdout.strip()
    debs = sorted(glob.glob(os.path.join(src, "build-package/packages/*.deb")))
    expected = sorted(os.path.join(src, "build-package/packages", f"{name}_{version}-1_{arch}.deb")
                      for name in ("assignor", "libassignor-sdk-dev"))
    if debs != expected:
        print(f"FAIL: scripts/package made {debs}, expected {expected}")
        return 1
    runtime_deb, dev_deb = expected[0], expected[1]
    libdir = f"usr/lib/{multiarch}"

    # What each package holds.
    for deb in debs:
        listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True, check=True).stdout
        for line in listing.splitlines():
            path = line.split()[5]
            if not (path == "./" or path.startswith("./usr/")) or "/usr/local" in path:
                problems.append(f"{os.path.basename(deb)}: {path} is outside /usr")
    root = os.path.join(work, "root")
    subprocess.run(["rm", "-rf", root], check=True)
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    must_have = ["usr/bin/assignor", f"{libdir}/libassignor_sdk.so", "usr/bin/assignor_conformance",
                 f"{libdir}/libassignor_conformance_kit.a", "usr/include/assignor/plugin.hpp",
                 "usr/include/assignor/conformance.hpp", f"{libdir}/cmake/Assignor/AssignorConfig.cmake",
                 "usr/share/assignor/examples/config.yaml"]
    must_have += [f"{libdir}/assignor/plugins/{p}.so" for p in plugins]
    for path in must_have:
        if not os.path.lexists(os.path.join(root, path)):
            problems.append(f"the packages lack /{path}")
    runtime_files = subprocess.run(["dpkg-deb", "-c", runtime_deb], capture_output=True, text=True, check=True).stdout
    if f"./{libdir}/assignor/plugins/" not in runtime_files or "./usr/bin/assignor\n" not in runtime_files + "\n":
        problems.append("the assignor package does not carry the command and the plugins")

    # RUNPATHs: $ORIGIN-relative, and what a file needs from the package resolves inside the root.
    provided = {}
    for path in elf_files(root):
        soname = dynamic(path)[2]
        if soname:
            provided[soname] = path
    external = set()
    for path in elf_files(root):
        needed, runpath, _ = dynamic(path)
        origin = os.path.dirname(path)
        for entry in runpath:
            if not entry.startswith("$ORIGIN"):
                problems.append(f"{os.path.relpath(path, root)}: RUNPATH entry '{entry}' is not $ORIGIN-relative")
        for lib in needed:
            if lib in provided:
                found = [d for d in (e.replace("$ORIGIN", origin) for e in runpath) if os.path.exists(os.path.join(d, lib))]
                if not found:
                    problems.append(f"{os.path.relpath(path, root)} needs {lib}, which its RUNPATH {runpath} does not reach")
            else:
                external.add(lib)

    # Depends: every external library's Debian package, as this machine's dpkg database says.
    depends = deb_field(runtime_deb, "Depends") + ", " + deb_field(dev_deb, "Depends")
    declared = depends_names(depends)
    for lib in sorted(external):
        owners = subprocess.run(["dpkg", "-S", f"*/{lib}"], capture_output=True, text=True).stdout
        packages = {line.split(":")[0].strip() for line in owners.splitlines() if ":" in line}
        packages = {p.split(",")[0] for p in packages}
        # A shlibs file may name a virtual package its library's package provides (Debian 12's
        # libspdlog1.10 provides libspdlog1.10-fmt9, the name the dependency uses).
        provides = set()
        for p in packages:
            provided_names = subprocess.run(["dpkg-query", "-W", "-f=${Provides}", p], capture_output=True,
                                            text=True).stdout
            provides |= depends_names(provided_names) if provided_names.strip() else set()
        if not packages:
            problems.append(f"no installed Debian package holds {lib}")
        elif not (packages | provides) & declared:
            problems.append(f"{lib} (from {', '.join(sorted(packages))}) is not among the Depends: {depends}")
    if f"assignor (= {version}-1)" not in deb_field(dev_deb, "Depends"):
        problems.append(f"libassignor-sdk-dev does not depend on its assignor: {deb_field(dev_deb, 'Depends')}")

    # The unpacked command.
    assignor = os.path.join(root, "usr/bin/assignor")
    rc, out = run([assignor, "plugins"])
    if rc != 0:
        problems.append(f"unpacked `assignor plugins`: exit status {rc}\n{out}")
    for p in plugins:
        if p not in out.split():
            problems.append(f"unpacked `assignor plugins` does not list {p}:\n{out}")
    examples = os.path.join(root, "usr/share/assignor/examples")
    rc, out = run([assignor, "assign", "--config", f"{examples}/config.yaml", "--cluster", f"{examples}/small-scale-out.yaml"])
    if rc != 0 or json.loads(out).get("strategy") != "high_availability":
        problems.append(f"unpacked `assignor assign`: exit status {rc}\n{out[-3000:]}")
    rc, cluster = run([assignor, "generate", "--clients", "4", "--threads", "2", "--subtopologies", "3",
                       "--partitions", "8", "--standbys", "1", "--scenario", "scale-out"])
    bridge = subprocess.run([assignor, "assign", "--config", f"{examples}/config.yaml", "--cluster", "-", "--format", "json"],
                            input=cluster, capture_output=True, text=True, timeout=120)
    expected_clients = sorted(c["id"] for c in json.loads(cluster)["clients"]) if rc == 0 else []
    if rc != 0 or bridge.returncode != 0 or sorted(json.loads(bridge.stdout)["assignment"]) != expected_clients:
        problems.append(f"a bridge request to the unpacked command failed ({rc}, {bridge.returncode}):\n"
                        f"{bridge.stdout[-2000:]}{bridge.stderr[-2000:]}")

    # The unpacked SDK: a third-party plugin and its conformance test.
    example_build = os.path.join(work, "example")
    rc, out = run(["cmake", "-S", os.path.join(src, "examples/third_party_plugin"), "-B", example_build, "-G", "Ninja",
                   "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={root}/usr",
                   "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"])
    if rc == 0:
        rc, out = run(["cmake", "--build", example_build])
    if rc == 0:
        rc, out = run(["ctest", "--test-dir", example_build, "--output-on-failure"])
    if rc != 0:
        problems.append(f"examples/third_party_plugin against the unpacked SDK: exit status {rc}\n{out[-3000:]}")

    # apt resolves the dependencies (a simulation: nothing is installed).
    for what in ([runtime_deb], [runtime_deb, dev_deb]):  # the dev package needs its assignor beside it
        rc, out = run(["apt-get", "install", "--simulate", "--no-install-recommends"] + what)
        names = [deb_field(d, "Package") for d in what]
        if rc != 0 or any(f"Inst {n} " not in out for n in names):
            problems.append(f"apt-get install --simulate {' '.join(map(os.path.basename, what))}: exit status {rc}\n"
                            f"{out[-3000:]}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        size = {os.path.basename(d): os.path.getsize(d) for d in debs}
        print(f"packages: {size}; Depends: {depends}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
