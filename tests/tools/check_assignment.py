#!/usr/bin/env python3
"""An assignment checker written from the contract alone (DESIGN 4.1 cluster file, 4.4 assignment
output, 4.5 metrics; the domain rules of DESIGN 2), never from the SDK or the host: it imports
neither and runs neither, so that the tests that call it compare two implementations.

usage: check_assignment.py CLUSTER ASSIGNMENT [--kind ha|any] [--lag L] [--standbys K]
                           [--warmups W] [--balanced] [--metrics] [--tags KEY,KEY]

Checks, on every assignment (each broken rule is one line naming the client and the task):
  - every client of the cluster file is in the output and no other; each role list holds known
    tasks, once, in task order (sub-topology, then partition); a task has one role on a client;
  - a client's `threads` split, when given, holds exactly the client's tasks, each on one thread,
    over no more threads than the client has;
  - every task has exactly one active client;
  - standby and warmup copies only of tasks with at least one logged store (nothing else can be
    restored); at most K standbys of a task; at most W warmups in all.
With --kind ha (the high-availability contract, the default):
  - exactly min(K, clients - 1) standbys of every task with a logged store;
  - the high-availability property: a stateful active sits on a caught-up client (running, or lag
    at most L) whenever the task has one; with end offsets unknown, every previous active whose
    client is still in the group stays there and a probing rebalance is asked for;
  - warmups are only placed together with a probing rebalance.
With --balanced: no active task could move to another client and lower the larger of the two
clients' active tasks per thread.
With --metrics: stateful_load_spread, stale_standbys, copy_restore_offsets and colocated_standbys
are recomputed from the two files, printed as one JSON line first, and each one the output's
`metrics` gives differently is a problem. colocated_standbys compares the --tags keys when given,
else the clients' racks when any client has one, else it is null. With end offsets unknown the
lag-based ones (stale_standbys, copy_restore_offsets) are null and not compared.

Exit status: 0 every rule holds, 1 some rule is broken, 2 a file cannot be read. check(argv) does
the same in-process and returns (status, lines).
"""
import argparse
import json
import re
import sys
from fractions import Fraction

import yaml

RUNNING = -2  # the offset sum a client reports for a task it runs as active right now
ROLES = ("active", "standby", "warmup")
MAX_LINES = 50


class Unreadable(Exception):
    pass


class _Yaml12Ints(yaml.SafeLoader):
    """PyYAML reads YAML 1.1, where an unquoted 1_0 is the integer 10 and 0_1 an octal number; a
    task id is a string whatever its quoting, so only plain decimal digits make an integer here."""


_Yaml12Ints.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:int"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12Ints.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))


def read_document(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Unreadable(f"{path}: cannot read: {e}")
    try:
        return json.loads(text)  # JSON first: much faster than YAML on large generated files
    except ValueError:
        pass
    try:
        return yaml.load(text, Loader=_Yaml12Ints)
    except yaml.YAMLError as e:
        raise Unreadable(f"{path}: neither JSON nor YAML: {e}")


def task_order(task_id):
    """(sub-topology, partition) of an `S_P` id: the order of every task list."""
    m = re.fullmatch(r"([0-9]+)_([0-9]+)", task_id)
    if not m:
        raise ValueError(task_id)
    return int(m.group(1)), int(m.group(2))


class Group:
    """The cluster file as the checks need it: tasks with their end-offset sums and whether they
    have something to restore, clients with capacity, placement labels, history and reports."""

    def __init__(self, doc, path):
        if not isinstance(doc, dict) or not isinstance(doc.get("tasks"), list) or not isinstance(doc.get("clients"), list):
            raise Unreadable(f"{path}: not a cluster file (needs `tasks` and `clients` lists)")
        self.lags_known = doc.get("end_offsets_known", True) is not False
        self.end_sum = {}       # task -> sum of its logged stores' changelog end offsets
        self.stateful = set()   # tasks with at least one store
        self.restorable = set()  # tasks with at least one logged store: those that get copies
        self.task_ids = []
        for i, t in enumerate(doc["tasks"]):
            tid = str(t.get("id")) if isinstance(t, dict) else None
            try:
                task_order(tid or "")
            except ValueError:
                raise Unreadable(f"{path}: tasks[{i}]: id {tid!r} is not of the form S_P")
            stores = t.get("stores") or []
            total = 0
            for store in stores:
                if store.get("logged", True) is not False:
                    self.restorable.add(tid)
                    total += int(store.get("changelog_end_offset", 0))
            if stores:
                self.stateful.add(tid)
            self.end_sum[tid] = total
            self.task_ids.append(tid)
        self.clients = {}
        for i, c in enumerate(doc["clients"]):
            if not isinstance(c, dict) or c.get("id") in (None, ""):
                raise Unreadable(f"{path}: clients[{i}]: no id")
            cid = str(c["id"])
            self.clients[cid] = {
                "threads": int(c.get("threads", 1)),
                "rack": c.get("rack"),
                "tags": {str(k): str(v) for k, v in (c.get("tags") or {}).items()},
                "previous_active": [str(t) for t in (c.get("previous_active") or [])],
                "reported": {str(k): int(v) for k, v in (c.get("offset_sums") or {}).items()},
            }

    def lag(self, cid, tid):
        """DESIGN 2's normalised lag of a client for a stateful task; 0 when it runs the task."""
        end = self.end_sum[tid]
        reported = self.clients[cid]["reported"].get(tid)
        if reported is None:
            return end  # no local state: restore from scratch
        if reported == RUNNING:
            return 0
        if reported < 0 or reported > end:
            return end  # suspect local state
        return end - reported

    def caught_up(self, cid, tid, acceptable_lag):
        return self.clients[cid]["reported"].get(tid) == RUNNING or self.lag(cid, tid) <= acceptable_lag


class Checker:
    def __init__(self, group, output, args):
        self.g = group
        self.out = output
        self.args = args
        self.problems = []
        self.roles = {}  # client -> role -> list of task ids (as the output gives them)
        self.active_of = {}  # task -> its active client

    def problem(self, text):
        self.problems.append(text)

    # ---- the output's shape and the roles ----------------------------------------------------------

    def read_roles(self):
        assignment = self.out.get("assignment") if isinstance(self.out, dict) else None
        if not isinstance(assignment, dict):
            self.problem("the output has no `assignment` object")
            return False
        for cid in assignment:
            if cid not in self.g.clients:
                self.problem(f"client {cid}: in the output but not in the cluster file")
        for cid in self.g.clients:
            if cid not in assignment:
                self.problem(f"client {cid}: missing from the output (every client appears, even with nothing)")
        known = set(self.g.task_ids)
        for cid, entry in assignment.items():
            if cid not in self.g.clients:
                continue
            if not isinstance(entry, dict):
                self.problem(f"client {cid}: not an object of roles")
                continue
            self.roles[cid] = {}
            for role in ROLES:
                tasks = entry.get(role, [])
                if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
                    self.problem(f"client {cid}: `{role}` is not a list of task ids")
                    tasks = []
                for t in tasks:
                    if t not in known:
                        self.problem(f"client {cid}: {role} task {t} is not in the cluster file")
                for t in sorted({t for t in tasks if tasks.count(t) > 1}):
                    self.problem(f"client {cid}: task {t} is listed twice as {role}")
                valid = [t for t in tasks if t in known]
                if valid != sorted(valid, key=task_order):
                    self.problem(f"client {cid}: `{role}` is not in task order")
                self.roles[cid][role] = valid
            held = {}
            for role in ROLES:
                for t in self.roles[cid][role]:
                    if t in held and held[t] != role:
                        self.problem(f"client {cid}: task {t} is both {held[t]} and {role}")
                    held.setdefault(t, role)
            if "threads" in entry:
                self.check_threads(cid, entry["threads"])
        return True

    def check_threads(self, cid, threads):
        if not isinstance(threads, dict):
            self.problem(f"client {cid}: `threads` is not an object")
            return
        capacity = self.g.clients[cid]["threads"]
        if len(threads) > capacity:
            self.problem(f"client {cid}: {len(threads)} threads hold tasks, the client has {capacity}")
        for role in ROLES:
            on_threads = []
            for name, split in threads.items():
                tasks = split.get(role, []) if isinstance(split, dict) else None
                if not isinstance(tasks, list):
                    self.problem(f"client {cid}: thread {name}: `{role}` is not a list")
                    continue
                on_threads += tasks
            for t in sorted(set(on_threads)):
                if on_threads.count(t) > 1:
                    self.problem(f"client {cid}: {role} task {t} is on more than one thread")
            if sorted(set(on_threads)) != sorted(set(self.roles[cid][role])):
                missing = sorted(set(self.roles[cid][role]) - set(on_threads))
                extra = sorted(set(on_threads) - set(self.roles[cid][role]))
                self.problem(f"client {cid}: the threads' {role} tasks differ from the client's "
                             f"(on no thread: {missing[:5]}, only on threads: {extra[:5]})")

    # ---- the rules every assignment keeps ------------------------------------------------------------

    def copies(self, role):
        """task -> clients holding it in `role` (standby or warmup)."""
        holders = {}
        for cid, roles in self.roles.items():
            for t in roles[role]:
                holders.setdefault(t, []).append(cid)
        return holders

    def check_actives(self):
        for cid, roles in self.roles.items():
            for t in roles["active"]:
                if t in self.active_of:
                    self.problem(f"task {t}: active on both {self.active_of[t]} and {cid}")
                else:
                    self.active_of[t] = cid
        for t in self.g.task_ids:
            if t not in self.active_of:
                self.problem(f"task {t}: no client runs it as active")

    def check_copies(self):
        standbys, warmups = self.copies("standby"), self.copies("warmup")
        for role, holders in (("standby", standbys), ("warmup", warmups)):
            for t in sorted(holders, key=task_order):
                if t not in self.g.restorable:
                    self.problem(f"task {t}: a {role} copy on {holders[t][0]}, but it has no logged store to copy")
        wanted = min(self.args.standbys, max(len(self.g.clients) - 1, 0))
        for t in sorted(self.g.restorable, key=task_order):
            n = len(standbys.get(t, []))
            if n > self.args.standbys:
                self.problem(f"task {t}: {n} standbys, more than num_standby_replicas {self.args.standbys}")
            elif self.args.kind == "ha" and n != wanted:
                self.problem(f"task {t}: {n} standbys, {wanted} wanted ({len(self.g.clients)} clients, "
                             f"num_standby_replicas {self.args.standbys})")
        total = sum(len(v) for v in warmups.values())
        if total > self.args.warmups:
            self.problem(f"{total} warmups in all, more than max_warmup_replicas {self.args.warmups}")
        return total

    # ---- the high-availability contract -------------------------------------------------------------------

    def check_high_availability(self, warmups):
        probing = self.out.get("probing_rebalance") or {}
        needed = isinstance(probing, dict) and probing.get("needed") is True
        if warmups and not needed:
            self.problem(f"{warmups} warmups placed but no probing rebalance asked for")
        if not self.g.lags_known:
            for cid, c in self.g.clients.items():
                for t in c["previous_active"]:
                    if t in self.active_of and self.active_of[t] != cid:
                        self.problem(f"task {t}: end offsets unknown, yet its previous active {cid} "
                                     f"lost it to {self.active_of[t]}")
            if not needed:
                self.problem("end offsets unknown but no probing rebalance asked for")
            return
        for t in sorted(self.g.stateful, key=task_order):
            owner = self.active_of.get(t)
            if owner is None or self.g.caught_up(owner, t, self.args.lag):
                continue
            ready = [c for c in self.g.clients if self.g.caught_up(c, t, self.args.lag)]
            if ready:
                self.problem(f"task {t}: active on {owner} (lag {self.g.lag(owner, t)}) while {ready[0]} is "
                             f"caught up (lag {self.g.lag(ready[0], t)}, acceptable {self.args.lag})")

    def check_balance(self):
        load = {cid: (len(self.roles.get(cid, {}).get("active", [])), c["threads"]) for cid, c in self.g.clients.items()}
        for a, (ka, ta) in load.items():
            for b, (kb, tb) in load.items():
                # Moving one active from a to b lowers the larger load when (kb + 1) / tb < ka / ta.
                if a != b and ka > 0 and (kb + 1) * ta < ka * tb:
                    self.problem(f"not balanced: {a} runs {ka} actives on {ta} threads, {b} {kb} on {tb}: "
                                 f"one task moved from {a} to {b} lowers the larger load")
                    return

    # ---- DESIGN 4.5's state-aware metrics ------------------------------------------------------------------

    def metrics(self, tag_keys):
        per_thread = [Fraction(sum(1 for t in self.roles.get(cid, {}).get("active", []) if t in self.g.restorable),
                               c["threads"]) for cid, c in self.g.clients.items()]
        spread = float(max(per_thread) - min(per_thread)) if per_thread else 0.0
        stale = copy_offsets = None
        if self.g.lags_known:
            stale = copy_offsets = 0
            for cid, roles in self.roles.items():
                for role in ("standby", "warmup"):
                    for t in roles[role]:
                        if t not in self.g.restorable:
                            continue
                        lag = self.g.lag(cid, t)
                        copy_offsets += lag
                        if role == "standby" and not self.g.caught_up(cid, t, self.args.lag):
                            stale += 1
        colocated = None
        with_racks = any(c["rack"] not in (None, "") for c in self.g.clients.values())
        if tag_keys or with_racks:
            colocated = 0
            for cid, roles in self.roles.items():
                mine = self.g.clients[cid]
                for t in roles["standby"]:
                    owner = self.active_of.get(t)
                    if owner is None:
                        continue
                    theirs = self.g.clients[owner]
                    if tag_keys:
                        # The standby's client has every value the active's client has for those keys.
                        same = all(mine["tags"].get(k) == theirs["tags"][k] for k in tag_keys if k in theirs["tags"])
                    else:
                        same = theirs["rack"] not in (None, "") and mine["rack"] == theirs["rack"]
                    colocated += 1 if same else 0
        return {"stateful_load_spread": spread, "stale_standbys": stale,
                "copy_restore_offsets": copy_offsets, "colocated_standbys": colocated}

    def compare_metrics(self, mine):
        theirs = self.out.get("metrics")
        if not isinstance(theirs, dict):
            self.problem("the output has no `metrics` object")
            return
        for key, value in mine.items():
            if key in ("stale_standbys", "copy_restore_offsets") and not self.g.lags_known:
                continue
            if key not in theirs:
                self.problem(f"metric {key}: missing from the output")
                continue
            reported = theirs[key]
            if (value is None) != (reported is None):
                self.problem(f"metric {key}: the output says {reported}, recomputed {value}")
            elif value is not None and abs(float(reported) - float(value)) > 1e-9 * max(1.0, abs(float(value))):
                self.problem(f"metric {key}: the output says {reported}, recomputed {value}")


def check(argv):
    """Runs the checker on command-line arguments; (exit status, lines it prints). For callers that
    check many outputs in one process (tests/cli/metrics_check.py)."""
    parser = argparse.ArgumentParser(prog="check_assignment.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("cluster")
    parser.add_argument("assignment")
    parser.add_argument("--kind", choices=("ha", "any"), default="ha",
                        help="ha: the high-availability contract too (default); any: validity only")
    parser.add_argument("--lag", type=int, default=10000, help="acceptable_recovery_lag (default 10000)")
    parser.add_argument("--standbys", type=int, default=0, help="num_standby_replicas (default 0)")
    parser.add_argument("--warmups", type=int, default=2, help="max_warmup_replicas (default 2)")
    parser.add_argument("--balanced", action="store_true", help="also check active tasks per thread are balanced")
    parser.add_argument("--metrics", action="store_true", help="recompute the state-aware metrics and compare")
    parser.add_argument("--tags", default="", help="rack_aware.tags keys, comma-separated (colocated_standbys)")
    args = parser.parse_args(argv)
    try:
        group = Group(read_document(args.cluster), args.cluster)
        output = read_document(args.assignment)
    except Unreadable as e:
        return 2, [str(e)]
    lines = []
    checker = Checker(group, output, args)
    if checker.read_roles():
        checker.check_actives()
        warmups = checker.check_copies()
        if args.kind == "ha":
            checker.check_high_availability(warmups)
        if args.balanced:
            checker.check_balance()
        if args.metrics:
            mine = checker.metrics([k for k in args.tags.split(",") if k])
            lines.append(json.dumps(mine, sort_keys=True))
            checker.compare_metrics(mine)
    lines += checker.problems[:MAX_LINES]
    if len(checker.problems) > MAX_LINES:
        lines.append(f"... and {len(checker.problems) - MAX_LINES} more")
    return (1 if checker.problems else 0), lines


def main():
    status, lines = check(sys.argv[1:])
    for line in lines:
        print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
