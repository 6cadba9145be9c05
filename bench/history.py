#!/usr/bin/env python3
"""The bench history: one JSON file per run of scripts/bench.sh --save or bench/kube --save, in
bench/history/, which scripts/bench_compare.py compares (bench/README.md, "History").

A file holds the commit, the machine (CPUs, model, memory, kernel), the load (loadavg at the
start and at the end of the run) and one row per figure:

  {"id": "launch/N=16/j-floor", "kind": "ratio", "unit": "x",
   "samples": [...], "median": m, "lo": min, "hi": max, "spread": (max - min) / 2}

kind: "ratio" (a figure over its floor measured in the same run, repetition by repetition),
"memory" (not load-sensitive), "time" or "rate" (load-sensitive: read beside their floor).

  history.py --bench local --rows ROWS --load-start "L1 L5 L15" [--out FILE | --dir DIR]

writes the file from bench_local's rows (--json: one JSON object a line); without --out, into
DIR (default bench/history) as <date>-<commit>-<bench>.json.  Standard library only.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

SRC = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FORMAT = 1


def summarize(row):
    """The row with its samples' median, range and spread added."""
    s = [float(x) for x in row.get("samples", [])]
    out = dict(row, samples=s)
    if s:
        out.update(median=statistics.median(s), lo=min(s), hi=max(s),
                   spread=(max(s) - min(s)) / 2)
    return out


def machine():
    model, mem = "", 0
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f
                          if ln.startswith("model name")), "")
        with open("/proc/meminfo", encoding="utf-8") as f:
            mem = next((int(ln.split()[1]) for ln in f if ln.startswith("MemTotal:")), 0)
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "model": model, "mem_kib": mem,
            "kernel": platform.release()}


def commit():
    def git(*args):
        p = subprocess.run(["git", "-C", SRC, *args], capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else ""
    return {"commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


class History:
    """The rows of one run, and what they were measured on."""

    def __init__(self, bench, args=()):
        self.bench = bench
        self.args = list(args)
        self.date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.load_start = [round(x, 2) for x in os.getloadavg()]
        self.rows = []

    def record(self, rid, kind, unit, samples):
        """Adds a row, or the samples to the row of that id (a figure measured again)."""
        for i, r in enumerate(self.rows):
            if r["id"] == rid:
                self.rows[i] = summarize(dict(r, samples=r["samples"] + list(samples)))
                return
        self.rows.append(summarize({"id": rid, "kind": kind, "unit": unit,
                                    "samples": list(samples)}))

    def document(self):
        return {"format": FORMAT, "bench": self.bench, "date": self.date, **commit(),
                "machine": machine(),
                "load": {"start": self.load_start,
                         "end": [round(x, 2) for x in os.getloadavg()]},
                "args": self.args, "rows": self.rows}

    def save(self, out=None, directory=None):
        """Writes the file; returns its path."""
        doc = self.document()
        if not out:
            directory = directory or os.path.join(SRC, "bench", "history")
            os.makedirs(directory, exist_ok=True)
            stamp = time.strftime("%Y-%m-%d-%H%M%S", time.gmtime())
            out = os.path.join(directory,
                               f"{stamp}-{(doc['commit'] or 'nogit')[:12]}-{self.bench}.json")
        with open(out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--rows", required=True, help="bench_local --json output")
    ap.add_argument("--load-start", required=True, help="loadavg's first three fields")
    ap.add_argument("--args", default="", help="the bench's arguments, for the record")
    ap.add_argument("--out")
    ap.add_argument("--dir")
    a = ap.parse_args(argv)
    h = History(a.bench, a.args.split())
    h.load_start = [float(x) for x in a.load_start.split()[:3]]
    with open(a.rows, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                h.record(r["id"], r["kind"], r["unit"], r["samples"])
    print(f"bench history: {h.save(a.out, a.dir)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
