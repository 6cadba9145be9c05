#!/usr/bin/env python3
"""Upstream's own test tables, translated case by case (tests/upstream/<project>/*.json), run
against jaxset:

- "validate" cases: `jaxset validate --cluster FILE` (exit 0 admitted, 2 refused); the field
  paths and words upstream asserts are looked up in stderr, admission warnings in its
  `Warning:` lines;
- "render" cases: `jaxset render -o json FILE`, the given paths looked up in the rendered JobSet
  ("kind_of_render": "jobset") or in the list of its child Jobs ("job");
- "update" cases: the stored object, then the new one, through the controller's webhooks on the
  project's test API server (tests/kube), or kube-apiserver when KUBEBUILDER_ASSETS is set;
- "status" cases: the TrainJob run locally, its status server (`jaxset statusserver`) sent
  the case's requests in order, each answer and the TrainJob's status.trainerStatus after it
  compared (upstream_status.py);
- "create" cases: the same server and webhooks for a create whose outcome depends on what the
  cluster holds (upstream's `existingObjs`): the manifests before the last are created first in
  a fresh namespace, then the last one.

A case marked "deliberate" passes when jaxset differs from upstream's expectation (and its
reason is in README.md's list of deliberate differences); one marked "cluster_only" is
skipped with its reason (upstream's harness makes it impossible on a real cluster).

Prints one line per failing case and a closing `upstream: N passed, M failed` line with
per-file counts; exit 1 on any failure. `--only SUBSTR` runs the cases whose file or name
contains SUBSTR."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import upstream_status  # noqa: E402  (beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("JAXSET_SRC", os.path.dirname(os.path.dirname(HERE)))
BIN = os.environ.get("JAXSET_BIN", os.path.join(SRC, "build", "jaxset"))
os.environ.setdefault("JAXSET_BIN", BIN)  # for tests/kube, which the update cases use
os.environ.setdefault("JAXSET_SRC", SRC)


def expand(o):
    """{"$repeat": [text, n]}, anywhere in a case, stands for text repeated n times (the 1 MiB
    command items of Trainer's table), {"$concat": [part, ...]} for its parts joined."""
    if isinstance(o, dict):
        if set(o) == {"$repeat"}:
            text, n = o["$repeat"]
            return text * n
        if set(o) == {"$concat"}:
            return "".join(expand(p) for p in o["$concat"])
        return {k: expand(v) for k, v in o.items()}
    if isinstance(o, list):
        return [expand(v) for v in o]
    return o


def load_files():
    """[(relative path, upstream, cases)] for every case file, sorted."""
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "*", "*.json"))):
        with open(path, encoding="utf-8") as f:
            data = expand(json.load(f))
        out.append((os.path.relpath(path, HERE), data["upstream"], data["cases"]))
    return out


def readme_text():
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        return " ".join(f.read().split())


def run_bin(args, timeout=60):
    p = subprocess.run([BIN, *args], cwd=SRC, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def write_manifests(d, manifests):
    """One YAML stream of the case's manifests (JSON is YAML), in order."""
    path = os.path.join(d, "case.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n---\n".join(json.dumps(m) for m in manifests) + "\n")
    return path


TOKEN = re.compile(r'\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\[([\w.]+)=([^\]]*)\]|\.?([^.\[\]]+)')
MISSING = object()


def lookup(obj, path):
    """The value at a dotted path with [i] indexes, ["key.with.dots"] keys and [name=X] (the
    list element whose `name`, a dotted path too, is X), or MISSING."""
    pos = 0
    while pos < len(path):
        m = TOKEN.match(path, pos)
        if not m:
            raise ValueError(f"bad path {path!r}")
        pos = m.end()
        if m.group(1) is not None:
            i = int(m.group(1))
            if not isinstance(obj, list) or i >= len(obj):
                return MISSING
            obj = obj[i]
            continue
        if m.group(3) is not None:
            hits = [e for e in obj if lookup(e, m.group(3)) == m.group(4)] \
                if isinstance(obj, list) else []
            if not hits:
                return MISSING
            obj = hits[0]
            continue
        key = m.group(2) if m.group(2) is not None else m.group(5)
        if not isinstance(obj, dict) or key not in obj:
            return MISSING
        obj = obj[key]
    return obj


def gate_args(case):
    gates = case.get("feature_gates")
    return ["--feature-gates", gates] if gates else []


def warning_lines(err):
    """The `Warning:` lines of stderr, with or without the file-name prefix."""
    out = []
    for line in err.splitlines():
        at = line.find("Warning:")
        if at == 0 or (at > 0 and line[:at].endswith(": ")):
            out.append(line[at:])
    return out


def check_admission(expect, admitted, text, warnings):
    """Problems found comparing an admission outcome with upstream's expectation."""
    problems = []
    if admitted != expect["allowed"]:
        problems.append(("admitted" if admitted else "refused") + ": " + one_line(text))
        return problems
    for f in expect.get("fields", []):
        if f not in text:
            problems.append(f"no field {f!r} in: {one_line(text)}")
    for w in expect.get("words", []):
        if w not in text:
            problems.append(f"no words {w!r} in: {one_line(text)}")
    for w in expect.get("warnings", []):
        if not any(w in line for line in warnings):
            problems.append(f"no warning {w!r} in: {one_line(' | '.join(warnings))}")
    return problems


def one_line(text, limit=400):
    s = " | ".join(line for line in text.splitlines() if line.strip())
    return s if len(s) <= limit else s[:limit] + "..."


def run_validate(case, d):
    path = write_manifests(d, case["manifests"])
    rc, out, err = run_bin(["validate", "--cluster", *gate_args(case), path])
    if rc not in (0, 2):
        return [f"exit {rc}: {one_line(err)}"]
    return check_admission(case["expect"], rc == 0, err, warning_lines(err))


def rendered(items, kind):
    if kind == "job":
        return [i for i in items if i.get("kind") == "Job"]
    sets = [i for i in items if i.get("kind") == "JobSet"]
    return sets[0] if sets else {}


def run_render(case, d):
    path = write_manifests(d, case["manifests"])
    rc, out, err = run_bin(["render", "-o", "json", *gate_args(case), path])
    expect = case["expect"]
    if rc != 0 or not expect.get("allowed", True):
        return check_admission(expect, rc == 0, err, warning_lines(err))
    obj = rendered(json.loads(out)["items"], case.get("kind_of_render", "jobset"))
    problems = []
    for p, want in expect.get("render", {}).items():
        got = lookup(obj, p)
        if want is None and got in (MISSING, None):
            continue
        if got is MISSING or got != want:
            shown = "absent" if got is MISSING else json.dumps(got)
            problems.append(f"{p}: want {json.dumps(want)}, got {shown}")
    return problems


class Updates:
    """Update (and "create") cases through the webhooks of `jaxset controller` on the test API server (or
    kube-apiserver), started once on the first update case (tests/kube/upstream_updates.py).
    When that environment does not start (a CRD the server refuses, a controller that exits),
    every update case fails with the reason: none passes unrun."""

    def __init__(self):
        self.env = None
        self.error = None

    def run(self, case, create=False):
        if not self.env and not self.error:
            try:
                sys.path.insert(0, os.path.join(SRC, "tests", "kube"))
                import upstream_updates
                self.env = upstream_updates.UpdateEnv()
            except Exception as e:  # noqa: BLE001 (reported by every update case)
                self.error = f"the update cases' server and controller did not start: {e}"
                print(self.error, flush=True)
        if self.error:
            return [one_line(self.error, 200)], None
        if create:
            admitted, text, warnings = create_case(self.env, case)
        else:
            admitted, text, warnings = self.env.apply(case)
        return check_admission(case["expect"], admitted, text, warnings), None

    def close(self):
        if self.env:
            self.env.close()


def rest_collection(obj, ns):
    """The REST collection of a namespaced object (the core group under /api/v1)."""
    api = obj["apiVersion"]
    base = "/api/v1" if api == "v1" else f"/apis/{api}"
    return f"{base}/namespaces/{ns}/{obj['kind'].lower()}s"


def create_case(uenv, case):
    """(admitted, message, warnings) of a "create" case through the controller's webhooks
    (tests/kube/upstream_updates.py's environment)."""
    import upstream_updates
    from test_webhooks import warning_text
    uenv.controller(case.get("feature_gates"))
    ns = uenv.env.namespace()
    *pre, obj = [upstream_updates.placed(m, ns) for m in case["manifests"]]
    for p in pre:
        r = uenv.env.server.post(rest_collection(p, ns), p)
        if r.status != 201:
            return False, f"{p['kind']} {p['metadata'].get('name')} was refused " \
                          f"({r.status}): {upstream_updates.message(r)}", []
    r = uenv.env.server.post(rest_collection(obj, ns), obj)
    return (r.status == 201, "" if r.status == 201 else upstream_updates.message(r),
            [warning_text(w) for w in r.warnings()])


def run_case(case, d, updates):
    """(problems, skip reason)."""
    if case.get("cluster_only"):
        return None, "cluster only: " + case["cluster_only"]
    op = case["op"]
    if op == "validate":
        return run_validate(case, d), None
    if op == "render":
        return run_render(case, d), None
    if op in ("update", "create"):
        return updates.run(case, create=op == "create")
    if op == "status":
        return upstream_status.run_status(BIN, case), None
    return [f"unknown op {op!r}"], None


def outcome(case, problems, readme):
    """(passed, message) once deliberate differences are accounted for."""
    reason = case.get("deliberate")
    if not reason:
        return not problems, "; ".join(problems)
    if " ".join(reason.split()) not in readme:
        return False, f"deliberate reason not in README.md: {reason!r}"
    if not problems:
        return False, "marked deliberate but agrees with upstream now"
    return True, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run the cases whose file or name has SUBSTR")
    ap.add_argument("-v", "--verbose", action="store_true", help="list skipped cases")
    args = ap.parse_args()
    readme = readme_text()
    updates = Updates()
    total = {"pass": 0, "fail": 0, "skip": 0}
    lines = []
    try:
        with tempfile.TemporaryDirectory() as d:
            for rel, up, cases in load_files():
                counts = {"pass": 0, "fail": 0, "skip": 0}
                for case in cases:
                    if args.only and args.only not in rel and args.only not in case["name"]:
                        continue
                    problems, skip = run_case(case, d, updates)
                    if skip:
                        counts["skip"] += 1
                        if args.verbose:
                            print(f"SKIP {rel}: {case['name']}: {skip}")
                        continue
                    ok, msg = outcome(case, problems, readme)
                    counts["pass" if ok else "fail"] += 1
                    if not ok:
                        print(f"FAIL {rel}: {case['name']}: {msg}")
                if sum(counts.values()):
                    lines.append(f"  {rel} ({up['repo']}@{up['commit'][:12]}): "
                                 f"{counts['pass']} passed, {counts['fail']} failed, "
                                 f"{counts['skip']} skipped")
                for k in total:
                    total[k] += counts[k]
    finally:
        updates.close()
    print("\n".join(lines))
    print(f"upstream: {total['pass']} passed, {total['fail']} failed, {total['skip']} skipped")
    sys.exit(1 if total["fail"] or not total["pass"] else 0)


if __name__ == "__main__":
    main()
