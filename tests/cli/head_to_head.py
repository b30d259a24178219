#!/usr/bin/env python3
"""Issue 21's verdicts, through the real command, on the 12 -> 16 instance scale-out (`generate
--clients 16 --threads 4 --subtopologies 3 --partitions 32 --stateful-fraction 0.67 --standbys 1
--scenario scale-out --new-clients 4`), copies restoring 2,000 offsets/s:

  - sticky (Kafka's pre-KIP-441 LegacyStickyTaskAssignor, blind to lags) hands the four new
    instances stateful actives at once, cold: restoring actives from the first round, so it is not
    balanced until they have restored, and its restoring task-time is not zero;
  - least_movement (which balances the tasks that restore too) is not balanced while the new
    instances hold no stateful active, then warms them up and converges with their share of the
    stateful actives, never with an active restoring;
  - high_availability converges, with every standby caught up at the end;
  - streams_sticky's stale standbys show: its under-replicated task-time is many times
    high_availability's;
and a rolling restart written by `generate --events-out` (one client every 3 minutes, each down
60 s) replays in time: every client leaves and comes back at its time.

usage: head_to_head.py ASSIGNOR WORK_DIR
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from script_checks import check, run, status  # noqa: E402


def simulate(assignor, config, cluster, strategy, *extra):
    p = run([assignor, "simulate", "--config", config, "--cluster", cluster, "--strategy", strategy, *extra])
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    return p, lines[:-1], lines[-1] if lines else {}


def main():
    assignor, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    cluster = os.path.join(work, "scale-out-12-to-16.json")
    with open(cluster, "w") as f:
        f.write(run([assignor, "generate", "--clients", "16", "--threads", "4", "--subtopologies", "3", "--partitions",
                     "32", "--stateful-fraction", "0.67", "--standbys", "1", "--scenario", "scale-out", "--new-clients",
                     "4"]).stdout)
    with open(cluster) as f:
        c = json.load(f)
    new = [x["id"] for x in c["clients"] if not x.get("previous_active") and not x.get("previous_standby")]
    logged = {t["id"] for t in c["tasks"] if any(s.get("logged", True) for s in t.get("stores", []))}
    check(len(new) == 4 and len(c["clients"]) == 16, "the file is 12 -> 16: four new, empty clients", new)
    config = os.path.join(work, "config.yaml")
    with open(config, "w") as f:
        f.write("strategy: high_availability\nassignment: {num_standby_replicas: 1}\nsimulation: {restore_rate: 2000}\n")

    out = os.path.join(work, "sticky.json")
    run([assignor, "assign", "--config", config, "--cluster", cluster, "--strategy", "sticky", "--output", out])
    with open(out) as f:
        a = json.load(f)["assignment"]
    on_new = [t for cid in new for t in a[cid]["active"] if t in logged]
    check(on_new, "sticky: stateful actives on the new clients at once", on_new)
    p, rounds, summary = simulate(assignor, config, cluster, "sticky")
    check(rounds and rounds[0]["metrics"]["restoring_actives"] > 0 and not rounds[0]["balanced"],
          "sticky: restoring actives in the first round, not balanced", rounds[:1])
    check(all(not r["balanced"] for r in rounds if r["metrics"]["restoring_actives"] > 0),
          "sticky: never balanced while an active restores",
          [(r["round"], r["metrics"]["restoring_actives"], r["balanced"]) for r in rounds])
    check(summary.get("converged") and summary.get("restoring_task_ms", 0) > 0,
          "sticky: converges once restored, with restoring task-time", summary)

    final = os.path.join(work, "least_movement-final.json")
    p, rounds, summary = simulate(assignor, config, cluster, "least_movement", "--final-state", final)
    with open(final) as f:
        state = json.load(f)
    # Round by round: a round is balanced only once the new clients run stateful actives, which the
    # state after each round shows; here the last state, and the rounds' own spreads before it.
    held = {x["id"]: [t for t in x.get("previous_active", []) if t in logged] for x in state["clients"]}
    check(summary.get("converged") and all(len(held[cid]) >= 3 for cid in new),
          "least_movement: converges with the new clients running their share of the stateful actives",
          (summary, {cid: held[cid] for cid in new}))
    check(all(r["metrics"]["stateful_load_spread"] <= 1 for r in rounds if r["balanced"]) and
          not rounds[0]["balanced"], "least_movement: not balanced before the new clients took stateful work",
          [(r["round"], r["balanced"], r["metrics"]["stateful_load_spread"]) for r in rounds])
    check(all(r["metrics"]["restoring_actives"] == 0 for r in rounds), "least_movement: never an active restoring")

    _, ha_rounds, ha = simulate(assignor, config, cluster, "high_availability")
    check(ha.get("converged") and ha_rounds[-1]["metrics"]["stale_standbys"] == 0,
          "high_availability converges, fully replicated", ha)
    _, ss_rounds, ss = simulate(assignor, config, cluster, "streams_sticky")
    check(max(r["metrics"]["stale_standbys"] for r in ss_rounds) > 0, "streams_sticky leaves standbys stale")
    check(ss.get("under_replicated_task_ms", 0) > 10 * max(1, ha.get("under_replicated_task_ms", 0)),
          "streams_sticky's lost redundancy shows in under_replicated_task_ms (over 10x high_availability's)",
          (ss.get("under_replicated_task_ms"), ha.get("under_replicated_task_ms")))
    check(ss.get("replayed_offsets", 0) > 0 and ss.get("peak_restoring_copies", 0) > 0,
          "the restore traffic is measured (replayed_offsets, peak_restoring_copies)", ss)

    # A rolling restart in time, written beside a cluster file by generate.
    steady = os.path.join(work, "steady.json")
    events = os.path.join(work, "restarts.yaml")
    p = run([assignor, "generate", "--clients", "4", "--threads", "2", "--subtopologies", "2", "--partitions", "8",
             "--scenario", "scale-out", "--new-clients", "1", "--output", steady, "--events-out", events,
             "--restart-every-ms", "180000", "--down-ms", "60000"])
    check(p.returncode == 0, "generate --events-out", p.stderr)
    p, rounds, summary = simulate(assignor, config, steady, "high_availability", "--events", events)
    downs = {e.split()[0]: r["at_ms"] for r in rounds for e in r["events"] if "goes down" in e}
    backs = {e.split()[0]: r["at_ms"] for r in rounds for e in r["events"] if "comes back" in e}
    check(len(downs) == 4 and len(backs) == 4, "every client went down and came back", (downs, backs))
    # A round starts when its event happens: the rounds after client i goes down start at 180 s x (i+1).
    starts = sorted(r["at_ms"] for r in rounds)
    check(all(t in starts for t in (180000, 240000, 360000, 420000, 540000, 600000, 720000, 780000)),
          "each leave and rejoin triggers a rebalance at its time", starts)
    check(summary.get("converged"), "the group converges after the rolling restart", summary)
    return status()


if __name__ == "__main__":
    sys.exit(main())
