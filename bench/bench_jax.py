#!/usr/bin/env python3
"""bench_jax: real JAX processes started by `jaxset run`, beside the floor and torchrun.

    python3 bench/bench_jax.py --jaxset build-release/jaxset [--n 16] [--reps 3]

Needs JAX (and torch for the torchrun column; without it that column says n/a).  The worker
is bench/jax_worker.py: jax.distributed.initialize() on the CPU (JAX_PLATFORMS=cpu, so N
processes share one machine whatever its GPUs), then one datagram to the harness.

init      time from starting the launcher until all N processes have returned from
          initialize().  floor: the harness spawns the N workers itself with the JAX
          variables (no launcher program at all); jaxset: `jaxset run` of a JobSet of one
          Indexed Job of N pods; torchrun: `torchrun --standalone --nproc-per-node N`.
restart   all N initialized; the harness makes process N-1 exit(1) (SIGUSR1) and measures
          until all N have initialized again as attempt 1.  floor: the harness reaps the
          dead one, SIGKILLs and reaps the others, spawns N again (kill, respawn,
          re-initialize: what any gang restart has to do); grace0: the JobSet with
          jaxset.dev/restart-grace-seconds "0" (failurePolicy.maxRestarts 1, backoffLimit
          0); no-ann: the same JobSet without the annotation, run with --grace G (standing
          for the pods' terminationGracePeriodSeconds): JAX ignores SIGTERM, so the restart
          waits out G; torchrun: --max-restarts 1 (its agent SIGTERMs the workers and waits
          its own 30 s before SIGKILL).
Medians of the repetitions (interleaved), with min..max; ratios against the floor."""
import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "jax_worker.py")
DEADLINE = 90.0


class Records:
    """The harness's datagram socket: "<process id> <attempt> <pid>" from every worker."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)

    def wait(self, n, attempt, deadline=DEADLINE):
        """{process id: pid} once n distinct processes reported `attempt`, else None."""
        got, end = {}, time.monotonic() + deadline
        while len(got) < n:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                idx, att, pid = self.sock.recv(256).decode().split()
            except socket.timeout:
                return None
            if att == str(attempt):
                got[int(idx)] = int(pid)
        return got

    def drain(self):
        self.sock.setblocking(False)
        try:
            while True:
                self.sock.recv(256)
        except BlockingIOError:
            pass
        self.sock.setblocking(True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Floor:
    """The N workers spawned by the harness itself."""

    def __init__(self, b):
        self.b, self.procs = b, []

    def spawn(self, attempt):
        port = free_port()
        for i in range(self.b.n):
            env = dict(self.b.env, JAX_COORDINATOR_ADDRESS=f"127.0.0.1:{port}",
                       JAX_NUM_PROCESSES=str(self.b.n), JAX_PROCESS_ID=str(i),
                       ATTEMPT=str(attempt))
            self.procs.append(subprocess.Popen([self.b.python, WORKER], env=env,
                                               stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))

    def start(self):
        self.spawn(0)

    def restart(self, victim):
        os.kill(victim, signal.SIGUSR1)
        for p in self.procs:
            if p.pid != victim:
                p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []
        self.spawn(1)

    def stop(self, pids):
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []


class Jaxset:
    """`jaxset run` of a JobSet of one Indexed Job of N pods."""

    def __init__(self, b, annotation=None, grace=0):
        self.b, self.annotation, self.grace, self.proc = b, annotation, grace, None

    def manifest(self, path):
        ann = ""
        if self.annotation is not None:
            ann = f'    jaxset.dev/restart-grace-seconds: "{self.annotation}"\n'
        n = self.b.n
        with open(path, "w") as f:
            f.write(f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: benchjax
  annotations:
    jaxset.dev/jax-runtime: jobset
{ann}spec:
  failurePolicy:
    maxRestarts: 1
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: {n}
        completions: {n}
        completionMode: Indexed
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: w
              image: local
              command: ["{self.b.python}", "{WORKER}"]
              env:
              - name: BENCH_SOCK
                value: "{self.b.sock}"
              - name: JAX_PLATFORMS
                value: cpu
              - name: ATTEMPT
                valueFrom:
                  fieldRef:
                    fieldPath: metadata.labels['jobset.sigs.k8s.io/restart-attempt']
""")

    def start(self):
        self.b.seq += 1
        m = os.path.join(self.b.dir, f"m{self.b.seq}.yaml")
        self.manifest(m)
        run_dir = os.path.join(self.b.dir, f"run{self.b.seq}")
        self.err = run_dir + ".stderr"
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen([self.b.jaxset, "run", m, "--run-dir", run_dir, "-q",
                                          "--no-color", "--grace", str(self.grace)],
                                         env=self.b.env, stdout=subprocess.DEVNULL, stderr=err,
                                         start_new_session=True)

    def restart(self, victim):
        os.kill(victim, signal.SIGUSR1)

    def failed(self):
        with open(self.err) as f:
            sys.stderr.write("bench_jax: a jaxset run failed; its stderr:\n" + f.read())

    def stop(self, pids):
        kill_all(pids)
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Torchrun:
    """torchrun --standalone: its agent starts the N workers and restarts them."""

    def __init__(self, b):
        self.b, self.proc = b, None

    def start(self):
        env = dict(self.b.env, BENCH_JAX_PORT=str(free_port()))
        self.proc = subprocess.Popen(self.b.torchrun + [
            "--standalone", "--nnodes", "1", "--nproc-per-node", str(self.b.n),
            "--max-restarts", "1", "--monitor-interval", "0.1", WORKER],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)

    def restart(self, victim):
        os.kill(victim, signal.SIGUSR1)

    def stop(self, pids):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kill_all(pids)
        self.proc.wait()


def timed_init(b, launcher):
    """Seconds until N processes initialized, and their pids (None on failure)."""
    b.rec.drain()
    t0 = time.monotonic()
    launcher.start()
    pids = b.rec.wait(b.n, 0)
    return (time.monotonic() - t0 if pids else None), pids


def stop(launcher, t, pids):
    if t is None and hasattr(launcher, "failed"):
        launcher.failed()
    launcher.stop(list(pids.values()) if pids else [])
    return t


def one_init(b, launcher):
    t, pids = timed_init(b, launcher)
    return stop(launcher, t, pids)


def one_restart(b, launcher):
    _, pids = timed_init(b, launcher)
    t = None
    if pids:
        t0 = time.monotonic()
        launcher.restart(pids[b.n - 1])
        again = b.rec.wait(b.n, 1)
        if again:
            t = time.monotonic() - t0
            pids = again
    return stop(launcher, t, pids)


def fmt(xs):
    ok = [x for x in xs if x is not None]
    if not ok:
        return "failed", None
    med = statistics.median(ok)
    failed = f" ({len(xs) - len(ok)} failed)" if len(ok) < len(xs) else ""
    return f"{med:7.2f} s [{min(ok):.2f}..{max(ok):.2f}]{failed}", med


def table(title, rows):
    print(f"\n{title}")
    floor = None
    for name, xs in rows:
        if xs is None:
            print(f"  {name:10s} n/a")
            continue
        text, med = fmt(xs)
        if floor is None:
            floor = med
        ratio = f"  {med / floor:5.2f}x floor" if med and floor else ""
        print(f"  {name:10s} {text}{ratio}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jaxset", required=True)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--slow-reps", type=int, default=1,
                    help="repetitions of no-ann and torchrun restarts (each waits a grace)")
    ap.add_argument("--grace", type=int, default=10, help="no-ann's --grace (default 10)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--torchrun", default=shutil.which("torchrun"),
                    help="torchrun's path (default: the one on PATH; none: no torchrun column)")
    ap.add_argument("--only", choices=["init", "restart"])
    a = ap.parse_args()

    b = argparse.Namespace(n=a.n, python=a.python, jaxset=os.path.abspath(a.jaxset), seq=0)
    b.dir = tempfile.mkdtemp(prefix="jaxset-benchjax.")
    b.sock = os.path.join(b.dir, "sock")
    b.rec = Records(b.sock)
    b.env = dict(os.environ, BENCH_SOCK=b.sock, JAX_PLATFORMS="cpu")
    tr = a.torchrun
    b.torchrun = [tr] if tr else None
    print(f"bench_jax: N = {a.n}, {a.reps} repetitions, {os.cpu_count()} CPUs, load "
          f"{open('/proc/loadavg').read().split()[:3]}, torchrun: {tr or 'not installed'}")
    try:
        if a.only in (None, "init"):
            init = {"floor": [], "jaxset": [], "torchrun": [] if tr else None}
            for _ in range(a.reps):
                init["floor"].append(one_init(b, Floor(b)))
                init["jaxset"].append(one_init(b, Jaxset(b)))
                if tr:
                    init["torchrun"].append(one_init(b, Torchrun(b)))
            table(f"init: {a.n} processes to initialize()", list(init.items()))
        if a.only in (None, "restart"):
            rs = {"floor": [], "grace0": [], "no-ann": [], "torchrun": [] if tr else None}
            for i in range(a.reps):
                rs["floor"].append(one_restart(b, Floor(b)))
                rs["grace0"].append(one_restart(b, Jaxset(b, annotation=0)))
                if i < a.slow_reps:
                    rs["no-ann"].append(one_restart(b, Jaxset(b, grace=a.grace)))
                    if tr:
                        rs["torchrun"].append(one_restart(b, Torchrun(b)))
            table(f"restart: process {a.n - 1} of {a.n} exits 1, until all {a.n} initialized "
                  f"again (no-ann: --grace {a.grace})", list(rs.items()))
    finally:
        shutil.rmtree(b.dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
