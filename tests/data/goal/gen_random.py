#!/usr/bin/env python3
"""Random GOAL schedules that cannot deadlock whatever S is (every `requires` names an
op whose completion - for a send: the posting of its receive - comes earlier in one
global order). Usage: gen_random.py SEED P EVENTS {exact|wild} OUT.goal
exact: every message has its own tag and exact source, sizes vary per message.
wild:  tags from {0,1,2}, receives use from -1 / tag -1 often; all messages into one
       rank have one size (so a wildcard match never mixes sizes)."""
import random, sys

def gen(seed, p, nev, mode):
    rnd = random.Random(seed)
    ops = [[] for _ in range(p)]          # per rank: dicts
    pending = []                          # messages whose recv is not posted yet
    sizes = [0, 1, 8, 100, 1000, 4096, 70000, 100000]
    dst_size = [rnd.choice(sizes) for _ in range(p)]
    msgs = []
    def new_op(r, kind, pos, **kw):
        op = dict(kind=kind, pos=pos, done=None, label=f"{kind[0]}{len(ops[r])+1}", **kw)
        op["cpu"] = 1 if rnd.random() < 0.3 else 0
        op["nic"] = 1 if (kind != "calc" and rnd.random() < 0.3) else 0
        # dependencies on earlier ops of the rank
        done_before = [o for o in ops[r] if o["done"] is not None and o["done"] < pos]
        op["req"] = []
        op["ireq"] = []
        if done_before:
            for _ in range(rnd.choice([0, 1, 1, 2])):
                cand = done_before[-6:]
                d = rnd.choice(cand)
                if d not in op["req"]:
                    op["req"].append(d)
        if ops[r] and rnd.random() < 0.3:
            d = rnd.choice(ops[r][-6:])
            if d not in op["req"] and d not in op["ireq"]:
                op["ireq"].append(d)
        ops[r].append(op)
        return op
    pos = 0
    while pos < nev or pending:
        pos += 1
        x = rnd.random()
        if pos >= nev and not pending:
            break
        if pending and (pos >= nev or x < 0.4):
            m = pending.pop(rnd.randrange(len(pending)))
            src, dst, size, tag = m["src"], m["dst"], m["size"], m["tag"]
            rsrc, rtag = src, tag
            if mode == "wild":
                if rnd.random() < 0.3: rsrc = -1
                if rnd.random() < 0.3: rtag = -1
            rv = new_op(dst, "recv", pos, size=size, peer=rsrc, tag=rtag)
            rv["done"] = pos
            m["send"]["done"] = pos
        elif x < 0.75:
            src = rnd.randrange(p)
            dst = rnd.choice([d for d in range(p) if d != src])
            size = dst_size[dst] if mode == "wild" else rnd.choice(sizes)
            tag = len(msgs) if mode == "exact" else rnd.choice([0, 1, 2])
            sd = new_op(src, "send", pos, size=size, peer=dst, tag=tag)
            m = dict(src=src, dst=dst, size=size, tag=tag, send=sd)
            msgs.append(m); pending.append(m)
        else:
            r = rnd.randrange(p)
            c = new_op(r, "calc", pos, size=rnd.choice([0, 1, 10, 500, 3000, 20000]))
            c["done"] = pos
    return ops

def write(ops, out, header):
    L = [f"// {h}" for h in header] + [f"num_ranks {len(ops)}", ""]
    for r, rops in enumerate(ops):
        L.append(f"rank {r} {{")
        for o in rops:
            if o["kind"] == "calc":
                s = f"{o['label']}: calc {o['size']}" + (f" cpu {o['cpu']}" if o["cpu"] else "")
            else:
                w = "to" if o["kind"] == "send" else "from"
                s = f"{o['label']}: {o['kind']} {o['size']}b {w} {o['peer']} tag {o['tag']}"
                if o["cpu"] or o["nic"]: s += f" cpu {o['cpu']}"
                if o["nic"]: s += f" nic {o['nic']}"
            L.append(s)
            for d in o["req"]: L.append(f"{o['label']} requires {d['label']}")
            for d in o["ireq"]: L.append(f"{o['label']} irequires {d['label']}")
        L.append("}"); L.append("")
    open(out, "w").write("\n".join(L))

if __name__ == "__main__":
    seed, p, nev, mode, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    ops = gen(seed, p, nev, mode)
    n = sum(len(r) for r in ops); ns = sum(1 for r in ops for o in r if o["kind"] == "send")
    write(ops, out, [f"random schedule: gen_random.py {seed} {p} {nev} {mode} (tests/data/goal/gen_random.py)",
                     f"{n} operations, {ns} sends"])
    print(n, ns)
