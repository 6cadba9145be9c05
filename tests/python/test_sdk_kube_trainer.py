"""TrainerClient with the Kubernetes backend against an API server (the project's test API
server, or kube-apiserver when KUBEBUILDER_ASSETS is set), the test playing the TrainJob
controller, the Job controller and the kubelet: runtimes from the server, train (the TrainJob
as created, its command run for real), get_job steps and status as the pods and conditions
change, logs (whole and followed), events, wait_for_job_status on watches (Running, Complete,
Failed, timeout), delete_job, and bad input refused with nothing created."""
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(__file__))
import kubesdk  # noqa: E402
from kubesdk import (CLUSTER_RUNTIMES, RUNTIMES, TRAINJOBS, KubeTest, jax_runtime,  # noqa: E402
                     ok, wait)

from jaxset import (ApiError, ApiNotFoundError, CustomTrainer,  # noqa: E402
                    CustomTrainerContainer, NotFoundError, Runtime, TrainerClient)
import jaxset  # noqa: E402
from jaxset import _func  # noqa: E402


def train_fn(steps: int, tag: str = "x"):
    import os
    print(f"tag={tag} steps={steps} id={os.environ.get('JAX_PROCESS_ID', '?')}")


def uses_global():
    print(re.sub("a", "b", "a"))


def make_closure():
    secret = object()

    def inner():
        print(secret)
    return inner


class TrainerKubeTest(KubeTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # Cluster-scoped runtimes every test sees: Kubeflow's JAX runtime, one with GPUs, and
        # one without the framework label (skipped by list_runtimes).
        for rt in (jax_runtime(), jax_runtime("jax-gpu", num_nodes=2,
                                               limits={"nvidia.com/gpu": 4}),
                   jax_runtime("no-label", framework=None)):
            ok(cls.server.post(CLUSTER_RUNTIMES, rt), 201, 409)

    def client(self, **kw):
        return TrainerClient(backend_config=self.config(**kw))

    def trainjobs(self):
        return ok(self.server.get(TRAINJOBS.format(ns=self.ns)))["items"]

    # -- runtimes -------------------------------------------------------------------------

    def test_runtimes(self):
        ok(self.server.post(RUNTIMES.format(ns=self.ns),
                            jax_runtime("team-jax", kind="TrainingRuntime", num_nodes=3)))
        # a namespaced runtime of a cluster runtime's name wins, as in Kubeflow's SDK
        ok(self.server.post(RUNTIMES.format(ns=self.ns),
                            jax_runtime("jax-gpu", kind="TrainingRuntime", num_nodes=5)))
        c = self.client()
        with self.assertLogs("jaxset", "WARNING") as logs:
            names = [r.name for r in c.list_runtimes()]
        self.assertIn("no-label", "\n".join(logs.output))
        self.assertNotIn("no-label", names)
        for n in ("jax-distributed", "jax-gpu", "team-jax"):
            self.assertIn(n, names)
        rt = c.get_runtime("jax-distributed")
        image = jaxset.runtimes.trainer_container(jax_runtime())["image"]
        self.assertEqual((rt.name, rt.trainer.framework, rt.trainer.num_nodes,
                          rt.trainer.image), ("jax-distributed", "jax", 1, image))
        self.assertEqual(c.get_runtime("team-jax").trainer.num_nodes, 3)
        self.assertEqual(c.get_runtime("jax-gpu").trainer.num_nodes, 5)
        with self.assertRaises(NotFoundError) as cm:
            c.get_runtime("nope")
        self.assertIn("'nope' not found", str(cm.exception))
        self.assertIn("team-jax", str(cm.exception))
        # another namespace does not see team-jax
        other = self.write_kubeconfig(namespace="default", name="kc-default")
        names = [r.name for r in TrainerClient(
            backend_config=self.config(config_file=other)).list_runtimes()]
        self.assertNotIn("team-jax", names)
        gpu = [r for r in TrainerClient(backend_config=self.config(config_file=other))
               .list_runtimes() if r.name == "jax-gpu"][0]
        self.assertEqual((gpu.trainer.device, gpu.trainer.device_count), ("gpu", "8"))

    # -- train and get_job ----------------------------------------------------------------

    def test_train_creates_the_trainjob_and_get_job_follows_the_pods(self):
        c = self.client()
        rt = c.get_runtime("jax-distributed")
        name = c.train(runtime=rt, trainer=CustomTrainer(
            func=train_fn, func_args={"steps": 3, "tag": "k8s"}, num_nodes=2,
            resources_per_node={"cpu": 2, "memory": "1Gi"}, env={"A": "1"}))
        self.assertRegex(name, r"^[a-z][0-9a-f]{11}$")
        tj = self.trainjob(name)
        self.assertEqual((tj["apiVersion"], tj["kind"], tj["metadata"]["namespace"]),
                         ("trainer.kubeflow.org/v1alpha1", "TrainJob", self.ns))
        self.assertEqual(tj["spec"]["runtimeRef"],
                         {"name": "jax-distributed", "apiGroup": "trainer.kubeflow.org",
                          "kind": "ClusterTrainingRuntime"})
        trainer = tj["spec"]["trainer"]
        self.assertEqual(trainer["numNodes"], 2)
        self.assertEqual(trainer["env"], [{"name": "A", "value": "1"}])
        self.assertEqual(trainer["resourcesPerNode"],
                         {"limits": {"cpu": 2, "memory": "1Gi"},
                          "requests": {"cpu": 2, "memory": "1Gi"}})
        # the command is the local backend's, and it runs
        self.assertEqual(trainer["command"],
                         _func.container_command(train_fn, {"steps": 3, "tag": "k8s"},
                                                "python3"))
        env = dict(os.environ, JAX_PROCESS_ID="1")
        out = subprocess.run([sys.executable, *trainer["command"][1:]], capture_output=True,
                             text=True, env=env, timeout=60)
        self.assertEqual(out.stdout, "tag=k8s steps=3 id=1\n", out.stderr)
        self.assertNotIn("status", tj)
        # jaxset's own converter takes it with its runtime: 2 JAX processes
        for k in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"):
            tj["metadata"].pop(k, None)
        summary = jaxset.validate(tj, jax_runtime())
        self.assertIn("JAX (trainjob): 2 processes", summary[0])

        job = c.get_job(name)
        self.assertEqual((job.name, job.status, job.num_nodes, job.steps, job.runtime.name),
                         (name, "Created", 2, [], "jax-distributed"))
        pods = self.make_pods(name, 2, limits={"cpu": "2"})
        job = c.get_job(name)
        self.assertEqual([(s.name, s.status, s.pod_name, s.device, s.device_count)
                          for s in job.steps],
                         [("node-0", "Pending", pods[0], "cpu", "2"),
                          ("node-1", "Pending", pods[1], "cpu", "2")])
        self.assertEqual(job.status, "Created")
        self.set_phase(pods[0], "Running")
        self.assertEqual(c.get_job(name).status, "Created")  # not every node runs yet
        self.set_phase(pods[1], "Running")
        self.assertEqual(c.get_job(name).status, "Running")
        # a restarted node-1: the newest attempt's pod is the step
        newer = self.make_pods(name, 2, attempt=1)
        job = c.get_job(name)
        self.assertEqual([s.pod_name for s in job.steps], newer)
        self.assertEqual(job.status, "Created")
        for p in newer:
            self.set_phase(p, "Succeeded")
        self.assertEqual(c.get_job(name).status, "Running")
        self.set_conditions(TRAINJOBS.format(ns=self.ns), name, [{"type": "Complete"}])
        self.assertEqual(c.get_job(name).status, "Complete")
        # list_jobs: oldest first, filtered by runtime
        other = c.train(runtime="jax-gpu", trainer=CustomTrainerContainer(image="my/img:1"))
        self.assertEqual(self.trainjob(other)["spec"]["trainer"], {"image": "my/img:1"})
        jobs = c.list_jobs()
        self.assertEqual(sorted(j.name for j in jobs), sorted([name, other]))
        self.assertEqual({j.name: j.status for j in jobs}[name], "Complete")
        self.assertEqual([j.name for j in c.list_jobs(runtime="jax-gpu")], [other])
        self.assertEqual([j.name for j in c.list_jobs(runtime=rt)], [name])
        self.assertEqual({j.name: j.num_nodes for j in jobs}[other], 2)

    def test_initializers(self):
        """kubeflow/sdk's Initializer(dataset=..., model=...) becomes spec.initializer, which
        jaxset's converter gives the runtime's initializer containers."""
        rt = [d for d in jaxset.decode(kubesdk.sdktest.EXAMPLE_INIT)
              if d["kind"] == "ClusterTrainingRuntime"][0]
        rt["kind"] = "TrainingRuntime"
        rt["metadata"]["namespace"] = self.ns
        ok(self.server.post(RUNTIMES.format(ns=self.ns), rt))
        c = self.client()
        name = c.train(runtime="jax-with-initializers", initializer=kubesdk.sdktest.INIT)
        tj = self.trainjob(name)
        self.assertEqual(tj["spec"]["initializer"], kubesdk.sdktest.INIT_SPEC)
        for k in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"):
            tj["metadata"].pop(k, None)
        with jaxset._binary.ManifestFiles([tj, rt]) as mf:
            out = subprocess.run([kubesdk.sdktest.BIN, "render", "-o", "json", *mf.paths],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        env = {j["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"]:
               j["spec"]["template"]["spec"]["containers"][0]["env"]
               for j in json.loads(out.stdout)["items"] if j["kind"] == "Job"}
        self.assertEqual(env["model-initializer"], [
            {"name": "STORAGE_URI", "value": "hf://meta-llama/Llama-3.2-1B"},
            {"name": "IGNORE_PATTERNS", "value": "*.bin,*.pt"}])
        self.assertEqual(env["dataset-initializer"], [
            {"name": "STORAGE_URI", "value": "hf://tatsu-lab/alpaca"},
            {"name": "ACCESS_TOKEN", "value": "hf_x"}])

    def test_namespaced_runtime_and_default_runtime(self):
        ok(self.server.post(RUNTIMES.format(ns=self.ns),
                            jax_runtime("mine", kind="TrainingRuntime")))
        c = self.client()
        name = c.train(runtime="mine", trainer=CustomTrainer(func=train_fn,
                                                             func_args={"steps": 1}))
        self.assertEqual(self.trainjob(name)["spec"]["runtimeRef"]["kind"], "TrainingRuntime")
        self.assertEqual(c.get_job(name).runtime.name, "mine")
        os.environ["DEFAULT_TRAINING_RUNTIME"] = "jax-gpu"
        try:
            name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        finally:
            del os.environ["DEFAULT_TRAINING_RUNTIME"]
        self.assertEqual(self.trainjob(name)["spec"]["runtimeRef"]["name"], "jax-gpu")
        self.assertEqual(c.get_job(name).num_nodes, 2)

    def test_packages_to_install(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                             packages_to_install=["numpy", "a b"],
                                             pip_index_urls=["https://x/simple",
                                                             "https://y/simple"]))
        cmd = self.trainjob(name)["spec"]["trainer"]["command"]
        self.assertEqual(cmd[:2], ["bash", "-c"])
        self.assertIn("python3 -m pip install --quiet", cmd[2])
        self.assertIn("--index-url https://x/simple --extra-index-url https://y/simple numpy "
                      "'a b' && exec python3 -u -c ", cmd[2])

    # -- logs and events ------------------------------------------------------------------

    def test_logs(self):
        self.need_logs()
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                             num_nodes=2))
        self.assertEqual(list(c.get_job_logs(name)), [])  # no pod yet
        pods = self.make_pods(name, 2)
        self.assertEqual(list(c.get_job_logs(name)), [])
        self.server.pod_log(self.ns, pods[0], "zero a\nzero b\n")
        self.server.pod_log(self.ns, pods[1], "one a\n")
        self.assertEqual(list(c.get_job_logs(name)), ["zero a", "zero b"])
        self.assertEqual(list(c.get_job_logs(name, step="node-1")), ["one a"])
        for unknown in ("node-7", "worker-0"):
            with self.assertRaises(ValueError) as cm:
                c.get_job_logs(name, step=unknown)
            self.assertIn("node-0, node-1", str(cm.exception))
        with self.assertRaises(NotFoundError):
            c.get_job_logs("missing")
        # follow: lines as they are written, until the process ends
        got, done = [], threading.Event()

        def follow():
            try:
                for line in c.get_job_logs(name, step="node-1", follow=True):
                    got.append(line)
            finally:
                done.set()
        threading.Thread(target=follow, daemon=True).start()
        wait(lambda: got == ["one a"], "the first line")
        self.server.pod_log(self.ns, pods[1], "one b\none c\n")
        wait(lambda: got == ["one a", "one b", "one c"], "followed lines")
        self.assertFalse(done.is_set())
        self.set_phase(pods[1], "Succeeded")
        self.assertTrue(done.wait(kubesdk.TIMEOUT), "the stream ends with the pod")
        self.assertEqual(got, ["one a", "one b", "one c"])

    def test_follow_waits_for_the_pod(self):
        self.need_logs()
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        got, done = [], threading.Event()

        def follow():
            try:
                got.extend(c.get_job_logs(name, follow=True))
            finally:
                done.set()
        threading.Thread(target=follow, daemon=True).start()
        pod = self.make_pods(name, 1)[0]
        # the container is still being created: the kubelet's 400 means "wait"
        ok(self.server.patch(f"/api/v1/namespaces/{self.ns}/pods/{pod}/status", {"status": {
            "containerStatuses": [{"name": "node", "ready": False, "restartCount": 0,
                                   "image": "img", "imageID": "",
                                   "state": {"waiting": {"reason": "ContainerCreating"}}}]}}))
        self.server.pod_log(self.ns, pod, "started\n")
        self.set_phase(pod, "Running")
        self.server.pod_log(self.ns, pod, "done\n", close=True)
        self.assertTrue(done.wait(kubesdk.TIMEOUT), "follow ended")
        self.assertEqual(got, ["started", "done"])

    def test_follow_ends_with_the_job(self):
        """No pod ever came: following ends when the TrainJob ends or is deleted."""
        c = self.client()
        for end in ("complete", "delete"):
            name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
            got, done = [], threading.Event()

            def follow():
                try:
                    got.extend(c.get_job_logs(name, follow=True))
                finally:
                    done.set()
            self.reset_stats()
            threading.Thread(target=follow, daemon=True).start()
            self.wait_listed("trainjobs")  # its watch of the TrainJob started
            self.assertFalse(done.is_set())  # it waits for the pod
            if end == "complete":
                self.set_conditions(TRAINJOBS.format(ns=self.ns), name,
                                    [{"type": "Complete"}])
            else:
                c.delete_job(name)
            self.assertTrue(done.wait(kubesdk.TIMEOUT), f"follow ended ({end})")
            self.assertEqual(got, [])

    def test_events(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        pod = self.make_pods(name, 1)[0]
        self.event("TrainJob", name, "Created", "TrainJob created",
                   "trainer.kubeflow.org/v1alpha1")
        self.event("JobSet", name, "Started", "JobSet started", "jobset.x-k8s.io/v1alpha2")
        self.event("Pod", pod, "Scheduled", "pod scheduled")
        self.event("Pod", "someone-else", "Scheduled", "not ours")
        self.event("TrainJob", "other-job", "Created", "not ours either")
        evs = c.get_job_events(name)
        self.assertEqual(sorted((e.involved_object_kind, e.involved_object_name, e.reason,
                                 e.message) for e in evs),
                         sorted([("TrainJob", name, "Created", "TrainJob created"),
                                 ("JobSet", name, "Started", "JobSet started"),
                                 ("Pod", pod, "Scheduled", "pod scheduled")]))
        self.assertTrue(all(e.event_time.year >= 2024 for e in evs))
        with self.assertRaises(NotFoundError):
            c.get_job_events("missing")

    # -- waiting --------------------------------------------------------------------------

    def _wait_in_thread(self, c, name, **kw):
        box = {}

        def run():
            try:
                box["job"] = c.wait_for_job_status(name, **kw)
            except BaseException as e:  # noqa: BLE001 - checked by the test
                box["error"] = e
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t, box

    def test_wait_for_job_status(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                             num_nodes=2))
        t, box = self._wait_in_thread(c, name, status={"Running"}, timeout=kubesdk.TIMEOUT)
        pods = self.make_pods(name, 2)
        for p in pods:
            self.set_phase(p, "Running")
        t.join(kubesdk.TIMEOUT + 5)
        self.assertNotIn("error", box)
        self.assertEqual(box["job"].status, "Running")
        t, box = self._wait_in_thread(c, name, timeout=kubesdk.TIMEOUT)  # Complete
        self.set_conditions(TRAINJOBS.format(ns=self.ns), name, [{"type": "Complete"}])
        t.join(kubesdk.TIMEOUT + 5)
        self.assertEqual(box["job"].status, "Complete")
        # already there: returns at once
        self.assertEqual(c.wait_for_job_status(name, timeout=5).status, "Complete")

    def test_wait_raises_on_failed_and_timeout(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        t, box = self._wait_in_thread(c, name, timeout=kubesdk.TIMEOUT)
        self.set_conditions(TRAINJOBS.format(ns=self.ns), name, [
            {"type": "Failed", "reason": "FailedJobs", "message": "node-0 exited with 3"}])
        t.join(kubesdk.TIMEOUT + 5)
        self.assertIsInstance(box.get("error"), RuntimeError, box)
        self.assertIn("node-0 exited with 3", str(box["error"]))
        self.assertEqual(c.wait_for_job_status(name, status={"Failed"}, timeout=5).status,
                         "Failed")
        other = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        if self.server.has_admin:
            self.server.admin("stats", method="DELETE")
        t0 = time.monotonic()
        with self.assertRaises(TimeoutError) as cm:
            c.wait_for_job_status(other, timeout=1.5, polling_interval=0.1)
        self.assertGreaterEqual(time.monotonic() - t0, 1.5)
        self.assertIn(other, str(cm.exception))
        if self.server.has_admin:  # it watched instead of polling every 0.1 s
            stats = ok(self.server.get("/__admin/stats"))
            # a check at the start and one per watch's initial list, not 15 polls
            self.assertLessEqual(stats.get("get trainjobs 200", 0), 4, stats)
            # the watch on the TrainJob starts from a list (get_job never lists TrainJobs)
            self.assertGreaterEqual(stats.get("list trainjobs 200", 0), 1, stats)
        for bad in ({"Done"}, {"Complete", "Succeeded"}):
            with self.assertRaises(ValueError):
                c.wait_for_job_status(other, status=bad)
        with self.assertRaises(ValueError):
            c.wait_for_job_status(other, timeout=1, polling_interval=5)
        with self.assertRaises(NotFoundError):
            c.wait_for_job_status("missing", timeout=5)

    def test_wait_survives_expired_watches(self):
        if not self.server.has_admin:
            self.skipTest("needs the test API server's watch controls")
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        self.reset_stats()
        t, box = self._wait_in_thread(c, name, timeout=kubesdk.TIMEOUT)
        self.wait_listed("trainjobs")
        self.wait_listed("pods")
        # the open watches end with 410 (or, not open yet, start after the compaction from a
        # revision it forgot): either way the SDK lists again
        ok(self.server.admin("watches", {"action": "expire"}))
        ok(self.server.admin("compact", {}))
        self.set_conditions(TRAINJOBS.format(ns=self.ns), name, [{"type": "Complete"}])
        t.join(kubesdk.TIMEOUT + 5)
        self.assertNotIn("error", box)
        self.assertEqual(box["job"].status, "Complete")
        stats = ok(self.server.get("/__admin/stats"))
        # watched again (`jaxset get -w` starts over from the objects as they are now)
        self.assertGreaterEqual(stats.get("watch trainjobs 200", 0), 2, stats)

    # -- delete ---------------------------------------------------------------------------

    def test_delete_job(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        c.delete_job(name)
        wait(lambda: self.server.get(TRAINJOBS.format(ns=self.ns) + f"/{name}").status == 404,
             "the TrainJob gone")
        with self.assertRaises(ApiNotFoundError) as cm:
            c.delete_job(name)
        self.assertIsInstance(cm.exception, NotFoundError)
        self.assertEqual((cm.exception.code, cm.exception.reason), (404, "NotFound"))
        self.assertIn(name, str(cm.exception))
        with self.assertRaises(NotFoundError) as cm:
            c.get_job(name)
        self.assertIn(f'"{name}" not found', str(cm.exception))

    # -- bad input ------------------------------------------------------------------------

    def test_bad_input_creates_nothing(self):
        c = self.client()
        scope = {}
        exec("def nosource():\n    print(1)\n", scope)
        cases = [
            (NotFoundError, dict(runtime="nope", trainer=CustomTrainer(
                func=train_fn, func_args={"steps": 1})), "'nope' not found"),
            (ValueError, dict(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                                    num_nodes=0)), "num_nodes"),
            (ValueError, dict(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                                    num_nodes="2")), "num_nodes"),
            (ValueError, dict(trainer=CustomTrainer(func=lambda: None)), "lambda"),
            (ValueError, dict(trainer=CustomTrainer(func=make_closure())), "closure"),
            (ValueError, dict(trainer=CustomTrainer(func=scope["nosource"])), "source"),
            (ValueError, dict(trainer=CustomTrainer(func=uses_global)), "re"),
            (ValueError, dict(trainer=CustomTrainer(func=train_fn, func_args={"nope": 1})),
             "func_args"),
            (ValueError, dict(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                                    env={"A": 1})), "env"),
            (ValueError, dict(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1},
                                                    resources_per_node={"cpu": [1]})), "cpu"),
            (ValueError, dict(runtime="no-label", trainer=CustomTrainer(
                func=train_fn, func_args={"steps": 1})), "label"),
            (ValueError, dict(runtime=3), "runtime"),
            (ValueError, dict(trainer="python3 train.py"), "trainer type"),
            (ValueError, dict(trainer=CustomTrainerContainer(image="")), "image"),
        ]
        for exc, kw, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(exc) as cm:
                    c.train(**kw)
                self.assertIn(text, str(cm.exception))
        self.assertEqual(self.trainjobs(), [])

    def test_server_refusal_is_an_api_error(self):
        if not self.server.has_admin:
            self.skipTest("needs the test API server's fault injection")
        c = self.client()
        ok(self.server.admin("faults", {"verb": "create", "resource": "trainjobs", "code": 403,
                                        "message": "trainjobs is forbidden: no"}))
        with self.assertRaises(ApiError) as cm:
            c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        self.assertEqual((cm.exception.code, cm.exception.reason), (403, "Forbidden"))
        self.assertIn("forbidden", str(cm.exception))
        self.assertEqual(self.trainjobs(), [])

    def test_retry_after_and_transient_watch_errors(self):
        if not self.server.has_admin:
            self.skipTest("needs the test API server's fault injection")
        c = self.client()
        ok(self.server.admin("stats", method="DELETE"))
        ok(self.server.admin("faults", [
            {"verb": "create", "resource": "trainjobs", "code": 429, "retryAfter": 1},
            {"verb": "watch", "resource": "trainjobs", "code": 503, "retryAfter": 1}]))
        t0 = time.monotonic()
        name = c.train(trainer=CustomTrainer(func=train_fn, func_args={"steps": 1}))
        self.assertGreaterEqual(time.monotonic() - t0, 1.0)  # it waited as asked
        self.assertEqual([t["metadata"]["name"] for t in self.trainjobs()], [name])
        t, box = self._wait_in_thread(c, name, timeout=kubesdk.TIMEOUT)
        self.set_conditions(TRAINJOBS.format(ns=self.ns), name, [{"type": "Complete"}])
        t.join(kubesdk.TIMEOUT + 5)
        self.assertEqual(box.get("job").status, "Complete", box)
        stats = ok(self.server.get("/__admin/stats"))
        self.assertEqual(stats.get("create trainjobs 429"), 1, stats)
        # `jaxset submit` sends a dry run (dryRun=All) before the create
        self.assertEqual(stats.get("create trainjobs 201"), 2, stats)
        self.assertEqual(stats.get("watch trainjobs 503"), 1, stats)

    def test_get_runtime_packages(self):
        """The probe job: the test plays its pod, prints what pip would, completes it."""
        self.need_logs()
        c = self.client()
        done = threading.Event()
        out = io.StringIO()

        def probe():
            try:
                with redirect_stdout(out):
                    c.get_runtime_packages(c.get_runtime("jax-distributed"))
            finally:
                done.set()
        threading.Thread(target=probe, daemon=True).start()
        tj = wait(lambda: (self.trainjobs() or [None])[0], "the probe TrainJob")
        name = tj["metadata"]["name"]
        self.assertIn("pip", tj["spec"]["trainer"]["command"][-1])
        self.assertEqual(tj["spec"]["trainer"]["numNodes"], 1)
        pod = self.make_pods(name, 1)[0]
        self.server.pod_log(self.ns, pod, "Python: 3.11.7\njax 0.4.35\n")
        self.set_phase(pod, "Succeeded")
        self.set_conditions(TRAINJOBS.format(ns=self.ns), name, [{"type": "Complete"}])
        self.assertTrue(done.wait(kubesdk.TIMEOUT))
        self.assertEqual(out.getvalue(), "Python: 3.11.7\njax 0.4.35\n")
        wait(lambda: self.trainjobs() == [], "the probe TrainJob deleted")

    def test_runtime_object_from_runtime_dataclass(self):
        c = self.client()
        rt = Runtime(name="jax-distributed", trainer=c.get_runtime("jax-distributed").trainer)
        name = c.train(runtime=rt)
        self.assertNotIn("trainer", self.trainjob(name)["spec"])
        self.assertEqual(c.get_job(name).num_nodes, 1)


if __name__ == "__main__":
    kubesdk.main()
