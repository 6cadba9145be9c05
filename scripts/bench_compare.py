#!/usr/bin/env python3
"""Compares two bench history files (bench/history.py: scripts/bench.sh --save, bench/kube
--save) and flags every ratio, and every memory figure, that moved by more than its measured
spread.

    scripts/bench_compare.py OLD.json NEW.json [--all]

For each row present in both files: the medians, their ranges over the repetitions, and the
move (new - old).  A row of kind "ratio" (a figure over its floor of the same run) or "memory"
is flagged MOVED when |move| exceeds its spread, the larger of the two files' (each file's
spread of a row is half the range of its repetitions; a row of one repetition has none, so any
move is flagged).  Times and rates are load-sensitive: listed with --all, never flagged.  The
machines and loads of both runs are printed first: figures of different machines are not
comparable, and the comparison says so.

Exit status: 0 nothing moved, 1 something moved, 2 unreadable input.  Standard library only.
"""
import json
import sys

FLAGGED_KINDS = ("ratio", "memory")


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        raise ValueError(f"{path}: not a bench history file (no rows)")
    rows = {}
    for r in doc["rows"]:
        if "median" in r:
            rows[r["id"]] = r
    return doc, rows


def describe(doc):
    m, load = doc.get("machine", {}), doc.get("load", {})
    commit = (doc.get("commit") or "?")[:12] + ("+dirty" if doc.get("dirty") else "")
    mem = m.get("mem_kib", 0) / 1048576
    return (f"{doc.get('bench', '?')} {doc.get('date', '?')} {commit}: {m.get('cpus')} CPUs, "
            f"{m.get('model', '?')}, {mem:.1f} GiB, load {load.get('start')} -> "
            f"{load.get('end')}")


def same_machine(a, b):
    keys = ("cpus", "model", "mem_kib")
    return all(a.get("machine", {}).get(k) == b.get("machine", {}).get(k) for k in keys)


def compare(old, new):
    """(id, old row, new row, move, spread, flagged) for the rows of both, in new's order."""
    out = []
    for rid, n in new.items():
        o = old.get(rid)
        if o is None:
            continue
        move = n["median"] - o["median"]
        spread = max(o.get("spread", 0.0), n.get("spread", 0.0))
        flagged = n.get("kind") in FLAGGED_KINDS and abs(move) > spread
        out.append((rid, o, n, move, spread, flagged))
    return out


def fmt(r):
    return f"{r['median']:.4g} [{r['lo']:.4g}..{r['hi']:.4g}] n={len(r['samples'])}"


def main(argv):
    args = [a for a in argv if a != "--all"]
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        (od, old), (nd, new) = load(args[0]), load(args[1])
    except (OSError, ValueError) as e:
        print(f"bench_compare: {e}", file=sys.stderr)
        return 2
    print(f"old: {describe(od)}")
    print(f"new: {describe(nd)}")
    if not same_machine(od, nd):
        print("note: the machines differ; only ratios to a floor of the same run compare")
    rows = compare(old, new)
    moved = 0
    for rid, o, n, move, spread, flagged in rows:
        if not flagged and "--all" not in argv and n.get("kind") not in FLAGGED_KINDS:
            continue
        moved += flagged
        mark = "MOVED" if flagged else "     "
        way = "up" if move > 0 else "down" if move < 0 else "same"
        print(f"{mark} {rid:<36} {fmt(o):>32} -> {fmt(n):>32}  {way} {abs(move):.4g} "
              f"(spread {spread:.4g}) {n.get('unit', '')}")
    only = sorted(set(old) ^ set(new))
    if only:
        print(f"in one file only: {', '.join(only)}")
    print(f"{len(rows)} rows compared, {moved} moved by more than their spread")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
