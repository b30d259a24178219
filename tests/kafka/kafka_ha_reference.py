#!/usr/bin/env python3
"""An independent, deliberately literal model of Kafka Streams 3.x's HighAvailabilityTaskAssignor.

Written from Kafka's published source (the class's steps as Kafka takes them) and Kafka's behaviour,
not from our C++: it keeps Kafka's data structures where they can change a result, which the C++
strategy replaces by faster equivalents:
  - balanceTasksOverThreads as Kafka's full quadratic passes over every ordered client pair, with
    loads as IEEE doubles (count / capacity);
  - ConstrainedPrioritySet as a java.util.PriorityQueue binary heap whose comparator reads the
    clients' *current* loads (so an entry whose load changed while queued behaves as in Java),
    invalid polled clients offered back in client order;
  - the movement queues as java.util.PriorityQueue heaps polled one by one.
Client ids stand for Kafka's UUIDs in the same order. Rack awareness and client tags are not
modelled (the golden answers were recorded with both off).

Used by tests/kafka/CMakeLists.txt: checked against Kafka's recorded answers (tests/data/kafka-golden),
then compared with `assignor assign --strategy high_availability` on generated clusters neither has
seen. Usage: kafka_ha_reference.py CLUSTER.json|yaml CONFIG.yaml  -> JSON on stdout.
"""
import json
import sys

import yaml

LATEST_OFFSET = -2
UNKNOWN_OFFSET_SUM = -3
LONG_MAX = 2**63 - 1


def task_key(task_id):
    s, p = task_id.split("_")
    return (int(s), int(p))


class JavaPriorityQueue:
    """java.util.PriorityQueue: array heap, siftUp on offer, siftDown on poll, removeAt on remove."""

    def __init__(self, compare):
        self.q = []
        self.compare = compare  # compare(a, b) -> negative, 0, positive, evaluated when called

    def __len__(self):
        return len(self.q)

    def offer(self, x):
        self.q.append(x)
        self._sift_up(len(self.q) - 1, x)

    def poll(self):
        if not self.q:
            return None
        result = self.q[0]
        x = self.q.pop()
        if self.q:
            self._sift_down(0, x)
        return result

    def remove(self, o):
        for i, e in enumerate(self.q):
            if e == o:
                self._remove_at(i)
                return True
        return False

    def _remove_at(self, i):
        s = len(self.q) - 1
        if s == i:
            self.q.pop()
            return
        moved = self.q.pop()
        self._sift_down(i, moved)
        if self.q[i] == moved:
            self._sift_up(i, moved)

    def _sift_up(self, k, x):
        while k > 0:
            parent = (k - 1) >> 1
            e = self.q[parent]
            if self.compare(x, e) >= 0:
                break
            self.q[k] = e
            k = parent
        self.q[k] = x

    def _sift_down(self, k, x):
        n = len(self.q)
        half = n >> 1
        while k < half:
            child = 2 * k + 1
            c = self.q[child]
            right = child + 1
            if right < n and self.compare(c, self.q[right]) > 0:
                child = right
                c = self.q[child]
            if self.compare(x, c) <= 0:
                break
            self.q[k] = c
            k = child
        self.q[k] = x


def cmp(a, b):
    return (a > b) - (a < b)


class ConstrainedPrioritySet:
    def __init__(self, constraint, weight):
        self.constraint = constraint
        self.pq = JavaPriorityQueue(lambda a, b: cmp(weight(a), weight(b)) or cmp(a, b))
        self.unique = set()

    def poll(self, task, extra=lambda c: True):
        invalid = []
        while len(self.pq):
            c = self.pq.poll()
            self.unique.discard(c)
            if self.constraint(c, task) and extra(c):
                self.offer_all(sorted(invalid))
                return c
            invalid.append(c)
        self.offer_all(sorted(invalid))
        return None

    def offer_all(self, clients):
        for c in clients:
            self.offer(c)

    def offer(self, c):
        if c in self.unique:
            self.pq.remove(c)
        else:
            self.unique.add(c)
        self.pq.offer(c)


class Client:
    def __init__(self, capacity):
        self.capacity = capacity
        self.active = set()
        self.standby = set()
        self.lag = {}

    def count(self):
        return len(self.active) + len(self.standby)

    def load(self):
        return self.count() / self.capacity

    def active_load(self):
        return len(self.active) / self.capacity

    def holds(self, t):
        return t in self.active or t in self.standby


def should_move(src, dst):
    skew = src.load() - dst.load()
    if skew <= 0:
        return False
    proposed = (src.count() - 1.0) / src.capacity - (dst.count() + 1.0) / dst.capacity
    return proposed >= 0 and proposed < skew


def balance_over_threads(clients, order, role):
    keep = True
    while keep:
        keep = False
        for s in order:
            for d in order:
                if s == d:
                    continue
                src, dst = clients[s], clients[d]
                tasks = iter(sorted(getattr(src, role)))
                while should_move(src, dst):
                    t = next(tasks, None)
                    if t is None:
                        break
                    if not dst.holds(t):
                        getattr(src, role).remove(t)
                        getattr(dst, role).add(t)
                        keep = True


def assign(cluster, config):
    settings = {"acceptable_recovery_lag": 10000, "max_warmup_replicas": 2, "num_standby_replicas": 0}
    settings.update((config or {}).get("assignment") or {})
    tasks = {}
    for t in cluster["tasks"]:
        stores = t.get("stores") or []
        logged = [s for s in stores if s.get("logged", True)]
        end = min(sum(s.get("changelog_end_offset", 0) for s in logged), LONG_MAX)
        tasks[task_key(t["id"])] = (t["id"], bool(logged), end)
    all_tasks = sorted(tasks)
    stateful = [t for t in all_tasks if tasks[t][1]]
    ids = sorted(c["id"] for c in cluster["clients"])
    index = {cid: i for i, cid in enumerate(ids)}
    clients = [None] * len(ids)
    for c in cluster["clients"]:
        state = Client(c.get("threads", 1))
        sums = {task_key(k): v for k, v in (c.get("offset_sums") or {}).items()}
        for t in stateful:
            end = tasks[t][2]
            offset = sums.get(t, 0)
            if offset in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM):
                state.lag[t] = offset
            elif offset < 0 or end < offset:
                state.lag[t] = end  # suspect (negatives other than the sentinels never reach Kafka)
            else:
                state.lag[t] = end - offset
        clients[index[c["id"]]] = state
    order = list(range(len(ids)))
    acceptable = settings["acceptable_recovery_lag"]

    # Stateful actives: round-robin, then pairwise balancing.
    for i, t in enumerate(stateful):
        clients[order[i % len(order)]].active.add(t)
    balance_over_threads(clients, order, "active")

    # Standbys: least loaded without a copy, then pairwise balancing.
    standbys = settings["num_standby_replicas"]
    if standbys > 0:
        cps = ConstrainedPrioritySet(lambda c, t: not clients[c].holds(t), lambda c: clients[c].load())
        cps.offer_all(order)
        for t in stateful:
            for _ in range(standbys):
                c = cps.poll(t)
                if c is None:
                    break
                clients[c].standby.add(t)
                cps.offer(c)
        balance_over_threads(clients, order, "standby")

    def caught_up(c, t):
        lag = clients[c].lag[t]
        return lag == LATEST_OFFSET or acceptable == LONG_MAX or 0 <= lag <= acceptable

    caught = {t: [c for c in order if caught_up(c, t)] for t in stateful}
    by_lag = {t: sorted(order, key=lambda c: (clients[c].lag[t], c)) for t in stateful}

    def needs_move(t, c):
        return not caught_up(c, t) and clients[by_lag[t][0]].lag[t] < clients[c].lag[t]

    def most_caught_up(t, dest, ok=lambda c: True):
        for c in by_lag[t]:
            if c == dest:
                return None
            if ok(c):
                return c
        return None

    remaining = [settings["max_warmup_replicas"]]

    def take_warmup():
        remaining[0] -= 1
        return remaining[0] + 1 > 0

    warmups = {c: set() for c in order}
    movement_order = lambda a, b: cmp(a[0], b[0]) or cmp(a[1], b[1])

    # Active movements.
    cps = ConstrainedPrioritySet(lambda c, t: caught_up(c, t), lambda c: clients[c].load())
    queue = JavaPriorityQueue(movement_order)
    for c in order:
        for t in sorted(clients[c].active):
            if needs_move(t, c):
                queue.offer((len(caught[t]), t, c))
        cps.offer(c)
    active_moves = len(queue)
    while len(queue):
        _, t, dest = queue.poll()
        src = cps.poll(t, lambda c: t in clients[c].standby)
        if src is not None:
            swap = True
        else:
            src = cps.poll(t)
            swap = False
            if src is None:
                src = most_caught_up(t, dest)
                swap = t in clients[src].standby
        if swap:
            clients[src].standby.remove(t)
            clients[src].active.add(t)
            clients[dest].active.remove(t)
            clients[dest].standby.add(t)
        else:
            clients[src].active.add(t)
            clients[dest].active.remove(t)
            if take_warmup():
                clients[dest].standby.add(t)
                warmups[dest].add(t)
        cps.offer_all([src, dest])

    # Standby movements.
    cps = ConstrainedPrioritySet(lambda c, t: caught_up(c, t), lambda c: clients[c].load())
    queue = JavaPriorityQueue(movement_order)
    for c in order:
        for t in sorted(clients[c].standby):
            if t not in warmups[c] and needs_move(t, c):
                queue.offer((len(caught[t]), t, c))
        cps.offer(c)
    standby_moves = 0
    while len(queue):
        _, t, dest = queue.poll()
        eligible = lambda c: not clients[c].holds(t)
        src = cps.poll(t, eligible)
        if src is None:
            src = most_caught_up(t, dest, eligible)
        if src is None:
            continue
        clients[src].standby.add(t)
        if take_warmup():
            warmups[dest].add(t)
        else:
            clients[dest].standby.remove(t)
        cps.offer_all([src, dest])
        standby_moves += 1

    # Every other task by active load.
    cps = ConstrainedPrioritySet(lambda c, t: True, lambda c: clients[c].active_load())
    cps.offer_all(order)
    for t in all_tasks:
        if not tasks[t][1]:
            c = cps.poll(t)
            clients[c].active.add(t)
            cps.offer(c)

    name = lambda ts: [tasks[t][0] for t in sorted(ts)]
    return {
        "assignment": {
            ids[c]: {
                "active": name(clients[c].active),
                "standby": name(clients[c].standby - warmups[c]),
                "warmup": name(warmups[c]),
            }
            for c in order
        },
        "probing_rebalance_needed": active_moves + standby_moves > 0,
    }


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        cluster = yaml.safe_load(f)
    with open(sys.argv[2]) as f:
        config = yaml.safe_load(f)
    json.dump(assign(cluster, config), sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
