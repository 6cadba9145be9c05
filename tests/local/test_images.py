"""`jaxset run --images` (docs/local.md, "Containers in their images"): each container in its
image's root filesystem, with the image's config applied as the kubelet applies it, on images
built here by tests/images/build.sh (buildah FROM scratch with busybox-static):

- the command rules, one case each: neither command nor args (ENTRYPOINT + CMD), command alone
  (CMD dropped), args alone (ENTRYPOINT + args), both; an image with neither and no command;
- env (the image's, the container's winning), workingDir (the image's, the container's),
  user (the image's USER by name, runAsUser/runAsGroup over it), no host variable leaking in;
- a file only the image has, writes to a layer of the container's own (the next pod does not
  see them), the pod hostnames in /etc/hosts, a hostPath volume at its mountPath, an
  emptyDir of medium Memory a tmpfs of each pod's own;
- the status server's CA and token where Trainer mounts them, read-only;
- a four-pod JAX job meeting at its coordinator (by its pod hostname) inside the image;
- a gang restart (failurePolicy) and an in-place restart (InPlaceRestart), whose second
  attempts start from the image again;
- refusals before anything starts, exit 2: an image not in the store with imagePullPolicy
  Never or no registry to pull from (named with its pod's field path and the remedy), no
  podman on PATH;
- SIGKILL of jaxset: no process of the run, hence no mount namespace or overlay of it, is left.

Needs root, podman, buildah and busybox-static (scripts/setup.sh); Skipped (77) otherwise."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, SRC, Run, main, test, wait_for  # noqa: E402

IMG = "localhost/jxtest-busybox:1"
PLAIN = "localhost/jxtest-plain:1"
PODMAN_ARGS = "--storage-driver vfs --runtime runc"
ENV = {"JAXSET_PODMAN_ARGS": PODMAN_ARGS, "JAXSET_IMAGES_TEST_HOST_VAR": "leak"}


def container(image=IMG, **kw):
    c = {"name": "c", "image": image, "imagePullPolicy": "Never"}
    c.update(kw)
    return c


def jobset(name, containers, pods=1, spec=None, volumes=None, annotations=None):
    pod = {"restartPolicy": "Never", "containers": containers}
    if volumes:
        pod["volumes"] = volumes
    rj = {"name": "w", "replicas": 1, "template": {"spec": {
        "parallelism": pods, "completions": pods, "backoffLimit": 0,
        "template": {"spec": pod}}}}
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": name, "annotations": annotations or {}},
          "spec": {"replicatedJobs": [rj]}}
    js["spec"].update(spec or {})
    return json.dumps(js) + "\n"


def run(manifest, *args, timeout=60, env=None):
    r = Run(manifest, "--images", *args, env=dict(ENV, **(env or {}))).run(timeout)
    return r


def lines(r, pod=None):
    """The forwarded lines' texts (of one pod when named)."""
    out = []
    for line in r.out.splitlines():
        if line.startswith("["):
            who, _, text = line[1:].partition("] ")
            if pod is None or who == pod:
                out.append(text)
    return out


def ok(r):
    assert r.rc == 0, r.describe()
    return r


def sh(script, **kw):
    return container(command=["/bin/sh", "-c", script], **kw)


# ---------------------------------------------------------------- the command rules

@test
def image_entrypoint_and_cmd_without_command_or_args():
    r = ok(run(jobset("rule-none", [container()])))
    assert lines(r) == ["ep cmd1 cmd2"], r.describe()


@test
def command_alone_drops_the_image_cmd():
    r = ok(run(jobset("rule-cmd", [container(command=["/bin/echo", "mine"])])))
    assert lines(r) == ["mine"], r.describe()


@test
def args_alone_follow_the_image_entrypoint():
    r = ok(run(jobset("rule-args", [container(args=["a1", "a2"])])))
    assert lines(r) == ["ep a1 a2"], r.describe()


@test
def command_and_args_replace_both():
    r = ok(run(jobset("rule-both", [container(command=["/bin/echo"], args=["x", "y"])])))
    assert lines(r) == ["x y"], r.describe()


@test
def the_image_cmd_is_not_expanded_but_args_are():
    r = ok(run(jobset("rule-expand", [container(
        args=["$(FOO)", "$$(FOO)"], env=[{"name": "FOO", "value": "foo"}])])))
    assert lines(r) == ["ep foo $(FOO)"], r.describe()


@test
def no_command_and_an_image_without_entrypoint_fails_to_start():
    r = run(jobset("rule-nothing", [container(PLAIN)]))
    assert r.rc == 1 and "neither ENTRYPOINT nor CMD" in r.err, r.describe()


# ---------------------------------------------------------------- env, workingDir, user

@test
def env_workdir_and_user_from_the_image():
    c = sh('echo "$FOO $BAR ${JAXSET_IMAGES_TEST_HOST_VAR:-none}"; pwd; id -u; id -g; '
           'echo "$PATH"', env=[{"name": "BAR", "value": "container"}])
    r = ok(run(jobset("cfg-image", [c])))
    assert lines(r) == ["image container none", "/work", "1000", "1000",
                        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"], \
        r.describe()


@test
def workdir_and_run_as_from_the_pod_spec():
    c = sh("pwd; id -u; id -g", workingDir="/data",
           securityContext={"runAsUser": 4321, "runAsGroup": 50})
    r = ok(run(jobset("cfg-pod", [c])))
    assert lines(r) == ["/data", "4321", "50"], r.describe()
    c = sh("id -u; id -g")
    js = json.loads(jobset("cfg-pod-root", [c]))
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "securityContext"] = {"runAsUser": 0}
    r = ok(run(json.dumps(js)))
    assert lines(r) == ["0", "0"], r.describe()


# ---------------------------------------------------------------- files

@test
def files_of_the_image_and_a_layer_per_container():
    host = tempfile.mkdtemp(prefix="jaxset-img-host-")
    os.chmod(host, 0o777)
    c = sh("cat /data/only-in-image.txt; test -e /tmp/mine && echo seen-other || echo fresh; "
           "echo x > /tmp/mine; grep -c rootfs /proc/self/mountinfo >/dev/null && echo proc; "
           "grep -q files-w-0-1 /etc/hosts && echo hosts; echo $JOB_COMPLETION_INDEX > "
           "/host/$JOB_COMPLETION_INDEX; ls /host | wc -l",
           volumeMounts=[{"name": "h", "mountPath": "/host"}])
    vols = [{"name": "h", "hostPath": {"path": host}}]
    try:
        r = ok(run(jobset("files", [c], pods=2, volumes=vols)))
        for pod in ("files-w-0-0", "files-w-0-1"):
            got = lines(r, pod)
            assert got[:4] == ["only in the image", "fresh", "proc", "hosts"], r.describe()
        assert sorted(os.listdir(host)) == ["0", "1"], os.listdir(host)
        assert not os.path.exists("/data/only-in-image.txt")
    finally:
        shutil.rmtree(host, ignore_errors=True)


@test
def memory_emptydir_is_a_tmpfs_of_the_pod_in_the_image():
    c = sh("grep -E ' /(cache|scratch) ' /proc/self/mountinfo | cut -d' ' -f5,9; "
           "echo $JOB_COMPLETION_INDEX > /cache/$JOB_COMPLETION_INDEX; ls /cache",
           securityContext={"runAsUser": 0},
           volumeMounts=[{"name": "m", "mountPath": "/cache"},
                         {"name": "d", "mountPath": "/scratch"}])
    vols = [{"name": "m", "emptyDir": {"medium": "Memory", "sizeLimit": "8Mi"}},
            {"name": "d", "emptyDir": {}}]
    r = ok(run(jobset("mem", [c], pods=2, volumes=vols)))
    for i in (0, 1):
        got = lines(r, f"mem-w-0-{i}")
        assert got[0] == "/cache tmpfs" and got[1].startswith("/scratch ") and \
            got[1] != "/scratch tmpfs" and got[2] == str(i), r.describe()


# ---------------------------------------------------------------- training progress

@test
def the_status_server_files_are_where_trainer_mounts_them():
    """Trainer's projected volume path (plugins/trainjobstatus): the run's CA and token
    read-only at /var/run/secrets/kubeflow/trainer in the image, the variables naming them."""
    script = ('echo "$KUBEFLOW_TRAINER_SERVER_CA_CERT $KUBEFLOW_TRAINER_SERVER_TOKEN"; '
              'head -c 27 "$KUBEFLOW_TRAINER_SERVER_CA_CERT"; echo; '
              'wc -c < "$KUBEFLOW_TRAINER_SERVER_TOKEN"; '
              'touch /var/run/secrets/kubeflow/trainer/x 2>/dev/null && echo writable || echo ro')
    r = ok(run(jobset("progress-img", [sh(script)],
                      annotations={"jaxset.dev/trainer-status": "true"})))
    assert lines(r) == ["/var/run/secrets/kubeflow/trainer/ca.crt "
                        "/var/run/secrets/kubeflow/trainer/token",
                        "-----BEGIN CERTIFICATE-----", "64", "ro"], r.describe()


# ---------------------------------------------------------------- JAX, restarts

JAX_MEET = r"""
# one port, the coordinator's: nc serves each connection with h.sh, which answers "ok" once it
# kept the id, and a sender tries again until it reads that (examples/workers/reduce.sh)
if [ "$JAX_PROCESS_ID" = 0 ]; then
  mkdir /tmp/got; printf 'read -r id; : > /tmp/got/$id; echo ok\n' > /tmp/h.sh
  nc -ll -p $JAX_COORDINATOR_PORT -e /bin/sh /tmp/h.sh & s=$!
  n=1
  while [ $n -lt $JAX_NUM_PROCESSES ]; do
    if [ -e /tmp/got/$n ]; then n=$((n+1)); else kill -0 $s || exit 9; sleep 0.05; fi
  done
  kill $s
  echo "coordinator $(hostname) got $(ls /tmp/got | sort | tr '\n' ' ')of $JAX_NUM_PROCESSES"
else
  host=meet-w-0-0.meet
  until [ "$(echo "$JAX_PROCESS_ID" | nc $host $JAX_COORDINATOR_PORT 2>/dev/null)" = ok ]; do sleep 0.1; done
  echo "process $JAX_PROCESS_ID of $JAX_NUM_PROCESSES reached $host at ${JAX_COORDINATOR_ADDRESS%:*}"
fi
"""


@test
def four_jax_processes_meet_at_the_coordinator_in_the_image():
    m = jobset("meet", [sh(JAX_MEET)], pods=4, annotations={"jaxset.dev/jax-runtime": "jobset"})
    r = ok(run(m, timeout=90))
    got = lines(r, "meet-w-0-0")
    assert got == ["coordinator meet-w-0-0 got 1 2 3 of 4"], r.describe()
    for i in (1, 2, 3):
        assert lines(r, f"meet-w-0-{i}") == [f"process {i} of 4 reached meet-w-0-0.meet at "
                                             "127.0.0.1"], r.describe()


@test
def a_gang_restart_starts_again_from_the_image():
    host = tempfile.mkdtemp(prefix="jaxset-img-restart-")
    c = sh("test -e /tmp/written && echo layer-kept; echo > /tmp/written; "
           "if [ -e /state/failed ]; then echo second; else touch /state/failed; exit 3; fi",
           volumeMounts=[{"name": "s", "mountPath": "/state"}],
           securityContext={"runAsUser": 0})
    vols = [{"name": "s", "hostPath": {"path": host}}]
    try:
        r = ok(run(jobset("gang", [c], spec={"failurePolicy": {"maxRestarts": 1}},
                          volumes=vols)))
        assert "layer-kept" not in r.out and lines(r)[-1] == "second", r.describe()
        assert "restarts 1" in r.err, r.describe()
    finally:
        shutil.rmtree(host, ignore_errors=True)


@test
def the_example_runs_in_its_image():
    subprocess.run([os.path.join(SRC, "examples", "images", "allreduce.sh"), "--storage-driver",
                    "vfs"], check=True, capture_output=True)
    r = Run.example("jax-allreduce-image.yaml", "--images")
    r.env.update(ENV)
    ok(r.run(60))
    assert lines(r, "allreduce-image-workers-0-0") == [
        "coordinator allreduce-image-workers-0-0: sum of the 4 processes = 10 (expected 10)"], \
        r.describe()


@test
def an_in_place_restart_restarts_the_containers_from_the_image():
    host = tempfile.mkdtemp(prefix="jaxset-img-ipr-")
    c = sh("test -e /tmp/written && echo layer-kept; echo > /tmp/written; "
           "if [ -e /state/failed ]; then echo done $JOB_COMPLETION_INDEX; exit 0; fi; "
           "if [ $JOB_COMPLETION_INDEX = 1 ]; then sleep 0.3; touch /state/failed; exit 3; fi; "
           "sleep 30",
           volumeMounts=[{"name": "s", "mountPath": "/state"}],
           securityContext={"runAsUser": 0})
    vols = [{"name": "s", "hostPath": {"path": host}}]
    m = json.loads(jobset("ipr", [c], pods=2, volumes=vols,
                          spec={"failurePolicy": {"maxRestarts": 2,
                                                  "restartStrategy": "InPlaceRestart"}}))
    m["spec"]["replicatedJobs"][0]["template"]["spec"].update(
        backoffLimit=2147483647, podReplacementPolicy="Failed")
    try:
        r = ok(run(json.dumps(m), "--feature-gates", "InPlaceRestart=true"))
        assert "in-place restarts 1" in r.err and "layer-kept" not in r.out, r.describe()
        assert sorted(x for x in lines(r) if x.startswith("done")) == ["done 0", "done 1"], \
            r.describe()
    finally:
        shutil.rmtree(host, ignore_errors=True)


# ---------------------------------------------------------------- refusals

@test
def a_missing_image_is_refused_before_anything_starts():
    m = jobset("missing", [container("localhost/jxtest-absent:9")])
    r = run(m)
    assert r.rc == 2, r.describe()
    assert ("spec.replicatedJobs[0].template.spec.template.spec.containers[0] (container c): "
            "image localhost/jxtest-absent:9: not in the local containers store and "
            "imagePullPolicy is Never") in r.err and "podman load" in r.err, r.describe()
    assert r.out == "", r.describe()
    m = jobset("nopull", [container("localhost/jxtest-absent:9", imagePullPolicy="IfNotPresent")])
    r = run(m)
    assert r.rc == 2 and "not pulled" in r.err and "podman pull" in r.err, r.describe()


@test
def no_podman_is_refused_with_the_packages():
    empty = tempfile.mkdtemp(prefix="jaxset-nopath-")
    try:
        r = run(jobset("nopodman", [container()]), env={"PATH": empty})
        assert r.rc == 2 and "apt-get install podman" in r.err, r.describe()
    finally:
        shutil.rmtree(empty, ignore_errors=True)


# ---------------------------------------------------------------- SIGKILL

def holders(run_dir):
    """Pids whose mount table shows a mount of the run directory (a container's root)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/mountinfo", encoding="utf-8", errors="replace") as f:
                if run_dir in f.read():
                    pids.append(int(d))
        except OSError:
            continue
    return pids


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@test
def sigkill_leaves_no_process_namespace_or_mount():
    m = jobset("killed", [sh("echo up; sleep 300")], pods=3)
    r = Run(m, "--images", env=ENV).start()
    home = r.home
    try:
        def started():
            d = os.path.join(home, "runs", "killed", "latest")
            return os.path.exists(d) and holders(os.path.realpath(d))
        pids = wait_for(started, 30, "the containers running")
        run_dir = os.path.realpath(os.path.join(home, "runs", "killed", "latest"))
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait(10)
        wait_for(lambda: not holders(run_dir), 15, "no process holding the run's mounts")
        wait_for(lambda: all(gone(pid) for pid in pids), 15, "the containers' processes gone")
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            assert run_dir not in f.read()
    finally:
        if r.proc.poll() is None:
            r.proc.kill()
        r.proc.communicate()


def setup():
    if os.geteuid() != 0:
        print("skipped: --images needs root")
        sys.exit(77)
    for tool in ("podman", "buildah"):
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed (scripts/setup.sh installs it)")
            sys.exit(77)
    if not os.path.exists("/bin/busybox"):
        print("skipped: busybox-static is not installed (scripts/setup.sh installs it)")
        sys.exit(77)
    subprocess.run([os.path.join(SRC, "tests", "images", "build.sh")], check=True,
                   capture_output=True)


if __name__ == "__main__":
    setup()
    main()
