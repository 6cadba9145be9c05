"""Exclusive placement per topology domain (alpha.jobset.sigs.k8s.io/exclusive-topology) end
to end, as kubernetes-sigs/jobset's e2e "exclusive placement" scenario and its example
site/static/examples/simple/exclusive-placement.yaml run it, against the project's test API
server (or a real kube-apiserver when KUBEBUILDER_ASSETS names one), with
`jaxset controller --enable-webhooks`. There is no kube-scheduler here: the test plays the Job
controller (it creates each Job's pods from its template) and the scheduler (a pod it "binds"
is created with spec.nodeName), and registers the Nodes, three node pools of three.

- the annotation reaches the Jobs and their pods;
- leaders get the pod affinity to their own Job and the anti-affinity to every other Job on
  the topology key; followers are refused until their leader is scheduled (upstream's
  messages), then get the nodeSelector of their leader's pool: each Job in its own pool;
- the pod reconciler deletes the followers of a leader that moved to another pool, after
  marking them DisruptionTarget/ExclusivePlacementViolation, and leaves the leader and other
  Jobs' pods alone;
- pods of the node-selector strategy are neither mutated nor reconciled;
- in jaxset's gated order (its default; the scenarios above run upstream's,
  --exclusive-placement=webhook), a follower whose leader is not scheduled is admitted behind
  the scheduling gate jaxset.dev/exclusive-placement and given its leader's domain, its other
  gates kept, once the leader is scheduled."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import JS_API, poll, steady  # noqa: E402
import kubetest  # noqa: E402
from kubetest import check, expect, main, test  # noqa: E402
from test_webhooks import Env, make_pod, on_failure, rj, teardown  # noqa: E402

kubetest.TESTS.clear()  # test_webhooks' own tests, registered by its import, are not ours

TOPO = "cloud.google.com/gke-nodepool"
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR = "alpha.jobset.sigs.k8s.io/node-selector"
JOB_KEY = "jobset.sigs.k8s.io/job-key"
REFUSED = 'admission webhook "vpod.kb.io" denied the request: '


def nodes(env, tag, pools=3, per_pool=3):
    """Registers pools × per_pool Nodes labelled with their pool; {pool: [node names]}."""
    out = {}
    for p in range(pools):
        pool = f"{tag}-pool-{p}"
        for i in range(per_pool):
            name = f"{pool}-node-{i}"
            expect(env.server.post("/api/v1/nodes", {
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {TOPO: pool}}}), 201, name)
            out.setdefault(pool, []).append(name)
    return out


def exclusive_jobset(name, replicas=3, pods=3, annotations=None):
    """upstream's example: one Job per node pool."""
    r = rj("workers", replicas=replicas, pods=pods, command=["sleep", "1000"])
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "annotations": annotations or {EXCLUSIVE: TOPO}},
            "spec": {"failurePolicy": {"maxRestarts": 3}, "replicatedJobs": [r]}}


def jobs_of(env, ns, js, n):
    def got():
        r = env.server.get(f"/apis/batch/v1/namespaces/{ns}/jobs?labelSelector="
                           f"jobset.sigs.k8s.io/jobset-name%3D{js}")
        items = r.json.get("items", []) if r.status == 200 else []
        return (len(items) == n and sorted(items, key=lambda j: j["metadata"]["name"])) or \
            (False, len(items))
    return poll(got, f"the {n} Jobs of {js}")


def pod_of(job, index, node=None, suffix="abcde"):
    p = make_pod(job, index)
    p["metadata"]["name"] = f"{job['metadata']['name']}-{index}-{suffix}"
    if node:
        p["spec"]["nodeName"] = node
    return p


def create(env, ns, pod):
    return env.server.post(f"/api/v1/namespaces/{ns}/pods", pod)


def refused_with(r, message):
    check(r.status >= 400, f"admitted: {r.raw[:300]}")
    got = (r.json or {}).get("message", "")
    check(REFUSED + message in got, f"want {message!r}, got {got!r}")


def sneaky_refused_then_leader_gone(env, ns, job, index, leader):
    """A follower naming a domain itself while its leader is not scheduled is refused with
    upstream's words; then the unscheduled leader is deleted."""
    sneaky = pod_of(job, index)
    sneaky["spec"]["nodeSelector"] = {TOPO: "anywhere"}
    refused_with(create(env, ns, sneaky), "leader pod not yet scheduled, not creating follower "
                 "pod. this is an expected, transient error")
    expect(env.server.delete(f"/api/v1/namespaces/{ns}/pods/{leader['metadata']['name']}",
                             {"gracePeriodSeconds": 0}), 200, "delete")


def terms(pod, kind):
    return (((pod["spec"].get("affinity") or {}).get(kind) or {})
            .get("requiredDuringSchedulingIgnoredDuringExecution") or [])


@test
def exclusive_placement_puts_each_job_in_its_own_pool(env):
    ns = env.namespace()
    pools = nodes(env, ns)
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets",
                           exclusive_jobset("exclusive-placement")), 201, "jobset")
    jobs = jobs_of(env, ns, "exclusive-placement", 3)
    for job in jobs:
        check(job["metadata"]["annotations"].get(EXCLUSIVE) == TOPO, job["metadata"])
        check(job["spec"]["template"]["metadata"]["annotations"].get(EXCLUSIVE) == TOPO,
              job["spec"]["template"]["metadata"])
    first = jobs[0]
    # a follower before its leader exists, and while its leader is not scheduled
    refused_with(create(env, ns, pod_of(first, 1)), "follower pod node selector not set")
    leader = expect(create(env, ns, pod_of(first, 0, suffix="unsch")), 201, "leader")
    key = leader["metadata"]["labels"][JOB_KEY]
    aff, anti = terms(leader, "podAffinity"), terms(leader, "podAntiAffinity")
    check(len(aff) == 1 and aff[0]["topologyKey"] == TOPO and aff[0]["namespaceSelector"] == {}
          and aff[0]["labelSelector"]["matchExpressions"] ==
          [{"key": JOB_KEY, "operator": "In", "values": [key]}], aff)
    exprs = anti[0]["labelSelector"]["matchExpressions"] if len(anti) == 1 else []
    check(anti[0]["topologyKey"] == TOPO and exprs[:2] ==
          [{"key": JOB_KEY, "operator": "Exists"},
           {"key": JOB_KEY, "operator": "NotIn", "values": [key]}] and
          exprs[2]["key"] == "jobset.sigs.k8s.io/priority", anti)
    refused_with(create(env, ns, pod_of(first, 1)), "follower pod node selector not set")
    sneaky_refused_then_leader_gone(env, ns, first, 1, leader)
    # the scheduler binds each leader in a free pool; the followers follow
    placed = {}
    for job, pool in zip(jobs, sorted(pools)):
        expect(create(env, ns, pod_of(job, 0, node=pools[pool][0])), 201, "leader")

        def follower(i=1, job=job):
            r = create(env, ns, pod_of(job, i))
            return (r.status == 201 and r.json) or (False, r.raw[:200])
        for i in (1, 2):  # the webhook reads the leader from the controller's cache
            got = poll(lambda: follower(i), f"follower {i} of {job['metadata']['name']}")
            check(got["spec"].get("nodeSelector", {}).get(TOPO) == pool, got["spec"])
            check(not terms(got, "podAffinity"), got["spec"])
        placed[job["metadata"]["name"]] = pool
    check(len(set(placed.values())) == 3, placed)


@test
def followers_of_a_moved_leader_are_deleted_and_only_them(env):
    ns = env.namespace()
    pools = nodes(env, ns, pools=2)
    a, b = sorted(pools)
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets",
                           exclusive_jobset("moved", replicas=2)), 201, "jobset")
    jobs = jobs_of(env, ns, "moved", 2)
    (j0, j1) = jobs
    expect(create(env, ns, pod_of(j0, 0, node=pools[a][0])), 201, "leader 0")
    expect(create(env, ns, pod_of(j1, 0, node=pools[b][0])), 201, "leader 1")

    def bound_follower(job, i, pool):
        p = pod_of(job, i)
        r = create(env, ns, p)
        if r.status != 201:
            return False, r.raw[:200]
        check(r.json["spec"]["nodeSelector"][TOPO] == pool, r.json["spec"])
        return r.json
    f0 = poll(lambda: bound_follower(j0, 1, a), "j0's follower")
    f1 = poll(lambda: bound_follower(j1, 1, b), "j1's follower")
    # j0's leader is replaced by one the scheduler put in pool b: j0's follower is misplaced
    lname = f"{j0['metadata']['name']}-0-abcde"
    expect(env.server.delete(f"/api/v1/namespaces/{ns}/pods/{lname}",
                             {"gracePeriodSeconds": 0}), 200, "delete leader")
    poll(lambda: env.server.get(f"/api/v1/namespaces/{ns}/pods/{lname}").status == 404,
         "the old leader gone")
    moved = expect(create(env, ns, pod_of(j0, 0, node=pools[b][1], suffix="moved")), 201,
                   "moved leader")

    def follower_deleted():
        r = env.server.get(f"/api/v1/namespaces/{ns}/pods/{f0['metadata']['name']}")
        if r.status == 404:
            return "gone"
        return (r.json["metadata"].get("deletionTimestamp") and r.json) or (False, "still there")
    poll(follower_deleted, "the misplaced follower deleted")
    for keep in (moved, f1):
        r = env.server.get(f"/api/v1/namespaces/{ns}/pods/{keep['metadata']['name']}")
        check(r.status == 200 and not r.json["metadata"].get("deletionTimestamp"),
              f"{keep['metadata']['name']} deleted")
    log = env.controller.log()
    check(f"deleting follower pods for leader pod: {moved['metadata']['name']}" in log,
          log[-2000:])


@test
def a_deleted_follower_is_marked_as_violating_exclusive_placement(env):
    """A bound follower is deleted gracefully: its DisruptionTarget condition, written first,
    is seen while it terminates."""
    ns = env.namespace()
    pools = nodes(env, ns, pools=2)
    a, b = sorted(pools)
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets",
                           exclusive_jobset("marked", replicas=1)), 201, "jobset")
    (job,) = jobs_of(env, ns, "marked", 1)
    # a follower the scheduler bound in pool a while its (later) leader sits in pool b
    follower = pod_of(job, 1, node=pools[a][1])
    follower["spec"]["nodeSelector"] = {TOPO: a}
    follower["spec"]["terminationGracePeriodSeconds"] = 300
    expect(create(env, ns, pod_of(job, 0, node=pools[a][0], suffix="first")), 201, "leader")
    poll(lambda: create(env, ns, follower).status == 201 or (False, "refused"), "follower")
    expect(env.server.delete(f"/api/v1/namespaces/{ns}/pods/{job['metadata']['name']}-0-first",
                             {"gracePeriodSeconds": 0}), 200, "delete")
    expect(create(env, ns, pod_of(job, 0, node=pools[b][0])), 201, "leader")

    def marked():
        r = env.server.get(f"/api/v1/namespaces/{ns}/pods/{follower['metadata']['name']}")
        if r.status != 200 or not r.json["metadata"].get("deletionTimestamp"):
            return False, r.status
        return r.json
    got = poll(marked, "the follower terminating")
    conds = [c for c in got["status"].get("conditions", []) if c["type"] == "DisruptionTarget"]
    check(conds and conds[0]["status"] == "True" and
          conds[0]["reason"] == "ExclusivePlacementViolation" and
          conds[0]["message"] == "Pod violated JobSet exclusive placement policy", got["status"])


@test
def node_selector_strategy_pods_are_left_alone(env):
    ns = env.namespace()
    pools = nodes(env, ns, pools=1)
    (pool,) = pools
    js = exclusive_jobset("bysel", replicas=1, annotations={EXCLUSIVE: TOPO, NODE_SELECTOR: "true"})
    expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, "jobset")
    (job,) = jobs_of(env, ns, "bysel", 1)
    tspec = job["spec"]["template"]["spec"]
    want_sel = f"{ns}_{job['metadata']['name']}"
    check(tspec["nodeSelector"] == {"alpha.jobset.sigs.k8s.io/namespaced-job": want_sel}, tspec)
    check({"key": "alpha.jobset.sigs.k8s.io/no-schedule", "operator": "Exists",
           "effect": "NoSchedule"} in tspec["tolerations"], tspec)
    leader = expect(create(env, ns, pod_of(job, 0, node=pools[pool][0])), 201, "leader")
    check(not terms(leader, "podAffinity") and not terms(leader, "podAntiAffinity"),
          leader["spec"])
    follower = expect(create(env, ns, pod_of(job, 1)), 201, "follower")  # not held back
    check(TOPO not in follower["spec"]["nodeSelector"], follower["spec"])

    def kept():
        r = env.server.get(f"/api/v1/namespaces/{ns}/pods/{follower['metadata']['name']}")
        return r.status == 200 and not r.json["metadata"].get("deletionTimestamp")
    steady(kept, "the node-selector follower kept", seconds=2)


GATE = "jaxset.dev/exclusive-placement"


def gates_of(pod):
    return [g["name"] for g in pod["spec"].get("schedulingGates") or []]


@test
def followers_wait_behind_a_scheduling_gate_in_the_gated_order(env):
    """jaxset's default order (a deliberate difference, README; option 1 of
    kubernetes-sigs/jobset#310): no follower is refused, so the Job controller never backs
    off; the guarantee is the same, a follower is let go only into its leader's domain."""
    env.stop()
    env.start()  # the default, --exclusive-placement=gates
    try:
        ns = env.namespace()
        pools = nodes(env, ns)
        expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", exclusive_jobset("gated")),
               201, "jobset")
        first, second, _ = jobs_of(env, ns, "gated", 3)
        # before its leader exists: admitted, gated, without a domain
        f1 = expect(create(env, ns, pod_of(first, 1)), 201, "follower before its leader")
        check(gates_of(f1) == [GATE] and TOPO not in (f1["spec"].get("nodeSelector") or {}),
              f1["spec"])
        other = pod_of(second, 1)
        other["spec"]["schedulingGates"] = [{"name": "example.com/quota"}]
        f_other = expect(create(env, ns, other), 201, "follower with a gate of its own")
        check(gates_of(f_other) == ["example.com/quota", GATE], f_other["spec"])
        leader = expect(create(env, ns, pod_of(first, 0, suffix="unsch")), 201, "leader")
        path = f"/api/v1/namespaces/{ns}/pods/{f1['metadata']['name']}"
        steady(lambda: gates_of(expect(env.server.get(path), 200, "f1")) == [GATE],
               "gated while its leader is not scheduled", 0.5)
        # a follower that names a domain itself is still judged by upstream's ValidateCreate
        sneaky_refused_then_leader_gone(env, ns, first, 2, leader)
        pool_a, pool_b = sorted(pools)[:2]
        expect(create(env, ns, pod_of(first, 0, node=pools[pool_a][0])), 201, "leader bound")

        def let_go(p, want_gates):
            got = expect(env.server.get(p), 200, "follower")
            return ((got["spec"].get("nodeSelector") or {}).get(TOPO) == pool_a and
                    gates_of(got) == want_gates and got) or (False, got["spec"])
        poll(lambda: let_go(path, []), "the follower given its leader's pool and let go")
        # a follower created once its leader is scheduled gets the pool at admission, no gate
        f2 = poll(lambda: (lambda r: r.status == 201 and r.json or (False, r.raw[:200]))(
            create(env, ns, pod_of(first, 2))), "follower 2")
        check(f2["spec"]["nodeSelector"][TOPO] == pool_a and gates_of(f2) == [], f2["spec"])
        # the other Job's follower keeps its own gate when its leader lands in another pool
        expect(create(env, ns, pod_of(second, 0, node=pools[pool_b][0])), 201, "leader 2")
        opath = f"/api/v1/namespaces/{ns}/pods/{f_other['metadata']['name']}"
        got = poll(lambda: (lambda g: g["spec"].get("nodeSelector", {}).get(TOPO) == pool_b and
                            g or (False, g["spec"]))(expect(env.server.get(opath), 200, "o")),
                   "the other follower given its pool")
        check(gates_of(got) == ["example.com/quota"], got["spec"])
    finally:
        env.stop()
        env.start("--exclusive-placement=webhook")


def setup():
    env = Env()
    env.start("--exclusive-placement=webhook")  # upstream's order, which these scenarios port
    return env


if __name__ == "__main__":
    main(setup, teardown, on_failure)
