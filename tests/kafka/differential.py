#!/usr/bin/env python3
"""Kafka-exactness on clusters nobody recorded: `assignor assign --strategy high_availability`
against the literal model of Kafka's assignor (kafka_ha_reference.py, itself checked against
Kafka's recorded answers) on generated groups of every scenario, with uneven thread counts, 0-2
standbys, non-logged stores, and other warmup budgets and acceptable lags. Every case is printed
with the command lines that reproduce it when it differs.

Usage: differential.py ASSIGNOR [--cases N] [--seed S] [--shard K/M] [--keep DIR]
--shard K/M runs the cases i with i % M == K - 1 of the same N (ctest runs the shards in parallel:
together they are exactly the cases of one unsharded run).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_ha_reference  # noqa: E402

SCENARIOS = ["fresh", "scale-out", "scale-in", "rolling-restart"]


def normalised(result):
    return ({c: {r: sorted(v) for r, v in roles.items()} for c, roles in result["assignment"].items()},
            result["probing_rebalance_needed"])


def case_parameters(rng, i):
    return {
        "scenario": SCENARIOS[i % len(SCENARIOS)],
        "clients": rng.randint(2, 14),
        "threads": rng.randint(1, 3),
        "subtopologies": rng.randint(1, 6),
        "partitions": rng.randint(1, 24),
        "standbys": rng.randint(0, 2),
        "nonlogged": rng.choice([0, 0, 0.5]),
        "seed": rng.randrange(2**32),
        "uneven_threads": rng.random() < 0.5,
        "warmups": rng.randint(1, 4),
        "acceptable": rng.choice([0, 1000, 10000, 100000]),
        "stale_offsets": rng.random() < 0.5,
    }


def run_case(assignor, p, workdir):
    gen = [assignor, "generate", "--clients", str(p["clients"]), "--threads", str(p["threads"]),
           "--subtopologies", str(p["subtopologies"]), "--partitions", str(p["partitions"]),
           "--standbys", str(p["standbys"]), "--nonlogged-fraction", str(p["nonlogged"]),
           "--scenario", p["scenario"], "--seed", str(p["seed"])]
    cluster = json.loads(subprocess.run(gen, check=True, capture_output=True, text=True).stdout)
    if p["uneven_threads"]:  # seeded by the case: another thread count per client
        rng = random.Random(p["seed"])
        for c in cluster["clients"]:
            c["threads"] = rng.randint(1, 4)
    if p["stale_offsets"]:  # seeded: reports that leave tasks with few or no caught-up clients
        rng = random.Random(p["seed"] + 1)
        ends = {t["id"]: sum(s.get("changelog_end_offset", 0) for s in t.get("stores") or []
                             if s.get("logged", True)) for t in cluster["tasks"]}
        for c in cluster["clients"]:
            sums = c.get("offset_sums") or {}
            for task in list(sums):
                sums[task] = rng.choice([-2, -3, 0, ends[task] + 1, rng.randint(0, ends[task]),
                                         max(0, ends[task] - rng.randint(0, 20000))])
            for t in cluster["tasks"]:  # state on disk for tasks the client never held
                if rng.random() < 0.1:
                    sums[t["id"]] = rng.randint(0, ends[t["id"]])
            c["offset_sums"] = sums
    config = {"strategy": "high_availability",
              "assignment": {"acceptable_recovery_lag": p["acceptable"], "max_warmup_replicas": p["warmups"],
                             "num_standby_replicas": p["standbys"]}}
    cluster_path = os.path.join(workdir, "cluster.json")
    config_path = os.path.join(workdir, "config.yaml")
    with open(cluster_path, "w") as f:
        json.dump(cluster, f)
    with open(config_path, "w") as f:
        yaml.safe_dump(config, f)
    ours = subprocess.run([assignor, "assign", "--config", config_path, "--cluster", cluster_path],
                          capture_output=True, text=True)
    if ours.returncode != 0:
        return f"assignor exited {ours.returncode}: {ours.stderr.strip()}"
    ours = json.loads(ours.stdout)
    ours = {"assignment": ours["assignment"], "probing_rebalance_needed": ours["probing_rebalance"]["needed"]}
    kafka = kafka_ha_reference.assign(cluster, config)
    if normalised(ours) == normalised(kafka):
        return None
    diffs = []
    for client, roles in normalised(kafka)[0].items():
        for role, tasks in roles.items():
            mine = normalised(ours)[0][client][role]
            if mine != tasks:
                diffs.append(f"{client} {role}: ours only {sorted(set(mine) - set(tasks))}, "
                             f"Kafka only {sorted(set(tasks) - set(mine))}")
    if normalised(ours)[1] != normalised(kafka)[1]:
        diffs.append(f"probing: ours {normalised(ours)[1]}, Kafka {normalised(kafka)[1]}")
    return "\n    ".join(diffs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("assignor")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--shard", default="1/1", help="K/M: this shard's cases of M (default 1/1: all)")
    ap.add_argument("--keep", help="write each differing case's cluster and config here")
    args = ap.parse_args()
    shard, shards = (int(x) for x in args.shard.split("/"))
    if not 1 <= shard <= shards:
        ap.error(f"--shard {args.shard}: K must be 1 to M")
    rng = random.Random(args.seed)
    failures = ran = 0
    with tempfile.TemporaryDirectory() as workdir:
        for i in range(args.cases):
            p = case_parameters(rng, i)  # drawn for every case, so that each shard's cases are the same
            if i % shards != shard - 1:
                continue
            ran += 1
            problem = run_case(args.assignor, p, workdir)
            if problem:
                failures += 1
                print(f"case {i} differs from Kafka: {json.dumps(p)}\n    {problem}")
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    for name in ("cluster.json", "config.yaml"):
                        os.replace(os.path.join(workdir, name), os.path.join(args.keep, f"case{i}-{name}"))
    print(f"{ran - failures}/{ran} cases equal to Kafka's model (seed {args.seed}, shard {shard}/{shards} of "
          f"{args.cases})")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
