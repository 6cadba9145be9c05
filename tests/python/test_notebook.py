"""examples/notebooks/jax_train.ipynb executed headless by nbclient in an ipykernel of this
machine's Python (Debian's python3-nbclient, python3-ipykernel, python3-matplotlib), on the
local backend with no cluster configured (the progress its training function reports shown by
the job's repr, watch_progress's bar and trainer_status); and the stop button: KeyboardInterrupt
while a kernel waits on a local job, or while a follow of its log runs, stops the job with no
process left."""
import base64
import contextlib
import inspect
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

NEEDS = "import nbclient, nbformat, ipykernel, jupyter_client, matplotlib"


def _with_jupyter():
    """Runs this file with an interpreter that has nbclient and ipykernel: this one, else
    Debian's (CTest's python3 may be another, without Debian's packages)."""
    if subprocess.run([sys.executable, "-c", NEEDS], capture_output=True).returncode == 0:
        return
    debian = "/usr/bin/python3"
    if os.path.realpath(debian) != os.path.realpath(sys.executable) and \
            subprocess.run([debian, "-c", NEEDS], capture_output=True).returncode == 0:
        os.execv(debian, [debian, *sys.argv])
    sys.exit("test_notebook: no python3 with nbclient, ipykernel and matplotlib: install "
             "python3-nbclient python3-ipykernel python3-matplotlib (scripts/setup.sh)")


_with_jupyter()
sys.path.insert(0, os.path.dirname(__file__))
import nbclient  # noqa: E402
import nbformat  # noqa: E402
import sdktest  # noqa: E402
from jupyter_client.manager import start_new_kernel  # noqa: E402
from sdktest import SRC, pid_gone, wait_files  # noqa: E402

NOTEBOOK = os.path.join(SRC, "examples", "notebooks", "jax_train.ipynb")
CELL_TIMEOUT = 300  # seconds a cell may take on a loaded 2-core machine


def left_behind(home):
    """Processes whose environment or command line names the state home `home`."""
    mark = home.encode()
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f, open(f"/proc/{pid}/cmdline", "rb") as g:
                if mark in f.read() or mark in g.read():
                    out.append(int(pid))
        except OSError:  # gone meanwhile, or not ours to read
            pass
    return [p for p in out if not pid_gone(p, 5)]


class NotebookTest(sdktest.SdkTest):
    def tearDown(self):
        """Whatever a failed test left running is stopped before its home goes."""
        subprocess.run([sdktest.BIN, "delete", "--all", "--force", "--local"], timeout=120,
                       env=dict(os.environ, JAXSET_HOME=self.home), capture_output=True)
        super().tearDown()

    def kernel_env(self):
        """The kernel's environment: the source tree's package and binary, the test's state
        home, a HOME without ~/.kube/config and no other cluster configuration."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")}
        env.update(HOME=self.tmp, PYTHONPATH=os.path.join(SRC, "python"),
                   MPLCONFIGDIR=os.path.join(self.tmp, "mpl"), PYDEVD_DISABLE_FILE_VALIDATION="1")
        return env

    def test_notebook(self):
        nb = nbformat.read(NOTEBOOK, as_version=4)
        for cell in nb.cells:
            self.assertFalse(cell.get("outputs"), "the committed notebook keeps no outputs")
        client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, startup_timeout=120,
                                         kernel_name="python3", resources={
                                             "metadata": {"path": os.path.dirname(NOTEBOOK)}})
        client.execute(env=self.kernel_env())  # raises CellExecutionError when a cell fails
        cells = {c.metadata["tags"][0]: c for c in nb.cells if c.cell_type == "code"}
        nodes = int(re.search(r"^NODES = (\d+)", cells["setup"].source, re.M).group(1))
        self.assertGreaterEqual(nodes, 2)

        progress, result = (texts(cells["train"], t) for t in ("display_data", "execute_result"))
        self.assertRegex(result, rf"^<TrainJob ([a-z0-9]+): Complete, {nodes} nodes, age \d+s, "
                                 r"runtime jax-distributed, progress 100%, eta 0s, "
                                 r"loss=\d+\.\d{6}, step=39>$")  # process 0's last report
        name = re.match(r"<TrainJob ([a-z0-9]+)", result).group(1)
        for i in range(nodes):  # the live view's last state: every process and its last line
            self.assertRegex(progress, rf"\n  node-{i} +Succeeded +process {i} step \d+ loss ")

        loss = re.search(r"loss=(\S+), step=39>$", result).group(1)
        self.assertEqual(texts(cells["progress"], "display_data"),
                         f"{name} [{'#' * 30}] 100% Complete, eta 0s, loss={loss}, step=39")
        self.assertIn('<progress max="100" value="100"', "".join(
            o["data"].get("text/html", "") for o in cells["progress"].outputs
            if o["output_type"] == "display_data"))
        self.assertRegex(texts(cells["progress"], "stream"),
                         rf"^progress 100%, reported at \d\d:\d\d:\d\d UTC\n"
                         rf"  loss = {re.escape(loss)}\n  step = 39\n$")

        failed = texts(cells["failure"], "stream")
        self.assertIn(f"JAX process {nodes - 1}, pod ", failed)
        self.assertIn(f"RuntimeError: the loss diverged on process {nodes - 1} at step 5", failed)
        self.assertRegex(failed, rf"-> JAX process {nodes - 1} \(pod \S+\) exited with code 1")

        self.assertRegex(texts(cells["follow"], "display_data"), rf"^{name} node-1: \d+ lines\n")
        losses = texts(cells["losses"], "stream")
        for i in range(nodes):
            m = re.search(rf"^node-{i}: (\d+) losses, (\S+) -> (\S+)$", losses, re.M)
            self.assertIsNotNone(m, f"no loss of process {i} in:\n{losses}")
            self.assertGreater(int(m.group(1)), 1)
            self.assertLess(float(m.group(3)), float(m.group(2)), f"process {i}'s loss rose")

        pngs = [o["data"]["image/png"] for o in cells["plot"].outputs
                if o.get("output_type") == "display_data" and "image/png" in o.get("data", {})]
        self.assertEqual(len(pngs), 1, cells["plot"].outputs)
        self.assertTrue(base64.b64decode(pngs[0]).startswith(b"\x89PNG\r\n\x1a\n"))

        self.assertIn("No Kubernetes cluster is configured, the cluster run is skipped: "
                      "jaxset config: no kubeconfig", texts(cells["cluster"], "stream"))
        self.assertEqual(texts(cells["cleanup"], "execute_result"), "[]")
        self.nothing_started()
        self.assertEqual(left_behind(self.home), [])

    def test_stop_button_stops_the_job(self):
        """The kernel interrupted (SIGINT, as the stop button sends it) while a cell waits."""
        piddir = os.path.join(self.tmp, "pids")
        os.mkdir(piddir)
        code = CELL.replace("PIDDIR", repr(piddir))
        km, kc = start_new_kernel(kernel_name="python3", startup_timeout=120,
                                  env=self.kernel_env())
        try:
            msg_id = kc.execute(code)
            # press it once the cell waits: wait_for_job_status has shown its progress
            said, waiting, end = [], False, time.monotonic() + 120
            while not waiting and time.monotonic() < end:
                with contextlib.suppress(queue.Empty):
                    msg = kc.get_iopub_msg(timeout=1)
                    if msg["parent_header"].get("msg_id") == msg_id:
                        said.append(msg["content"].get("text", ""))
                        waiting = msg["msg_type"] in ("display_data", "update_display_data")
            pids = wait_files(piddir, 2, timeout=60)
            self.assertEqual(len(pids), 2, "the job's processes did not start")
            km.interrupt_kernel()
            reply = kc.get_shell_msg(timeout=120)
            while reply["parent_header"].get("msg_id") != msg_id:  # kernel_info replies
                reply = kc.get_shell_msg(timeout=120)
            self.assertEqual(reply["content"]["status"], "error")
            self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
            idle, end = False, time.monotonic() + 60
            # ipykernel flushes stderr from a thread of its own: the last lines may come after
            # the cell's "idle" status, so read on until they are there (or the deadline)
            while not (idle and "interrupted:" in "".join(said)) and time.monotonic() < end:
                try:
                    msg = kc.get_iopub_msg(timeout=max(0.1, min(5, end - time.monotonic())))
                except queue.Empty:
                    continue
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "status":
                    idle = idle or msg["content"]["execution_state"] == "idle"
                    continue
                said.append(msg["content"].get("text", ""))
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        m = re.search(r"job ([a-z0-9]+)", "".join(said))
        self.assertIsNotNone(m, f"the kernel said: {''.join(said)!r}")
        name = m.group(1)
        self.assertIn(f"interrupted: TrainJob {name} was stopped, no process left", "".join(said))
        for pid in pids:
            self.assertTrue(pid_gone(pid, 5), f"process {pid} outlived the stop button")
        self.assertEqual(left_behind(self.home), [])
        from jaxset import TrainerClient
        c = TrainerClient(backend_config=self.config())
        self.assertEqual(c.get_job(name).status, "Failed")  # kept, with its logs
        self.assertIn("sleeping", list(c.get_job_logs(name)))

    def test_interrupt_while_following(self):
        """SIGINT to this process while it follows a local job's log."""
        from jaxset import CustomTrainer, TrainerClient
        piddir = os.path.join(self.tmp, "pids")
        os.mkdir(piddir)
        c = TrainerClient(backend_config=self.config())
        name = c.train(trainer=CustomTrainer(func=sleeper, func_args={"pid_dir": piddir},
                                             num_nodes=2))
        lines = []
        with self.assertRaises(KeyboardInterrupt):
            for line in c.get_job_logs(name, follow=True):
                lines.append(line)
                threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        self.assertEqual(lines, ["sleeping"])
        for pid in wait_files(piddir, 2):
            self.assertTrue(pid_gone(pid, 5), f"process {pid} outlived the interrupt")
        self.assertEqual(c.get_job(name).status, "Failed")
        self.assertEqual(left_behind(self.home), [])
        c.delete_job(name)


def sleeper(pid_dir: str):
    import os
    import time
    with open(os.path.join(pid_dir, os.environ["JAX_PROCESS_ID"]), "w") as f:
        f.write(str(os.getpid()))
    print("sleeping", flush=True)
    time.sleep(300)


# The cell the stop button interrupts: a job of two sleepers, waited on.
CELL = "from jaxset import CustomTrainer, LocalBackendConfig, TrainerClient\n\n" + \
    inspect.getsource(sleeper) + """
client = TrainerClient(backend_config=LocalBackendConfig(grace_period_seconds=5))
name = client.train(trainer=CustomTrainer(func=sleeper, func_args={"pid_dir": PIDDIR},
                                          num_nodes=2))
print("job", name, flush=True)
client.wait_for_job_status(name, timeout=600, polling_interval=0.2)
"""


def texts(cell, output_type):
    """The text of the cell's outputs of that type (streams' text, else text/plain)."""
    return "".join(o.get("text") or o.get("data", {}).get("text/plain", "")
                   for o in cell.outputs if o["output_type"] == output_type)


if __name__ == "__main__":
    sdktest.main()
