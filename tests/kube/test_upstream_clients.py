"""Kubeflow's and JobSet's own Python clients, unchanged, against `jaxset controller`.

JAXSET_UPSTREAM_CLIENTS names a folder of upstream checkouts (nothing of them is in this
repository), as KUBEBUILDER_ASSETS names binaries:

  training-operator/  kubeflow/training-operator release-1.9 (sdk/python: kubeflow.training)
  sdk/                kubeflow/sdk 0.5.0 (python/ or the root: kubeflow.trainer, kubeflow.common)
  trainer/            kubeflow/trainer v2.3.0 (api/python_api: kubeflow_trainer_api, which sdk
                      needs)
  jobset/             kubernetes-sigs/jobset v0.12.0 (sdk/python: jobset)

A flow whose checkout is absent, or whose imports fail (the clients need the `kubernetes`
package, pydantic 2 for jobset and kubeflow/sdk), is skipped with the reason. Without the
variable every flow is skipped with one line saying how to provide them (exit 77).

The server: kube-apiserver + kube-controller-manager (garbage collector and Job controller) +
kube-scheduler from KUBEBUILDER_ASSETS when it holds them, with podrunner.py running the pods'
commands for real on two Nodes and serving their logs as a kubelet; otherwise the project's
test API server, where nothing creates pods from Jobs: the steps that need pods (running,
pods, logs, success) are skipped there, saying so, and the rest run. `jaxset controller
--enable-webhooks` serves every kind with config/crd's CRDs, config/runtimes' jax-distributed
and config/trainer installed.

Flows, each step a named case (`flow/step`):
- training: TrainingClient(job_kind="JAXJob"), its e2e flow (sdk/python/test/e2e/
  test_e2e_jaxjob.py test_sdk_e2e and utils.verify_job_e2e), pods, logs, suspend/resume.
- trainer: kubeflow/sdk TrainerClient (Kubernetes backend).
- jobset: the JobSet SDK's models with the kubernetes CustomObjectsApi.
- kubectl: explain, scale jaxjob, wait, server-side apply twice.

`python3 tests/kube/test_upstream_clients.py [FLOW...]` runs some flows."""
import logging
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import envtest  # noqa: E402
from clientflow import Flow, Skip, check  # noqa: E402
from kubetest import SRC  # noqa: E402

# checkout: (package root, a folder the root must hold)...
ROOTS = {"training-operator": (("sdk/python", "kubeflow/training"),),
         "sdk": (("python", "kubeflow/trainer/api"), (".", "kubeflow/trainer/api")),
         "trainer": (("api/python_api", "kubeflow_trainer_api"),),
         "jobset": (("sdk/python", "jobset/models"),)}
HOW = ("JAXSET_UPSTREAM_CLIENTS=DIR names a folder of checkouts: training-operator/ "
       "(kubeflow/training-operator release-1.9), sdk/ (kubeflow/sdk), trainer/ "
       "(kubeflow/trainer, for its api/python_api), jobset/ (kubernetes-sigs/jobset v0.12.0)")


# ---------------------------------------------------------------------- sources


def upstream_paths(top):
    """{checkout: its package root} for the checkouts present under top."""
    out = {}
    for name, roots in ROOTS.items():
        for root, marker in roots:
            p = os.path.normpath(os.path.join(top, name, root))
            if os.path.isdir(os.path.join(p, marker)):
                out[name] = p
                break
    return out


# ---------------------------------------------------------------------- environment


class Env:
    def __init__(self):
        from test_kinds import crds, start_server
        assets = envtest.scheduler_assets()
        if assets:
            self.server = envtest.KubeAPIServer(assets, crds=crds(), scheduler=True)
        else:
            self.server = start_server()
        self.pods_run = bool(assets)
        self.kubelet = None
        from test_webhooks import Env as WebhookEnv
        self.wh = WebhookEnv(self.server)
        self.kenv = self.wh.kenv
        self.wh.start()
        self.kubectl_ok("apply", "-f", os.path.join(SRC, "config", "runtimes",
                                                     "jax_distributed.yaml"))
        self.kubectl_ok("apply", "-k", os.path.join(SRC, "config", "trainer"))
        if self.pods_run:
            from podrunner import PodRunner
            self.kubelet = PodRunner(self.server).start()
            for i in range(2):
                self.kubelet.add_node(f"runner-{i}", cpu="16", memory="64Gi")

    def need_pods(self):
        if not self.pods_run:
            raise Skip("needs the Job controller, kube-scheduler and a kubelet: "
                       f"{envtest.why_no_scheduler()}")

    def namespace(self):
        return self.wh.namespace()

    def kubeconfig(self, ns):
        """The server's kubeconfig with ns as its context's namespace."""
        path = os.path.join(self.server.dir, f"kubeconfig-{ns}")
        subprocess.run(["kubectl", "config", "view", "--raw", "--flatten"], env=self.kenv,
                       check=True, stdout=open(path, "w", encoding="utf-8"))
        env = dict(self.kenv, KUBECONFIG=path)
        subprocess.run(["kubectl", "config", "set-context", "--current", f"--namespace={ns}"],
                       env=env, check=True, capture_output=True)
        return path

    def kubectl(self, *args, ns=None, stdin=None):
        a = (["-n", ns] if ns else []) + list(args)
        return subprocess.run(["kubectl", *a], env=self.kenv, capture_output=True, text=True,
                              input=stdin, timeout=120)

    def kubectl_ok(self, *args, ns=None, stdin=None):
        r = self.kubectl(*args, ns=ns, stdin=stdin)
        check(r.returncode == 0, f"kubectl {' '.join(args)}: {r.stdout}{r.stderr}")
        return r.stdout

    def pods(self, ns, selector):
        r = self.server.get(f"/api/v1/namespaces/{ns}/pods?labelSelector={selector}")
        return [p for p in r.json.get("items") or [] if not p["metadata"].get("deletionTimestamp")]

    def stop(self):
        try:
            if self.kubelet:
                self.kubelet.stop()
        finally:
            from test_webhooks import teardown
            teardown(self.wh)

    def controller_log(self):
        return self.wh.controller.log()[-4000:] if self.wh.controller else ""


# ---------------------------------------------------------------------- flows

import flows_training  # noqa: E402
import flows_other  # noqa: E402

FLOWS = {"training": flows_training.training, "trainer": flows_other.trainer,
         "jobset": flows_other.jobset, "kubectl": flows_other.kubectl}


def main():
    only = sys.argv[1:] or list(FLOWS)
    top = os.environ.get("JAXSET_UPSTREAM_CLIENTS")
    if not top:
        print(f"skip: would run {', '.join(only)} flows of the upstream clients against "
              f"jaxset controller; {HOW}")
        sys.exit(77)  # ctest: Skipped (SKIP_RETURN_CODE)
    paths = upstream_paths(top)
    sys.path[:0] = list(paths.values())
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    env = Env()
    results = []
    try:
        for name in only:
            flow = Flow(name)
            FLOWS[name](env, flow, paths)
            results.append(flow)
            if flow.failed:
                print(f"--- controller log:\n{env.controller_log()}")
    finally:
        env.stop()
    for f in results:
        print(f.summary())
    failed = sum(len(f.failed) for f in results)
    passed = sum(len(f.passed) for f in results)
    sys.exit(1 if failed else 0 if passed else 77)


if __name__ == "__main__":
    main()
