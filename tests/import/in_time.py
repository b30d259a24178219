#!/usr/bin/env python3
"""`assignor replay DIR --in-time` (DESIGN 4.10) through the real command, checked against what this
script works out on its own:

  1. A real Kafka Streams 4.4.0 group (data/short-scale-out: the leader logs of the calibration
     harness's short scale-out, bridges/kafka-streams/.../calibration, two instances and a third
     joining, Kafka's default assignor). This script reads the Decided lines itself: which processes
     were there, what each ran before (prevActiveTasks) and was given (activeTasks), whether Kafka
     asked for probing; from that the real path (from the join to the first rebalance after the last
     event that asks for no probing and revokes nothing) and its time. The replay's timeline must say
     the same; the calibration run (high_availability on that timeline) must count the log's
     rebalances and give Kafka's decision at each; its time to converged within 20% of the log's.
  2. A timeline built by hand (an import directory written here): a join with a follow-up, a
     probing rebalance, a leave, the same process back, a restart in place, a wiped restart (a new
     process id where one left): every event at its rebalance, every cause, the measured rebalance
     cost and probing interval, the settings said to be assumed; the simulated runs rebalance at the
     times of those events.
  3. The JSON keys of DESIGN 4.10, the table, the CSV, the HTML report (valid XML, one SVG per chart),
     and bad input: an unknown --from (exit 2, naming the nearest), --from without --in-time.

usage: in_time.py ASSIGNOR DATA_DIR WORK_DIR
"""
import glob
import gzip
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from script_checks import FAILURES, check, run  # noqa: E402


DECIDED = re.compile(r"^\[(?P<ts>[^\]]+)\].*Decided on assignment: \{(?P<body>.*)\} with(?P<no> no)? followup probing rebalance\.")
CLIENT = re.compile(r"(?P<pid>[0-9a-f-]{36})=\[activeTasks: \(\[(?P<active>[^\]]*)\]\) standbyTasks: \(\[[^\]]*\]\) "
                    r"prevActiveTasks: \(\[(?P<prev>[^\]]*)\]\)")


def tasks(text):
    return {t.strip() for t in text.split(",") if t.strip()}


def logged_rebalances(files):
    """Every Decided line of the logs, in time order: (ms, {pid: (active, prev_active)}, probing)."""
    out = []
    for f in files:
        with gzip.open(f, "rt") as lines:
            for line in lines:
                m = DECIDED.match(line)
                if not m:
                    continue
                ms = int(datetime.strptime(m["ts"], "%Y-%m-%dT%H:%M:%S,%f").replace(tzinfo=timezone.utc).timestamp() * 1000)
                clients = {c["pid"]: (tasks(c["active"]), tasks(c["prev"])) for c in CLIENT.finditer(m["body"])}
                out.append((ms, clients, m["no"] is None))
    out.sort(key=lambda r: r[0])
    return out


def revokes(clients):
    owner = {t: pid for pid, (_, prev) in clients.items() for t in prev}
    return any(owner.get(t, pid) != pid for pid, (active, _) in clients.items() for t in active)


def real_path(rebalances, first):
    """(rebalances, ms) from `first` to the settled one, by DESIGN 4.10's rule as this script reads it."""
    path = rebalances[first:]
    last_event = 0
    for i in range(1, len(path)):
        if set(path[i][1]) != set(path[i - 1][1]):
            last_event = i
    for i in range(last_event, len(path)):
        if not path[i][2] and not revokes(path[i][1]):
            return i + 1, path[i][0] - path[0][0]
    return len(path), None


def real_group(assignor, data, work):
    files = sorted(glob.glob(os.path.join(data, "short-scale-out", "*.log.gz")))
    rebalances = logged_rebalances(files)
    check(len(rebalances) >= 4, f"the recorded log has {len(rebalances)} Decided lines")
    first = next(i for i, r in enumerate(rebalances) if len(r[1]) == 3)  # the newcomer's first rebalance
    expected_n, expected_ms = real_path(rebalances, first)
    imported = os.path.join(work, "real")
    r = run([assignor, "import", "kafka-log", *files, "--output-dir", imported, "--streams-config",
             os.path.join(data, "short-scale-out", "app.properties")])
    check(r.returncode == 0, "import of the recorded calibration log", r.stderr)
    index = json.load(open(os.path.join(imported, "index.json")))["rebalances"]
    check(len(index) == len(rebalances), f"{len(index)} rebalances imported, {len(rebalances)} in the log")
    name = index[first]["name"]
    r = run([assignor, "replay", imported, "--in-time", "--from", name, "--strategies", "least_movement,streams_sticky",
             "--format", "json", "--jobs", "1"])
    check(r.returncode == 0, "replay --in-time --format json", r.stderr)
    doc = json.loads(r.stdout)
    t = doc["timeline"]
    check(t["from"] == name, f"the timeline starts at --from {name}")
    check(t["rebalances"] == expected_n, f"the real path counts {expected_n} rebalances", t["rebalances"])
    check(t["time_to_converged_ms"] == expected_ms, f"the real path converges after {expected_ms} ms",
          t["time_to_converged_ms"])
    check(not t["settings"]["assumed"] and "--streams-config" in t["settings"]["from"],
          "the settings are the application's (--streams-config)", t["settings"])
    check(t["settings"]["probing_rebalance_interval_ms"] == 60000, "probing every 60 s, as the properties say")
    cal = doc["runs"][0]
    check(cal["calibration"] and cal["strategy"] == "high_availability", "the first run is Kafka's strategy, the calibration")
    check(cal["rebalances"] == expected_n, f"the calibration run counts the log's {expected_n} rebalances", cal["rebalances"])
    check(cal["decisions_compared"] == expected_n and cal["decisions_equal"] == expected_n,
          "every decision of the calibration run is Kafka's", (cal["decisions_equal"], cal["decisions_compared"]))
    check(cal["time_to_converged_ms"] is not None and abs(cal["time_to_converged_ms"] - expected_ms) <= 0.2 * expected_ms,
          "the calibration run converges within 20% of the log's time", (cal["time_to_converged_ms"], expected_ms))
    check([x["strategy"] for x in doc["runs"]] == ["high_availability", "least_movement", "streams_sticky"],
          "the counterfactual runs follow, in --strategies order")
    for run_ in doc["runs"]:
        for key in ["strategy", "calibration", "rebalances", "time_to_converged_ms", "restoring_task_ms",
                    "under_replicated_task_ms", "active_moves", "replayed_offsets"]:
            check(key in run_, f"runs[{run_['strategy']}] has '{key}' (DESIGN 4.10)")
        check(("decisions_equal" in run_) == run_["calibration"], f"decisions_equal only on the calibration run")
        check(len(run_["path"]) == run_["rebalances"], f"{run_['strategy']}: one path step per rebalance")
    for key in ["from", "rebalances", "time_to_converged_ms"]:
        check(key in t, f"timeline has '{key}' (DESIGN 4.10)")

    table = run([assignor, "replay", imported, "--in-time", "--from", name, "--strategies", "least_movement"])
    check(table.returncode == 0 and "calibration (high_availability on the real timeline): rebalances +0.0%"
          in table.stdout, "the table says the calibration error", table.stdout)
    report = os.path.join(work, "in-time.html")
    r = run([assignor, "replay", imported, "--in-time", "--from", name, "--strategies", "least_movement", "--report",
             report, "--format", "csv"])
    check(r.returncode == 0 and r.stdout.startswith("path,strategy,calibration,outcome,rebalances"),
          "--format csv", r.stdout[:300])
    check(len(r.stdout.strip().split("\n")) == 4, "CSV: a header, the real path and two runs")
    try:
        root = ET.parse(report).getroot()
        svgs = root.findall(".//{http://www.w3.org/2000/svg}svg")
        check(len(svgs) == 3, f"the report has 3 charts (paths, rebalances and moves so far): {len(svgs)}")
        text = open(report).read()
        check("real (the log)" in text and "high_availability (calibration)" in text, "the report names every path")
    except ET.ParseError as e:
        check(False, "the report is XML", e)

    bad = run([assignor, "replay", imported, "--in-time", "--from", "rebalance-0O02"])
    check(bad.returncode == 2 and "--from rebalance-0O02: no such rebalance" in bad.stderr and
          "did you mean rebalance-0002?" in bad.stderr, "an unknown --from: exit 2, naming the nearest", bad.stderr)
    bad = run([assignor, "replay", imported, "--from", name])
    check(bad.returncode == 2 and "--in-time" in bad.stderr, "--from without --in-time: exit 2", bad.stderr)


# --- 2: a timeline by hand ------------------------------------------------------------------------

TASKS = ["0_0", "0_1", "0_2", "0_3"]
END = 20000


def cluster(clients):
    """clients: {pid: (threads, prev_active, offset sums {task: sum})}"""
    return {"version": 1, "tasks": [{"id": t, "stores": [{"name": "s", "changelog_end_offset": END}]} for t in TASKS],
            "clients": [{"id": pid, "threads": th, "previous_active": sorted(prev), "previous_standby": [],
                         "offset_sums": sums} for pid, (th, prev, sums) in sorted(clients.items())]}


def decision(actives, probing):
    return {"strategy": "kafka", "assignment": {pid: {"active": sorted(a), "standby": [], "warmup": []}
                                                for pid, a in sorted(actives.items())},
            "probing_rebalance": {"needed": probing, "after_ms": 600000}}


def running(tasks_):
    return {t: -2 for t in tasks_}


def hand_built(assignor, work):
    d = os.path.join(work, "hand")
    os.makedirs(d)
    A, B, C, D = ("aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002",
                  "cccccccc-0000-4000-8000-000000000003", "dddddddd-0000-4000-8000-000000000004")
    caught = {t: END for t in TASKS}  # a copy on disk, caught up
    # (seconds, clients, Kafka's decision, probing)
    steps = [
        (0, {A: (1, ["0_0", "0_1"], running(["0_0", "0_1"])), B: (1, ["0_2", "0_3"], running(["0_2", "0_3"]))},
         {A: ["0_0", "0_1"], B: ["0_2", "0_3"]}, False),
        # C joins; Kafka takes 0_1 from A (still here, ran it): revoked, a follow-up comes 2 s later
        (10, {A: (1, ["0_0", "0_1"], running(["0_0", "0_1"])), B: (1, ["0_2", "0_3"], running(["0_2", "0_3"])),
              C: (1, [], {})}, {A: ["0_0"], B: ["0_2", "0_3"], C: ["0_1"]}, True),
        (12, {A: (1, ["0_0"], {**running(["0_0"]), "0_1": END}), B: (1, ["0_2", "0_3"], running(["0_2", "0_3"])),
              C: (1, [], {"0_1": END})}, {A: ["0_0"], B: ["0_2", "0_3"], C: ["0_1"]}, True),
        # the probing rebalance, 63 s after the one that asked (61 s + the 2 s rebalance)
        (75, {A: (1, ["0_0"], running(["0_0"])), B: (1, ["0_2", "0_3"], running(["0_2", "0_3"])),
              C: (1, ["0_1"], running(["0_1"]))}, {A: ["0_0"], B: ["0_2", "0_3"], C: ["0_1"]}, False),
        # B is gone
        (200, {A: (1, ["0_0"], running(["0_0"])), C: (1, ["0_1"], running(["0_1"]))},
         {A: ["0_0", "0_2"], C: ["0_1", "0_3"]}, False),
        # B is back, with its state (the same process id)
        (300, {A: (1, ["0_0", "0_2"], running(["0_0", "0_2"])), B: (1, [], {"0_2": 5000, "0_3": 5000}),
               C: (1, ["0_1", "0_3"], running(["0_1", "0_3"]))}, {A: ["0_0", "0_2"], B: [], C: ["0_1", "0_3"]}, False),
        # A restarted in place: it reports none of the actives it was given
        (400, {A: (1, [], caught), B: (1, [], {"0_2": 5000, "0_3": 5000}), C: (1, ["0_1", "0_3"], running(["0_1", "0_3"]))},
         {A: ["0_0", "0_2"], B: [], C: ["0_1", "0_3"]}, False),
        # C replaced by D: a wiped restart
        (500, {A: (1, ["0_0", "0_2"], running(["0_0", "0_2"])), B: (1, [], {"0_2": 5000, "0_3": 5000}),
               D: (2, [], {})}, {A: ["0_0", "0_2"], B: ["0_3"], D: ["0_1"]}, False),
    ]
    t0 = 1_800_000_000_000
    index = []
    for k, (sec, clients, dec, probing) in enumerate(steps):
        name = f"rebalance-{k + 1:04d}"
        json.dump(cluster(clients), open(os.path.join(d, name + ".cluster.json"), "w"))
        json.dump(decision(dec, probing), open(os.path.join(d, name + ".kafka.json"), "w"))
        open(os.path.join(d, name + ".config.yaml"), "w").write(
            "strategy: high_availability\nassignment:\n  num_standby_replicas: 0\n  probing_rebalance_interval_ms: 600000\n")
        index.append({"name": name, "timestamp": f"+{sec}s", "time_ms": t0 + sec * 1000, "source": f"hand:{k + 1}",
                      "clients": len(clients), "tasks": len(TASKS), "probing": probing, "settings_from": "Kafka's defaults"})
    json.dump({"version": 1, "kafka_assignor": "HighAvailabilityTaskAssignor", "rebalances": index},
              open(os.path.join(d, "index.json"), "w"))

    r = run([assignor, "replay", d, "--in-time", "--strategies", "least_movement", "--format", "json", "--jobs", "1"])
    check(r.returncode == 0, "replay --in-time on the hand-built import", r.stderr)
    doc = json.loads(r.stdout)
    t = doc["timeline"]
    events = [(e["at_ms"], e["kind"], e["client"], e.get("replaces")) for e in t["events"]]
    check(events == [(10000, "join", C, None), (200000, "leave", B, None), (300000, "back", B, None),
                     (400000, "restart", A, None), (500000, "leave", C, None), (500000, "join", D, C)],
          "every event at the rebalance that first shows it", events)
    back = [e for e in t["events"] if e["kind"] == "back"][0]
    check(back["gone_ms"] == 200000, "B came back after being gone since +200 s", back)
    joined = [e for e in t["events"] if e["client"] == D][0]
    check(joined["threads"] == 2, "D joined with the 2 threads it reported", joined)
    causes = [s["cause"] for s in t["path"]]
    check(causes == ["start", "events", "follow-up", "probing", "events", "events", "events", "events"],
          "each rebalance's cause", causes)
    check([s["revoked"] for s in t["path"]] == [0, 1, 0, 0, 0, 0, 0, 0], "the one revocation: 0_1 from A", t["path"])
    check(t["rebalances"] == 8 and t["time_to_converged_ms"] == 500000,
          "converged at the last rebalance, after the last event: 8 rebalances, 500 s", (t["rebalances"], t["time_to_converged_ms"]))
    s = t["settings"]
    check(s["rebalance_ms"] == 2000 and s["rebalance_ms_measured"], "a rebalance costs the follow-up's 2 s", s)
    check(s["assumed"] and s["probing_rebalance_interval_ms"] == 60000,
          "settings assumed; the probing interval inferred: 63 s - 2 s, to 5 s", s)
    check(any("settings assumed" in n for n in s["notes"]), "the notes say the settings were assumed", s["notes"])
    check(doc["settings_assumed"] is True, "settings_assumed: true")
    # The simulated runs rebalance at the times of the events (and maybe between, never at others first).
    for run_ in doc["runs"]:
        at = {st["at_ms"] for st in run_["path"] if st["cause"] == "events"}
        check(at == {10000, 200000, 300000, 400000, 500000}, f"{run_['strategy']} rebalances at every event", sorted(at))
    table = run([assignor, "replay", d, "--in-time", "--strategies", "least_movement"])
    check("settings assumed" in table.stdout and "computed under these assumed settings" in table.stdout,
          "the table says the settings were assumed (stdout, not only stderr)", table.stdout)
    check("restarted in place, keeping its state" in table.stdout and "a restart with its state wiped" in table.stdout,
          "the table describes the restarts", table.stdout)

    # Replay (not in time) on the same import says its agreement was computed under assumed settings.
    r = run([assignor, "replay", d, "--strategies", "high_availability", "--format", "json"])
    doc = json.loads(r.stdout)
    check(doc.get("settings_assumed") is True and "assumed settings" in (doc.get("settings_note") or ""),
          "replay's JSON says the agreement was computed under assumed settings", r.stdout[-500:])
    r = run([assignor, "replay", d, "--strategies", "high_availability"])
    check("agreement computed under assumed settings" in r.stdout, "replay's table says so too", r.stdout[-600:])

    # compare and sweep take the import directory as scenarios, each rebalance with its own settings.
    cfg = os.path.join(work, "other.yaml")
    open(cfg, "w").write("strategy: high_availability\nassignment: {num_standby_replicas: 3}\n")
    r = run([assignor, "compare", "--config", cfg, "--scenarios", d, "--strategies", "high_availability", "--runs", "1",
             "--format", "json", "--jobs", "1"])
    check(r.returncode == 0, "compare --scenarios IMPORT_DIR", r.stderr)
    doc = json.loads(r.stdout)
    check([s["name"] for s in doc["scenarios"]] == [x["name"] for x in index], "one scenario per imported rebalance")
    check(all(s["results"][0]["metrics"]["standbys"] == 0 for s in doc["scenarios"]),
          "each with the import's settings (no standby), not the config's 3")
    r = run([assignor, "sweep", "--config", cfg, "--scenarios", d, "--vary", "assignment.max_warmup_replicas=1,2",
             "--format", "csv", "--jobs", "1"])
    check(r.returncode == 0 and len(r.stdout.strip().split("\n")) == 1 + 2 * len(index), "sweep --scenarios IMPORT_DIR",
          r.stderr + r.stdout[:300])


def main():
    assignor, data, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    real_group(assignor, data, work)
    hand_built(assignor, work)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
