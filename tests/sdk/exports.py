#!/usr/bin/env python3
"""libassignor_sdk exports its own API only, under a SONAME that names its ABI.

usage: exports.py LIBRARY SONAME
Every defined dynamic symbol must belong to namespace assignor (functions, data, and the type
information, virtual tables and guard variables of its types): LEMON, fmt and standard library
instantiations stay local, so a plugin never binds to them through the SDK.
"""
import re
import subprocess
import sys

ALLOWED = re.compile(r"^(typeinfo for |typeinfo name for |vtable for |VTT for |guard variable for )?assignor::")


def main():
    library, soname = sys.argv[1:3]
    out = subprocess.run(["nm", "-DC", "--defined-only", library], check=True, capture_output=True,
                         text=True).stdout
    names = [re.sub(r"^[0-9a-fA-F]* *[A-Za-z] +", "", line) for line in out.splitlines() if line.strip()]
    foreign = [n for n in names if not ALLOWED.match(n)]
    problems = []
    if len(names) < 50:
        problems.append(f"only {len(names)} symbols: the SDK's API is not exported")
    if foreign:
        problems.append(f"{len(foreign)} foreign symbols exported, e.g.:\n  " + "\n  ".join(foreign[:20]))
    dynamic = subprocess.run(["readelf", "-d", library], check=True, capture_output=True, text=True).stdout
    found = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dynamic)
    if not found or found.group(1) != soname:
        problems.append(f"SONAME {found.group(1) if found else None}, expected {soname}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(names)} symbols, all of namespace assignor; SONAME {soname}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
