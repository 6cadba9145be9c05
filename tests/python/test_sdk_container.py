"""TrainerClient(backend_config=ContainerBackendConfig(...)) (docs/sdk.md, "In containers"):
every node a container in its image, run by `jaxset run --images`, on images built here by
tests/images/build.sh (buildah FROM scratch: busybox-static, and this machine's python3):

- a container command on 2 nodes through the busybox image (the image's files, env, working
  directory and user; the trainer's env over the image's), waited on, each node's log, get_job's
  steps, list_jobs, the workspace at /workspace, delete_job (nothing left);
- the image's ENTRYPOINT and CMD when the trainer gives no command, on 3 nodes; TrainerArgs;
- a CustomTrainer function run by the python image's python3 on 1 and 3 nodes (the JAX
  variables, /workspace as its working directory), a runtime from runtime_source, get_runtime,
  get_runtime_packages;
- a failing node: JobFailedError with jaxset's attribution; auto_remove=False keeps the
  workspace;
- an image not in the store under pull_policy "Never": RuntimeError naming it, nothing left;
- the config's checks, podman missing (also for container_runtime="docker"), and the runtime a
  job runs with (pull policy, workspace, initializer images and deadlines).

Needs root, podman, buildah, busybox-static and /usr/bin/python3; Skipped (77) otherwise."""
import io
import logging
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402

from jaxset import (ContainerBackendConfig, CustomTrainer, CustomTrainerContainer,  # noqa: E402
                    NotFoundError, TrainerArgs, TrainerClient, TrainerCommand,
                    TrainingRuntimeSource)
from jaxset.errors import JobFailedError  # noqa: E402

BUSYBOX = "localhost/jxtest-busybox:1"
PYTHON = "localhost/jxtest-python:1"
PY_RUNTIME = "jax-python-image"
RUNTIME_YAML = f"""apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: {PY_RUNTIME}
  labels:
    trainer.kubeflow.org/framework: jax
spec:
  mlPolicy:
    numNodes: 1
    jax: {{}}
  template:
    spec:
      replicatedJobs:
      - name: dataset-initializer
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer
          spec:
            template:
              spec:
                containers:
                - name: dataset-initializer
                  image: {PYTHON}
                  command: ["python3", "-c", "print('dataset ready')"]
      - name: node
        dependsOn:
        - name: dataset-initializer
          status: Complete
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: {PYTHON}
"""
# Each node: its JAX process id, the trainer's and the image's env, a file only the image has,
# the image's working directory and user, its host name, a file in the workspace.
NODE_SCRIPT = ("echo node $JAX_PROCESS_ID of $JAX_NUM_PROCESSES FOO=$FOO BAR=$BAR; "
               "cat /data/only-in-image.txt; echo cwd $(pwd) user $(id -un); "
               "echo host $(hostname); echo $JAX_PROCESS_ID > /workspace/node-$JAX_PROCESS_ID")


def report(tag: str):
    """A training function: where it runs, as each process sees it."""
    import os
    import sys
    me, n = os.environ["JAX_PROCESS_ID"], os.environ["JAX_NUM_PROCESSES"]
    print(f"report {me} of {n} tag {tag} python {sys.version_info[0]}.{sys.version_info[1]} "
          f"exe {sys.executable} cwd {os.getcwd()} coord {os.environ['JAX_COORDINATOR_ADDRESS']}",
          flush=True)
    with open(f"out-{me}.txt", "w", encoding="utf-8") as f:
        f.write(tag)


class ContainerBackendTest(sdktest.SdkTest):
    def setUp(self):
        super().setUp()
        self.rt_dir = os.path.join(self.tmp, "runtimes")
        os.makedirs(self.rt_dir)
        with open(os.path.join(self.rt_dir, "python.yaml"), "w", encoding="utf-8") as f:
            f.write(RUNTIME_YAML)

    def client(self, **kw):
        kw.setdefault("home", self.home)
        kw.setdefault("restart_backoff_ms", 0)
        kw.setdefault("grace_period_seconds", 5)
        kw.setdefault("runtime_source", TrainingRuntimeSource(sources=[f"file://{self.rt_dir}"]))
        return TrainerClient(backend_config=ContainerBackendConfig(**kw))

    def logs(self, c, name, n):
        return {i: list(c.get_job_logs(name, step=f"node-{i}")) for i in range(n)}

    def assert_gone(self, c, name):
        with self.assertRaises(NotFoundError):
            c.get_job(name)
        self.assertNotIn(name, [j.name for j in c.list_jobs()])
        self.assertFalse(os.path.exists(c.backend.workspace(name)))
        self.assertFalse(os.path.exists(os.path.join(self.home, "runs", name)))

    def test_container_command_on_two_nodes(self):
        c = self.client()
        name = c.train(trainer=CustomTrainerContainer(image=BUSYBOX, num_nodes=2,
                                                      env={"FOO": "trainer"}),
                       options=[TrainerCommand(["/bin/sh", "-c", NODE_SCRIPT])])
        job = c.wait_for_job_status(name, timeout=120, polling_interval=0.1)
        self.assertEqual((job.status, job.num_nodes, job.runtime.name),
                         ("Complete", 2, "jax-distributed"))
        self.assertEqual([(s.name, s.status) for s in job.steps],
                         [("node-0", "Succeeded"), ("node-1", "Succeeded")])
        for i, lines in self.logs(c, name, 2).items():
            self.assertEqual(lines[:3], [f"node {i} of 2 FOO=trainer BAR=image",
                                         "only in the image", "cwd /work user app"], lines)
            self.assertEqual(lines[3], f"host {name}-node-0-{i}")
        self.assertIn(name, [j.name for j in c.list_jobs()])
        self.assertEqual(c.get_job(name).status, "Complete")
        ws = c.backend.workspace(name)
        self.assertEqual(sorted(os.listdir(ws)), ["node-0", "node-1"])
        c.delete_job(name)
        self.assert_gone(c, name)

    def test_image_entrypoint_and_cmd_on_three_nodes(self):
        c = self.client()
        name = c.train(trainer=CustomTrainerContainer(image=BUSYBOX, num_nodes=3))
        c.wait_for_job_status(name, timeout=120, polling_interval=0.1)
        self.assertEqual(self.logs(c, name, 3), {i: ["ep cmd1 cmd2"] for i in range(3)})
        args = c.train(trainer=CustomTrainerContainer(image=BUSYBOX, num_nodes=2),
                       options=[TrainerArgs(["a1", "a2"])])
        c.wait_for_job_status(args, timeout=120, polling_interval=0.1)
        self.assertEqual(self.logs(c, args, 2), {i: ["ep a1 a2"] for i in range(2)})
        for n in (name, args):
            c.delete_job(n)
            self.assert_gone(c, n)

    def test_function_in_the_python_image(self):
        c = self.client()
        rt = c.get_runtime(PY_RUNTIME)
        self.assertEqual(rt.trainer.image, PYTHON)
        self.assertEqual(sorted(r.name for r in c.list_runtimes()),
                         ["jax-distributed", PY_RUNTIME])
        for n in (1, 3):
            name = c.train(runtime=rt, trainer=CustomTrainer(
                func=report, func_args={"tag": f"n{n} $(HOME) $x"}, num_nodes=n))
            job = c.wait_for_job_status(name, timeout=120, polling_interval=0.1)
            self.assertEqual([s.name for s in job.steps],
                             ["dataset-initializer", *(f"node-{i}" for i in range(n))])
            self.assertEqual(list(c.get_job_logs(name, step="dataset-initializer")),
                             ["dataset ready"])
            for i, lines in self.logs(c, name, n).items():
                self.assertEqual(len(lines), 1, lines)
                self.assertRegex(lines[0], rf"^report {i} of {n} tag n{n} \$\(HOME\) \$x "
                                 r"python 3\.\d+ exe /usr/bin/python3(\.\d+)? cwd /workspace "
                                 r"coord \S+:\d+$")
            ws = c.backend.workspace(name)
            self.assertEqual(sorted(os.listdir(ws)), [f"out-{i}.txt" for i in range(n)])
            c.delete_job(name)
            self.assert_gone(c, name)
        out = io.StringIO()
        with redirect_stdout(out):
            c.get_runtime_packages(rt)  # a job of its own, deleted once it printed
        self.assertIn("Python: 3.", out.getvalue())
        self.assertIn("pip is not available", out.getvalue())  # the image has no pip
        self.assertEqual(c.list_jobs(), [])

    def test_failing_node_and_kept_workspace(self):
        c = self.client(auto_remove=False)
        name = c.train(trainer=CustomTrainerContainer(image=BUSYBOX, num_nodes=2), options=[
            TrainerCommand(["/bin/sh", "-c", "echo at $JAX_PROCESS_ID > /workspace/at; "
                            "[ $JAX_PROCESS_ID = 1 ] && { echo broken >&2; exit 3; }; true"])])
        with self.assertRaises(JobFailedError) as got:
            c.wait_for_job_status(name, timeout=120, polling_interval=0.1)
        self.assertEqual((got.exception.exit_code, got.exception.process_id), (3, 1))
        self.assertEqual(c.get_job(name).status, "Failed")
        self.assertIn("broken", list(c.get_job_logs(name, step="node-1")))
        c.delete_job(name)
        with self.assertRaises(NotFoundError):
            c.get_job(name)
        self.assertTrue(os.path.isfile(os.path.join(c.backend.workspace(name), "at")))

    def test_missing_image(self):
        c = self.client(pull_policy="Never")
        with self.assertRaises(RuntimeError) as got:
            c.train(trainer=CustomTrainerContainer(image="localhost/jxtest-missing:1",
                                                   num_nodes=2))
        msg = str(got.exception)
        for part in ("did not start", "localhost/jxtest-missing:1", "imagePullPolicy is Never",
                     "podman load"):
            self.assertIn(part, msg)
        self.assertEqual(c.list_jobs(), [])
        self.nothing_started()
        ws = os.path.join(self.home, "containers", "default")
        self.assertEqual(os.listdir(ws) if os.path.isdir(ws) else [], [])

    def test_config_checks(self):
        self.assertEqual(ContainerBackendConfig(pull_policy="never").pull_policy, "Never")
        for bad in ({"pull_policy": "Sometimes"}, {"container_runtime": "lxc"},
                    {"initializer_timeout": 0}, {"dataset_initializer_image": ""},
                    {"runtime_source": TrainingRuntimeSource(sources=[1])}):
            with self.assertRaises(ValueError, msg=bad):
                ContainerBackendConfig(**bad)
        with self.assertLogs("jaxset._containers", logging.WARNING) as logs:
            self.client(container_runtime="docker", container_host="unix:///nowhere.sock")
        self.assertTrue(any("podman" in line for line in logs.output), logs.output)
        self.assertTrue(any("container_host" in line for line in logs.output), logs.output)
        old = os.environ["PATH"]
        os.environ["PATH"] = self.tmp  # no podman there
        try:
            for runtime, part in ((None, "podman is not installed"),
                                  ("podman", "podman is not installed"),
                                  ("docker", "container_runtime='docker') is not supported")):
                with self.assertRaises(RuntimeError, msg=runtime) as got:
                    self.client(container_runtime=runtime)
                self.assertIn(part, str(got.exception))
                self.assertIn("apt-get install podman", str(got.exception))
        finally:
            os.environ["PATH"] = old

    def test_job_runtime(self):
        """The runtime a TrainJob runs with: the config's pull policy in every container, the
        workspace mounted in each, the initializers' deadline, their image when set."""
        c = self.client(pull_policy="Always", initializer_timeout=42,
                        dataset_initializer_image="localhost/my-init:1")
        cr = c.backend.job_runtime(c._runtime_object(PY_RUNTIME), "j1", CustomTrainer(report))
        init, node = cr["spec"]["template"]["spec"]["replicatedJobs"]
        ws = c.backend.workspace("j1")
        for rj in (init, node):
            pod = rj["template"]["spec"]["template"]["spec"]
            self.assertEqual(pod["volumes"], [{"name": "jaxset-workspace", "hostPath": {
                "path": ws, "type": "DirectoryOrCreate"}}])
            ctr = pod["containers"][0]
            self.assertEqual(ctr["imagePullPolicy"], "Always")
            self.assertEqual(ctr["volumeMounts"], [{"name": "jaxset-workspace",
                                                    "mountPath": "/workspace"}])
        self.assertEqual(init["template"]["spec"]["activeDeadlineSeconds"], 42)
        self.assertNotIn("activeDeadlineSeconds", node["template"]["spec"])
        self.assertEqual(init["template"]["spec"]["template"]["spec"]["containers"][0]["image"],
                         "localhost/my-init:1")
        node_c = node["template"]["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual((node_c["image"], node_c["workingDir"]), (PYTHON, "/workspace"))
        # at upstream's default initializer image the runtime's stays; no function, no workdir
        cr = self.client().backend.job_runtime(c._runtime_object(PY_RUNTIME), "j2",
                                               CustomTrainerContainer(image=BUSYBOX))
        init, node = cr["spec"]["template"]["spec"]["replicatedJobs"]
        self.assertEqual(init["template"]["spec"]["template"]["spec"]["containers"][0]["image"],
                         PYTHON)
        self.assertNotIn("workingDir", node["template"]["spec"]["template"]["spec"]
                         ["containers"][0])


def setup():
    if os.geteuid() != 0:
        print("skipped: the container backend (jaxset run --images) needs root")
        sys.exit(77)
    for tool in ("podman", "buildah"):
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed (scripts/setup.sh installs it)")
            sys.exit(77)
    for path, pkg in (("/bin/busybox", "busybox-static"), ("/usr/bin/python3", "python3")):
        if not os.path.exists(path):
            print(f"skipped: {path} is missing ({pkg}; scripts/setup.sh installs it)")
            sys.exit(77)
    os.environ.setdefault("JAXSET_PODMAN_ARGS", "--storage-driver vfs --runtime runc")
    subprocess.run([os.path.join(sdktest.SRC, "tests", "images", "build.sh"), "python"],
                   check=True, capture_output=True)


if __name__ == "__main__":
    setup()
    sdktest.main()
