"""Placement checked with a real kube-scheduler: kube-apiserver, kube-controller-manager (the
garbage collector and the Job controller, so Jobs create real pods) and kube-scheduler from
KUBEBUILDER_ASSETS (envtest.py, scheduler=True), `jaxset controller --enable-webhooks`, and a
kubelet stand-in (kubelet.py) that registers Ready Nodes in node pools, runs the pods bound to
them and removes the pods deleted from them. Each scenario registers its own Nodes and, at its
end, deletes its JobSets, waits for its pods to go and removes its Nodes, so that the next
one's pods meet no leftover Node or pod (exclusive placement's anti-affinity spans every
namespace).

- upstream's example (site/static/examples/simple/exclusive-placement.yaml: exclusive-topology
  on the JobSet, 3 Jobs of 3 pods) on 3 node pools of 3 Nodes: each Job's pods in one pool, no
  two Jobs in the same pool, every Job ready;
- a Job with no free pool stays Pending (its leader Unschedulable, no follower created), and is
  placed once another JobSet is deleted and its pool frees;
- a misplaced follower: the leader's Node moves to another pool (relabelled), and on the
  leader's next event the pod reconciler deletes its followers (DisruptionTarget
  ExclusivePlacementViolation, which the Job's podFailurePolicy ignores), never the leader; the
  Job controller's new followers follow the leader to its new pool;
- the node-selector strategy (alpha.jobset.sigs.k8s.io/node-selector beside
  exclusive-topology; Nodes labelled per Job and tainted as upstream's hack/label_nodes does):
  each Job's pods on its own Nodes, none on the untainted Nodes beside them;
- an exclusive JobSet created suspended and resumed by a Kueue-like test that injects a
  nodeSelector and tolerations into its replicated jobs' pod templates: its pods land on those
  tainted Nodes (a pool of them per Job), none on the untainted pools beside them;
- a gang restart with jaxset.dev/restart-grace-seconds (not placement, but the one scenario
  that needs the real Job controller): every old pod's first deletion, by the Job controller,
  the garbage collector or jaxset, carries the restart grace (the stand-in records it), and
  without the annotation the pods' own.

Without kube-scheduler and kube-controller-manager in KUBEBUILDER_ASSETS every scenario is
skipped with the reason (the same scenarios' admission and reconciler parts run against the
test API server in test_placement.py)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import envtest  # noqa: E402
from ctltest import JS_API, L_JOBSET, crd, poll, steady  # noqa: E402
import kubetest  # noqa: E402
from kubetest import check, expect, main, test  # noqa: E402
from kubelet import Kubelet  # noqa: E402
from test_placement import EXCLUSIVE, NODE_SELECTOR, TOPO, exclusive_jobset, terms  # noqa: E402
from test_webhooks import Env, on_failure, rj, teardown  # noqa: E402

kubetest.TESTS.clear()  # the imported files' own tests are not ours

SCHED_TIMEOUT = float(os.environ.get("JAXSET_SCHED_TIMEOUT", "120"))
L_JOB = "batch.kubernetes.io/job-name"
L_INDEX = "batch.kubernetes.io/job-completion-index"
NAMESPACED_JOB = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE = "alpha.jobset.sigs.k8s.io/no-schedule"


class SchedEnv(Env):
    def __init__(self, assets):
        super().__init__(envtest.KubeAPIServer(assets, crds=[crd()], scheduler=True))
        self.kubelet = Kubelet(self.server).start()


# ---------------------------------------------------------------------------- helpers


def pods_of(env, ns, js):
    """The live pods of JobSet js."""
    r = expect(env.server.get(f"/api/v1/namespaces/{ns}/pods?labelSelector={L_JOBSET}%3D{js}"),
               200, "pods")
    return [p for p in r["items"] if not p["metadata"].get("deletionTimestamp")]


def wait_placed(env, ns, js, n, timeout=SCHED_TIMEOUT):
    """Exactly n live pods of js, every one bound to a Node; returns them."""
    def placed():
        pods = pods_of(env, ns, js)
        bound = [p for p in pods if p["spec"].get("nodeName")]
        return (len(pods) == n == len(bound) and pods) or \
            (False, f"{len(bound)} of {len(pods)} pods bound, want {n}")
    return poll(placed, f"the {n} pods of {js} scheduled", timeout)


def pools_by_job(pods, pool_of):
    """{Job name: {pools its pods are in}}."""
    out = {}
    for p in pods:
        out.setdefault(p["metadata"]["labels"][L_JOB], set()).add(pool_of[p["spec"]["nodeName"]])
    return out


def is_leader(pod):
    return pod["metadata"]["labels"].get(L_INDEX) == "0"


def create_jobset(env, ns, js):
    return expect(env.server.post(f"{JS_API}/namespaces/{ns}/jobsets", js), 201, "JobSet")


def delete_jobset(env, ns, name):
    expect(env.server.delete(f"{JS_API}/namespaces/{ns}/jobsets/{name}",
                             {"propagationPolicy": "Foreground"}), 200, f"delete {name}")


def cleanup(env, ns):
    """Every JobSet of ns deleted, its pods gone, the scenario's Nodes removed."""
    r = env.server.get(f"{JS_API}/namespaces/{ns}/jobsets")
    for js in (r.json or {}).get("items") or []:
        env.server.delete(f"{JS_API}/namespaces/{ns}/jobsets/{js['metadata']['name']}",
                          {"propagationPolicy": "Foreground"})

    def empty():
        items = env.server.get(f"/api/v1/namespaces/{ns}/pods").json.get("items") or []
        return not items or (False, [p["metadata"]["name"] for p in items])
    try:
        poll(empty, f"the pods of {ns} gone", SCHED_TIMEOUT)
    finally:
        env.kubelet.remove_nodes()


def scenario(fn):
    """A test in a namespace of its own, cleaned up after."""
    def run(env):
        ns = env.namespace()
        try:
            fn(env, ns)
        finally:
            cleanup(env, ns)
    run.__name__ = fn.__name__
    return test(run)


def ready_jobs(env, ns, js, want):
    """The JobSet's replicatedJobsStatus says `want` Jobs ready (every pod Ready)."""
    def ok():
        r = env.server.get(f"{JS_API}/namespaces/{ns}/jobsets/{js}")
        st = (r.json.get("status") or {}).get("replicatedJobsStatus") or []
        return (sum(s.get("ready", 0) for s in st) == want and st) or (False, st)
    return poll(ok, f"{want} Jobs of {js} ready", SCHED_TIMEOUT)


def unschedulable(pod):
    return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and
               c.get("reason") == "Unschedulable"
               for c in (pod.get("status") or {}).get("conditions") or [])


# ---------------------------------------------------------------------------- scenarios


@scenario
def upstream_example_puts_each_job_in_a_pool_of_its_own(env, ns):
    pools = env.kubelet.add_pools(ns)
    pool_of = {n: p for p, names in pools.items() for n in names}
    t0 = time.monotonic()
    create_jobset(env, ns, exclusive_jobset("exclusive-placement"))
    pods = wait_placed(env, ns, "exclusive-placement", 9)
    print(f"     9 pods scheduled {time.monotonic() - t0:.1f}s after the JobSet's creation")
    by_job = pools_by_job(pods, pool_of)
    check(len(by_job) == 3 and all(len(v) == 1 for v in by_job.values()), by_job)
    check(len(set().union(*by_job.values())) == 3, f"two Jobs share a pool: {by_job}")
    for p in pods:
        pool = pool_of[p["spec"]["nodeName"]]
        if is_leader(p):
            check(terms(p, "podAffinity")[0]["topologyKey"] == TOPO and
                  terms(p, "podAntiAffinity")[0]["topologyKey"] == TOPO, p["spec"])
        else:
            check(p["spec"]["nodeSelector"].get(TOPO) == pool and
                  not terms(p, "podAffinity"), p["spec"])
    ready_jobs(env, ns, "exclusive-placement", 3)


@scenario
def a_job_with_no_free_pool_waits_until_one_frees(env, ns):
    pools = env.kubelet.add_pools(ns, pools=2, per_pool=2)
    pool_of = {n: p for p, names in pools.items() for n in names}
    create_jobset(env, ns, exclusive_jobset("first", replicas=2, pods=2))
    first = wait_placed(env, ns, "first", 4)
    check(len(set().union(*pools_by_job(first, pool_of).values())) == 2, first)
    create_jobset(env, ns, exclusive_jobset("second", replicas=1, pods=2))

    def leader_unschedulable():
        pods = pods_of(env, ns, "second")
        leaders = [p for p in pods if is_leader(p)]
        return (len(leaders) == 1 and unschedulable(leaders[0]) and pods) or (False, pods)
    poll(leader_unschedulable, "second's leader judged Unschedulable", SCHED_TIMEOUT)

    def waiting():
        # the gated order (the controller's default): the follower is created, held by its
        # scheduling gate, not bound (upstream's order creates none until the leader is bound)
        pods = pods_of(env, ns, "second")
        followers = [p for p in pods if not is_leader(p)]
        return (len(pods) <= 2 and not any(p["spec"].get("nodeName") for p in pods) and
                all([g["name"] for g in p["spec"].get("schedulingGates") or []] ==
                    ["jaxset.dev/exclusive-placement"] for p in followers))
    steady(waiting, "second's leader Pending, its follower gated", seconds=5)
    t0 = time.monotonic()
    delete_jobset(env, ns, "first")
    second = wait_placed(env, ns, "second", 2)
    print(f"     placed {time.monotonic() - t0:.1f}s after the first JobSet's deletion")
    by_job = pools_by_job(second, pool_of)
    check(len(by_job) == 1 and all(len(v) == 1 for v in by_job.values()), by_job)


@scenario
def a_misplaced_follower_is_deleted_and_replaced_in_its_leaders_pool(env, ns):
    pools = env.kubelet.add_pools(ns, pools=2, per_pool=2)
    js = exclusive_jobset("moved", replicas=1, pods=3)
    jt = js["spec"]["replicatedJobs"][0]["template"]["spec"]
    jt["podFailurePolicy"] = {"rules": [{"action": "Ignore", "onPodConditions": [
        {"type": "DisruptionTarget", "status": "True"}]}]}
    create_jobset(env, ns, js)
    pods = wait_placed(env, ns, "moved", 3)
    ready_jobs(env, ns, "moved", 1)
    (leader,) = [p for p in pods if is_leader(p)]
    followers = {p["metadata"]["uid"] for p in pods if not is_leader(p)}
    node = leader["spec"]["nodeName"]
    elsewhere = f"{ns}-pool-moved"
    # the leader's Node moves to another pool; the pod reconciler, which watches pods only
    # (as upstream's), acts on the leader's next event: the test touches it until it does
    t0 = time.monotonic()
    expect(env.server.patch(f"/api/v1/nodes/{node}", {"metadata": {"labels": {TOPO: elsewhere}}}),
           200, "relabel")
    lpath = f"/api/v1/namespaces/{ns}/pods/{leader['metadata']['name']}"
    touches = [0]

    def followers_deleted():
        live = {p["metadata"]["uid"] for p in pods_of(env, ns, "moved")}
        if not live & followers:
            return True
        touches[0] += 1
        expect(env.server.patch(lpath, {"metadata": {"annotations": {
            "test.jaxset.dev/touched": str(touches[0])}}}), 200, "touch the leader")
        time.sleep(1)
        return False, f"{len(live & followers)} followers left"
    poll(followers_deleted, "the misplaced followers deleted", SCHED_TIMEOUT)
    t1 = time.monotonic()

    def replaced():
        pods = pods_of(env, ns, "moved")
        bound = [p for p in pods if p["spec"].get("nodeName")]
        uids = {p["metadata"]["uid"] for p in pods}
        good = len(bound) == 3 and not (uids & followers)
        return (good and pods) or (False, [(p["metadata"]["name"], p["spec"].get("nodeName"))
                                           for p in pods])
    pods = poll(replaced, "new followers bound", SCHED_TIMEOUT)
    # most of the second figure is the Job controller's own delay before it replaces failed
    # pods (10 s doubled per failure), which counts ignored failures too
    print(f"     followers deleted {t1 - t0:.1f}s after the relabelling, replaced and bound "
          f"{time.monotonic() - t1:.1f}s after")
    gone = {u: st for (_, _, u, st) in env.kubelet.removed if u in followers}
    check(set(gone) == followers, f"removed {gone.keys()}, followers {followers}")
    for st in gone.values():
        dt = [c for c in st.get("conditions") or [] if c["type"] == "DisruptionTarget"]
        check(dt and dt[0]["reason"] == "ExclusivePlacementViolation", st)
    now = {p["metadata"]["uid"]: p for p in pods}
    check(leader["metadata"]["uid"] in now, "the leader was replaced")
    for p in pods:
        check(p["spec"]["nodeName"] == node, f"{p['metadata']['name']} on "
              f"{p['spec']['nodeName']}, not in the leader's new pool ({node})")
        if not is_leader(p):
            check(p["spec"]["nodeSelector"].get(TOPO) == elsewhere, p["spec"])
    job = env.server.get(f"/apis/batch/v1/namespaces/{ns}/jobs/moved-workers-0").json
    check(not job["status"].get("failed"), f"the deletions counted as failures: {job['status']}")
    check("deleting follower pods for leader pod: " + leader["metadata"]["name"]
          in env.controller.log(), "no log line of the deletion")


@scenario
def node_selector_strategy_puts_each_job_on_its_nodes(env, ns):
    js = exclusive_jobset("bysel", replicas=2, pods=2,
                          annotations={EXCLUSIVE: TOPO, NODE_SELECTOR: "true"})
    taint = [{"key": NO_SCHEDULE, "value": "true", "effect": "NoSchedule"}]
    mine = {}
    for j in range(2):  # hack/label_nodes: a pool per Job, labelled with it and tainted
        job = f"bysel-workers-{j}"
        for i in range(2):
            name = f"{ns}-{job}-{i}"
            env.kubelet.add_node(name, {TOPO: f"{ns}-pool-{j}", NAMESPACED_JOB: f"{ns}_{job}"},
                                 taint)
            mine[name] = job
    env.kubelet.add_pools(ns + "-free", pools=1, per_pool=2)  # untainted, free, unlabelled
    create_jobset(env, ns, js)
    pods = wait_placed(env, ns, "bysel", 4)
    for p in pods:
        job = p["metadata"]["labels"][L_JOB]
        check(mine.get(p["spec"]["nodeName"]) == job,
              f"{p['metadata']['name']} on {p['spec']['nodeName']}, not on {job}'s Nodes")
        check(not terms(p, "podAffinity") and not terms(p, "podAntiAffinity"), p["spec"])
    ready_jobs(env, ns, "bysel", 2)


@scenario
def a_suspended_jobset_resumed_with_a_flavors_node_selector_lands_there(env, ns):
    flavor = {"test.jaxset.dev/flavor": f"{ns}-fast"}
    taint = [{"key": "test.jaxset.dev/flavor", "value": f"{ns}-fast", "effect": "NoSchedule"}]
    pools = env.kubelet.add_pools(ns + "-fast", pools=2, per_pool=2, labels=flavor,
                                  taints=taint)
    pool_of = {n: p for p, names in pools.items() for n in names}
    env.kubelet.add_pools(ns + "-other", pools=2, per_pool=2)  # untainted, free
    js = exclusive_jobset("queued", replicas=2, pods=2)
    js["spec"]["suspend"] = True
    create_jobset(env, ns, js)

    def suspended_jobs():
        r = env.server.get(f"/apis/batch/v1/namespaces/{ns}/jobs").json.get("items") or []
        return (len(r) == 2 and all(j["spec"].get("suspend") for j in r)) or (False, len(r))
    poll(suspended_jobs, "two suspended Jobs")
    steady(lambda: not pods_of(env, ns, "queued"), "no pod while suspended", seconds=2)
    # Kueue admits the workload: the flavor's nodeSelector and tolerations, then resume
    path = f"{JS_API}/namespaces/{ns}/jobsets/queued"
    tol = [{"key": "test.jaxset.dev/flavor", "operator": "Equal", "value": f"{ns}-fast",
            "effect": "NoSchedule"}]
    for _ in range(20):
        cur = expect(env.server.get(path), 200, "JobSet")
        for r in cur["spec"]["replicatedJobs"]:
            ps = r["template"]["spec"]["template"]["spec"]
            ps["nodeSelector"] = dict(flavor)
            ps["tolerations"] = tol
        r = env.server.put(path, cur)
        if r.status == 200:
            break
        check(r.status == 409, f"injecting the flavor: {r}")
    expect(env.server.patch(path, {"spec": {"suspend": False}}), 200, "resume")
    pods = wait_placed(env, ns, "queued", 4)
    for p in pods:
        check(p["spec"]["nodeName"] in pool_of,
              f"{p['metadata']['name']} on {p['spec']['nodeName']}, not the flavor's Nodes")
        check(p["spec"]["nodeSelector"].get("test.jaxset.dev/flavor") == flavor[
            "test.jaxset.dev/flavor"] and tol[0] in p["spec"]["tolerations"], p["spec"])
    by_job = pools_by_job(pods, pool_of)
    check(all(len(v) == 1 for v in by_job.values()) and
          len(set().union(*by_job.values())) == 2, f"not one pool per Job: {by_job}")
    ready_jobs(env, ns, "queued", 2)


L_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"


def gang(name, annotations):
    """The 4-pod allreduce shape: 2 Jobs of 2 pods that ignore nothing but hold a 3600 s
    grace, backoffLimit 0, one restart allowed."""
    r = rj("workers", replicas=2, pods=2, command=["sleep", "1000"])
    r["template"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 3600
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "annotations": annotations},
            "spec": {"failurePolicy": {"maxRestarts": 1}, "replicatedJobs": [r]}}


@scenario
def restart_grace_is_the_grace_of_every_first_deletion(env, ns):
    """jaxset.dev/restart-grace-seconds on a real Job controller: one pod of a gang fails, the
    Job controller deletes its Job's other active pod (with the pod's own grace), jaxset
    restarts the gang (its Jobs deleted, the garbage collector deleting their pods, again with
    the pods' own grace). The kubelet kills with the grace of a pod's first deletion
    (kubernetes#83916), so that is what counts: 2 s for every old pod of the annotated gang (its
    pods carry the restart grace), 3600 s without the annotation. Both gangs then run again
    as restart attempt 1."""
    env.kubelet.add_node(f"{ns}-node")
    old, failed = {}, {}
    for name, ann in (("fast", {"jaxset.dev/restart-grace-seconds": "2"}), ("slow", {})):
        create_jobset(env, ns, gang(name, ann))
        pods = wait_placed(env, ns, name, 4)
        ready_jobs(env, ns, name, 2)
        old[name] = {p["metadata"]["uid"] for p in pods}
        victim = sorted(pods, key=lambda p: p["metadata"]["name"])[0]
        failed[name] = victim["metadata"]["uid"]
        env.kubelet.fail(ns, victim["metadata"]["name"])
    for name in old:
        def restarted():
            pods = pods_of(env, ns, name)
            new = [p for p in pods if p["metadata"]["labels"].get(L_ATTEMPT) == "1"
                   and p["spec"].get("nodeName")]
            return (len(new) == 4 == len(pods) and new) or \
                (False, [(p["metadata"]["name"], p["metadata"]["labels"].get(L_ATTEMPT))
                         for p in pods])
        poll(restarted, f"{name} running again as attempt 1", SCHED_TIMEOUT)
        graces = {u: env.kubelet.first_grace.get(u) for u in old[name] - {failed[name]}}
        want = 2 if name == "fast" else 3600
        check(all(g == want for g in graces.values()),
              f"{name}: first deletion graces {sorted(graces.values(), key=str)}, want {want}")
    print(f"     first deletion graces: fast 2 s x3, slow 3600 s x3")


# ---------------------------------------------------------------------------- harness


def setup():
    env = SchedEnv(envtest.scheduler_assets())
    env.start()
    return env


def sched_teardown(env):
    try:
        env.kubelet.stop()
        if env.kubelet.errors:
            print(f"kubelet stand-in: {len(env.kubelet.errors)} errors, last: "
                  f"{env.kubelet.errors[-1]}")
    finally:
        teardown(env)


def skip_all(why):
    for fn in kubetest.TESTS:
        print(f"skip {fn.__name__}: {why}")
    print(f"0 passed, 0 failed, {len(kubetest.TESTS)} skipped")


if __name__ == "__main__":
    if not envtest.scheduler_assets():
        skip_all(f"needs a real kube-scheduler: {envtest.why_no_scheduler()}")
        sys.exit(77)  # ctest: Skipped (SKIP_RETURN_CODE), not Passed
    main(setup, sched_teardown, on_failure)
