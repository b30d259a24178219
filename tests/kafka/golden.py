#!/usr/bin/env python3
"""Kafka's own answers: every case of shared/kafka-golden (Kafka's HighAvailabilityTaskAssignor run
on our cluster files) must be answered exactly by `assignor assign --strategy high_availability`
(same actives, standbys and warmups per client, same probing decision), and by the literal model
kafka_ha_reference.py that the differential test trusts.

Usage: golden.py ASSIGNOR GOLDEN_DIR. Exits 77 (skipped) when GOLDEN_DIR does not exist.
"""
import glob
import json
import os
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_ha_reference  # noqa: E402


def normalised(assignment, probing):
    return {c: {r: sorted(v) for r, v in roles.items()} for c, roles in assignment.items()}, probing


def differences(expected, actual):
    out = []
    for client, roles in expected[0].items():
        for role, tasks in roles.items():
            got = actual[0].get(client, {}).get(role)
            if got != tasks:
                out.append(f"{client} {role}: expected {tasks}, got {got}")
    for client in actual[0].keys() - expected[0].keys():
        out.append(f"unexpected client {client}")
    if expected[1] != actual[1]:
        out.append(f"probing rebalance: expected {expected[1]}, got {actual[1]}")
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    assignor, golden = sys.argv[1:]
    if not os.path.isdir(golden):
        print(f"skipped: {golden} does not exist (Kafka's recorded answers are outside the repository)")
        return 77
    cases = sorted(p[: -len(".kafka.json")] for p in glob.glob(os.path.join(golden, "*.kafka.json")))
    if not cases:
        print(f"no *.kafka.json in {golden}")
        return 1
    failed = 0
    for case in cases:
        cluster_path = next(p for p in glob.glob(case + ".cluster.*"))
        config_path = case + ".config.yaml"
        with open(case + ".kafka.json") as f:
            kafka = json.load(f)
        expected = normalised(kafka["assignment"], kafka["probing_rebalance_needed"])
        run = subprocess.run([assignor, "assign", "--config", config_path, "--cluster", cluster_path,
                              "--strategy", "high_availability"], capture_output=True, text=True)
        problems = []
        if run.returncode != 0:
            problems.append(f"assignor exited {run.returncode}: {run.stderr.strip()}")
        else:
            ours = json.loads(run.stdout)
            problems += differences(expected, normalised(ours["assignment"], ours["probing_rebalance"]["needed"]))
        with open(cluster_path) as f, open(config_path) as g:
            model = kafka_ha_reference.assign(yaml.safe_load(f), yaml.safe_load(g))
        problems += ["model: " + d for d in
                     differences(expected, normalised(model["assignment"], model["probing_rebalance_needed"]))]
        name = os.path.basename(case)
        if problems:
            failed += 1
            print(f"FAIL {name}\n  " + "\n  ".join(problems[:20]))
            print(f"  reproduce: {assignor} assign --config {config_path} --cluster {cluster_path}")
        else:
            print(f"ok   {name}")
    print(f"{len(cases) - failed}/{len(cases)} golden cases exactly equal to Kafka's answer")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
