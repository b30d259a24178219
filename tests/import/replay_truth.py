#!/usr/bin/env python3
"""`assignor replay` with high_availability gives Kafka's logged decision at every rebalance of every
log in tests/data/kafka-logs (actives, standby + warmup copies per client, the probing decision),
straight from the log files, with the application's settings (the truth's, as a properties file).

usage: replay_truth.py ASSIGNOR LOGS_DIR WORK_DIR   (no logs there is a failure)
"""
import glob
import json
import os
import subprocess
import sys


def main():
    assignor, logs_dir, work = sys.argv[1:4]
    logs = sorted(glob.glob(os.path.join(logs_dir, "*.log")))
    if not logs:
        print("FAIL: no logs in", logs_dir)
        return 1
    os.makedirs(work, exist_ok=True)
    failures = 0
    for log in logs:
        with open(log + ".truth.json") as f:
            truth = json.load(f)
        props = os.path.join(work, os.path.basename(log) + ".properties")
        with open(props, "w") as f:
            c = truth[0]["config"]
            f.write(f"num.standby.replicas={c['num_standby_replicas']}\nmax.warmup.replicas={c['max_warmup_replicas']}\n"
                    f"acceptable.recovery.lag={c['acceptable_recovery_lag']}\n"
                    f"probing.rebalance.interval.ms={c['probing_rebalance_interval_ms']}\n")
        p = subprocess.run([assignor, "replay", log, "--streams-config", props, "--strategies", "high_availability",
                            "--format", "json"], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL {log}: exit {p.returncode}: {p.stderr[-500:]}")
            failures += 1
            continue
        r = json.loads(p.stdout)
        same = r["agreement"]["high_availability"]["same_as_kafka"]
        n = len(truth)
        ok = same == n and len(r["rebalances"]) == n
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(log)}: high_availability gave Kafka's decision at {same}/{n}")
        if not ok:
            failures += 1
            for e in r["rebalances"]:
                ha = e["strategies"]["high_availability"]
                if not ha.get("same_as_kafka"):
                    print("   ", e["name"], e["source"], ha.get("differences") or ha.get("failure"))
                    break
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
