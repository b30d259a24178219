#!/usr/bin/env python3
"""Every rebalance of every log in tests/data/kafka-logs imports, and what `assignor import kafka-log`
reconstructs equals the truth Kafka's own code recorded beside each log (NAME.log.truth.json), by
issue 20's rule:

  per task: stateful for Kafka (it has a changelog: a truth task whose stores are all non-logged
            counts as stateless) and its end-offset sum, where the log carries it (not when every
            client reports the task running, -2);
  per client: threads, previous active and standby tasks, offset sums;
and Kafka's decision: actives and standby + warmup copies per client, the probing decision.
Warmups the log prints inside standbyTasks are told apart by lag; how many match the truth's
labels is reported, and must be all of them for these files.

usage: check_truth.py ASSIGNOR LOGS_DIR WORK_DIR
A missing folder, log or truth file is a failure.
"""
import glob
import json
import os
import shutil
import subprocess
import sys


def props_for(config, path):
    keys = {"acceptable_recovery_lag": "acceptable.recovery.lag", "max_warmup_replicas": "max.warmup.replicas",
            "num_standby_replicas": "num.standby.replicas",
            "probing_rebalance_interval_ms": "probing.rebalance.interval.ms"}
    with open(path, "w") as f:
        f.write("# the application's settings, as its Kafka Streams properties file has them\n")
        f.write("application.id=orders-app\nbootstrap.servers=kafka:9092\n")
        for k, v in config.items():
            if k in keys:
                f.write(f"{keys[k]}={v}\n")


def truth_tasks(cluster):
    out = {}
    for t in cluster["tasks"]:
        logged = [s for s in t.get("stores", []) if s.get("logged", True)]
        out[t["id"]] = sum(s["changelog_end_offset"] for s in logged) if logged else None
    return out


def main():
    assignor, logs_dir, work = sys.argv[1:4]
    failures = []
    if not os.path.isdir(logs_dir):
        print(f"FAIL: {logs_dir} is missing")
        return 1
    logs = sorted(glob.glob(os.path.join(logs_dir, "*.log")))
    if not logs:
        failures.append(f"no *.log in {logs_dir}")
    total = labels_right = labels = 0
    for log in logs:
        truth_path = log + ".truth.json"
        if not os.path.isfile(truth_path):
            failures.append(f"{truth_path} is missing")
            continue
        with open(truth_path) as f:
            truth = json.load(f)
        name = os.path.basename(log)
        out = os.path.join(work, name)
        props = os.path.join(work, name + ".properties")
        os.makedirs(work, exist_ok=True)
        shutil.rmtree(out, ignore_errors=True)  # a previous run's import: import refuses a non-empty directory
        props_for(truth[0]["config"], props)
        p = subprocess.run([assignor, "import", "kafka-log", log, "--output-dir", out, "--streams-config", props],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"{name}: import exit {p.returncode}: {p.stderr.strip()[-500:]}")
            continue
        if p.stderr.strip():
            failures.append(f"{name}: warnings on a log Kafka wrote: {p.stderr.strip()[:500]}")
        with open(os.path.join(out, "index.json")) as f:
            index = json.load(f)
        by_line = {int(e["source"].rsplit(":", 1)[1]): e for e in index["rebalances"]}
        if len(by_line) != len(truth):
            failures.append(f"{name}: {len(by_line)} rebalances imported, the truth has {len(truth)}")
        for t in truth:
            total += 1
            where = f"{name}:{t['line']}"
            e = by_line.get(t["line"])
            if e is None:
                failures.append(f"{where}: not imported")
                continue
            if e["timestamp"] != t["timestamp"]:
                failures.append(f"{where}: timestamp {e['timestamp']!r}, truth {t['timestamp']!r}")
            with open(os.path.join(out, e["name"] + ".cluster.json")) as f:
                ours = json.load(f)
            with open(os.path.join(out, e["name"] + ".kafka.json")) as f:
                decision = json.load(f)
            tc = t["cluster"]
            want = truth_tasks(tc)
            got = {x["id"]: (x["stores"][0]["changelog_end_offset"] if x.get("stores") else None) for x in ours["tasks"]}
            if set(want) != set(got):
                failures.append(f"{where}: tasks differ: {sorted(set(want) ^ set(got))}")
                continue
            running_everywhere = {tid for tid in want if all(c.get("offset_sums", {}).get(tid) == -2 for c in tc["clients"])}
            for tid, end in want.items():
                if (end is None) != (got[tid] is None):
                    failures.append(f"{where}: task {tid}: stateful {got[tid] is not None}, truth {end is not None}")
                elif end is not None and tid not in running_everywhere and end != got[tid]:
                    failures.append(f"{where}: task {tid}: end-offset sum {got[tid]}, truth {end}")
            oc = {c["id"]: c for c in ours["clients"]}
            for c in tc["clients"]:
                o = oc.get(c["id"])
                if o is None:
                    failures.append(f"{where}: client {c['id']} missing")
                    continue
                for key in ("previous_active", "previous_standby"):
                    if sorted(o.get(key, [])) != sorted(c.get(key, [])):
                        failures.append(f"{where}: client {c['id']}: {key} {o.get(key)} , truth {c.get(key)}")
                if o["threads"] != c["threads"]:
                    failures.append(f"{where}: client {c['id']}: threads {o['threads']}, truth {c['threads']}")
                truth_offsets = {k: v for k, v in c.get("offset_sums", {}).items() if want.get(k) is not None}
                if o.get("offset_sums", {}) != truth_offsets:
                    failures.append(f"{where}: client {c['id']}: offset sums differ")
            if len(oc) != len(tc["clients"]):
                failures.append(f"{where}: {len(oc)} clients, truth {len(tc['clients'])}")
            ka = t["kafka"]["assignment"]
            for cid, roles in ka.items():
                mine = decision["assignment"].get(cid, {})
                if sorted(mine.get("active", [])) != sorted(roles["active"]):
                    failures.append(f"{where}: Kafka's actives on {cid} differ")
                if sorted(mine.get("standby", []) + mine.get("warmup", [])) != sorted(roles["standby"] + roles["warmup"]):
                    failures.append(f"{where}: Kafka's copies on {cid} differ")
                for w in roles["warmup"]:
                    labels += 1
                    labels_right += w in mine.get("warmup", [])
            if decision["probing_rebalance"]["needed"] != t["kafka"]["probing_rebalance_needed"]:
                failures.append(f"{where}: probing {decision['probing_rebalance']['needed']}, truth "
                                f"{t['kafka']['probing_rebalance_needed']}")
    print(f"{total} rebalances checked; warmups told apart (replaying high_availability, else by lag): {labels_right}/{labels} as the truth labels them")
    if labels_right != labels:
        failures.append(f"warmup labels: {labels - labels_right} of {labels} differ from the truth")
    for f in failures[:40]:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
