#!/usr/bin/env python3
"""An independent implementation of `assignor generate`, written from docs/generation.md alone.

usage: generate_reference.py --clients N --threads T --subtopologies S --partitions P
           [--stateful-fraction X] [--nonlogged-fraction Y] [--standbys K] [--racks R]
           [--scenario fresh|scale-out|scale-in|rolling-restart] [--seed SEED] [--end-offsets-unknown]
           [--weights uniform|zipf] [--new-clients D | --leaving-clients D] [--changelog-offsets MIN-MAX] [--tags KEY=N,...]
           (--threads T or LO-HI)

Writes the cluster file to stdout. The command-line tests compare its bytes with the command's: if
they differ, either the command or the document is wrong. Argument checking is minimal on purpose.
"""
import argparse
import math
import sys

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    def __init__(self, seed, phase):
        self.state = mix(seed ^ ((phase * GAMMA) & MASK))

    def next(self):
        self.state = (self.state + GAMMA) & MASK
        return mix(self.state)

    def below(self, n):
        threshold = ((1 << 64) - n) % n
        while True:
            x = self.next()
            if x >= threshold:
                return x % n

    def between(self, lo, hi):
        return lo + self.below(hi - lo + 1)


def picked(i, k, n):
    return (i + 1) * k // n > i * k // n


def span(text):
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def generate(a):
    S, P, N, K, R = a.subtopologies, a.partitions, a.clients, a.standbys, a.racks
    tags = [(kv.split("=")[0], int(kv.split("=")[1])) for kv in a.tags.split(",") if kv]
    T_LO, T_HI = span(a.threads)
    E_LO, E_HI = span(a.changelog_offsets)
    F = math.floor(float(S) * a.stateful_fraction + 0.5)
    G = math.floor(float(F) * a.nonlogged_fraction + 0.5)

    stores_rng = Stream(a.seed, 1)
    shape = {}  # s -> (stores, logged)
    j = 0
    for s in range(S):
        if not picked(s, F, S):
            continue
        logged = not picked(j, G, F)
        j += 1
        shape[s] = (1 + stores_rng.below(2), logged)

    offsets_rng = Stream(a.seed, 2)
    racks_rng = Stream(a.seed, 3)
    tasks = []  # (id, stores [(name, end or None)], racks or None, E, stateful, logged)
    for s in range(S):
        for p in range(P):
            stores = []
            if s in shape:
                n, logged = shape[s]
                for k in range(n):
                    end = offsets_rng.between(E_LO, E_HI) if logged else None
                    stores.append((f"store-{s}-{k}", end))
            racks = None
            if R > 0:
                if R < 3:
                    racks = list(range(R))
                else:
                    x = racks_rng.below(R)
                    y = (x + 1 + racks_rng.below(R - 1)) % R
                    racks = [min(x, y), max(x, y)]
            E = sum(e for _, e in stores if e is not None)
            has_logged = any(e is not None for _, e in stores)
            tasks.append((f"{s}_{p}", stores, racks, E, bool(stores), has_logged, s, p))

    # Weights in hundredths (100 = weight 1, not written).
    hundredths = [100] * (S * P)
    if a.weights == "zipf":
        weights_rng = Stream(a.seed, 6)
        for s in range(S):
            by_rank = list(range(P))
            for i in range(P - 1, 0, -1):
                jj = weights_rng.below(i + 1)
                by_rank[i], by_rank[jj] = by_rank[jj], by_rank[i]
            for k in range(1, P + 1):
                hundredths[s * P + by_rank[k - 1]] = max(1, (2000 + k) // (2 * k))

    width = max(4, len(str(N - 1)))
    threads_rng = Stream(a.seed, 7)
    clients = [{"id": f"client-{i:0{width}d}", "active": [], "standby": [], "sums": [],
                "threads": threads_rng.between(T_LO, T_HI) if T_HI > T_LO else T_LO} for i in range(N)]

    if a.scenario != "fresh":
        D = a.new_clients or a.leaving_clients or max(1, (N + 5) // 10)
        if a.scenario == "scale-out":
            L, M = N, N - D
        elif a.scenario == "scale-in":
            L = M = N + D
        else:
            L = M = N
        members = Stream(a.seed, 4)
        slot = list(range(L))
        for i in range(L - 1, 0, -1):
            jj = members.below(i + 1)
            slot[i], slot[jj] = slot[jj], slot[i]
        restarted = slot[0] if a.scenario == "rolling-restart" else None
        Kp = min(K, M - 1)
        lags = Stream(a.seed, 5)
        for t, (tid, stores, racks, E, stateful, has_logged, s, p) in enumerate(tasks):
            assert t == s * P + p
            act = slot[t % M]
            present = act < N
            running = present and act != restarted
            if running:
                clients[act]["active"].append(tid)
            if not stateful:
                continue
            if not has_logged:
                if running:
                    clients[act]["sums"].append((tid, -2))
                elif act == restarted:
                    clients[act]["sums"].append((tid, 0))
                continue
            r = lags.below(5001)
            if running:
                clients[act]["sums"].append((tid, -2))
            elif act == restarted:
                clients[act]["sums"].append((tid, max(0, E - r)))
            for jcopy in range(1, Kp + 1):
                c = lags.below(10)
                lag = lags.between(10001, 50000) if (c == 0 and present) else lags.below(5001)
                h = slot[(t + jcopy) % M]
                if h < N:
                    clients[h]["sums"].append((tid, max(0, E - lag)))
                    if h != restarted:
                        clients[h]["standby"].append(tid)

    out = []
    out.append('{"version": 1, "end_offsets_known": %s,\n' % ("false" if a.end_offsets_unknown else "true"))
    out.append('"tasks": [\n')
    lines = []
    for t, (tid, stores, racks, E, stateful, has_logged, s, p) in enumerate(tasks):
        line = '{"id": "%s"' % tid
        if stores:
            items = []
            for name, end in stores:
                if end is None:
                    items.append('{"name": "%s", "logged": false}' % name)
                else:
                    items.append('{"name": "%s", "changelog_end_offset": %d}' % (name, end))
            line += ', "stores": [' + ", ".join(items) + "]"
        h = hundredths[t]
        if h != 100:
            whole, cents = divmod(h, 100)
            line += ', "weight": %d' % whole
            if cents:
                line += ("." + "%02d" % cents).rstrip("0")
        if racks is not None:
            line += ', "partitions": [{"topic": "topic-%d", "partition": %d' % (s, p)
            if racks:
                line += ', "racks": [' + ", ".join(sorted('"rack-%d"' % r for r in racks)) + "]"
            line += "}]"
        lines.append(line + "}")
    out.append(",\n".join(lines))
    out.append('\n],\n"clients": [\n')
    lines = []
    for i, c in enumerate(clients):
        line = '{"id": "%s", "threads": %d' % (c["id"], c["threads"])
        if R > 0:
            line += ', "rack": "rack-%d"' % (i % R)
        if tags:
            values, digit = {}, (i // R if R > 0 else i)
            for key, n in tags:  # mixed radix after the rack, first key fastest
                values[key] = "%s-%d" % (key, digit % n)
                digit //= n
            line += ', "tags": {' + ", ".join('"%s": "%s"' % (k, values[k]) for k in sorted(values)) + "}"
        for key, lst in (("previous_active", c["active"]), ("previous_standby", c["standby"])):
            if lst:
                line += ', "%s": [' % key + ", ".join('"%s"' % x for x in lst) + "]"
        if c["sums"]:
            line += ', "offset_sums": {' + ", ".join('"%s": %d' % kv for kv in c["sums"]) + "}"
        lines.append(line + "}")
    out.append(",\n".join(lines))
    out.append("\n]}\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, required=True)
    ap.add_argument("--threads", required=True)
    ap.add_argument("--subtopologies", type=int, required=True)
    ap.add_argument("--partitions", type=int, required=True)
    ap.add_argument("--stateful-fraction", type=float, default=0.5)
    ap.add_argument("--nonlogged-fraction", type=float, default=0.0)
    ap.add_argument("--standbys", type=int, default=1)
    ap.add_argument("--racks", type=int, default=0)
    ap.add_argument("--scenario", default="fresh", choices=["fresh", "scale-out", "scale-in", "rolling-restart"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--end-offsets-unknown", action="store_true")
    ap.add_argument("--weights", default="uniform", choices=["uniform", "zipf"])
    ap.add_argument("--new-clients", type=int)
    ap.add_argument("--leaving-clients", type=int)
    ap.add_argument("--changelog-offsets", default="10000-1000000")
    ap.add_argument("--tags", default="")
    sys.stdout.write(generate(ap.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
