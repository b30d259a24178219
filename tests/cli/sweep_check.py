#!/usr/bin/env python3
"""`assignor sweep` through the real command (DESIGN 4.8):

  - README's sweep (max_warmup_replicas 1,2,4,8 x three strategies on the bundled scale-out) runs,
    opens with a recommendation, and its report is XHTML with a chart per figure;
  - --jobs 2 gives exactly what --jobs 1 gives;
  - three shards merged give exactly the unsharded run; a missing shard, or shards of another
    sweep, are refused;
  - a value the config refuses, and an unknown key, are exit 2 naming the --vary.

usage: sweep_check.py ASSIGNOR EXAMPLES_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from script_checks import check, status  # noqa: E402


def main():
    assignor, examples, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = [assignor, "sweep", "--config", os.path.join(examples, "config.yaml"), "--cluster",
            os.path.join(examples, "scenarios", "scale-out.json"), "--vary", "assignment.max_warmup_replicas=1,2,4,8",
            "--strategies", "high_availability,least_movement,streams_sticky"]
    report = os.path.join(work, "sweep.html")
    p = subprocess.run(base + ["--report", report], capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.startswith("recommended for scale-out: "), "the table opens with a recommendation",
          p.stdout[:300] + p.stderr[-300:])
    check(p.stdout.count("\nscale-out ") == 12, "12 runs: 4 values x 3 strategies", p.stdout)
    try:
        root = ET.parse(report).getroot()
        svgs = [e for e in root.iter() if e.tag.endswith("svg")]
        text = "".join(root.itertext())
        check(len(svgs) == 5 and text.find("recommended for scale-out") < text.find("Every run"),
              "the report: the recommendation first, then 5 charts (figures against max_warmup_replicas)", len(svgs))
    except (ET.ParseError, OSError) as e:
        check(False, "the report is XHTML", e)

    outs = {}
    for jobs in ("1", "2"):
        q = subprocess.run(base + ["--format", "json", "--jobs", jobs], capture_output=True, text=True)
        outs[jobs] = q.stdout
        check(q.returncode == 0, f"--jobs {jobs}", q.stderr)
    check(outs["1"] == outs["2"] and outs["1"], "--jobs 2 gives exactly what --jobs 1 gives")

    shards = os.path.join(work, "shards")
    os.makedirs(shards)
    for k in (1, 2, 3):
        q = subprocess.run(base + ["--format", "json", "--shard", f"{k}/3", "--output", os.path.join(shards, f"{k}.json")],
                           capture_output=True, text=True)
        check(q.returncode == 0, f"shard {k}/3", q.stderr)
    q = subprocess.run([assignor, "sweep", "--config", os.path.join(examples, "config.yaml"), "--merge", shards,
                        "--format", "json"], capture_output=True, text=True)
    check(q.returncode == 0 and json.loads(q.stdout) == json.loads(outs["1"]),
          "three shards merged are the unsharded run", q.stderr + q.stdout[:300])
    os.remove(os.path.join(shards, "2.json"))
    q = subprocess.run([assignor, "sweep", "--config", os.path.join(examples, "config.yaml"), "--merge", shards],
                       capture_output=True, text=True)
    check(q.returncode == 2 and "a shard is missing" in q.stderr, "a missing shard is refused", q.stderr)
    other = subprocess.run(base[:-2] + ["--strategies", "sticky", "--format", "json", "--shard", "2/3"],
                           capture_output=True, text=True)
    with open(os.path.join(shards, "2.json"), "w") as f:
        f.write(other.stdout)
    q = subprocess.run([assignor, "sweep", "--config", os.path.join(examples, "config.yaml"), "--merge", shards],
                       capture_output=True, text=True)
    check(q.returncode == 2 and "two different sweeps" in q.stderr, "a shard of another sweep is refused", q.stderr)

    q = subprocess.run(base[:6] + ["--vary", "assignment.max_warmup_replicas=2,0"], capture_output=True, text=True)
    check(q.returncode == 2 and "--vary assignment.max_warmup_replicas=0" in q.stderr and "must be >= 1" in q.stderr,
          "a value the config refuses: exit 2 naming it", q.stderr)
    q = subprocess.run(base[:6] + ["--vary", "assignment.max_warmups=2"], capture_output=True, text=True)
    check(q.returncode == 2 and "unknown key 'max_warmups'" in q.stderr, "an unknown key: exit 2, the nearest key", q.stderr)
    return status()


if __name__ == "__main__":
    sys.exit(main())
