"""TrainingClient (JAXJob, kubeflow.org/v1) with the Kubernetes backend against an API server,
the test playing the JAXJob controller and the kubelet: create_job (a dict, a YAML manifest),
the API server's refusals as ApiError (422 with its causes, 409), get_job, list_jobs,
conditions and is_job_*, wait_for_job_conditions on a watch (callback, Failed, timeout), pod
names and logs (Training Operator labels and JobSet labels; whole and followed), delete_job."""
import io
import os
import sys
import threading
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(__file__))
import kubesdk  # noqa: E402
from kubesdk import JAXJOBS, KubeTest, ok, wait  # noqa: E402

from jaxset import (ApiError, ApiNotFoundError, KubernetesBackendConfig,  # noqa: E402
                    NotFoundError, TrainingClient)

OP = "training.kubeflow.org/"


def jaxjob(name, replicas=2):
    return {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": name},
            "spec": {"jaxReplicaSpecs": {"Worker": {
                "replicas": replicas, "restartPolicy": "OnFailure",
                "template": {"spec": {"containers": [{
                    "name": "jax", "image": "docker.io/kubeflow/jaxjob-dist-spmd-mnist:latest",
                    "command": ["python3", "train.py"]}]}}}}}}


JAXJOB_YAML = """apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: from-yaml
  labels: {team: a}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: jax
            image: img
            args: ["--steps", "10"]
"""


class TrainingKubeTest(KubeTest):

    def client(self, **kw):
        ns = kw.pop("namespace", None)
        return TrainingClient(backend_config=self.config(**kw), namespace=ns)

    def jobs_path(self):
        return JAXJOBS.format(ns=self.ns)

    def operator_pods(self, job, n, phase=None):
        """Pods as the Training Operator names and labels them: <job>-worker-<i>."""
        names = []
        for i in range(n):
            labels = {OP + "job-name": job, OP + "operator-name": "jaxjob-controller",
                      OP + "replica-type": "worker", OP + "replica-index": str(i)}
            if i == 0:
                labels[OP + "job-role"] = "master"
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": f"{job}-worker-{i}", "labels": labels},
                   "spec": {"containers": [{"name": "jax", "image": "img"}]}}
            names.append(ok(self.server.post(f"/api/v1/namespaces/{self.ns}/pods",
                                             pod))["metadata"]["name"])
            if phase:
                self.set_phase(names[-1], phase)
        return names

    def test_create_get_list(self):
        c = self.client()
        self.assertEqual(c.namespace, self.ns)  # the context's namespace
        self.assertEqual(c.create_job(job=jaxjob("first")), "first")
        obj = ok(self.server.get(f"{self.jobs_path()}/first"))
        self.assertEqual(obj["spec"], jaxjob("first")["spec"])
        self.assertEqual(obj["metadata"]["namespace"], self.ns)
        path = os.path.join(self.tmp, "job.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(JAXJOB_YAML)
        self.assertEqual(c.create_job(job=path), "from-yaml")
        obj = c.get_job("from-yaml")
        self.assertEqual(obj["metadata"]["labels"], {"team": "a"})
        self.assertEqual(obj["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"][
            "containers"][0]["args"], ["--steps", "10"])
        self.assertEqual(c.create_job(job=jaxjob("x"), name="renamed"), "renamed")
        self.assertEqual([j["metadata"]["name"] for j in c.list_jobs()],
                         ["first", "from-yaml", "renamed"])
        self.assertEqual(c.list_jobs(namespace="default"), [])
        with self.assertRaises(ApiError) as cm:
            c.create_job(job=jaxjob("first"))
        self.assertEqual((cm.exception.code, cm.exception.reason), (409, "AlreadyExists"))
        with self.assertRaises(ApiNotFoundError) as cm:
            c.get_job("nope")
        self.assertIsInstance(cm.exception, NotFoundError)
        self.assertIn('jaxjobs.kubeflow.org "nope" not found', str(cm.exception))

    def test_refused_jobs_create_nothing(self):
        c = self.client()
        with self.assertRaises(ApiError) as cm:
            c.create_job(job=jaxjob("Bad_Name"))
        e = cm.exception
        self.assertEqual((e.code, e.reason), (422, "Invalid"))
        self.assertEqual([x.get("field") for x in e.causes], ["metadata.name"])
        self.assertIn("metadata.name", str(e))
        for bad, text in ((dict(job={"kind": "PyTorchJob", "metadata": {"name": "p"}}),
                           "JAXJob"),
                          (dict(job=dict(jaxjob("v"), apiVersion="kubeflow.org/v2")),
                           "apiVersion"),
                          (dict(job={"kind": "JAXJob", "spec": {}}), "metadata.name"),
                          (dict(job=os.path.join(self.tmp, "missing.yaml")), "no such file"),
                          (dict(job=jaxjob("t"), train_func=print), "job object"),
                          (dict(job=jaxjob("k"), job_kind="TFJob"), "TFJob")):
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    c.create_job(**bad)
                self.assertIn(text, str(cm.exception))
        self.assertEqual(c.list_jobs(), [])

    def test_conditions_and_wait(self):
        c = self.client()
        c.create_job(job=jaxjob("w"))
        self.assertEqual(c.get_job_conditions("w"), [])
        self.assertFalse(c.is_job_created("w"))
        self.set_conditions(self.jobs_path(), "w", [{"type": "Created"}])
        self.assertTrue(c.is_job_created("w"))
        self.assertFalse(c.is_job_running("w"))
        seen, box = [], {}

        def run(**kw):
            try:
                box["job"] = c.wait_for_job_conditions("w", wait_timeout=kubesdk.TIMEOUT,
                                                       callback=seen.append, **kw)
            except BaseException as e:  # noqa: BLE001 - checked by the test
                box["error"] = e
        t = threading.Thread(target=run, kwargs={"expected_conditions": {"Running"}},
                             daemon=True)
        t.start()
        self.set_conditions(self.jobs_path(), "w", [{"type": "Created"},
                                                    {"type": "Running"}])
        t.join(kubesdk.TIMEOUT + 5)
        self.assertTrue(c.is_job_running(job=box["job"]))
        self.assertTrue(seen and all(j["metadata"]["name"] == "w" for j in seen))
        box.clear()
        t = threading.Thread(target=run, daemon=True)  # Succeeded
        t.start()
        self.set_conditions(self.jobs_path(), "w", [
            {"type": "Created"}, {"type": "Running", "status": "False"},
            {"type": "Failed", "reason": "JAXJobFailed", "message": "worker 1 exited 2"}])
        t.join(kubesdk.TIMEOUT + 5)
        self.assertIsInstance(box.get("error"), RuntimeError)
        self.assertIn("is Failed", str(box["error"]))
        self.assertTrue(c.is_job_failed("w"))
        self.assertFalse(c.is_job_succeeded("w"))
        self.assertEqual(c.wait_for_job_conditions("w", expected_conditions={"Failed"},
                                                   wait_timeout=5)["metadata"]["name"], "w")
        c.create_job(job=jaxjob("slow"))
        with self.assertRaises(TimeoutError):
            c.wait_for_job_conditions("slow", wait_timeout=1)
        with self.assertRaises(ValueError):
            c.wait_for_job_conditions("slow", expected_conditions={"Complete"})
        with self.assertRaises(NotFoundError):
            c.wait_for_job_conditions("missing", wait_timeout=5)

    def test_pods_and_logs(self):
        c = self.client()
        c.create_job(job=jaxjob("lg"))
        pods = self.operator_pods("lg", 2, phase="Running")
        self.assertEqual(c.get_job_pod_names("lg", is_master=True), ["lg-worker-0"])
        self.assertEqual(c.get_job_pod_names("lg"), pods)
        self.assertEqual(c.get_job_pod_names("lg", replica_index=1), ["lg-worker-1"])
        with self.assertRaises(ValueError):
            c.get_job_pod_names("lg", replica_type="PS")
        self.need_logs()
        self.server.pod_log(self.ns, pods[0], "w0 a\nw0 b\n")
        self.server.pod_log(self.ns, pods[1], "w1 a\n")
        logs, events = c.get_job_logs("lg")
        self.assertEqual((logs, events), ({"lg-worker-0": "w0 a\nw0 b\n"}, {}))
        logs, _ = c.get_job_logs("lg", is_master=False)
        self.assertEqual(logs, {"lg-worker-0": "w0 a\nw0 b\n", "lg-worker-1": "w1 a\n"})
        self.event("JAXJob", "lg", "JAXJobCreated", "created", "kubeflow.org/v1")
        logs, events = c.get_job_logs("lg", is_master=False, replica_index=1, verbose=True)
        self.assertEqual(list(logs), ["lg-worker-1"])
        self.assertEqual(len(events["lg-worker-1"]), 1)
        self.assertIn("JAXJobCreated: created", events["lg-worker-1"][0])
        # follow: printed as they come, returned when every worker ended
        out, box = io.StringIO(), {}

        def follow():
            with redirect_stdout(out):
                box["logs"] = c.get_job_logs("lg", is_master=False, follow=True)[0]
        t = threading.Thread(target=follow, daemon=True)
        t.start()
        wait(lambda: "[Pod lg-worker-1]: w1 a" in out.getvalue(), "followed lines printed")
        self.server.pod_log(self.ns, pods[1], "w1 b\n")
        self.set_phase(pods[0], "Succeeded")
        self.set_phase(pods[1], "Succeeded")
        t.join(kubesdk.TIMEOUT)
        self.assertFalse(t.is_alive())
        self.assertEqual(box["logs"], {"lg-worker-0": "w0 a\nw0 b\n",
                                       "lg-worker-1": "w1 a\nw1 b\n"})
        self.assertIn("[Pod lg-worker-1]: w1 b", out.getvalue())

    def test_follow_waits_for_workers_while_the_job_lives(self):
        self.need_logs()
        c = self.client()
        c.create_job(job=jaxjob("fw", replicas=2))
        out, box, done = io.StringIO(), {}, threading.Event()

        def follow():
            try:
                with redirect_stdout(out):
                    box["logs"] = c.get_job_logs("fw", is_master=False, follow=True)[0]
            except BaseException as e:  # noqa: BLE001 - checked by the test
                box["error"] = e
            finally:
                done.set()
        self.reset_stats()
        threading.Thread(target=follow, daemon=True).start()
        first = self.operator_pods("fw", 1)                # one of two: still waiting
        self.server.pod_log(self.ns, first[0], "early\n")
        self.wait_listed("jaxjobs")                        # its watch of the job started
        self.assertFalse(done.is_set())
        self.set_conditions(self.jobs_path(), "fw", [{"type": "Failed"}])  # it ended
        self.set_phase(first[0], "Failed")
        self.assertTrue(done.wait(kubesdk.TIMEOUT), "follow ended with the job")
        self.assertEqual(box.get("logs"), {"fw-worker-0": "early\n"}, box)

    def test_jobset_shaped_pods(self):
        """A JAXJob that runs as the JobSet jaxset converts it to: pods of replicated job
        "worker", found by the JobSet's labels."""
        c = self.client()
        c.create_job(job=jaxjob("js"))
        pods = self.make_pods("js", 2, rjob="worker", container="jax")
        self.assertEqual(c.get_job_pod_names("js"), pods)
        self.assertEqual(c.get_job_pod_names("js", is_master=True), pods[:1])
        self.need_logs()
        self.server.pod_log(self.ns, pods[0], "hello\n")
        self.assertEqual(c.get_job_logs("js")[0], {pods[0]: "hello\n"})

    def test_delete_and_namespaces(self):
        c = self.client()
        c.create_job(job=jaxjob("d"))
        c.create_job(job=jaxjob("d"), namespace="default")
        try:
            self.assertEqual([j["metadata"]["name"] for j in c.list_jobs("default")], ["d"])
            c.delete_job("d")
            wait(lambda: self.server.get(f"{self.jobs_path()}/d").status == 404, "deleted")
            self.assertEqual(c.get_job("d", namespace="default")["metadata"]["namespace"],
                             "default")
        finally:
            c.delete_job("d", namespace="default")
        with self.assertRaises(ApiNotFoundError):
            c.delete_job("d")
        # an explicit namespace beats the context's
        c2 = self.client(namespace="default")
        self.assertEqual(c2.namespace, "default")
        c3 = TrainingClient(config_file=self.kubeconfig, namespace="default")
        self.assertEqual(c3.namespace, "default")
        with self.assertRaises(ValueError):
            TrainingClient(config_file=self.kubeconfig,
                           backend_config=KubernetesBackendConfig())
        with self.assertRaises(ValueError):
            TrainingClient(job_kind="PyTorchJob", config_file=self.kubeconfig)


if __name__ == "__main__":
    kubesdk.main()
