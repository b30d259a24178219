#!/usr/bin/env python3
"""Runs `assignor compare` or `assignor simulate` and checks what it wrote, parsed back.

usage:
  check_compare_simulate.py compare --format json|csv|table --strategies a,b [--failing x,y]
                            [--scenarios N] [--exit N] -- CMD...
  check_compare_simulate.py simulate [--converged-within N] [--not-converged] [--no-restoring]
                            [--final-state FILE] -- CMD...
  check_compare_simulate.py html --file FILE --svgs N -- CMD...

compare: every scenario has one row per strategy, in order; the --failing ones are marked failed or
invalid with a reason, the others are ok with every metric of DESIGN 4.5 and a timing.
simulate: stdout is JSON Lines, rounds 1..n then a summary whose totals add up.
html: the report parses as XML (XHTML), has N <svg> elements, no scripts and no external resources.
"""
import argparse
import csv
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

METRICS = ["active_moves", "restoring_actives", "cold_actives", "warmups", "standbys", "standby_shortfall",
           "active_load_spread", "total_load_spread", "max_subtopology_skew", "cross_rack_traffic",
           "restore_offsets"]
SVG = "{http://www.w3.org/2000/svg}"
XHTML = "{http://www.w3.org/1999/xhtml}"


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def run(cmd, want_exit):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != want_exit:
        raise Failure(f"exit status {p.returncode}, expected {want_exit}\n--- stderr ---\n{p.stderr[-4000:]}")
    return p


def check_compare(a, p):
    strategies = a.strategies.split(",")
    failing = set(a.failing.split(",")) if a.failing else set()
    if a.format == "json":
        doc = json.loads(p.stdout)
        check(doc["strategies"] == strategies, f"strategies {doc['strategies']}")
        if a.scenarios is not None:
            check(len(doc["scenarios"]) == a.scenarios, f"{len(doc['scenarios'])} scenarios")
        for s in doc["scenarios"]:
            got = [r["strategy"] for r in s["results"]]
            check(got == strategies, f"scenario {s['name']}: rows {got}")
            for r in s["results"]:
                where = f"{s['name']}/{r['strategy']}"
                if r["strategy"] in failing:
                    check(r["status"] in ("failed", "invalid"), f"{where}: status {r['status']}")
                    check(r["error"], f"{where}: no reason")
                    check(r["metrics"] is None, f"{where}: metrics of a failure")
                else:
                    check(r["status"] == "ok", f"{where}: status {r['status']}: {r['error']}")
                    for m in METRICS:
                        check(m in r["metrics"], f"{where}: no metric {m}")
                    t = r["assign_ms"]
                    check(t["min"] <= t["median"] <= t["max"], f"{where}: timing {t}")
                    check(isinstance(r["probing_rebalance"]["needed"], bool), f"{where}: probing")
                    if a.simulated:
                        sim = r.get("simulation")
                        check(isinstance(sim, dict), f"{where}: no simulation")
                        check(sim["rounds"] >= 1 and sim["strategy"] == r["strategy"], f"{where}: simulation {sim}")
                        check((sim["time_to_converged_ms"] is None) == (not sim["converged"]),
                              f"{where}: time_to_converged_ms vs converged: {sim}")
                        if a.timed:
                            check(isinstance(sim["restoring_task_ms"], int), f"{where}: restoring_task_ms {sim}")
    elif a.format == "csv":
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        check(rows, "no CSV rows")
        for m in METRICS + ["scenario", "strategy", "status", "probing_rebalance", "assign_ms_median",
                            "assign_ms_min", "assign_ms_max", "error"]:
            check(m in rows[0], f"no CSV column {m}")
        scenarios = []
        for r in rows:
            if r["scenario"] not in scenarios:
                scenarios.append(r["scenario"])
        if a.scenarios is not None:
            check(len(scenarios) == a.scenarios, f"{len(scenarios)} scenarios")
        check(len(rows) == len(scenarios) * len(strategies), f"{len(rows)} rows")
        for i, r in enumerate(rows):
            check(r["strategy"] == strategies[i % len(strategies)], f"row {i}: {r['strategy']}")
            if r["strategy"] in failing:
                check(r["status"] in ("failed", "invalid") and r["error"], f"row {i}: {r}")
            else:
                check(r["status"] == "ok", f"row {i}: {r['status']} {r['error']}")
                float(r["assign_ms_median"])
                int(r["active_moves"])
                float(r["active_load_spread"])
    else:
        lines = p.stdout.splitlines()
        for s in strategies:
            row = [l for l in lines if l.startswith(s + " ")]
            check(row, f"no table row for {s}")
            if s in failing:
                check(all(("FAILED" in l or "INVALID" in l) for l in row), f"{s}: {row}")
                check(any(l.startswith(f"  {s}: ") for l in lines), f"{s}: no reason below the table")
            else:
                check(all(" ok " in l or " ok* " in l for l in row), f"{s}: {row}")


def check_simulate(a, p):
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    check(lines, "no output")
    summary, rounds = lines[-1], lines[:-1]
    for key in ("converged", "stalled", "rounds", "active_moves", "restore_offsets", "first_balanced_round"):
        check(key in summary, f"summary lacks {key}: {summary}")
    check([r["round"] for r in rounds] == list(range(1, len(rounds) + 1)), "rounds not numbered 1..n")
    check(summary["rounds"] == len(rounds), f"summary rounds {summary['rounds']}, {len(rounds)} lines")
    check(summary["active_moves"] == sum(r["metrics"]["active_moves"] for r in rounds), "active_moves total")
    check(summary["restore_offsets"] == sum(r["metrics"]["restore_offsets"] for r in rounds), "restore total")
    for r in rounds:
        for m in METRICS:
            check(m in r["metrics"], f"round {r['round']}: no metric {m}")
        check(isinstance(r["probing_rebalance"]["needed"], bool), f"round {r['round']}: probing")
        if a.no_restoring:
            check(r["metrics"]["restoring_actives"] == 0, f"round {r['round']}: restoring actives")
    check_time(a, rounds, summary)
    if a.converged_within is not None:
        check(summary["converged"], f"not converged: {summary}")
        # Follow-ups (Kafka's protocol: seconds after a round that revoked) are not rounds of catching up.
        paced = summary["rounds"] - summary.get("followup_rounds", 0)
        check(paced <= a.converged_within, f"{paced} rounds (besides follow-ups) > {a.converged_within}")
        check(summary.get("followup_rounds", 0) == sum(r["cause"] == "follow-up" for r in rounds), "followup_rounds")
        last = rounds[-1]
        check(not last["probing_rebalance"]["needed"] and last["balanced"], f"last round {last}")
    if a.not_converged:
        check(not summary["converged"], f"converged: {summary}")
    if a.stalled_by_state:
        last = rounds[-1]["metrics"]
        check(summary["stalled"] and not rounds[-1]["balanced"], f"not stalled unbalanced: {summary}")
        check(last["active_load_spread"] <= 1 and last["stateful_load_spread"] > 1,
              f"expected balanced task counts with unbalanced stateful tasks: {last}")
    if a.final_state:
        with open(a.final_state, encoding="utf-8") as f:
            state = json.load(f)
        check(state.get("clients"), "final state without clients")
    print(json.dumps(summary))


def check_time(a, rounds, summary):
    """The time model (docs/compare-and-simulate.md), recomputed from the round lines: a rebalance
    costs --rebalance-ms; the next follows at once after a round with events, and under Kafka's
    protocol (the default) after a round that took a running task from a client still in the group
    (its active_moves, the metric of DESIGN 4.5: the follow-up rebalance); else after the probing
    delay it asked for, else after the config's probing interval (--probing-ms)."""
    expected = a.rebalance_ms
    kafka = a.protocol == "kafka"
    for r in rounds:
        check(r["at_ms"] == expected, f"round {r['round']}: at_ms {r['at_ms']}, expected {expected}")
        moved = r["metrics"]["active_moves"]
        # Revoked: every active moved from a client still here (the metric's own definition).
        check(r["revoked"] == (moved if kafka else 0),
              f"round {r['round']}: revoked {r['revoked']}, {moved} actives moved from a client still here")
        if r["events"] or (kafka and r["revoked"] > 0):
            gap = 0
        elif r["probing_rebalance"]["needed"]:
            gap = r["probing_rebalance"]["after_ms"]
        else:
            gap = a.probing_ms
        if r["round"] > 1:
            previous = rounds[r["round"] - 2]
            cause = ("events" if previous["events"] else
                     "follow-up" if kafka and previous["revoked"] > 0 else
                     "probing" if previous["probing_rebalance"]["needed"] else "interval")
            check(r["cause"] == cause, f"round {r['round']}: cause {r['cause']}, expected {cause}")
        expected += gap + a.rebalance_ms
    at = {r["round"]: r["at_ms"] for r in rounds}
    balanced = summary["first_balanced_round"]
    check(summary["time_to_balanced_ms"] == (at[balanced] if balanced else None),
          f"time_to_balanced_ms {summary['time_to_balanced_ms']} for round {balanced}")
    # Kafka's protocol: no rebalance comes after the last round; its stale standbys catch up by
    # themselves (in time, by the slowest copy's restore).
    last = rounds[-1]
    catch_up = last["slowest_restore_ms"] if a.protocol == "kafka" and a.timed and last["metrics"]["stale_standbys"] else 0
    check(summary["time_to_converged_ms"] == (last["at_ms"] + catch_up if summary["converged"] else None),
          f"time_to_converged_ms {summary['time_to_converged_ms']}")
    if a.timed:
        check(all(isinstance(r["restoring_task_ms"], int) for r in rounds), "a round without restoring_task_ms")
        check(summary["restoring_task_ms"] == sum(r["restoring_task_ms"] for r in rounds), "restoring_task_ms total")
    else:
        check(summary["restoring_task_ms"] is None, "restoring_task_ms without a restore rate")


def check_html(a, p):
    tree = ET.parse(a.file)  # raises on malformed markup
    root = tree.getroot()
    check(root.tag == XHTML + "html", f"root {root.tag}")
    svgs = root.findall(f".//{SVG}svg")
    check(len(svgs) == a.svgs, f"{len(svgs)} <svg> elements, expected {a.svgs}")
    check(not root.findall(f".//{XHTML}script") and not root.findall(f".//{SVG}script"), "a script")
    for el in root.iter():
        for attr in ("src", "href", "{http://www.w3.org/1999/xlink}href"):
            check(attr not in el.attrib, f"external reference {el.attrib.get(attr)}")
    check(root.findall(f".//{XHTML}style"), "no inline style")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["compare", "simulate", "html"])
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--format", default="table")
    ap.add_argument("--strategies", default="")
    ap.add_argument("--failing", default="")
    ap.add_argument("--scenarios", type=int)
    ap.add_argument("--converged-within", type=int)
    ap.add_argument("--not-converged", action="store_true")
    ap.add_argument("--stalled-by-state", action="store_true",
                    help="stalled, the last round balanced by task count but not by tasks that restore")
    ap.add_argument("--no-restoring", action="store_true")
    ap.add_argument("--final-state")
    ap.add_argument("--file")
    ap.add_argument("--svgs", type=int)
    ap.add_argument("--rebalance-ms", type=int, default=0)
    ap.add_argument("--probing-ms", type=int, default=600000)
    ap.add_argument("--timed", action="store_true", help="the run has a restore rate")
    ap.add_argument("--protocol", default="kafka", choices=["kafka", "rounds"], help="the simulation's protocol")
    ap.add_argument("--simulated", action="store_true", help="compare --simulate: rows carry simulations")
    argv = sys.argv[1:]
    if "--" not in argv:
        print("check_compare_simulate.py: no command after --", file=sys.stderr)
        return 2
    split = argv.index("--")
    a = ap.parse_args(argv[:split])
    cmd = argv[split + 1:]
    try:
        p = run(cmd, a.exit)
        {"compare": check_compare, "simulate": check_simulate, "html": check_html}[a.mode](a, p)
    except (Failure, ValueError, KeyError, TypeError, ET.ParseError) as e:
        print("command:", " ".join(cmd))
        print("FAIL:", e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
