"""`jaxset run` maps only what a run uses: the supervisor of a run's pods has neither libcurl,
libmicrohttpd, libcrypto nor what they bring (gnutls, krb5, ldap...) in its address space, and
the commands that need them still work, from the module libjaxset_cluster.so.  Loading those
libraries cost every start about 20 ms and the supervisor 6 MiB of resident memory."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, Run, main, test, wait_for  # noqa: E402

SLEEPER = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: lean
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["sleep", "60"]
"""

# Libraries of the cluster commands, and of what they link (libcurl: OpenSSL, krb5, ldap...;
# libmicrohttpd: gnutls).
CLUSTER_LIBS = ("libcurl", "libmicrohttpd", "libcrypto", "libssl", "libgnutls", "libkrb5",
                "libldap", "libjaxset_cluster")


def mapped_libs(pid):
    with open(f"/proc/{pid}/maps", encoding="utf-8") as f:
        return {os.path.basename(line.split()[-1]) for line in f if "/" in line}


@test
def run_maps_no_cluster_library():
    r = Run(SLEEPER).start()
    try:
        wait_for(lambda: r.leftovers(workers_only=True), 30, "the pod to run")
        libs = mapped_libs(r.proc.pid)
        bad = sorted(lib for lib in libs if lib.startswith(CLUSTER_LIBS))
        assert not bad, f"jaxset run maps {bad}"
        assert any(lib.startswith("libc.so") for lib in libs), libs  # the check can fail
    finally:
        r.proc.terminate()
        r.wait(60)


@test
def cluster_commands_load_the_module():
    # a cluster command runs from the module: it reaches the kubeconfig it was given
    p = subprocess.run([BIN, "get", "--kubeconfig", "/nonexistent/kubeconfig"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "/nonexistent/kubeconfig" in p.stderr, p.stderr
    p = subprocess.run([BIN, "version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("jaxset "), p.stdout + p.stderr


@test
def a_missing_module_is_named():
    # the binary alone (copied without its modules) runs a pod, and says which file is missing
    # for a command that needs the module
    r = Run(SLEEPER.replace('["sleep", "60"]', '["true"]'))
    lone = os.path.join(r.home, "jaxset")
    with open(BIN, "rb") as src, open(lone, "wb") as dst:
        dst.write(src.read())
    os.chmod(lone, 0o755)
    r.args[0] = lone
    r.run(60)
    assert r.rc == 0, r.describe()
    p = subprocess.run([lone, "get"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "libjaxset_cluster.so" in p.stderr \
        and "is missing" in p.stderr, p.stderr


if __name__ == "__main__":
    main()
