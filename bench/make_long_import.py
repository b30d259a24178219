#!/usr/bin/env python3
"""Writes an import directory (as `assignor import kafka-log` writes one) with a long history, for
timing `assignor replay DIR --in-time` (docs/benchmarks.md, "Replay in time"): N rebalances of a
group of C clients (2 threads each) and T tasks (half of them with a changelog), one every minute;
a client joins or leaves every 25 rebalances (the group stays between C-2 and C+2 clients), and
Kafka's decision at each is a round-robin deal of the actives (valid, one standby per logged task),
asking for probing every other rebalance. Deterministic (seeded).

usage: make_long_import.py DIR [--rebalances N] [--clients C] [--tasks T] [--seed S]
"""
import argparse
import json
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rebalances", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    tasks = [f"{s}_{p}" for s in range(4) for p in range(a.tasks // 4)]
    logged = set(t for t in tasks if int(t.split("_")[0]) < 2)
    ends = {t: rng.randint(50_000, 500_000) for t in logged}

    def pid(n):
        return "%08x-0000-4000-8000-%012x" % (n * 2654435761 % (1 << 32), n)

    members = [pid(i) for i in range(a.clients)]
    next_id = a.clients
    prev_active = {m: [] for m in members}
    index = []
    t0 = 1_800_000_000_000
    for k in range(a.rebalances):
        if k and k % 25 == 0:
            if (len(members) < a.clients + 2 and rng.random() < 0.5) or len(members) <= a.clients - 2:
                members.append(pid(next_id))
                prev_active[members[-1]] = []
                next_id += 1
            else:
                gone = members.pop(rng.randrange(len(members)))
                del prev_active[gone]
        for t in ends:
            ends[t] += rng.randint(0, 500)
        clients = []
        for m in sorted(members):
            sums = {t: -2 for t in prev_active[m] if t in logged}
            for t in rng.sample(sorted(logged), 5):
                sums.setdefault(t, max(0, ends[t] - rng.randint(0, 20000)))
            clients.append({"id": m, "threads": 2, "previous_active": sorted(prev_active[m]), "previous_standby": [],
                            "offset_sums": sums})
        cluster = {"version": 1, "tasks": [{"id": t, "stores": [{"name": "s", "changelog_end_offset": ends[t]}]} if t in logged
                                           else {"id": t} for t in tasks], "clients": clients}
        order = sorted(members)
        decision = {m: {"active": [], "standby": [], "warmup": []} for m in order}
        for i, t in enumerate(tasks):
            decision[order[i % len(order)]]["active"].append(t)
            if t in logged:
                decision[order[(i + 1) % len(order)]]["standby"].append(t)
        for m in order:
            prev_active[m] = list(decision[m]["active"])
        probing = k % 2 == 0
        name = f"rebalance-{k + 1:04d}"
        with open(os.path.join(a.dir, name + ".cluster.json"), "w") as f:
            json.dump(cluster, f)
        with open(os.path.join(a.dir, name + ".kafka.json"), "w") as f:
            json.dump({"strategy": "kafka", "assignment": decision,
                       "probing_rebalance": {"needed": probing, "after_ms": 60000}}, f)
        with open(os.path.join(a.dir, name + ".config.yaml"), "w") as f:
            f.write("strategy: high_availability\nassignment:\n  num_standby_replicas: 1\n"
                    "  probing_rebalance_interval_ms: 60000\n")
        index.append({"name": name, "timestamp": str(k), "time_ms": t0 + 60_000 * k, "source": f"generated:{k + 1}",
                      "clients": len(order), "tasks": len(tasks), "probing": probing,
                      "settings_from": "--streams-config generated.properties"})
    with open(os.path.join(a.dir, "index.json"), "w") as f:
        json.dump({"version": 1, "kafka_assignor": "HighAvailabilityTaskAssignor", "rebalances": index}, f)


if __name__ == "__main__":
    main()
