"""Soak of `jaxset controller` against the project's test API server (not a CTest test):

    python3 tests/kube/soak.py --minutes N [--jobsets K] [--seed S]

K JobSets (upstream's testJobSet: 4 Jobs each), then for N minutes, at random: watches cut
(dropped, or ended with 410 after a compaction); Jobs deleted during a watch gap (the Job
watch and list failing meanwhile, the history compacted before they come back); Jobs deleted
plainly; hostile objects injected (a Job with the jobset-name label and a NUL in an
annotation, a JobSet with NULs, which must converge too); 429s (with a Retry-After of 1 s or
of 31 years) and 5xx served to creates and status writes. At the end the faults are cleared
and every JobSet must converge: its 4 Jobs exist, live, as specified. Prints the counts;
exits 1 when a JobSet did not converge or the controller died."""
import argparse
import collections
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import (L_JOBSET, Case, Controller, start_server, test_jobset)  # noqa: E402
from kubetest import expect  # noqa: E402

WANT = {"replicated-job-a": 1, "replicated-job-b": 3}


class Env:
    def __init__(self):
        self.server = start_server()
        self.controller = Controller(self.server, tag="soak")
        self.cases = []


def converged(c):
    """The JobSet's Jobs: as many live ones per replicated job as specified, none extra."""
    try:
        jobs = c.jobs(live_only=True)
    except AssertionError:
        return False
    got = collections.Counter(j["metadata"]["labels"].get("jobset.sigs.k8s.io/replicatedjob-name")
                              for j in jobs)
    return got == WANT


def delete_jobs(env, c, n, counts):
    try:
        jobs = c.jobs()
    except AssertionError:
        return
    for j in random.sample(jobs, min(n, len(jobs))):
        r = c.s.delete(c.path("jobs", j["metadata"]["name"]), {"propagationPolicy": "Background"})
        if r.status == 200:
            counts["jobs deleted"] += 1


def act_cut_watches(env, counts):
    if random.random() < 0.5:
        env.server.admin("watches", {"action": "drop"})
        counts["watches dropped"] += 1
    else:
        env.server.admin("compact", {})
        env.server.admin("watches", {"action": "expire"})
        counts["watches expired (410)"] += 1


def act_gap_deletions(env, counts):
    """The Job watch cut and kept out (watch and list fail) while Jobs are deleted; the
    history compacted so that the controller must relist."""
    env.server.admin("faults", [{"verb": "watch", "resource": "jobs", "code": 500, "count": 0},
                                {"verb": "list", "resource": "jobs", "code": 500,
                                 "count": 0}])
    try:
        env.server.admin("watches", {"action": "drop"})
        for c in random.sample(env.cases, min(3, len(env.cases))):
            delete_by_get(c, counts)
        env.server.admin("compact", {})
        counts["watch gaps with deletions"] += 1
    finally:
        env.server.admin("faults", method="DELETE")


def delete_by_get(c, counts):
    """Deletes one or two of the JobSet's Jobs by name (lists fail during a gap)."""
    names = [f"{c.name}-replicated-job-a-0"] + [f"{c.name}-replicated-job-b-{i}"
                                                 for i in range(3)]
    for name in random.sample(names, random.randint(1, 2)):
        r = c.s.delete(c.path("jobs", name), {"propagationPolicy": "Background"})
        if r.status == 200:
            counts["jobs deleted during gaps"] += 1


def act_plain_deletions(env, counts):
    delete_jobs(env, random.choice(env.cases), random.randint(1, 4), counts)


def act_hostile(env, counts):
    c = random.choice(env.cases)
    if random.random() < 0.6:
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {
            "generateName": "nul-", "labels": {L_JOBSET: "hostile"},
            "annotations": {"nul": "a\u0000b" * random.randint(1, 50)}},
            "spec": {"suspend": True, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}
        if c.s.post(c.path("jobs"), job).status == 201:
            counts["hostile jobs (NUL)"] += 1
    else:
        body = test_jobset(name=f"nul-{len(env.cases)}")
        body["metadata"]["annotations"] = {"nul": "\u0000" * random.randint(1, 20)}
        body["spec"]["replicatedJobs"][1]["template"]["metadata"] = {
            "annotations": {"nul": "p\u0000q"}}
        Case(env, body)
        counts["hostile jobsets (NUL)"] += 1


def act_throttle(env, counts):
    rules = [{"verb": "create", "resource": "jobs", "code": 429,
              "retryAfter": random.choice([1, 999999999]), "count": random.randint(1, 3)},
             {"verb": "create", "resource": "jobs", "code": random.choice([500, 503, 504]),
              "retryAfter": 1, "count": random.randint(1, 3)},
             {"verb": "update", "resource": "jobsets", "subresource": "status",
              "code": random.choice([429, 503]), "retryAfter": 1, "count": 2}]
    env.server.admin("faults", rules)
    counts["429/5xx rules"] += len(rules)
    delete_jobs(env, random.choice(env.cases), 2, counts)


ACTIONS = [act_cut_watches, act_gap_deletions, act_plain_deletions, act_hostile, act_throttle]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1)
    ap.add_argument("--jobsets", type=int, default=20)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--converge-timeout", type=float, default=120)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    random.seed(seed)
    env = Env()
    counts = collections.Counter()
    ok = False
    try:
        for i in range(args.jobsets):
            Case(env, test_jobset(name=f"soak-{i}"))  # (a Case adds itself to env.cases)
        end = time.monotonic() + args.minutes * 60
        while time.monotonic() < end:
            random.choice(ACTIONS)(env, counts)
            counts["actions"] += 1
            time.sleep(random.uniform(0.05, 0.5))
            if not env.controller.alive():
                break
        env.server.admin("faults", method="DELETE")
        t0 = time.monotonic()
        deadline = t0 + args.converge_timeout
        pending = list(env.cases)
        while pending and time.monotonic() < deadline and env.controller.alive():
            pending = [c for c in pending if not converged(c)]
            if pending:
                time.sleep(0.5)
        counts["jobsets"] = len(env.cases)
        counts["jobsets converged"] = len(env.cases) - len(pending)
        ok = not pending and env.controller.alive()
        log = env.controller.log()
        counts["undecodable events logged"] = log.count("cannot be read")
        stats = expect(env.server.get("/__admin/stats"), 200, "stats")
        print(f"soak: seed {seed}, {args.minutes} min, converged in "
              f"{time.monotonic() - t0:.1f} s" if ok else f"soak: seed {seed}: NOT converged: "
              f"{[(c.ns, c.name) for c in pending]}")
        for k in sorted(counts):
            print(f"  {k}: {counts[k]}")
        codes = collections.Counter()
        for key, n in stats.items():  # "verb resource code": count
            codes[key.rsplit(" ", 1)[-1]] += n
        if codes:
            print("  server answers by code:", dict(sorted(codes.items())))
        if not env.controller.alive():
            print("the controller died:\n" + env.controller.log()[-4000:])
    finally:
        if env.controller.alive():
            env.controller.stop()
        if not ok:
            print(f"controller log kept: {env.controller.log_path}")
        else:
            env.controller.cleanup()
        env.server.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
