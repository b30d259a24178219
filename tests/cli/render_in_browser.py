#!/usr/bin/env python3
"""Every kind of HTML report, rendered by a real browser (headless Chromium).

The XML checks elsewhere prove that each report is well formed; this proves that a browser draws
it: Chromium loads each page (compare, compare --simulate, simulate, sweep, replay, replay
--in-time), must log no
console message (an SVG attribute it cannot draw is logged there, e.g. "Error: <polyline>
attribute points: Expected number"), and its DOM must hold every <svg> of the file, each with
drawn content. Fails when Chromium is missing: scripts/deps installs it.

usage: render_in_browser.py ASSIGNOR EXAMPLES KAFKA_LOG WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

CHROMIUM_TIMEOUT_S = 180  # generous: the suite runs on busy machines


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def make_reports(cli, examples, log, work):
    """Each report kind from the bundled examples: (label, path, command)."""
    config = os.path.join(examples, "config.yaml")
    cluster = os.path.join(examples, "small-scale-out.yaml")
    scenarios = os.path.join(examples, "scenarios")
    out = lambda name: os.path.join(work, name)
    runs = [
        ("compare", out("compare.html"),
         [cli, "compare", "--config", config, "--cluster", cluster, "--strategies",
          "high_availability,sticky,least_movement", "--chart", "all"]),
        ("compare --simulate", out("compare-simulate.html"),
         [cli, "compare", "--config", config, "--scenarios", scenarios, "--strategies",
          "high_availability,streams_sticky", "--simulate", "--jobs", "2"]),
        ("simulate", out("simulate.html"),
         [cli, "simulate", "--config", config, "--cluster", cluster, "--restore-rate", "2000",
          "--rebalance-ms", "600000", "--output", out("simulate.jsonl")]),
        ("sweep", out("sweep.html"),
         [cli, "sweep", "--config", config, "--scenarios", scenarios, "--vary",
          "assignment.max_warmup_replicas=1,2,4", "--jobs", "2"]),
        ("replay", out("replay.html"), [cli, "replay", log]),
        ("replay --in-time", out("replay-in-time.html"),
         [cli, "replay", log, "--in-time", "--strategies", "least_movement,streams_sticky", "--jobs", "1"]),
    ]
    for label, path, command in runs:
        p = subprocess.run(command + ["--report", path], capture_output=True, text=True)
        if p.returncode not in (0, 1) or not os.path.exists(path):  # 1: a verdict, still a report
            sys.exit(f"FAIL: {label}: exit {p.returncode}, no report\n{p.stderr}")
        yield label, path


def render(browser, path):
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
               "--dump-dom", "file://" + os.path.abspath(path)]
    p = subprocess.run(command, capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT_S)
    return p.returncode, p.stdout, p.stderr


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    cli, examples, log, work = sys.argv[1:]
    browser = find_browser()
    if browser is None:
        sys.exit("FAIL: no chromium on PATH (scripts/deps installs the Debian package 'chromium')")
    os.makedirs(work, exist_ok=True)
    # The canary: a page with an SVG the browser cannot draw must be caught, or this check would
    # pass whatever the reports hold (a Chromium that logs elsewhere, a changed log format).
    canary = os.path.join(work, "canary.html")
    with open(canary, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><html><body><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9">'
                '<polyline points="1,2 x,3" stroke="red"/></svg></body></html>')
    _, _, canary_log = render(browser, canary)
    if "Error: <polyline> attribute points" not in canary_log:
        sys.exit("FAIL: Chromium did not report the canary's broken <polyline>: the check cannot see errors\n"
                 + canary_log[-2000:])
    failures = []
    for label, path in make_reports(cli, examples, log, work):
        source = open(path, encoding="utf-8").read()
        want = source.count("<svg")
        code, dom, log_text = render(browser, path)
        console = [line for line in log_text.splitlines() if ":CONSOLE" in line]
        got = len(re.findall(r"<svg[\s>]", dom))
        # Each chart drew something: a line, bar, point or (all-zero chart) its one line of text.
        empty = [m.group(0)[:80] for m in re.finditer(r"<svg[^>]*>(?:(?!</svg>).)*</svg>", dom, re.S)
                 if not re.search(r"<(polyline|rect|circle|path|line|text)\b", m.group(0))]
        problems = []
        if code != 0:
            problems.append(f"chromium exit {code}")
        if want == 0:
            problems.append("the report has no chart")
        if got != want:
            problems.append(f"{got} <svg> in the browser's DOM, {want} in the file")
        if console:
            problems.append("console: " + " | ".join(console[:5]))
        if empty:
            problems.append(f"{len(empty)} chart(s) drew nothing")
        print(f"{label:20} {path}: {want} charts, {'OK' if not problems else '; '.join(problems)}")
        if problems:
            failures.append(label)
    if failures:
        sys.exit("FAIL: " + ", ".join(failures))
    print("every report rendered")


if __name__ == "__main__":
    main()
