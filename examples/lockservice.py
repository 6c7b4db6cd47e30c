#!/usr/bin/env python3
"""A tiny lock service after the seed's rules, written independently of raftlock: three nodes
in one process, a leader that appends to a log, commits on a majority and has every node apply
in order. It writes the raftlock trace format (JSON Lines), so `raftlock check` can grade it.

    python3 examples/lockservice.py > /tmp/mine.jsonl
    raftlock check /tmp/mine.jsonl

A student starts here: replace the in-process "network" with real messages, keep the trace.
`--bug NAME` plants one mistake (for the checker's tests): token-counter, expire-ignores-token,
follower-countdown, two-leaders, entry-differs, storage-stale, release-other, skip-index.
Standard library only.
"""
import json
import sys

BUG = sys.argv[sys.argv.index("--bug") + 1] if "--bug" in sys.argv else None
NODES = [1, 2, 3]
clock_us = 0
out = []


def emit(ev, **fields):
    """One trace line: true time first, then the event's kind and fields."""
    global clock_us
    clock_us += 1000
    out.append(json.dumps({"t_us": clock_us, "ev": ev, **fields}, separators=(",", ":")))


class Node:
    def __init__(self, nid):
        self.nid = nid
        self.log = []          # entries (term, cmd); index = position + 1
        self.applied = 0
        self.locks = {}        # key -> {"holder", "token", "lease_ms", "left_ms"}
        self.counter = 0       # only for the token-counter bug

    def apply_committed(self, commit):
        while self.applied < commit:
            index = self.applied + 1
            if BUG == "skip-index" and self.nid == 2 and index == 3:
                self.applied = index   # the bug: index 3 is never applied on n2
                continue
            term, cmd = self.log[index - 1]
            result = self.apply(index, cmd)
            self.applied = index
            emit("apply", node=self.nid, index=index, term=term, cmd=cmd, result=result)

    def apply(self, index, cmd):
        """The seed's state machine: a pure function of the table, the index and the command."""
        op, key = cmd["op"], cmd.get("key")
        if op == "noop":
            return {"r": "noop"}
        if op == "grant":
            if key in self.locks:
                return {"r": "grant_rejected"}
            self.counter += 1
            token = self.counter if BUG == "token-counter" else index
            self.locks[key] = {"holder": cmd["client"], "token": token,
                               "lease_ms": cmd["lease_ms"], "left_ms": cmd["lease_ms"]}
            return {"r": "granted", "token": token}
        if op == "release":
            if key in self.locks:
                del self.locks[key]
                return {"r": "released"}
            return {"r": "not_found"}
        if op == "expire":
            lock = self.locks.get(key)
            if lock and (lock["token"] == cmd["token"] or BUG == "expire-ignores-token"):
                del self.locks[key]
                return {"r": "expired", "existed": True}
            return {"r": "expired", "existed": False}
        raise ValueError(op)

    def tick(self, ms):
        """Leases count down on each node's own clock; only the leader acts on them (by
        proposing Expire). A follower never deletes on its countdown, except under the bug."""
        for key, lock in list(self.locks.items()):
            lock["left_ms"] -= ms
            if BUG == "follower-countdown" and self.nid != 1 and lock["left_ms"] <= 0:
                del self.locks[key]


class Cluster:
    def __init__(self):
        self.nodes = {n: Node(n) for n in NODES}
        self.leader = self.nodes[1]
        self.term = 1
        self.commit = 0
        self.storage = {}      # key -> highest token accepted
        for n in NODES:
            emit("role", node=n, role="follower", term=1)
        emit("role", node=1, role="leader", term=1)
        if BUG == "two-leaders":
            emit("role", node=2, role="leader", term=1)
        self.propose({"op": "noop"})

    def propose(self, cmd):
        """Append on the leader, replicate to every follower (no faults here), commit on a
        majority, and apply on every node in log order. Returns the leader's result."""
        self.leader.log.append((self.term, cmd))
        for node in self.nodes.values():
            if node is not self.leader:
                entry = (self.term, dict(cmd))
                if BUG == "entry-differs" and node.nid == 3 and cmd["op"] == "grant":
                    entry[1]["lease_ms"] += 1
                node.log.append(entry)
        self.commit = len(self.leader.log)
        self.leader.apply_committed(self.commit)
        result = json.loads(out[-1])["result"]
        for node in self.nodes.values():
            if node is not self.leader:
                node.apply_committed(self.commit)
        return result

    def acquire(self, client, key, lease_ms):
        invoked = clock_us             # when the client asked (invoked_us: the exact history check)
        if key in self.leader.locks:   # the leader answers "busy" without a log entry
            emit("client", client=client, op="acquire", key=key, outcome="busy",
                 token=self.leader.locks[key]["token"], invoked_us=invoked)
            return None
        r = self.propose({"op": "grant", "key": key, "lease_ms": lease_ms, "client": client})
        if r["r"] == "granted":
            emit("client", client=client, op="acquire", key=key, outcome="granted", token=r["token"],
                 invoked_us=invoked)
            return r["token"]
        return None

    def release(self, client, key):
        invoked = clock_us
        lock = self.leader.locks.get(key)
        if lock is None or (lock["holder"] != client and BUG != "release-other"):
            emit("client", client=client, op="release", key=key, outcome="not_found", invoked_us=invoked)
            return
        self.propose({"op": "release", "key": key, "client": client})
        emit("client", client=client, op="release", key=key, outcome="released", invoked_us=invoked)

    def tick(self, ms):
        global clock_us
        clock_us += ms * 1000          # true time passes as the leases count down
        for node in self.nodes.values():
            node.tick(ms)
        for key, lock in list(self.leader.locks.items()):
            if lock["left_ms"] <= 0:
                emit("expire_proposed", node=self.leader.nid, key=key, token=lock["token"])
                self.propose({"op": "expire", "key": key, "token": lock["token"]})

    def write(self, client, key, token):
        highest = self.storage.get(key, 0)
        accepted = token >= highest or BUG == "storage-stale"
        if accepted:
            self.storage[key] = max(highest, token)
        emit("write", client=client, key=key, token=token, accepted=accepted)


def main():
    c = Cluster()
    a = c.acquire("A", "k", 1000)           # A holds k
    c.write("A", "k", a)
    c.acquire("B", "k", 1000)               # busy
    c.tick(600)
    c.acquire("C", "j", 5000)               # another key, held on
    c.tick(600)                             # A's lease runs out: the leader proposes Expire
    b = c.acquire("B", "k", 1000)           # B gets k with a higher token
    c.write("B", "k", b)
    c.write("A", "k", a)                    # A, paused through its lease, writes: rejected
    c.release("A", "k")                     # A's release: not its lock any more
    c.propose({"op": "expire", "key": "k", "token": a})   # a late duplicate Expire: no-op
    c.release("B", "k")
    c.release("C", "j")
    c.acquire("A", "k", 1000)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
