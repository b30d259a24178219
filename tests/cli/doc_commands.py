#!/usr/bin/env python3
"""Every command line the documentation shows must run as shown, and print what it shows.

Reads README.md and docs/*.md from the source tree (the commands are taken from the files, never
copied into this test) and every subcommand's `--help` examples from the built command, and runs
them in a scratch directory that holds copies of examples/ and configs/ and a `build` link to the
build tree, with the built `assignor` first on PATH:

- a ```sh block runs as one bash script (set -e, pipefail) and must exit 0;
- a plain ``` block whose lines start with `$ ` is a transcript: each command runs (continuation
  lines end with `\\`; `assignor SUB ... more` repeats the previous command's arguments, then adds
  `more`), and its standard output must match the lines shown up to the next `$ ` line, where `...`
  alone on a line stands for any number of lines and `...` among words for any words; wall-clock
  figures (`assign_ms` and its min..max, `*_ms` timings printed with three decimals) are masked, as
  are paths and versions; an `assignor: error:` line shown means the command must fail with it;
- each `--help` "Example:" command runs and must exit 0.

Benchmark binaries (Google Benchmark) run with BENCHMARK_MIN_TIME=0.01 in their environment: every
benchmark a command names still runs, with every repetition it asks for, but briefly (how long a
benchmark measures is a measuring run's choice; the doc's figures come from such runs).

A ```sh block that cannot run here starts with a visible line `# not run in tests: <reason>`
(scripts/test itself, installs into $HOME, placeholders for the user's own files, benchmark runs
that take minutes); the test lists those with their reasons. Each command is capped in time.

One page at a time, so that ctest runs the pages in parallel (tests/cli/CMakeLists.txt makes one
test per page: cli.docs.README.md, cli.docs.strategies.md, ..., and cli.docs.help_examples); each
page runs in a scratch directory of its own, its blocks in order (a block may use what an earlier
block of its page made). --pages-tested fails when a page with commands to run is not among the
pages given, so that no page is left without its test.

Usage: doc_commands.py BUILD_DIR SOURCE_DIR WORK_DIR [PAGE... | --help-examples]   (none: everything)
       doc_commands.py --pages-tested SOURCE_DIR PAGE...
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys

# A guard against a hang, not a speed check: generous, because a block of docs/benchmarks.md takes
# about 75 s of CPU and the machine may be shared.
TIME_CAP_S = 1500
SKIP_MARKER = re.compile(r"^#\s*not run in tests:\s*(.+)$")
SUBCOMMANDS = ["assign", "validate", "plugins", "generate", "compare", "simulate", "import kafka-log",
               "import streams-group", "replay", "sweep"]
# The --help examples name the user's own files; these stand in for them (the test's fixtures).
STAND_INS = {
    "app.log": os.path.join("tests", "fuzz", "seeds", "kafka_log", "log4j-3.2.log"),
    "app-1.log": os.path.join("tests", "fuzz", "seeds", "kafka_log", "logback-2.6.log"),
}
APP_PROPERTIES = "application.id=orders\nnum.standby.replicas=1\nmax.warmup.replicas=2\n"
# ... and these are made for them: big.json is the 100,000-task group docs/benchmarks.md generates.
GENERATED_STAND_INS = {
    "big.json": "assignor generate --clients 1000 --threads 4 --subtopologies 10 --partitions 10000 > big.json",
}
# Pages whose every block another test runs as a reader would.
COVERED_ELSEWHERE = {
    os.path.join("docs", "writing-a-strategy.md"):
        "the whole page runs in install.authoring_guide (an installed prefix, a fresh $HOME)",
}
TIMING = re.compile(r"^\d+\.\d{3}(\.\.\d+\.\d{3})?$")


def blocks_of(path):
    """(first line number, language, body) of every fenced block."""
    text = open(path).read()
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        yield text[: m.start()].count("\n") + 1, m.group(1), m.group(2)


def mask(line):
    line = re.sub(r'("assign_ms"|"median"|"min"|"max"):\s*[0-9.e+-]+', r"\1:#", line)
    return line


def words(line):
    return ["#" if TIMING.match(w) else w for w in mask(line).split()]


def line_matches(expected, actual):
    """Word by word (spacing aside); `...` in the expected line stands for any text."""
    exp, act = " ".join(words(expected)), " ".join(words(actual))
    pattern = ".*".join(re.escape(part) for part in exp.split("..."))
    return re.fullmatch(pattern, act) is not None


def lines_match(expected, actual):
    """Line by line; a line `...` stands for any number of lines."""
    memo = {}

    def match(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == "...":
            result = any(match(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)
        memo[key] = result
        return result

    return match(0, 0)


def transcript(body):
    """(command, expected output lines) pairs of a `$ ` block."""
    pairs, lines, i = [], body.splitlines(), 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        while output and not output[-1].strip():
            output.pop()
        pairs.append((command, output))
    return pairs


def expand_ellipsis(command, previous):
    """`build/bin/assignor simulate ... --strategy x | tail -1`: the previous command's arguments
    in place of `...`."""
    if " ... " not in command or previous is None:
        return command
    head, tail = command.split(" ... ", 1)
    prev_args = previous.split("|")[0].strip()
    parts = prev_args.split(None, 2)  # program, subcommand, arguments
    return f"{head} {parts[2] if len(parts) == 3 else ''} {tail}"


class Runner:
    def __init__(self, build, source, work):
        self.build, self.source, self.work = build, source, work
        self.env = dict(os.environ, PATH=os.path.join(build, "bin") + os.pathsep + os.environ.get("PATH", ""))
        self.env.pop("ASSIGNOR_JOBS", None)
        self.env["BENCHMARK_MIN_TIME"] = "0.01"
        self.failures, self.ran, self.skipped = [], 0, []

    def prepare(self):
        if os.path.exists(self.work):
            shutil.rmtree(self.work)
        os.makedirs(self.work)
        for d in ("examples", "configs"):
            if os.path.isdir(os.path.join(self.source, d)):
                shutil.copytree(os.path.join(self.source, d), os.path.join(self.work, d))
        os.symlink(self.build, os.path.join(self.work, "build"))
        for name, fixture in STAND_INS.items():
            shutil.copy(os.path.join(self.source, fixture), os.path.join(self.work, name))
        with open(os.path.join(self.work, "app.properties"), "w") as f:
            f.write(APP_PROPERTIES)

    def run(self, script):
        """The script's CompletedProcess, or None past the time cap. It runs in a session of its own,
        so that a command that does not finish is killed with everything it started."""
        with subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script], cwd=self.work, env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) as p:
            try:
                out, err = p.communicate(timeout=TIME_CAP_S)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                return None
            return subprocess.CompletedProcess(p.args, p.returncode, out, err)

    def fail(self, where, what):
        self.failures.append(f"{where}: {what}")

    def sh_block(self, where, body):
        first = body.splitlines()[0] if body.strip() else ""
        skip = SKIP_MARKER.match(first.strip())
        if skip:
            self.skipped.append(f"{where}: {skip.group(1)}")
            return
        self.ran += 1
        run = self.run(body)
        if run is None:
            self.fail(where, f"did not finish within {TIME_CAP_S} s")
        elif run.returncode != 0:
            self.fail(where, f"exit {run.returncode}\n{run.stderr[-3000:]}")

    def transcript_block(self, where, body):
        previous = None
        for command, expected in transcript(body):
            full = expand_ellipsis(command, previous)
            previous = full
            self.ran += 1
            run = self.run(full)
            label = f"{where}: $ {command[:100]}"
            if run is None:
                self.fail(label, f"did not finish within {TIME_CAP_S} s")
                continue
            expects_error = any(line.startswith("assignor: error:") for line in expected)
            if expects_error:
                if run.returncode == 0:
                    self.fail(label, "shows an error but the command succeeded")
                    continue
                actual = (run.stdout + run.stderr).splitlines()
            else:
                if run.returncode != 0:
                    self.fail(label, f"exit {run.returncode}\n{run.stderr[-3000:]}")
                    continue
                actual = run.stdout.splitlines()
            if expected and not lines_match(expected, actual):
                self.fail(label, "output differs from the doc\n--- doc\n" + "\n".join(expected) +
                          "\n--- command\n" + "\n".join(actual))

    def help_examples(self):
        for name, command in GENERATED_STAND_INS.items():
            run = self.run(command)
            if run is None or run.returncode != 0:
                self.fail(f"the stand-in {name}", f"{command} failed")
        for sub in SUBCOMMANDS:
            run = self.run(f"assignor {sub} --help")
            if run is None or run.returncode != 0:
                self.fail(f"assignor {sub} --help", "failed")
                continue
            text = run.stdout
            m = re.search(r"^Examples?:\n(.*?)(?:\n\S|\Z)", text, re.S | re.M)
            if not m:
                continue
            commands, current, previous = [], None, None
            for line in m.group(1).splitlines():
                stripped = line.strip()
                if current is not None:
                    current = current[:-1].rstrip() + " " + stripped
                elif stripped and not stripped.startswith("#"):
                    current = stripped
                if current is not None and not current.endswith("\\"):
                    current = re.sub(r"\s+#.*$", "", current)  # a trailing comment
                    if current.startswith("assignor "):
                        current = expand_ellipsis(current, previous)
                        previous = current
                    elif " ... " in current and previous and "assignor " in current:  # for k ...; do assignor sweep ...
                        head, tail = current.split("assignor ", 1)
                        current = head + expand_ellipsis("assignor " + tail, previous)
                    commands.append(current)
                    current = None
            for command in commands:
                self.ran += 1
                run = self.run(command)
                if run is None:
                    self.fail(f"assignor {sub} --help example", f"{command}: did not finish within {TIME_CAP_S} s")
                elif run.returncode != 0:
                    self.fail(f"assignor {sub} --help example", f"{command}: exit {run.returncode}\n{run.stderr[-2000:]}")


def runnable_blocks(page):
    """The blocks of a page the test runs: ```sh / ```bash blocks and `$ ` transcripts."""
    return [(line, lang, body) for line, lang, body in blocks_of(page)
            if lang in ("sh", "bash") or (lang == "" and any(l.startswith("$ ") for l in body.splitlines()))]


def all_pages(source):
    return [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))


def pages_tested(source, names):
    """Every page with runnable blocks is one of `names` (or is covered by another test)."""
    missing = [os.path.relpath(p, source) for p in all_pages(source)
               if runnable_blocks(p) and os.path.relpath(p, source) not in set(names) | set(COVERED_ELSEWHERE)]
    for name in missing:
        print(f"FAILED {name} has commands to run but no cli.docs test: re-run CMake (tests/cli/CMakeLists.txt)")
    print(f"{len(names)} pages tested, {len(missing)} pages with commands and no test")
    return 1 if missing else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--pages-tested":
        return pages_tested(os.path.abspath(sys.argv[2]), sys.argv[3:])
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    build, source, work = (os.path.abspath(p) for p in sys.argv[1:4])
    selection = sys.argv[4:]
    runner = Runner(build, source, work)
    runner.prepare()
    pages = all_pages(source)
    if selection:
        pages = [os.path.join(source, name) for name in selection if name != "--help-examples"]
        for page in pages:
            if not os.path.isfile(page):
                print(f"FAILED {page}: no such page")
                return 1
    for page in pages:
        name = os.path.relpath(page, source)
        if name in COVERED_ELSEWHERE:
            runner.skipped.append(f"{name}: {COVERED_ELSEWHERE[name]}")
            continue
        for line, lang, body in runnable_blocks(page):
            where = f"{name}:{line}"
            if lang in ("sh", "bash"):
                runner.sh_block(where, body)
            else:
                runner.transcript_block(where, body)
    if not selection or "--help-examples" in selection:
        runner.help_examples()
    # Commands that regenerate the bundled examples must give back the same bytes.
    for path in sorted(glob.glob(os.path.join(work, "examples", "**", "*"), recursive=True)):
        rel = os.path.relpath(path, work)
        original = os.path.join(source, rel)
        if os.path.isfile(path) and os.path.isfile(original) and open(path, "rb").read() != open(original, "rb").read():
            runner.fail(rel, "the docs' commands that make it give other bytes than the file in the repository")
    for s in runner.skipped:
        print(f"not run: {s}")
    for f in runner.failures:
        print(f"FAILED {f}\n")
    print(f"{runner.ran} commands run, {len(runner.skipped)} blocks marked as not run, {len(runner.failures)} failures")
    return 1 if runner.failures else 0


if __name__ == "__main__":
    sys.exit(main())
