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
        path = os.path.join(tmp, "pat.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(JOB)
        env = dict(os.environ, HOME=os.path.join(tmp, "home"))
        p = subprocess.run([jaxset, "run", path], capture_output=True, text=True, cwd=SRC,
                           env=env, timeout=120)
        suite.check("the installed binary matches the pattern: FailJobSet, no restart",
                    p.returncode == 1 and "applying FailJobSet failure policy action" in p.stderr
                    and "restarts 0" in p.stderr and "out of memory" not in p.stderr,
                    f"rc={p.returncode}\n{p.stderr}")
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
