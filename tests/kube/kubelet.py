"""A kubelet stand-in for scenarios that run a real kube-scheduler (envtest.KubeAPIServer with
scheduler=True): it registers Node objects (capacity, topology labels, taints) already Ready,
and, on a thread watching every pod, plays the kubelet of those Nodes:

- a pod bound to one of them (spec.nodeName) moves to Running with its containers started and
  Ready (when run_pods; otherwise it stays Pending, bound);
- a pod of theirs being deleted (deletionTimestamp) has the grace of that first deletion
  recorded (first_grace: the kubelet kills with it, kubernetes#83916, however the pod is
  deleted again) and its containers stopped (exit code 137, phase Failed unless it had ended
  already: the terminal phase a kubelet writes before the pod goes, which the Job
  controller's podFailurePolicy reads) and is removed for good (DELETE with
  gracePeriodSeconds 0 and its uid as precondition); without that a bound pod would stay
  Terminating for its whole grace period.

Nothing runs the node lifecycle controller beside it (envtest.py), so the Nodes need no lease
or heartbeat to stay Ready. `fail` ends a pod's container with an exit code, as a crash."""
import concurrent.futures
import threading
import time

from kubetest import Watch

TOPO = "cloud.google.com/gke-nodepool"


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def node_body(name, labels=None, taints=None, cpu="8", memory="32Gi", pods=110):
    cap = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    t = now()
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  **(labels or {})}},
            "spec": {"taints": taints} if taints else {},
            "status": {"capacity": cap, "allocatable": cap, "phase": "Running",
                       "conditions": [{"type": "Ready", "status": "True",
                                       "reason": "KubeletReady", "message": "kubelet stand-in",
                                       "lastHeartbeatTime": t, "lastTransitionTime": t}]}}


def container_states(pod, state):
    return [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "restartCount": 0,
             "ready": "running" in state, "started": "running" in state, "state": state}
            for c in pod["spec"].get("containers") or []]


def cond(ctype, status="True", reason=None):
    c = {"type": ctype, "status": status, "lastProbeTime": None, "lastTransitionTime": now()}
    if reason:
        c["reason"] = reason
    return c


class Kubelet:
    def __init__(self, server, run_pods=True, workers=8):
        """`workers`: pods acted on at once (a cluster's kubelets work side by side)."""
        self.server = server
        self.pool = concurrent.futures.ThreadPoolExecutor(workers, "kubelet")
        self.run_pods = run_pods
        self.nodes = set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = None
        self.errors = []
        self.removing = set()  # uids of the pods it removes
        self.running = set()   # uids of the pods it started
        self.started = {}   # pod uid -> monotonic time it was seen bound
        self.removed = []   # (namespace, name, uid, its last status) of every pod it removed
        # uid -> deletionGracePeriodSeconds of a pod when first seen terminating: the grace a
        # kubelet kills with (kubernetes#83916), however the pod is deleted again
        self.first_grace = {}

    # ------------------------------------------------------------------ Nodes

    def add_node(self, name, labels=None, taints=None, **capacity):
        """Registers a Ready Node (kube-apiserver keeps the status of a created Node, as the
        kubelet's own registration relies on). Its admission (TaintNodesByCondition) adds the
        node.kubernetes.io/not-ready taint, which the node lifecycle controller removes from a
        Ready Node; none runs here, so the stand-in writes the Node's taints back as asked."""
        r = self.server.post("/api/v1/nodes", node_body(name, labels, taints, **capacity))
        if r.status != 201:
            raise AssertionError(f"node {name}: {r}")
        got = r.json.get("status") or {}
        if not any(c.get("type") == "Ready" for c in got.get("conditions") or []):
            raise AssertionError(f"node {name} was created without its Ready condition: {got}")
        if (r.json.get("spec") or {}).get("taints") != (taints or None):
            r = self.server.patch(f"/api/v1/nodes/{name}", {"spec": {"taints": taints or None}})
            if r.status != 200:
                raise AssertionError(f"node {name}'s taints: {r}")
        with self.lock:
            self.nodes.add(name)
        return r.json

    def add_pools(self, tag, pools=3, per_pool=3, key=TOPO, labels=None, taints=None,
                  **capacity):
        """pools × per_pool Nodes labelled key=<tag>-pool-<p>; {pool: [node names]}."""
        out = {}
        for p in range(pools):
            pool = f"{tag}-pool-{p}"
            for i in range(per_pool):
                name = f"{pool}-node-{i}"
                self.add_node(name, {key: pool, **(labels or {})}, taints, **capacity)
                out.setdefault(pool, []).append(name)
        return out

    def remove_nodes(self):
        with self.lock:
            names, self.nodes = sorted(self.nodes), set()
        for n in names:
            self.server.delete(f"/api/v1/nodes/{n}")

    def mine(self, pod):
        with self.lock:
            return pod["spec"].get("nodeName") in self.nodes

    # ------------------------------------------------------------------ pods

    def run(self, pod):
        """Pending → Running with its containers started and Ready."""
        st = {"phase": "Running", "startTime": now(), "hostIP": "10.1.0.1", "podIP": "10.2.0.1",
              "conditions": [cond("PodScheduled"), cond("Initialized"),
                             cond("ContainersReady"), cond("Ready")],
              "containerStatuses": container_states(pod, {"running": {"startedAt": now()}})}
        self._status(pod, st)

    def fail(self, ns, name, exit_code=1):
        """The pod's containers exit with `exit_code`: phase Failed."""
        pod = self.server.get(f"/api/v1/namespaces/{ns}/pods/{name}").json
        term = {"terminated": {"exitCode": exit_code, "reason": "Error", "startedAt": now(),
                               "finishedAt": now()}}
        st = {"phase": "Failed",
              "conditions": [cond("PodScheduled"), cond("Initialized"),
                             cond("ContainersReady", "False", "PodFailed"),
                             cond("Ready", "False", "PodFailed")],
              "containerStatuses": container_states(pod, term)}
        r = self._status(pod, st)
        if r.status != 200:
            raise AssertionError(f"failing pod {ns}/{name}: {r}")

    def _status(self, pod, st):
        """A strategic merge patch of the status: conditions merge by type, so that others'
        (DisruptionTarget) stay."""
        m = pod["metadata"]
        return self.server.patch(
            f"/api/v1/namespaces/{m['namespace']}/pods/{m['name']}/status",
            {"metadata": {"uid": m["uid"]}, "status": st},
            ctype="application/strategic-merge-patch+json")

    def remove(self, pod):
        m = pod["metadata"]
        if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            term = {"terminated": {"exitCode": 137, "reason": "Error", "finishedAt": now()}}
            r = self._status(pod, {"phase": "Failed",
                                   "conditions": [cond("Ready", "False", "PodFailed")],
                                   "containerStatuses": container_states(pod, term)})
            if r.status == 200:
                pod = r.json
        r = self.server.delete(f"/api/v1/namespaces/{m['namespace']}/pods/{m['name']}",
                               {"gracePeriodSeconds": 0, "preconditions": {"uid": m["uid"]}})
        if r.status == 200:
            with self.lock:
                self.removed.append((m["namespace"], m["name"], m["uid"], pod.get("status")))
        return r

    def handle(self, pod):
        if not self.mine(pod):
            return
        m = pod["metadata"]
        if m.get("deletionTimestamp"):
            with self.lock:
                first = m["uid"] not in self.removing
                self.removing.add(m["uid"])
                self.first_grace.setdefault(m["uid"], m.get("deletionGracePeriodSeconds"))
            if first:
                self.pool.submit(self._guarded, self.remove, pod)
            return
        with self.lock:
            self.started.setdefault(m["uid"], time.monotonic())
        phase = (pod.get("status") or {}).get("phase", "Pending")
        if self.run_pods and phase == "Pending":
            with self.lock:
                first = m["uid"] not in self.running
                self.running.add(m["uid"])
            if first:
                self.pool.submit(self._guarded, self.run, pod)

    def _guarded(self, fn, pod):
        try:
            fn(pod)
        except Exception as e:  # noqa: BLE001 - kept for the report, the loop goes on
            with self.lock:
                self.errors.append(f"{fn.__name__} {pod['metadata']['name']}: {e!r}")

    # ------------------------------------------------------------------ the loop

    def start(self):
        self.thread = threading.Thread(target=self._loop, name="kubelet", daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        if self.thread:
            self.thread.join(15)
        self.thread = None
        self.pool.shutdown(wait=True)

    def _loop(self):
        rv = None
        while not self.stopping.is_set():
            try:
                if rv is None:
                    r = self.server.get("/api/v1/pods")
                    for pod in r.json.get("items") or []:
                        self.handle(pod)
                    rv = r.json["metadata"]["resourceVersion"]
                rv = self._watch(rv)
            except Exception as e:  # noqa: BLE001 - a dropped watch: list again
                with self.lock:
                    self.errors.append(repr(e))
                rv = None
                time.sleep(0.2)

    def _watch(self, rv):
        """Handles events until the stream ends or a second passes without one; the
        resourceVersion to go on from, None to list again (410 Gone)."""
        w = Watch(self.server, f"/api/v1/pods?watch=1&allowWatchBookmarks=true"
                               f"&resourceVersion={rv}&timeoutSeconds=30", timeout=1)
        try:
            while not self.stopping.is_set():
                try:
                    ev = w.next()
                except TimeoutError:
                    return rv
                if ev is None:
                    return rv
                if ev["type"] == "ERROR":
                    return None
                rv = ev["object"]["metadata"].get("resourceVersion", rv)
                if ev["type"] in ("ADDED", "MODIFIED"):
                    self.handle(ev["object"])
            return rv
        finally:
            w.conn.close()
