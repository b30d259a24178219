#!/usr/bin/env python3
"""Memory is bounded by the input: for inputs accepted and refused, the command's peak resident
memory (the kernel's own count, ru_maxrss: no timing involved) stays under 10 x the file's size
plus 100 MB (the generated 100k-task cluster, accepted: under 80 MiB for the whole run), and
running out of memory is exit 2 with a message, never a crash or exit 1.

Cases: a YAML and a JSON file that are one long list of one-character items (refused while being
read), a generated 100k-task cluster (accepted), /dev/zero under a 64 MiB size limit (refused at
the limit), 100,000 clients x 8 threads with one task (accepted; its output ~100 bytes a client),
20 MB of flow-style YAML (JSON behind a comment, and plain flow YAML: refused), 1e8 standbys on
the bundled example (accepted), and the 100k-task file under an address-space limit too small for
it (exit 2).

Usage: memory_bounds.py ASSIGNOR CONFIG WORK_DIR [--sanitizer]
  --sanitizer: an AddressSanitizer build (its shadow memory is not the input's doing, and it cannot
               run under an address-space limit): check the exits and messages only.
"""
import os
import resource
import subprocess
import sys

sys.dont_write_bytecode = True  # importing script_checks leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import script_checks  # noqa: E402

MB = 1 << 20


# Runs `cmd` from a fresh Python process that prints the command's peak resident memory: the
# kernel's ru_maxrss for children is the largest of any child so far, so each case needs its own.
PEAK = ("import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:])\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, p.returncode)\n")


def run(cmd, limit_as=None):
    def preexec():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
    p = subprocess.run([sys.executable, "-c", PEAK, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, preexec_fn=preexec, timeout=600)
    peak, status = (int(x) for x in p.stdout.split()[-2:])
    p.returncode = status
    return p, peak


def main():
    (assignor, config, work), flags = script_checks.arguments(__doc__, 3, flags=("--sanitizer",))
    sanitizer = "--sanitizer" in flags
    os.makedirs(work, exist_ok=True)
    n = 8 * MB // 3
    long_yaml = os.path.join(work, "long.yaml")
    with open(long_yaml, "w") as f:
        f.write("tasks: [" + "a," * (n * 3 // 2) + "a]\nclients: [{id: c, threads: 1}]\n")
    long_json = os.path.join(work, "long.json")
    with open(long_json, "w") as f:
        f.write('{"tasks": [' + '1,' * (n * 3 // 2) + '1], "clients": [{"id": "c", "threads": 1}]}\n')
    big = os.path.join(work, "big.json")
    with open(big, "w") as f:
        subprocess.run([assignor, "generate", "--clients", "1000", "--threads", "4", "--subtopologies", "100",
                        "--partitions", "1000", "--scenario", "scale-out", "--seed", "1"], stdout=f, check=True)
    # Issue 24: 100,000 clients x 8 threads holding one task (was 219 MB and 90 MB of output, mostly
    # empty threads); 20 MB of flow-style YAML (was 2.7 GB), as JSON behind a comment and as plain
    # flow YAML; a standby count far above the clients (1e8 took 3.4 GB).
    many_clients = os.path.join(work, "100k-clients.json")
    with open(many_clients, "w") as f:
        f.write('{"version": 1, "tasks": [{"id": "0_0"}], "clients": [' +
                ", ".join(f'{{"id": "c{i}", "threads": 8}}' for i in range(100000)) + "]}\n")
    flow_json = os.path.join(work, "flow-json.yaml")
    with open(flow_json, "w") as f:
        f.write('# written by a JSON-minded tool\n{"tasks": [' + "0," * (10_000_000 - 1) + '0], '
                '"clients": [{"id": "c", "threads": 1}]}\n')
    flow_yaml = os.path.join(work, "flow.yaml")
    with open(flow_yaml, "w") as f:
        f.write("{tasks: [" + "0," * (10_000_000 - 1) + "0], clients: [{id: c, threads: 1}]}\n")
    huge_standbys = os.path.join(work, "huge-standbys.yaml")
    with open(huge_standbys, "w") as f:
        f.write("strategy: high_availability\nassignment: {num_standby_replicas: 100000000}\n")
    small_limit = os.path.join(work, "small-limit.yaml")
    with open(config) as src, open(small_limit, "w") as dst:
        dst.write(src.read() + "limits: {max_file_mb: 64}\n")

    cases = [  # name, file, config, expected exit, stderr text, size that counts, bound (default 10 x size + 100 MiB)
        ("one-character list (YAML)", long_yaml, config, 2, "the document would need more than", None, None),
        ("one-character list (JSON)", long_json, config, 2, "the document would need more than", None, None),
        # The whole run (read, assign, metrics, write) within issue 15's 80 MB target (66 MB measured).
        ("100k tasks x 1,000 clients", big, config, 0, "", None, 80 * MB),
        ("/dev/zero, 64 MiB limit", "/dev/zero", small_limit, 2, "too large (more than 67108864 bytes)", 64 * MB, None),
        ("100,000 clients x 8 threads, one task", many_clients, config, 0, "", None, None),
        ("20 MB flow-style YAML, JSON behind a comment", flow_json, config, 2, "the document would need more than",
         None, None),
        ("20 MB flow-style YAML", flow_yaml, config, 2, "this flow collection", None, None),
        ("num_standby_replicas 1e8 on the example", os.path.join(os.path.dirname(config), "small-scale-out.yaml"),
         huge_standbys, 0, "", None, None),
    ]
    failures = 0
    out = os.path.join(work, "out.json")
    for name, path, cfg, status, text, size, bound in cases:
        p, peak = run([assignor, "assign", "--config", cfg, "--cluster", path, "--output", out])
        size = size or os.path.getsize(path)
        bound = bound or 10 * size + 100 * MB
        ok = p.returncode == status and text in p.stderr and (sanitizer or peak <= bound)
        if ok and path == many_clients:  # output proportional to what is assigned: ~100 bytes a client
            written = os.path.getsize(out)
            ok = written <= 120 * 100000
            name += f" (output {written // MB} MiB)"
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {p.returncode} (want {status}), peak {peak // MB} MiB "
              f"(bound {bound // MB} MiB){'' if ok else ', stderr: ' + p.stderr.strip()[:300]}")
    if not sanitizer:
        # 64 MiB of address space: less than reading the 9.8 MB file takes (simdjson reserves 4 bytes
        # of index and 1.7 of string space per byte of text). The whole run needs about 100 MiB
        # since the JSON fast path; 120 MiB no longer ran out.
        p, _ = run([assignor, "assign", "--config", config, "--cluster", big, "--output", os.devnull],
                      limit_as=64 * MB)
        ok = p.returncode == 2 and "ran out of memory" in p.stderr
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} out of memory: exit {p.returncode} (want 2): {p.stderr.strip()[:200]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
