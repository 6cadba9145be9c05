"""TrainerClient with the local backend, on real processes: runtimes (built-in and from
files), train with CustomTrainer and CustomTrainerContainer, get_job with per-process steps,
logs (whole and followed), events, wait_for_job_status (Complete, Running, Failed, timeout),
delete_job of a running job (no process left, nothing kept), and bad input refused with
nothing started."""
import io
import json
import os
import subprocess
import sys
import threading
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402
from sdktest import BIN, pid_gone, wait_files  # noqa: E402

import jaxset  # noqa: E402
from jaxset import (BinaryNotFoundError, CustomTrainer,  # noqa: E402
                    CustomTrainerContainer, KubeConfigError, KubernetesBackendConfig,
                    NotFoundError, TrainerClient, ValidationError)
from jaxset.errors import JobFailedError  # noqa: E402


def shipped_runtime():
    """config/runtimes/jax_distributed.yaml, the one text of the built-in runtime."""
    path = os.path.join(sdktest.SRC, "config", "runtimes", "jax_distributed.yaml")
    return json.loads(subprocess.run([BIN, "decode", path], check=True,
                                     capture_output=True).stdout)[0]


def exchange(go: str = ""):
    """Every process sends its JAX_PROCESS_ID to process 0 (listening on the coordinator
    address) and prints the sum it gets back."""
    import os
    import socket
    import time
    deadline = time.monotonic() + 20
    while go and not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.02)
    host, _, port = os.environ["JAX_COORDINATOR_ADDRESS"].rpartition(":")
    n, me = int(os.environ["JAX_NUM_PROCESSES"]), int(os.environ["JAX_PROCESS_ID"])
    print(f"process {me} of {n} starts", flush=True)
    if me == 0:
        srv = socket.create_server(("", int(port)))
        srv.settimeout(20)
        conns, total = [], 0
        while len(conns) < n - 1:
            c, _ = srv.accept()
            total += int(c.makefile().readline())
            conns.append(c)
        for c in conns:
            c.sendall(f"{total}\n".encode())
            c.close()
    else:
        while True:
            try:
                c = socket.create_connection((host, int(port)), timeout=20)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        c.sendall(f"{me}\n".encode())
        total = int(c.makefile().readline())
    print(f"id={me} sum={total}", flush=True)


def sleeper(pid_dir: str):
    import os
    import time
    with open(os.path.join(pid_dir, os.environ["JAX_PROCESS_ID"]), "w") as f:
        f.write(str(os.getpid()))
    print("sleeping", flush=True)
    time.sleep(120)


def dollars(text: str):
    print("source:$(HOME)|$$$$|$(JAX_PROCESS_ID)", flush=True)
    print(f"args:{text}", flush=True)


def fail(code: int):
    import sys
    print("failing", flush=True)
    sys.exit(code)


def fail_first(marker: str):
    import os
    import sys
    if not os.path.exists(marker):
        open(marker, "w").close()
        print("first attempt fails", flush=True)
        sys.exit(1)
    print("second attempt succeeds", flush=True)


def raise_on_node_1():
    import os
    import time
    if os.environ["JAX_PROCESS_ID"] == "1":
        raise ValueError("loss is nan")
    time.sleep(60)


RUNTIME_FILE = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: stdlib-echo
  labels:
    trainer.kubeflow.org/framework: jax
spec:
  mlPolicy:
    numNodes: 2
    jax: {}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: python:3.11
                  command: ["python3", "-c", "import os; print('echo', os.environ['JAX_PROCESS_ID'], os.environ.get('GREETING'))"]
                  resources:
                    limits: {cpu: 1}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: unlabelled
spec:
  mlPolicy: {numNodes: 1, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            template:
              spec:
                containers: [{name: node, image: x, command: ["true"]}]
"""

RETRY_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: jax-retry
  labels: {trainer.kubeflow.org/framework: jax}
spec:
  mlPolicy: {numNodes: 1, jax: {}}
  template:
    spec:
      failurePolicy: {maxRestarts: 1}
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            backoffLimit: 0
            template:
              spec:
                restartPolicy: Never
                containers: [{name: node, image: x}]
"""

WHICH_PYTHON = """\
import sys
from jaxset import CustomTrainer, LocalBackendConfig, TrainerClient


def which():
    import sys
    print(sys.executable)


c = TrainerClient(backend_config=LocalBackendConfig(home=sys.argv[1]))
name = c.train(trainer=CustomTrainer(func=which))
c.wait_for_job_status(name, timeout=60, polling_interval=0.05)
print(list(c.get_job_logs(name)))
"""


class TrainerTest(sdktest.SdkTest):
    def client(self, **kw):
        return TrainerClient(backend_config=self.config(**kw))

    def test_runtimes(self):
        path = os.path.join(self.tmp, "runtimes.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(RUNTIME_FILE)
        c = self.client(runtime_files=[path])
        with self.assertLogs("jaxset", "WARNING") as logs:
            names = [r.name for r in c.list_runtimes()]
        self.assertEqual(names, ["stdlib-echo", "jax-distributed"])
        self.assertIn("unlabelled", logs.output[0])
        jd = c.get_runtime("jax-distributed")
        shipped = shipped_runtime()
        self.assertEqual(jaxset.runtimes.jax_distributed(BIN), shipped)
        self.assertEqual((jd.trainer.framework, jd.trainer.num_nodes, jd.trainer.image),
                         ("jax", 1, jaxset.runtimes.trainer_container(shipped)["image"]))
        echo = c.get_runtime("stdlib-echo")
        self.assertEqual((echo.trainer.num_nodes, echo.trainer.device,
                          echo.trainer.device_count), (2, "cpu", "2"))
        with self.assertRaises(NotFoundError) as cm:
            c.get_runtime("torch-distributed")
        self.assertIn("jax-distributed", str(cm.exception))

    def test_train_exchange_four_processes(self):
        c = self.client()
        name = c.train(runtime=c.get_runtime("jax-distributed"),
                       trainer=CustomTrainer(func=exchange, num_nodes=4,
                                             resources_per_node={"CPU": 1}))
        self.assertRegex(name, r"^[a-z][0-9a-f]{11}$")
        job = c.wait_for_job_status(name, timeout=30, polling_interval=0.05)
        self.assertEqual(job.status, "Complete")
        self.assertEqual(job.num_nodes, 4)
        self.assertEqual(sorted(s.name for s in job.steps), [f"node-{i}" for i in range(4)])
        for s in job.steps:
            self.assertEqual((s.status, s.device, s.device_count), ("Succeeded", "cpu", "1"))
            self.assertTrue(s.pod_name.startswith(f"{name}-node-0-{s.name[5:]}-"))
        for i in range(4):
            self.assertEqual(list(c.get_job_logs(name, step=f"node-{i}")),
                             [f"process {i} of 4 starts", f"id={i} sum=6"])
        with self.assertRaises(ValueError) as cm:  # an unknown step
            c.get_job_logs(name, step="node-9")
        self.assertIn("node-0, node-1, node-2, node-3", str(cm.exception))
        events = c.get_job_events(name)
        self.assertEqual([(e.involved_object_kind, e.reason) for e in events],
                         [("JobSet", "AllJobsCompleted")])
        self.assertEqual([j.name for j in c.list_jobs()], [name])
        self.assertEqual(c.list_jobs(runtime="stdlib-echo"), [])
        # the CLI sees the run too
        out = subprocess.run([BIN, "get", name], capture_output=True, text=True,
                             env=dict(os.environ, JAXSET_HOME=self.home))
        self.assertIn("Completed", out.stdout, out.stderr)
        c.delete_job(name)
        self.assertEqual(c.list_jobs(), [])
        self.nothing_started()

    def test_running_then_followed_logs(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=exchange, func_args={"go": self.go_file()},
                                             num_nodes=2))
        job = c.wait_for_job_status(name, {"Running"}, timeout=20, polling_interval=0.05)
        self.assertEqual([s.status for s in job.steps], ["Running", "Running"])
        lines = []
        t = threading.Thread(target=lambda: lines.extend(
            c.get_job_logs(name, step="node-1", follow=True)))
        t.start()
        self.release()
        t.join(20)
        self.assertFalse(t.is_alive())
        self.assertEqual(lines, ["process 1 of 2 starts", "id=1 sum=1"])
        self.assertEqual(c.wait_for_job_status(name, timeout=20,
                                               polling_interval=0.05).status, "Complete")

    def test_follow_right_after_train(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=exchange, num_nodes=2))
        self.assertEqual(list(c.get_job_logs(name, step="node-1", follow=True)),
                         ["process 1 of 2 starts", "id=1 sum=1"])

    def test_function_source_and_args_reach_the_process_byte_for_byte(self):
        """The kubelet's $(VAR) expansion (jaxset's too) touches neither the function's
        source nor its func_args (issue 22 item 16)."""
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=dollars, func_args={"text": "$(HOME)|$$$$"},
                                             num_nodes=1))
        c.wait_for_job_status(name, timeout=30, polling_interval=0.05)
        self.assertEqual(list(c.get_job_logs(name)),
                         ["source:$(HOME)|$$$$|$(JAX_PROCESS_ID)", "args:$(HOME)|$$$$"])

    def test_failed(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=fail, func_args={"code": 3}, num_nodes=2))
        with self.assertRaises(RuntimeError) as cm:
            c.wait_for_job_status(name, timeout=30, polling_interval=0.05)
        self.assertIn(f"TrainJob {name} is Failed", str(cm.exception))
        self.assertEqual(c.wait_for_job_status(name, {"Failed", "Complete"}, timeout=5,
                                               polling_interval=0.05).status, "Failed")
        # the process that failed first printed it; the other may have been stopped before it
        # started (the gang is torn down on the first failure)
        self.assertTrue(any("failing" in list(c.get_job_logs(name, step=s))
                            for s in ("node-0", "node-1")))
        reasons = {e.reason for e in c.get_job_events(name)}
        self.assertIn("FailedJobs", reasons)

    def test_failure_raises_with_the_first_failed_process_and_its_error(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=raise_on_node_1, num_nodes=2))
        with self.assertRaises(JobFailedError) as cm:
            c.wait_for_job_status(name, timeout=30, polling_interval=0.05)
        e = cm.exception
        self.assertEqual((e.hostname, e.process_id, e.exit_code), (f"{name}-node-0-1", 1, 1))
        self.assertTrue(e.error.endswith("\nValueError: loss is nan"), e.error)
        self.assertIn("in raise_on_node_1", e.error.splitlines()[0])
        text = str(e)
        self.assertIn(f"first failed: {name}-node-0-1 (JAX process 1, pod {e.pod}, container "
                      f"node) exited with code 1: ValueError: loss is nan (File ", text)
        self.assertTrue(text.endswith("\n  ValueError: loss is nan"), text)
        self.assertTrue(os.path.exists(e.log_path), e.log_path)

    def test_wait_errors_and_delete_running(self):
        c = self.client()
        piddir = os.path.join(self.tmp, "pids")
        os.mkdir(piddir)
        name = c.train(trainer=CustomTrainer(func=sleeper, func_args={"pid_dir": piddir},
                                             num_nodes=3))
        with self.assertRaises(ValueError):
            c.wait_for_job_status(name, {"Succeeded"})
        with self.assertRaises(ValueError):
            c.wait_for_job_status(name, timeout=1, polling_interval=2)
        c.wait_for_job_status(name, {"Running"}, timeout=20, polling_interval=0.05)
        with self.assertRaises(TimeoutError):
            c.wait_for_job_status(name, timeout=0.3, polling_interval=0.1)
        pids = wait_files(piddir, 3)
        self.assertEqual(len(pids), 3)
        c.delete_job(name)
        for pid in pids:
            self.assertTrue(pid_gone(pid, 2), f"process {pid} outlived delete_job")
        with self.assertRaises(NotFoundError):
            c.get_job(name)
        with self.assertRaises(NotFoundError):
            c.delete_job(name)
        self.nothing_started()

    def test_jaxset_killed(self):
        """jaxset SIGKILLed: its watchdog kills every pod; the job is Failed, so are its
        steps, and an event says why."""
        c = self.client()
        piddir = os.path.join(self.tmp, "pids")
        os.mkdir(piddir)
        name = c.train(trainer=CustomTrainer(func=sleeper, func_args={"pid_dir": piddir},
                                             num_nodes=2))
        c.wait_for_job_status(name, {"Running"}, timeout=20, polling_interval=0.05)
        pids = wait_files(piddir, 2)
        os.kill(c.backend.pid(name), 9)
        for pid in pids:
            self.assertTrue(pid_gone(pid, 5), f"process {pid} outlived jaxset")
        job = c.wait_for_job_status(name, {"Failed"}, timeout=5, polling_interval=0.05)
        self.assertEqual([s.status for s in job.steps], ["Failed", "Failed"])
        self.assertEqual([e.reason for e in c.get_job_events(name)], ["RunFailed"])
        c.delete_job(name)
        self.nothing_started()

    def test_container_trainer_with_runtime_file(self):
        path = os.path.join(self.tmp, "runtimes.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(RUNTIME_FILE)
        c = self.client(runtime_files=[path])
        name = c.train(runtime="stdlib-echo",
                       trainer=CustomTrainerContainer(image="python:3.12",
                                                      env={"GREETING": "hi"}))
        job = c.wait_for_job_status(name, timeout=20, polling_interval=0.05)
        self.assertEqual((job.runtime.name, job.num_nodes, len(job.steps)),
                         ("stdlib-echo", 2, 2))
        self.assertEqual(list(c.get_job_logs(name, step="node-1")), ["echo 1 hi"])
        self.assertEqual([j.name for j in c.list_jobs(runtime=c.get_runtime("stdlib-echo"))],
                         [name])

    def test_initializers(self):
        """kubeflow/sdk's Initializer(dataset=..., model=...) becomes spec.initializer; the
        runtime's initializer jobs run before the trainer with its STORAGE_URI and env."""
        c = self.client(runtime_files=[sdktest.EXAMPLE_INIT])
        name = c.train(runtime="jax-with-initializers", initializer=sdktest.INIT)
        job = c.wait_for_job_status(name, timeout=60, polling_interval=0.05)
        self.assertEqual(sorted(s.name for s in job.steps),
                         ["dataset-initializer", "model-initializer", "node-0"])
        self.assertEqual(list(c.get_job_logs(name, step="model-initializer")),
                         ["model from hf://meta-llama/Llama-3.2-1B"])
        self.assertEqual(list(c.get_job_logs(name)), [
            "process 0 of 1 dataset hf://tatsu-lab/alpaca model hf://meta-llama/Llama-3.2-1B"])

    def test_python_defaults_to_the_running_interpreter(self):
        """A function runs with the interpreter the notebook runs (issue 21 item 5): here one
        known only by a path of its own."""
        python = os.path.join(self.tmp, "my-python")
        os.symlink(sys.executable, python)
        probe = os.path.join(self.tmp, "probe.py")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(WHICH_PYTHON)
        out = subprocess.run([python, probe, self.home], capture_output=True, text=True,
                             timeout=120, env=dict(os.environ, PYTHONPATH=os.path.join(
                                 sdktest.SRC, "python")))
        self.assertEqual(out.stdout.strip().splitlines()[-1:], [str([python])], out.stderr)

    def test_logs_separate_restart_attempts(self):
        """A step's log holds every restart attempt's lines, each under the line `jaxset logs`
        prints for it (issue 21 item 5)."""
        path = os.path.join(self.tmp, "retry.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(RETRY_RUNTIME)
        c = self.client(runtime_files=[path])
        marker = os.path.join(self.tmp, "failed-once")
        name = c.train(runtime="jax-retry",
                       trainer=CustomTrainer(func=fail_first, func_args={"marker": marker}))
        job = c.wait_for_job_status(name, timeout=30, polling_interval=0.05)
        self.assertEqual([s.name for s in job.steps], ["node-0"])
        want = ["--- restart attempt 0 ---", "first attempt fails",
                "--- restart attempt 1 ---", "second attempt succeeds"]
        self.assertEqual(list(c.get_job_logs(name)), want)
        self.assertEqual(list(c.get_job_logs(name, follow=True)), want)

    def test_runtime_packages(self):
        c = self.client()
        out = io.StringIO()
        with redirect_stdout(out):
            c.get_runtime_packages(c.get_runtime("jax-distributed"))
        self.assertIn("Python: 3.", out.getvalue())
        self.assertEqual(c.list_jobs(), [])

    def test_bad_input_starts_nothing(self):
        c = self.client()
        ok = CustomTrainer(func=exchange, num_nodes=2)
        with self.assertRaises(NotFoundError):
            c.train(runtime="no-such-runtime", trainer=ok)
        for n in (0, -1, True, "2", 1.5):
            with self.assertRaises(ValueError) as cm:
                c.train(trainer=CustomTrainer(func=exchange, num_nodes=n))
            self.assertIn("num_nodes", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            c.train(trainer=CustomTrainer(func=lambda: None))
        self.assertIn("lambda", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            c.train(trainer=CustomTrainer(func=print))
        with self.assertRaises(ValueError):
            c.train(trainer=CustomTrainerContainer(image="python:3.12"))  # no command
        with self.assertRaises(ValueError):
            c.train(trainer=CustomTrainer(func=exchange, packages_to_install=["numpy"]))
        with self.assertRaises(ValueError) as cm:
            c.train(initializer=sdktest.Initializer(
                model=sdktest.HuggingFaceModelInitializer(storage_uri=None)))
        self.assertIn("storage_uri", str(cm.exception))
        with self.assertRaises(ValueError):
            c.train(trainer=CustomTrainer(func=exchange, resources_per_node={"cpu": [1]}))
        with self.assertRaises(ValidationError) as cm:
            c.train(trainer=CustomTrainer(func=exchange, env={"JAX_PROCESS_ID": "1"}))
        self.assertTrue(any("JAX_PROCESS_ID" in str(e) for e in cm.exception.errors),
                        cm.exception.errors)
        self.nothing_started()

    def test_backends(self):
        # The default backend is Kubernetes: with no kubeconfig and not in a cluster, an
        # error names where it looked (the Kubernetes backend's own tests: test_sdk_kube*.py)
        old = {k: os.environ.get(k) for k in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
        os.environ["KUBECONFIG"] = os.path.join(self.tmp, "no-kubeconfig")
        os.environ.pop("KUBERNETES_SERVICE_HOST", None)
        try:
            with self.assertRaises(KubeConfigError) as cm:
                TrainerClient()
            self.assertIn("no-kubeconfig", str(cm.exception))
            with self.assertRaises(KubeConfigError):
                TrainerClient(backend_config=KubernetesBackendConfig(namespace="x"))
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        with self.assertRaises(ValueError):
            TrainerClient(backend_config="local")
        with self.assertRaises(BinaryNotFoundError) as cm:
            TrainerClient(backend_config=self.config(jaxset_bin=os.path.join(self.tmp, "no")))
        self.assertIn("not an executable", str(cm.exception))
        # a copy of the package with no binary anywhere: not given, not in $JAXSET_BIN, not on
        # PATH, not beside it
        import shutil
        pkg = os.path.join(self.tmp, "pkg")
        shutil.copytree(os.path.dirname(jaxset.__file__), os.path.join(pkg, "jaxset"))
        env = {k: v for k, v in os.environ.items() if k != "JAXSET_BIN"}
        env.update(PYTHONPATH=pkg, PATH=self.tmp)
        probe = ("import jaxset\n"
                 "try:\n"
                 "    jaxset.TrainerClient(backend_config=jaxset.LocalBackendConfig())\n"
                 "except jaxset.BinaryNotFoundError as e:\n"
                 "    print(e)\n")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                             env=env, cwd=self.tmp, timeout=30)
        self.assertIn("no jaxset binary found", out.stdout, out.stderr)
        self.assertIn("JAXSET_BIN", out.stdout)
        self.nothing_started()
        self.assertTrue(jaxset.__version__)


if __name__ == "__main__":
    sdktest.main()
