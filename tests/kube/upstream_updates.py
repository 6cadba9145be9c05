"""Update cases of tests/upstream (run_upstream.py) through the controller's webhooks: the
stored object is created in a fresh namespace (through the mutating and validating webhooks,
as on a cluster; its status, when the case gives one, written through the status
subresource), then the new object is PUT over it, with the defaults admission gave the stored
one where the new one has nothing (upstream's unit tables compare two undefaulted objects; on
a cluster a user edits the stored, defaulted one). The test API server calls the webhooks as
kube-apiserver does; a real kube-apiserver serves when KUBEBUILDER_ASSETS names one. One
`jaxset controller --enable-webhooks` per feature-gate setting of the cases."""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_webhooks import Env, jaxjob_crd, trainer_crds, warning_text  # noqa: E402

CLUSTER_SCOPED = {"ClusterTrainingRuntime"}


def placed(obj, ns):
    """A copy of `obj` in namespace `ns` (unless its kind is cluster-scoped)."""
    obj = copy.deepcopy(obj)
    if obj["kind"] not in CLUSTER_SCOPED:
        obj.setdefault("metadata", {})["namespace"] = ns
    return obj


def collection(obj, ns):
    """The REST collection of an object's kind (JobSet, JAXJob, TrainJob, runtimes)."""
    kind = obj["kind"]
    base = f"/apis/{obj['apiVersion']}"
    if kind not in CLUSTER_SCOPED:
        base += f"/namespaces/{ns}"
    return f"{base}/{kind.lower()}s"


def defaults(stored, raw):
    """What admission added to `raw` to store it (the webhook's and the CRD's defaults): the
    keys of `stored` that `raw` lacks, recursively, lists element by element."""
    if isinstance(stored, dict) and isinstance(raw, dict):
        out = {}
        for k, v in stored.items():
            if k not in raw:
                out[k] = copy.deepcopy(v)
            else:
                d = defaults(v, raw[k])
                if d not in (None, {}, []):
                    out[k] = d
        return out
    if isinstance(stored, list) and isinstance(raw, list) and len(stored) == len(raw):
        return [defaults(s, r) for s, r in zip(stored, raw)]
    return None


def fill(new, dflt):
    """`new` with the defaults `dflt` where it has nothing: the update a user makes by editing
    the stored object, as upstream's unit tables compare two undefaulted objects."""
    if isinstance(new, dict) and isinstance(dflt, dict):
        for k, v in dflt.items():
            if k not in new:
                new[k] = copy.deepcopy(v)
            else:
                fill(new[k], v)
    elif isinstance(new, list) and isinstance(dflt, list):
        for n, d in zip(new, dflt):
            fill(n, d)
    return new


def message(resp):
    body = resp.json if isinstance(resp.json, dict) else {}
    return body.get("message") or resp.raw.decode("utf-8", "replace")


class UpdateEnv:
    def __init__(self):
        self.env = Env()
        self.gates = None
        try:
            jaxjob_crd(self.env)
            trainer_crds(self.env)  # starts a controller with the default gates
        except BaseException:
            self.close()  # the server (and a controller) started: leave nothing running
            raise

    def controller(self, gates):
        """A controller serving the webhooks with `gates` (None: defaults)."""
        if self.env.controller and gates == self.gates:
            return
        self.env.stop()
        self.env.start(*(["--feature-gates", gates] if gates else []))
        self.gates = gates

    def apply(self, case):
        """(admitted, message, warnings) of the update; a refused stored object is reported
        as refused, naming it."""
        self.controller(case.get("feature_gates"))
        ns = self.env.namespace()
        for pre in case["manifests"][:-1]:  # what the user applied first (runtimes)
            pre = placed(pre, ns)
            r = self.env.server.post(collection(pre, ns), pre)
            if r.status not in (201, 409):
                return False, f"{pre['kind']} {pre['metadata'].get('name')} was refused " \
                              f"({r.status}): {message(r)}", []
        old = placed(case["old"], ns)
        status = old.pop("status", None)
        name = old["metadata"]["name"]
        base = collection(old, ns)
        r = self.env.server.post(base, old)
        if r.status != 201:
            return False, f"the stored object was refused ({r.status}): {message(r)}", []
        dflt = defaults(r.json.get("spec"), old.get("spec"))
        if status:
            got = r.json
            for _ in range(5):  # the controller's own status write may come in between: again
                got["status"] = status
                r = self.env.server.put(f"{base}/{name}/status", got)
                if r.status != 409:
                    break
                got = self.env.server.get(f"{base}/{name}").json
            if r.status != 200:
                return False, f"its status was refused ({r.status}): {message(r)}", []
        for _ in range(5):
            cur = self.env.server.get(f"{base}/{name}").json
            new = copy.deepcopy(case["manifests"][-1])
            fill(new.get("spec"), dflt)
            new["metadata"]["namespace"] = ns
            new["metadata"]["resourceVersion"] = cur["metadata"]["resourceVersion"]
            new["status"] = cur.get("status", {})
            r = self.env.server.put(f"{base}/{name}", new)
            if r.status != 409:  # a write of the controller's in between: again
                break
        return (r.status == 200, "" if r.status == 200 else message(r),
                [warning_text(w) for w in r.warnings()])

    def close(self):
        self.env.stop()
        self.env.server.stop()
