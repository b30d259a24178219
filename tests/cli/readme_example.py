#!/usr/bin/env python3
"""README.md's worked example must be what the command prints: runs the command the README names
(`assignor assign --config examples/config.yaml --cluster examples/small-scale-out.yaml --format
table`) and compares every line of the README's block with the output, except the timing.

Usage: readme_example.py ASSIGNOR SOURCE_DIR
"""
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    assignor, root = sys.argv[1:]
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read()
    match = re.search(r"`scripts/demo` runs .*?```\n(strategy: .*?)```", readme, re.S)
    if not match:
        print("README.md: no worked example block after '`scripts/demo` runs'")
        return 1
    expected = match.group(1).splitlines()
    run = subprocess.run([assignor, "assign", "--config", os.path.join(root, "examples/config.yaml"),
                          "--cluster", os.path.join(root, "examples/small-scale-out.yaml"), "--format", "table"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"assignor exited {run.returncode}: {run.stderr}")
        return 1
    actual = run.stdout.splitlines()
    untimed = lambda lines: [l for l in lines if not l.strip().startswith("assign_ms")]
    if untimed(expected) != untimed(actual):
        print("README.md's worked example differs from the command's output.\n--- README\n" +
              "\n".join(expected) + "\n--- command\n" + "\n".join(actual))
        return 1
    problems = story_facts(readme, os.path.join(root, "examples/small-scale-out.yaml"), actual)
    if problems:
        print("\n".join("README.md's story: " + p for p in problems))
        return 1
    print(f"README example: {len(untimed(expected))} lines equal, the cluster excerpt and the story's facts hold")
    return 0


def story_facts(readme, cluster_path, output):
    """The excerpt of the cluster file is the file's, and the story's figures and claims follow
    from the file and the output."""
    problems = []
    cluster = open(cluster_path).read()
    excerpt = re.search(r"```yaml\n(clients:.*?)```", readme, re.S)
    if not excerpt:
        return ["no cluster excerpt"]
    strip = lambda line: line.split("#")[0].rstrip()
    file_lines = {strip(l) for l in cluster.splitlines()}
    for line in excerpt.group(1).splitlines():
        if strip(line) and strip(line) not in file_lines:
            problems.append(f"excerpt line not in the cluster file: {line.strip()}")
    end = {m.group(1): int(m.group(2)) for m in
           re.finditer(r'id: "(\d+_\d+)", stores: \[\{name: \w+, changelog_end_offset: (\d+)\}', cluster)}
    sums = {m.group(1): dict(re.findall(r'"(\d+_\d+)": (-?\d+)', m.group(2))) for m in
            re.finditer(r"- id: (\w+)\n(?:    .*\n)*?    offset_sums: \{(.*?)\}", cluster)}
    def lag(client, task):
        reported = sums.get(client, {}).get(task)
        if reported is None:
            return end[task]
        return 0 if int(reported) == -2 else end[task] - int(reported)
    story = re.search(r"What happened, KIP-441 style(.*?)## Using it", readme, re.S).group(1)
    story = " ".join(story.split())
    for client, figure, task in [("beta", "75,000", "0_1"), ("gamma", "91,000", "0_2")]:
        if f"{figure} offsets for `{task}`" not in story and f"{figure} for `{task}`" not in story:
            problems.append(f"no '{figure}' for {task}")
        if f"{lag(client, task):,}" != figure:
            problems.append(f"{client} would restore {lag(client, task):,} offsets of {task}, not {figure}")
    if "its copy of `0_2` is 500 offsets behind" not in story or lag("alpha", "0_2") != 500:
        problems.append(f"alpha's copy of 0_2 is {lag('alpha', '0_2')} behind")
    if "`beta`, which was running `0_2` until now" in story and sums["beta"].get("0_2") != "-2":
        problems.append("beta was not running 0_2")
    rows = {l.split()[0]: l for l in output if l and l.split()[0] in ("alpha", "beta", "gamma")}
    if "active 0_0 0_1 0_2" not in rows.get("alpha", ""):
        problems.append("alpha does not end with the three logged actives")
    if "warmup 0_2" not in rows.get("gamma", ""):
        problems.append("gamma keeps no warmup of 0_2")
    return problems


if __name__ == "__main__":
    sys.exit(main())
