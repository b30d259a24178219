#!/usr/bin/env python3
"""Kafka's own answers: every case of tests/data/kafka-golden and of each of its subfolders (Kafka's
assignors run on our cluster files) must be answered exactly by `assignor assign` with the strategy
the case's config names: the same roles per client (those present in Kafka's answer), the same
probing decision where Kafka's answer records one, and, where it records `threads` (the KIP-1071
assignors), the same tasks on every member (a member missing from one side holds nothing).

The top-level cases are Kafka's HighAvailabilityTaskAssignor; they are also checked against the
literal model kafka_ha_reference.py that the differential test trusts.

A strategy that reproduces more than one Kafka version (its `kafka_version` parameter) runs a
folder's cases with the version they were recorded from (RECORDED_FROM below) when the case's
config does not name one, whatever the strategy's default: the configs are given to the assignor with that
one key added, written to a temporary folder (kept, and named in the reproduce line, when a case
fails).

Usage: golden.py ASSIGNOR GOLDEN_DIR [--only SUBSTRING] [--quiet]
A missing GOLDEN_DIR, or a folder of it without cases, is a failure.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_ha_reference  # noqa: E402

ROLES = ("active", "standby", "warmup")

# folder -> {strategy: the kafka_version its answers were recorded from}. streams_sticky/ is
# apache/kafka 058944c8144d, a trunk commit no release has (tests/data/kafka-golden/README.md); the
# strategy's other version is Kafka 4.4.0's assignor, which the bridge's differential test checks.
RECORDED_FROM = {
    "streams_sticky": {"streams_sticky": "trunk-058944c"},
}


def config_for(config_path, config, folder_name, work):
    """The config to run: as is, or with the recorded kafka_version added (written under work)."""
    strategy = config.get("strategy") or "high_availability"
    version = RECORDED_FROM.get(folder_name, {}).get(strategy)
    params = (config.get("strategies") or {}).get(strategy) or {}
    if version is None or "kafka_version" in params:
        return config_path
    derived = dict(config)
    derived["strategies"] = dict(config.get("strategies") or {})
    derived["strategies"][strategy] = dict(params, kafka_version=version)
    out = os.path.join(work, folder_name, os.path.basename(config_path))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write(f"# {config_path}, run with the Kafka version its answer was recorded from\n")
        yaml.safe_dump(derived, f, sort_keys=False)
    return out


def client_roles(assignment, roles_present):
    """client -> role -> sorted tasks, for the roles Kafka's answer records."""
    return {c: {r: sorted(entry.get(r, [])) for r in roles_present} for c, entry in assignment.items()}


def member_roles(assignment, roles_present):
    """member (client, thread name) -> role -> sorted tasks; members holding nothing are left out."""
    out = {}
    for c, entry in assignment.items():
        for thread, roles in (entry.get("threads") or {}).items():
            split = {r: sorted(roles.get(r, [])) for r in roles_present}
            if any(split.values()):
                out[(c, thread)] = split
    return out


def roles_of(kafka):
    present = set()
    for entry in kafka["assignment"].values():
        present.update(r for r in ROLES if r in entry)
    return sorted(present)


def differences(kafka, ours, label=""):
    out = []
    roles = roles_of(kafka)
    expected, actual = client_roles(kafka["assignment"], roles), client_roles(ours["assignment"], roles)
    for client in sorted(expected.keys() | actual.keys()):
        if client not in actual:
            out.append(f"{label}missing client {client}")
            continue
        if client not in expected:
            out.append(f"{label}unexpected client {client}")
            continue
        for role in roles:
            if expected[client][role] != actual[client][role]:
                e, a = set(expected[client][role]), set(actual[client][role])
                out.append(f"{label}{client} {role}: Kafka has {len(e)}, we have {len(a)}; "
                           f"only Kafka: {sorted(e - a)[:8]}, only ours: {sorted(a - e)[:8]}")
    if "probing_rebalance_needed" in kafka:
        got = ours.get("probing_rebalance_needed")
        if kafka["probing_rebalance_needed"] != got:
            out.append(f"{label}probing rebalance: Kafka {kafka['probing_rebalance_needed']}, ours {got}")
    if any("threads" in entry for entry in kafka["assignment"].values()):
        expected_m, actual_m = member_roles(kafka["assignment"], roles), member_roles(ours["assignment"], roles)
        empty = {r: [] for r in roles}
        bad = [m for m in sorted(expected_m.keys() | actual_m.keys())
               if expected_m.get(m, empty) != actual_m.get(m, empty)]
        for client, thread in bad[:6]:
            out.append(f"{label}member {client}/{thread}: Kafka {expected_m.get((client, thread), empty)}, "
                       f"ours {actual_m.get((client, thread), empty)}")
        if len(bad) > 6:
            out.append(f"{label}... {len(bad)} members differ")
    return out


def run_case(assignor, case, top_level, folder_name, work):
    cluster_path = next(iter(sorted(glob.glob(case + ".cluster.*"))), None)
    config_path = case + ".config.yaml"
    if cluster_path is None or not os.path.exists(config_path):
        return [f"incomplete case: needs {case}.cluster.* and {config_path}"], None
    with open(case + ".kafka.json") as f:
        kafka = json.load(f)
    with open(config_path) as f:
        config = yaml.safe_load(f)
    strategy = config.get("strategy") or "high_availability"
    config_path = config_for(config_path, config, folder_name, work)
    run = subprocess.run([assignor, "assign", "--config", config_path, "--cluster", cluster_path,
                          "--strategy", strategy], capture_output=True, text=True)
    problems = []
    if run.returncode != 0:
        problems.append(f"assignor exited {run.returncode}: {run.stderr.strip()[:400]}")
    else:
        ours = json.loads(run.stdout)
        ours["probing_rebalance_needed"] = ours["probing_rebalance"]["needed"]
        problems += differences(kafka, ours)
    if top_level:
        with open(cluster_path) as f:
            # JSON through the json module (the same values, many times faster than PyYAML on files of
            # 2,000 tasks); the YAML case through YAML.
            model = kafka_ha_reference.assign(json.load(f) if cluster_path.endswith(".json") else yaml.safe_load(f),
                                              config)
        problems += differences(kafka, model, label="model: ")
    reproduce = f"{assignor} assign --config {config_path} --cluster {cluster_path} --strategy {strategy}"
    return problems, reproduce


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignor")
    parser.add_argument("golden")
    parser.add_argument("--only", default="", help="run the cases whose path contains this")
    parser.add_argument("--quiet", action="store_true", help="print failures and the summary only")
    args = parser.parse_args()
    golden = os.path.abspath(args.golden)
    if not os.path.isdir(golden):
        print(f"FAIL: {golden} does not exist")
        return 1
    folders = [golden] + sorted(p for p in glob.glob(os.path.join(golden, "*")) if os.path.isdir(p))
    work = tempfile.mkdtemp(prefix="assignor-golden-")
    total = failed = 0
    summary = []
    for folder in folders:
        cases = sorted(p[: -len(".kafka.json")] for p in glob.glob(os.path.join(folder, "*.kafka.json")))
        cases = [c for c in cases if args.only in c]
        name = "." if folder == golden else os.path.basename(folder)
        if not cases:
            if not args.only:
                print(f"FAIL {name}: no *.kafka.json")
                failed += 1
            continue
        ok = 0
        for case in cases:
            problems, reproduce = run_case(args.assignor, case, folder == golden, name, work)
            label = os.path.relpath(case, golden)
            if problems:
                print(f"FAIL {label}\n  " + "\n  ".join(problems[:20]))
                if reproduce:
                    print(f"  reproduce: {reproduce}")
            else:
                ok += 1
                if not args.quiet:
                    print(f"ok   {label}")
        total += len(cases)
        failed += len(cases) - ok
        summary.append(f"{name}: exact {ok}/{len(cases)}")
    print("\n".join(summary))
    for folder_name, versions in RECORDED_FROM.items():
        for strategy, version in versions.items():
            print(f"{folder_name}: {strategy} ran with kafka_version {version} (what the answers were recorded from) "
                  "unless the case's config names one")
    print(f"{total - failed}/{total} golden cases exactly equal to Kafka's answer")
    if failed:
        print(f"derived configs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
