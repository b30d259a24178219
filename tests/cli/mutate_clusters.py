#!/usr/bin/env python3
"""Mutates the bundled cluster files and checks that `assignor assign` never does anything but
succeed with a valid assignment or exit 2 with a message naming the file.

usage: mutate_clusters.py --assignor BIN --config C [--seed N] [--count K] [--shard J/M] [--timeout S]
                          [--work DIR] FILE...

Each case i derives its own random generator from (seed, i), so a failure is reproduced with
`--seed N --only i`. A case edits one file: as bytes (bit flips, interesting characters and
tokens inserted, ranges deleted, duplicated or truncated) or as structure (the file is parsed,
then keys are deleted or renamed, values replaced by extreme or wrongly typed ones, list entries
duplicated, ids swapped or repointed, clients cloned) and written back as YAML or JSON. Then:
  exit 0 -> the output must be JSON that `assignor validate` accepts (exit 0) for that cluster;
  exit 2 -> stderr must be one 'assignor: error: ' message that names the mutated file;
  anything else (a crash, a hang past --timeout, exit 1, 3 or 4) fails the test.
Failing inputs are kept in --work for a look. --shard J/M runs the cases i with i % M == J - 1 (ctest
runs the shards in parallel; together they are the K cases of one run).
"""
import argparse
import copy
import json
import os
import random
import subprocess
import sys

import yaml

INTERESTING_BYTES = b"[]{}:,-\"'&*!|>#%@`\n\t \x00\xff09_.~\\"
INTERESTING_TOKENS = [
    "-2", "-1", "0", "-0", "1e400", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "4294967295", "4294967296", "18446744073709551616", "null", "~", "true", "no", "0x1F", "0o17", ".inf",
    "&a ", "*a", "!!str ", "!!binary ", "<<: ", "? ", "--- ", "...", "\"\\u0000\"", "'", "{", "[", "2147483647_0",
    "0_2147483648", "00_01", "1_-1", " #",
]
EXTREME_VALUES = [
    -2, -1, 0, 1, 2, 3, 1023, 1024, 1025, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1, -(2**63),
    0.5, -0.0, 1e300, "", "0_0", "0_1", "1_0", "9_9", "x", "-2", "é", "a" * 2000, None, True, False, [], {},
    ["0_0"], {"0_0": -2}, [[[]]],
]


def byte_mutation(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        pos = rng.randrange(len(data) + 1) if data else 0
        if op == 0 and data:  # flip one bit
            p = rng.randrange(len(data))
            data[p] ^= 1 << rng.randrange(8)
        elif op == 1 and data:  # an interesting byte in place of another
            data[rng.randrange(len(data))] = rng.choice(INTERESTING_BYTES)
        elif op == 2:  # an interesting token inserted
            data[pos:pos] = rng.choice(INTERESTING_TOKENS).encode()
        elif op == 3 and data:  # a range deleted
            end = min(len(data), pos + rng.randint(1, 64))
            del data[pos:end]
        elif op == 4 and data:  # a range duplicated
            start = rng.randrange(len(data))
            end = min(len(data), start + rng.randint(1, 200))
            data[pos:pos] = data[start:end]
        elif op == 5 and data:  # truncated
            del data[rng.randrange(len(data)):]
        else:  # random bytes
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(data)


def containers(node, path=()):
    """Every (path, container) in a parsed document, the root included."""
    out = []
    if isinstance(node, (dict, list)):
        out.append((path, node))
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            out.extend(containers(v, path + (k,)))
    return out


def task_ids(doc):
    try:
        return [t["id"] for t in doc.get("tasks") or [] if isinstance(t, dict) and "id" in t]
    except (AttributeError, TypeError):
        return []


def structure_mutation(rng, doc):
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        spots = containers(doc)
        if not spots:
            return doc
        path, node = rng.choice(spots)
        op = rng.randrange(10)
        ids = task_ids(doc) or ["0_0"]
        if isinstance(node, dict) and node:
            key = rng.choice(list(node))
            if op == 0:
                del node[key]
            elif op == 1:
                node[key] = copy.deepcopy(rng.choice(EXTREME_VALUES))
            elif op == 2:
                node[key + "x" if isinstance(key, str) else "x"] = node[key]  # an unknown key
            elif op == 3 and key == "offset_sums" and isinstance(node[key], dict):
                node[key][rng.choice(ids)] = rng.choice([-2, -3, 2**63 - 1, -(2**63), 0, 10**18])
            elif op == 4 and key in ("previous_active", "previous_standby") and isinstance(node[key], list):
                node[key].append(rng.choice(ids))
            elif op == 5 and key == "threads":
                node[key] = rng.choice([0, 1, 2, 1024, 1025, 2**32 - 1, 2**32, -1])
            elif op == 6 and key == "id":
                node[key] = rng.choice(ids + ["", "0_", "_0", "a_b", "0_0_0", "2147483648_0"])
            elif op == 7 and key == "stores" and isinstance(node[key], list):
                node[key].append({"name": "extra", "changelog_end_offset": rng.choice([0, 2**63 - 1, -5])})
            else:
                node[key] = [node[key]] if rng.random() < 0.5 else {"k": node[key]}
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if op < 3:
                node.insert(rng.randrange(len(node) + 1), copy.deepcopy(node[i]))  # duplicate an entry
            elif op < 5:
                del node[i]
            elif op < 7 and len(node) > 1:
                j = rng.randrange(len(node))
                node[i], node[j] = node[j], node[i]
            else:
                node[i] = copy.deepcopy(rng.choice(EXTREME_VALUES))
        elif isinstance(node, list):
            node.append(copy.deepcopy(rng.choice(EXTREME_VALUES)))
    if isinstance(doc, dict) and isinstance(doc.get("clients"), list) and doc["clients"] and rng.random() < 0.2:
        clone = copy.deepcopy(rng.choice(doc["clients"]))
        if isinstance(clone, dict) and rng.random() < 0.5:
            clone["id"] = f"{clone.get('id')}-clone"
        doc["clients"].append(clone)
    return doc


def plausible_mutation(rng, doc):
    """Edits that keep the file valid more often than not, so that the strategies run on odd
    but legal clusters: clients leave or lose their state, threads and offsets change, tasks
    change hands, end offsets become unknown."""
    doc = copy.deepcopy(doc)
    clients = [c for c in doc.get("clients") or [] if isinstance(c, dict)]
    ids = task_ids(doc)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        if op == 0 and len(clients) > 1:
            victim = rng.choice(clients)
            clients.remove(victim)
            doc["clients"] = clients
        elif op == 1 and clients:
            c = rng.choice(clients)
            for key in ("previous_active", "previous_standby", "offset_sums", "previous_by_thread"):
                c.pop(key, None)
        elif op == 2 and clients:
            rng.choice(clients)["threads"] = rng.choice([1, 2, 3, 8, 64])
        elif op == 3 and clients and ids:
            c = rng.choice(clients)
            sums = c.setdefault("offset_sums", {})
            if isinstance(sums, dict):
                sums[rng.choice(ids)] = rng.choice([-2, 0, 1, 9999, 10001, 10**6, 2**62, -7])
        elif op == 4:
            doc["end_offsets_known"] = rng.random() < 0.5
        elif op == 5 and clients:
            clone = {"id": f"new-{rng.randrange(10**6)}", "threads": rng.randint(1, 4)}
            if rng.random() < 0.5 and doc.get("clients") and isinstance(clients[0].get("rack"), str):
                clone["rack"] = clients[0]["rack"]
            clients.append(clone)
            doc["clients"] = clients
        elif op == 6:
            for t in doc.get("tasks") or []:
                if isinstance(t, dict) and isinstance(t.get("stores"), list) and rng.random() < 0.3:
                    for st in t["stores"]:
                        if isinstance(st, dict) and "changelog_end_offset" in st:
                            st["changelog_end_offset"] = rng.choice([0, 1, 10**4, 2**63 - 1])
    return doc


NOT_YAML = object()
PARSED = {}  # source bytes -> its document, parsed once (the mutations work on deep copies)


def parsed(data):
    if data not in PARSED:
        try:
            PARSED[data] = yaml.safe_load(data)
        except yaml.YAMLError:
            PARSED[data] = NOT_YAML
    return PARSED[data]


def mutate(rng, data, suffix):
    roll = rng.random()
    if roll < 0.45:
        return byte_mutation(rng, data)
    doc = parsed(data)
    if doc is NOT_YAML:
        return byte_mutation(rng, data)
    doc = plausible_mutation(rng, doc) if roll < 0.7 and isinstance(doc, dict) else structure_mutation(rng, doc)
    if suffix == ".json" or rng.random() < 0.3:
        return json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode()
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode()


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def check_case(args, index, files):
    rng = random.Random(args.seed * 1_000_003 + index)
    source = rng.choice(files)
    suffix = os.path.splitext(source)[1]
    with open(source, "rb") as f:
        data = mutate(rng, f.read(), suffix)
    name = f"case-{args.seed}-{index}{suffix}"
    path = os.path.join(args.work, name)
    out = path + ".out.json"
    with open(path, "wb") as f:
        f.write(data)
    status, _, err = run([args.assignor, "assign", "--config", args.config, "--cluster", path, "--output", out],
                         args.timeout)
    problem = None
    if status == 0:
        vstatus, vout, verr = run([args.assignor, "validate", "--cluster", path, "--assignment", out,
                                   "--config", args.config], args.timeout)
        if vstatus != 0:
            problem = f"assign exited 0 but validate exited {vstatus}:\n{vout[-2000:]}{verr[-2000:]}"
    elif status == 2:
        lines = [line for line in err.splitlines() if line.startswith("assignor: error: ")]
        if not lines:
            problem = f"exit 2 without an 'assignor: error:' message:\n{err[-2000:]}"
        elif name not in lines[0]:
            problem = f"exit 2 but the message does not name the file:\n{lines[0][:2000]}"
    elif status == "timeout":
        problem = f"no answer within {args.timeout} s"
    elif isinstance(status, int) and status < 0:
        problem = f"killed by signal {-status}:\n{err[-3000:]}"
    else:
        problem = f"exit status {status}:\n{err[-3000:]}"
    if problem is None:
        for p in (path, out):
            if os.path.exists(p):
                os.remove(p)
        return status, None
    return status, f"case {index} (from {os.path.basename(source)}, kept as {path}): {problem}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assignor", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--only", type=int, help="run this one case")
    ap.add_argument("--shard", default="1/1", help="J/M: the cases i with i %% M == J - 1 (default 1/1: all)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--work", default="mutations")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    shard, shards = (int(x) for x in args.shard.split("/"))
    if not 1 <= shard <= shards:
        ap.error(f"--shard {args.shard}: J must be 1 to M")
    cases = [args.only] if args.only is not None else [i for i in range(args.count) if i % shards == shard - 1]
    counts = {}
    failures = []
    for i in cases:
        status, failure = check_case(args, i, args.files)
        counts[status] = counts.get(status, 0) + 1
        if failure:
            failures.append(failure)
            print("FAIL:", failure, flush=True)
    summary = ", ".join(f"exit {k}: {v}" for k, v in sorted(counts.items(), key=lambda kv: str(kv[0])))
    print(f"mutate_clusters: {len(cases)} cases (seed {args.seed}): {summary}")
    print(f"{len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
