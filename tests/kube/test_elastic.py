"""ElasticJobSet on a cluster: `jaxset controller --enable-webhooks --feature-gates
ElasticJobSet=true` against the test API server (or kube-apiserver with KUBEBUILDER_ASSETS),
the test playing the Job controller (Job status, and the pods it would create, which pass the
controller's pod webhook as on a cluster).

- upstream's pod-level scaling (kubernetes-sigs/jobset v0.12.0 test/integration/controller
  jobset_controller_test.go, "the ElasticJobSet feature gate is enabled"): a change of an
  Indexed job's parallelism and completions is admitted and patched into the child Job;
- jaxset's Job-level scaling (KEP-463's future work, README.md's deliberate differences): an
  elastic JobSet scaled from 2 to 3 Jobs and back to 1, the Job of the new index created, the
  Jobs above the new size deleted (Foreground), the status counting only the Jobs in range;
- the JAX environment of every pod created after a change: the process count and ids of the
  new size, whatever the template of the pod's Job says;
- no scaling of a Completed JobSet, and none with the gate off (upstream's "the ElasticJobSet
  feature gate is disabled")."""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import Case, poll  # noqa: E402
from kubetest import TESTS, check, expect, main, test  # noqa: E402
from test_webhooks import (Env, env_value, jobset, make_pod, on_failure, rj,  # noqa: E402
                           teardown)

del TESTS[:]  # test_webhooks' own, registered by the import above

GATE = ("--feature-gates", "ElasticJobSet=true")
JAX = {"jaxset.dev/jax-runtime": "jobset"}


def set_size(replicas=None, pods=None):
    def mutate(js):
        r = js["spec"]["replicatedJobs"][0]
        if replicas is not None:
            r["replicas"] = replicas
        if pods is not None:
            r["template"]["spec"]["parallelism"] = pods
            r["template"]["spec"]["completions"] = pods
    return mutate


def refused(c, mutate):
    """The JobSet updated by `mutate` is refused: the message."""
    js = copy.deepcopy(expect(c.s.get(c.js_path()), 200, "get JobSet"))
    mutate(js)
    r = c.s.put(c.js_path(), js)
    check(r.status == 422, f"update admitted ({r.status}): {r.raw[:300]!r}")
    return r.json["message"]


def job_names(jobs):
    return [j["metadata"]["name"] for j in jobs]


def template_env(job, name):
    ctr = job["spec"]["template"]["spec"]["containers"][0]
    return next((e.get("value") for e in ctr.get("env") or [] if e["name"] == name), None)


POD_SERIAL = [0]


def pods_env(c, jobs):
    """{hostname: (JAX_PROCESS_ID, JAX_NUM_PROCESSES)} of one new pod per completion index of
    each Job, as the Job controller would create them now (through the pod webhook)."""
    out = {}
    for job in jobs:
        for i in range(job["spec"]["completions"]):
            body = make_pod(job, i)
            POD_SERIAL[0] += 1
            body["metadata"]["name"] = f"{body['metadata']['name']}-{POD_SERIAL[0]}"
            pod = expect(c.s.post(c.path("pods", api="/api/v1"), body), 201, "pod")
            ctr = pod["spec"]["containers"][0]
            out[f"{job['metadata']['name']}-{i}"] = (env_value(pod, ctr, "JAX_PROCESS_ID"),
                                                     env_value(pod, ctr, "JAX_NUM_PROCESSES"))
    return out


def numbered(env_of, n):
    """Every pod counts n processes and the ids are 0..n-1, one each."""
    check(all(num == str(n) for _, num in env_of.values()), f"not {n} processes: {env_of}")
    ids = sorted(int(i) for i, _ in env_of.values())
    check(ids == list(range(n)), f"ids {ids} of {env_of}")


def wait_live(c, names):
    """The live Jobs are exactly `names` (the others deleted or gone)."""
    def ok():
        jobs = c.jobs(live_only=True)
        return (job_names(jobs) == names and jobs) or (False, job_names(jobs))
    return poll(ok, f"live jobs {names}")


@test
def replicas_scale_from_2_to_3_and_back_to_1(env):
    c = Case(env, jobset("el", [rj("w", replicas=2, pods=2)], JAX))
    jobs = c.wait_jobs(2)
    check(job_names(jobs) == ["el-w-0", "el-w-1"], job_names(jobs))
    check(all(template_env(j, "JAX_NUM_PROCESSES") == "4" for j in jobs), jobs)
    for j in jobs:
        c.ready(j)
    c.wait_rj_status({"w": {"ready": 2, "active": 2}})
    numbered(pods_env(c, jobs), 4)
    # 2 -> 3: the Job of index 2 is made with the new size; the two others stay
    c.update_js(set_size(replicas=3))
    jobs = wait_live(c, ["el-w-0", "el-w-1", "el-w-2"])
    kept = jobs[:2]
    check(all(template_env(j, "JAX_NUM_PROCESSES") == "4" for j in kept), kept)
    check(template_env(jobs[2], "JAX_NUM_PROCESSES") == "6", jobs[2])
    c.wait_rj_status({"w": {"ready": 2, "active": 2}})
    c.ready(jobs[2])
    c.wait_rj_status({"w": {"ready": 3, "active": 3}})
    # every pod made from now on counts 6 and is numbered among 6, the old Jobs' too
    numbered(pods_env(c, jobs), 6)
    # 3 -> 1: the Jobs of index 2 and 1 are deleted (Foreground), no longer counted
    c.update_js(set_size(replicas=1))
    def deleting(name):
        j = c.job(name)  # read once: the Job may be gone between two reads
        return j is None or bool(j["metadata"].get("deletionTimestamp"))
    poll(lambda: all(deleting(n) for n in ("el-w-1", "el-w-2")), "el-w-1 and el-w-2 deleted")
    c.wait_rj_status({"w": {"ready": 1, "active": 1}})
    c.release(["el-w-1", "el-w-2"])
    jobs = wait_live(c, ["el-w-0"])
    numbered(pods_env(c, jobs), 2)
    check(not c.events("JobCreationFailed"), c.events())
    check(c.condition("Failed") is None and c.condition("Completed") is None, c.status())
    env.controller.check_alive()


def upstream_elastic_js(name, annotations=None):
    """The JobSet of upstream's integration entries: successPolicy All with no targets, one
    Indexed replicated job "workers" of 1 Job with parallelism and completions 2."""
    w = rj("workers", replicas=1, pods=2)
    w["template"]["spec"]["completionMode"] = "Indexed"
    w["template"]["spec"]["template"]["spec"]["containers"][0]["command"] = ["sleep", "10"]
    return jobset(name, [w], annotations,
                  successPolicy={"operator": "All", "targetReplicatedJobs": []})


def wait_job_size(c, n):
    def ok():
        jobs = c.jobs(live_only=True)
        sizes = [(j["spec"].get("parallelism"), j["spec"].get("completions")) for j in jobs]
        return (sizes == [(n, n)] and jobs) or (False, sizes)
    return poll(ok, f"one job of parallelism and completions {n}")


@test
def parallelism_and_completions_are_patched_into_the_job(env):
    """upstream: "dynamic horizontal pod scaling propagates parallelism and completions to
    child jobs"."""
    c = Case(env, upstream_elastic_js("elastic-js"))
    wait_job_size(c, 2)
    c.update_js(set_size(pods=4))
    wait_job_size(c, 4)


@test
def pods_count_the_new_parallelism(env):
    c = Case(env, upstream_elastic_js("elastic-jax", JAX))
    job = wait_job_size(c, 2)[0]
    numbered(pods_env(c, [job]), 2)
    c.update_js(set_size(pods=3))
    job = wait_job_size(c, 3)[0]
    check(template_env(job, "JAX_NUM_PROCESSES") == "2", job)  # a Job's template is immutable
    numbered(pods_env(c, [job]), 3)
    # back to 1: the API server refuses what the Job controller would not do (elastic Indexed
    # Jobs: completions follow parallelism), which the webhook checks first
    msg = refused(c, lambda js: js["spec"]["replicatedJobs"][0]["template"]["spec"].update(
        {"parallelism": 1}))
    check("completions must be equal to parallelism for Elastic Indexed Jobs" in msg, msg)


@test
def a_completed_jobset_is_not_scaled(env):
    c = Case(env, jobset("done", [rj("w", replicas=2, pods=1)]))
    for j in c.wait_jobs(2):
        c.complete(j)
    c.wait_condition("Completed")
    msg = refused(c, set_size(replicas=3))
    check("spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when JobSet is in "
          "a terminal state (Completed or Failed)" in msg, msg)
    msg = refused(c, set_size(pods=2))
    check("Cannot mutate parallelism or completions when JobSet is in a terminal state" in msg,
          msg)


@test
def without_the_gate_nothing_scales(env):
    """upstream: "rejects updates to parallelism and completions" with the gate disabled; and
    replicas, as upstream refuses them with it on too."""
    env.stop()
    env.start()
    try:
        c = Case(env, upstream_elastic_js("elastic-js-disabled"))
        wait_job_size(c, 2)
        for mutate in (set_size(pods=4), set_size(replicas=2)):
            msg = refused(c, mutate)
            check("spec.replicatedJobs: Invalid value: " in msg and "field is immutable" in msg,
                  msg)
    finally:
        env.stop()
        env.start(*GATE)


def setup():
    env = Env()
    env.cases = []
    env.start(*GATE)
    return env


def before_each(env, name):
    env.cases = []


if __name__ == "__main__":
    main(setup, teardown, on_failure, before_each)
