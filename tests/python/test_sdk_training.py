"""TrainingClient (JAXJob, kubeflow.org/v1) with the local backend, on real processes:
create_job from a dict and from a manifest file, conditions (Created, Running, Succeeded,
Failed), is_job_*, wait_for_job_conditions, get_job_logs (master, one index, all, followed),
list_jobs, delete_job of a running job, and invalid input refused with nothing started."""
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402
from sdktest import BIN, SRC, pid_gone  # noqa: E402

from jaxset import (JobFailedError, KubeConfigError, NotFoundError,  # noqa: E402
                    TrainerClient, TrainingClient, ValidationError)

WORKER = ("import os, sys, time\n"
          "go = os.environ.get('GO', '')\n"
          "end = time.monotonic() + 20\n"
          "while go and not os.path.exists(go) and time.monotonic() < end:\n"
          "    time.sleep(0.02)\n"
          "print('PROCESS_ID=%s NUM_PROCESSES=%s COORDINATOR=%s:%s pid=%d' % (\n"
          "    os.environ['PROCESS_ID'], os.environ['NUM_PROCESSES'],\n"
          "    os.environ['COORDINATOR_ADDRESS'], os.environ['COORDINATOR_PORT'], os.getpid()),\n"
          "    flush=True)\n"
          "sys.exit(int(os.environ.get('CODE', '0')))\n")


def jaxjob(name, replicas=2, env=None, restart="Never"):
    return {
        "apiVersion": "kubeflow.org/v1", "kind": "JAXJob",
        "metadata": {"name": name},
        "spec": {"runPolicy": {"backoffLimit": 0},
                 "jaxReplicaSpecs": {"Worker": {
                     "replicas": replicas, "restartPolicy": restart,
                     "template": {"spec": {"containers": [{
                         "name": "jax", "image": "python:3.12",
                         "command": ["python3", "-c", WORKER],
                         "env": [{"name": k, "value": v} for k, v in (env or {}).items()],
                     }]}}}}},
    }


class TrainingTest(sdktest.SdkTest):
    def client(self, **kw):
        return TrainingClient(backend_config=self.config(), **kw)

    def test_succeeded(self):
        c = self.client()
        self.assertEqual(c.create_job(job=jaxjob("demo")), "demo")
        self.assertTrue(c.is_job_created("demo"))
        job = c.wait_for_job_conditions("demo", polling_interval=0.05, wait_timeout=30)
        conds = [(x["type"], x["status"]) for x in job["status"]["conditions"]]
        self.assertEqual(conds, [("Created", "True"), ("Running", "False"),
                                 ("Succeeded", "True")])
        worker = job["status"]["replicaStatuses"]["Worker"]  # as the controller writes it
        self.assertEqual({k: worker[k] for k in ("active", "succeeded", "failed")},
                         {"active": 0, "succeeded": 2, "failed": 0})
        self.assertIn("completionTime", job["status"])
        self.assertEqual(job["metadata"]["namespace"], "default")
        self.assertTrue(c.is_job_succeeded("demo"))
        self.assertFalse(c.is_job_running("demo"))
        self.assertFalse(c.is_job_failed(job=job))
        self.assertFalse(c.is_job_restarting("demo"))
        logs, events = c.get_job_logs("demo")
        self.assertEqual(len(logs), 1)
        (pod, text), = logs.items()
        self.assertTrue(pod.startswith("demo-worker-0-0-"), pod)
        self.assertIn("PROCESS_ID=0 NUM_PROCESSES=2 COORDINATOR=", text)
        self.assertEqual(events, {})
        logs, events = c.get_job_logs("demo", is_master=False, verbose=True)
        self.assertEqual(len(logs), 2)
        self.assertTrue(all("AllJobsCompleted" in e[0] for e in events.values()), events)
        logs, _ = c.get_job_logs("demo", is_master=False, replica_type="worker",
                                 replica_index=1)
        self.assertEqual(len(logs), 1)
        self.assertIn("PROCESS_ID=1", list(logs.values())[0])
        self.assertEqual(len(c.get_job_pod_names("demo")), 2)
        self.assertEqual([j["metadata"]["name"] for j in c.list_jobs()], ["demo"])
        self.assertEqual(c.list_jobs(namespace="other"), [])
        with self.assertRaises(RuntimeError) as cm:
            c.create_job(job=jaxjob("demo"))
        self.assertIn("already exists", str(cm.exception))
        c.delete_job("demo")
        self.assertEqual(c.list_jobs(), [])
        self.nothing_started()

    def test_manifest_file_running_and_follow(self):
        path = os.path.join(self.tmp, "job.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"""\
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: from-file
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: jax
            image: python:3.12
            command: {json.dumps(["python3", "-c", WORKER])}
            env:
            - name: GO
              value: {self.go_file()}
""")
        c = self.client(namespace="team")
        self.assertEqual(c.create_job(job=path), "from-file")
        job = c.wait_for_job_conditions("from-file", expected_conditions={"Running"},
                                        polling_interval=0.05, wait_timeout=20)
        self.assertEqual(job["metadata"]["namespace"], "team")
        self.assertTrue(c.is_job_running("from-file"))
        self.assertEqual(job["status"]["replicaStatuses"]["Worker"]["active"], 2)
        with self.assertRaises(TimeoutError):
            c.wait_for_job_conditions("from-file", polling_interval=0.05, wait_timeout=0.2)
        out = io.StringIO()
        threading.Timer(0.3, self.release).start()
        with redirect_stdout(out):
            logs, _ = c.get_job_logs("from-file", namespace="team", is_master=False,
                                     follow=True)
        self.assertEqual(len(logs), 2)
        printed = out.getvalue().splitlines()
        self.assertEqual(len(printed), 2, printed)
        self.assertTrue(all(line.startswith("[Pod from-file-worker-0-") for line in printed))
        c.wait_for_job_conditions("from-file", polling_interval=0.05, wait_timeout=20)
        with self.assertRaises(NotFoundError):
            c.get_job("from-file", namespace="default")

    def test_follow_right_after_create(self):
        c = self.client()
        c.create_job(job=jaxjob("quick", replicas=3))
        out = io.StringIO()
        with redirect_stdout(out):
            logs, _ = c.get_job_logs("quick", is_master=False, follow=True)
        self.assertEqual(len(logs), 3)
        self.assertTrue(all("NUM_PROCESSES=3" in text for text in logs.values()), logs)
        self.assertEqual(len(out.getvalue().splitlines()), 3)

    def test_failed(self):
        c = self.client()
        c.create_job(job=jaxjob("broken", env={"CODE": "4"}))
        with self.assertRaises(RuntimeError) as cm:
            c.wait_for_job_conditions("broken", polling_interval=0.05, wait_timeout=30)
        self.assertIn("JAXJob default/broken is Failed", str(cm.exception))
        job = c.wait_for_job_conditions("broken", expected_conditions={"Failed"},
                                        polling_interval=0.05, wait_timeout=5)
        self.assertTrue(c.is_job_failed(job=job))
        failed = [x for x in c.get_job_conditions("broken") if x["type"] == "Failed"]
        self.assertEqual(failed[0]["reason"], "JAXJobFailed")
        self.assertTrue(failed[0]["message"])
        self.assertGreaterEqual(job["status"]["replicaStatuses"]["Worker"]["failed"], 1)

    def test_failure_is_attributed(self):
        """The exception names the first failed pod, its process and exit code (issue 21
        item 5)."""
        c = self.client()
        c.create_job(job=jaxjob("attributed", replicas=1, env={"CODE": "4"}))
        with self.assertRaises(JobFailedError) as cm:
            c.wait_for_job_conditions("attributed", polling_interval=0.05, wait_timeout=30)
        e = cm.exception
        self.assertEqual((e.exit_code, e.process_id, e.container), (4, 0, "jax"))
        self.assertTrue(e.pod.startswith("attributed-worker-0-0-"), e.pod)

    def test_manifest_paths_resolve_from_its_folder(self):
        """The README's example run from elsewhere: `workingDir: .` is the manifest's folder,
        also when the SDK changes the job on the way (issue 21 item 5)."""
        c = self.client()
        job = os.path.join(SRC, "examples", "jaxjob.yaml")
        self.assertEqual(c.create_job(job=job), "jaxjob-simple")
        c.wait_for_job_conditions("jaxjob-simple", polling_interval=0.05, wait_timeout=60)
        folder = os.path.join(self.tmp, "examples")
        os.mkdir(folder)
        shutil.copy(job, folder)
        shutil.copytree(os.path.join(SRC, "examples", "workers"),
                        os.path.join(folder, "workers"))
        c = self.client(namespace="team")
        self.assertEqual(c.create_job(job=os.path.join(folder, "jaxjob.yaml"), name="renamed"),
                         "renamed")
        job = c.wait_for_job_conditions("renamed", polling_interval=0.05, wait_timeout=60)
        self.assertEqual(job["metadata"]["namespace"], "team")
        self.assertEqual(sorted(os.listdir(folder)), ["jaxjob.yaml", "workers"])

    def test_list_jobs_sees_cli_runs(self):
        """Runs of `jaxset run` are jobs of their kind (issue 21 item 5)."""
        for example in ("jaxjob.yaml", "trainjob.yaml"):
            p = subprocess.run([BIN, "run", os.path.join(SRC, "examples", example), "-q"],
                               capture_output=True, text=True, timeout=120, cwd=self.tmp,
                               env=dict(os.environ, JAXSET_HOME=self.home))
            self.assertEqual(p.returncode, 0, p.stderr)
        c = self.client()
        self.assertEqual([j["metadata"]["name"] for j in c.list_jobs()], ["jaxjob-simple"])
        self.assertTrue(c.is_job_succeeded("jaxjob-simple"))
        logs, _ = c.get_job_logs("jaxjob-simple")
        self.assertIn("sum", "".join(logs.values()))
        tc = TrainerClient(backend_config=self.config())
        self.assertEqual([(j.name, j.status, j.num_nodes, len(j.steps)) for j in tc.list_jobs()],
                         [("mnist-jax", "Complete", 3, 3)])
        self.assertTrue(list(tc.get_job_logs("mnist-jax", step="node-2")))
        c.delete_job("jaxjob-simple")
        tc.delete_job("mnist-jax")
        self.nothing_started()

    def test_delete_running(self):
        c = self.client()
        c.create_job(job=jaxjob("held", replicas=3, env={"GO": self.go_file()}))
        c.wait_for_job_conditions("held", expected_conditions={"Running"},
                                  polling_interval=0.05, wait_timeout=20)
        pid = c.backend.pid("held")
        c.delete_job("held")
        self.assertTrue(pid_gone(pid, 1))
        with self.assertRaises(NotFoundError):
            c.get_job("held")
        self.nothing_started()

    def test_bad_input_starts_nothing(self):
        c = self.client()
        bad = jaxjob("bad", replicas=-1)
        with self.assertRaises(ValidationError) as cm:
            c.create_job(job=bad)
        fields = [e.field for e in cm.exception.errors]
        self.assertTrue(any("replicas" in f for f in fields), cm.exception.errors)
        self.assertEqual(cm.exception.errors[0].file, "<JAXJob bad>")
        nojax = jaxjob("nojax")
        nojax["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0][
            "name"] = "main"
        with self.assertRaises(ValidationError) as cm:
            c.create_job(job=nojax)
        self.assertIn('must have at least one container with name jax', str(cm.exception))
        with self.assertRaises(ValueError):
            c.create_job(train_func=print, num_workers=2)
        with self.assertRaises(ValueError):
            c.create_job(job=jaxjob("x"), job_kind="PyTorchJob")
        with self.assertRaises(ValueError):
            c.create_job(job={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})
        with self.assertRaises(ValueError):
            c.create_job(job=jaxjob("Bad_Name"))
        with self.assertRaises(ValueError):
            c.wait_for_job_conditions("x", expected_conditions={"Complete"})
        with self.assertRaises(NotFoundError):
            c.get_job("nope")
        path = os.path.join(self.tmp, "broken.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("kind: [JAXJob\n")
        with self.assertRaises(ValidationError) as cm:
            c.create_job(job=path)
        self.assertEqual(cm.exception.errors[0].file, path)
        self.assertEqual(cm.exception.errors[0].field, "")
        self.nothing_started()

    def test_backends(self):
        with self.assertRaises(KubeConfigError) as cm:  # the cluster backend: no kubeconfig
            TrainingClient(config_file=os.path.join(self.tmp, "no-kubeconfig"))
        self.assertIn("no-kubeconfig", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            TrainingClient(config_file="~/.kube/config", backend_config=self.config())
        self.assertIn("LocalBackendConfig", str(cm.exception))
        with self.assertRaises(ValueError):
            TrainingClient(backend_config=self.config(), job_kind="TFJob")


if __name__ == "__main__":
    sdktest.main()
