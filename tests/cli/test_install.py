"""`cmake --install` installs everything the binary loads: installed into a temporary prefix,
jaxset finds its RE2 module (lib/jaxset beside bin/) and a failure-policy pattern matches, and
its cluster commands' module (help and version come from it too)."""
import os
import shutil
import subprocess
import sys
import tempfile

from clitest import BIN, SRC, Suite

JOB = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: pat
spec:
  failurePolicy:
    maxRestarts: 3
    rules:
    - name: noRetryOnBackoff
      action: FailJobSet
      onJobFailureMessagePatterns: ["backoff limit"]
  replicatedJobs:
  - name: w
    template:
      spec:
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              image: python
              command: ["python3", "-c", "raise SystemExit(3)"]
"""


def main():
    suite = Suite()
    build = os.path.dirname(os.path.abspath(BIN))
    tmp = tempfile.mkdtemp(prefix="jaxset-install-")
    try:
        prefix = os.path.join(tmp, "prefix")
        p = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                           capture_output=True, text=True, timeout=120)
        suite.check("cmake --install succeeds", p.returncode == 0, p.stdout + p.stderr)
        jaxset = os.path.join(prefix, "bin", "jaxset")
        modules = [os.path.join(d, f) for d, _, fs in os.walk(prefix) for f in fs
                   if f == "libjaxset_rx.so"]
        suite.check("the RE2 module is installed", len(modules) == 1, str(modules))
        cluster = [os.path.join(d, f) for d, _, fs in os.walk(prefix) for f in fs
                   if f == "libjaxset_cluster.so"]
        suite.check("the cluster commands' module is installed", len(cluster) == 1, str(cluster))
        p = subprocess.run([jaxset, "version"], capture_output=True, text=True, timeout=60)
        suite.check("the installed binary loads it (version)",
                    p.returncode == 0 and p.stdout.startswith("jaxset "), p.stdout + p.stderr)
        for rel in ("share/man/man1/jaxset.1", "share/bash-completion/completions/jaxset",
                    "share/zsh/vendor-completions/_jaxset"):
            path = os.path.join(prefix, rel)
            ok = os.path.isfile(path) and os.path.getsize(path) > 0
            suite.check(f"{rel} is installed", ok, path)
        with open(os.path.join(prefix, "share/man/man1/jaxset.1"), encoding="utf-8") as f:
            man = f.read()
        help_run = subprocess.run([BIN, "help", "run"], capture_output=True, text=True).stdout
        suite.check("the manual page holds every command's help",
                    ".SH RUN" in man and help_run.splitlines()[0] in man, man[:300])
        # Everything the installed binary and its module load resolves outside the build
        # tree (the binary has no RUNPATH; the module is found from /proc/self/exe).
        for f in [jaxset, *modules]:
            p = subprocess.run(["ldd", f], capture_output=True, text=True, timeout=30)
            suite.check(f"ldd {os.path.relpath(f, prefix)}: every library found, none from "
                        "the build tree",
                        p.returncode == 0 and "not found" not in p.stdout
                        and build not in p.stdout, p.stdout + p.stderr)
        # The prefix moved elsewhere still works: nothing refers to where it was installed.
        moved = os.path.join(tmp, "moved")
        os.rename(prefix, moved)
        prefix = moved
        jaxset = os.path.join(prefix, "bin", "jaxset")
        modules = [m.replace(os.path.join(tmp, "prefix"), moved, 1) for m in modules]
        path = os.path.join(tmp, "pat.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(JOB)
        env = dict(os.environ, HOME=os.path.join(tmp, "home"),
                   JAXSET_HOME=os.path.join(tmp, "state"), NO_COLOR="1",
                   LD_DEBUG="files", LD_DEBUG_OUTPUT=os.path.join(tmp, "ld"))
        p = subprocess.run([jaxset, "run", path], capture_output=True, text=True, cwd=SRC,
                           env=env, timeout=120)
        suite.check("the installed binary matches the pattern: FailJobSet, no restart",
                    p.returncode == 1 and "applying FailJobSet failure policy action" in p.stderr
                    and "restarts 0" in p.stderr and "out of memory" not in p.stderr,
                    f"rc={p.returncode}\n{p.stderr}")
        # A pattern that does not match the Job's message leaves the restarts to maxRestarts.
        with open(path, "w", encoding="utf-8") as f:
            f.write(JOB.replace('["backoff limit"]', '["^no such message$"]')
                    .replace("maxRestarts: 3", "maxRestarts: 1"))
        p2 = subprocess.run([jaxset, "run", "--restart-backoff", "1", path],
                            capture_output=True, text=True, cwd=SRC,
                            env=dict(env, LD_DEBUG_OUTPUT=os.path.join(tmp, "ld2")), timeout=120)
        suite.check("a pattern that does not match: restarted up to maxRestarts, then Failed",
                    p2.returncode == 1 and "restarts 1" in p2.stderr
                    and "applying FailJobSet failure policy action" not in p2.stderr,
                    f"rc={p2.returncode}\n{p2.stderr}")
        # The dynamic loader's log of the first run: the module came from the (moved) prefix.
        loaded = set()
        for f in os.listdir(tmp):
            if f.startswith("ld."):
                with open(os.path.join(tmp, f), encoding="utf-8", errors="replace") as lf:
                    loaded |= {os.path.realpath(ln.split("file=", 1)[1].split()[0])
                               for ln in lf if "generating link map" in ln
                               and "libjaxset_rx" in ln}
        suite.check("the run loaded the RE2 module from the installed prefix",
                    loaded == {os.path.realpath(m) for m in modules}, f"{loaded} {modules}")
        env.pop("LD_DEBUG")
        # without its module, the pattern is reported, not silently taken as no match
        for m in modules:
            os.remove(m)
        p = subprocess.run([jaxset, "validate", path], capture_output=True, text=True, cwd=SRC,
                           env=env, timeout=60)
        suite.check("a missing module is named in a warning",
                    p.returncode == 0 and "libjaxset_rx.so (RE2 support) is missing" in p.stderr
                    and "out of memory" not in p.stderr, f"rc={p.returncode}\n{p.stderr}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
