"""A run whose pods fill the disk of its state (JAXSET_HOME on a small tmpfs) still records how
it ended: the space of its final run.json, pods.json, jobs.json and jobset.json is reserved
before the first pod starts, so `get` shows the run's real end state (not Lost) and `describe`
the pods' final phases.  A record that still cannot be written is named on stderr; a disk
without even the reserve refuses the run before anything starts.  Needs root (mount -t
tmpfs): elsewhere the tests say "skipped" and pass."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, Run, main, test  # noqa: E402

FINAL = ("pods.json", "jobs.json", "jobset.json", "run.json")


class SmallDisk:
    """A tmpfs of `size` for JAXSET_HOME; `why` says why there is none here."""

    def __init__(self, size="2m"):
        self.dir = tempfile.mkdtemp(prefix="jaxset-disk-")
        self.why = None
        if os.geteuid() != 0:
            self.why = "not root: no tmpfs can be mounted for JAXSET_HOME"
            return
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                            self.dir], capture_output=True, text=True)
        if p.returncode != 0:
            said = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[0]
            self.why = f"mount -t tmpfs was refused here: {said}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.why:
            subprocess.run(["umount", "-l", self.dir], capture_output=True)
        os.rmdir(self.dir)

    def free(self):
        st = os.statvfs(self.dir)
        return st.f_bavail * st.f_frsize


# Fills the disk until it is full (ENOSPC), then ends with the exit status given.
FILL = """import errno, os, sys
try:
    with open(sys.argv[1] + '/filler-%d' % os.getpid(), 'wb', buffering=0) as f:
        while True:
            f.write(bytes(65536))
except OSError as e:
    print('full', e.errno == errno.ENOSPC, flush=True)
sys.exit(int(sys.argv[2]))
"""

# ... having first given back the run's reserve, as a hostile pod could.
TAKE = """import os, sys
os.truncate(sys.argv[1] + '/runs/' + sys.argv[3] + '/latest/reserve', 0)
""" + FILL


def jobset(name, script, disk, code, pods=2):
    c = {"name": "c", "command": ["python3", "-c", script, disk, str(code), name]}
    rj = {"name": "w", "replicas": 1, "template": {"spec": {
        "parallelism": pods, "completions": pods, "backoffLimit": 0,
        "template": {"spec": {"restartPolicy": "Never", "containers": [c]}}}}}
    return json.dumps({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                       "metadata": {"name": name}, "spec": {"replicatedJobs": [rj]}}) + "\n"


def on(disk, text):
    r = Run(text)
    r.env["JAXSET_HOME"] = disk.dir
    return r


def cli(r, *args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=r.env, timeout=60)


def run_dir(disk, name):
    return os.path.realpath(os.path.join(disk.dir, "runs", name, "latest"))


def record(disk, name, file):
    with open(os.path.join(run_dir(disk, name), file), encoding="utf-8") as f:
        return json.load(f)


def get_state(r, name):
    g = cli(r, "get", name, "-o", "json")
    assert g.returncode == 0, g.stderr
    return json.loads(g.stdout)["metadata"]["annotations"]["jaxset.dev/run-state"]


def ends_recorded(disk, name, state, phase):
    r = on(disk, jobset(name, FILL, disk.dir, 0 if phase == "Succeeded" else 1))
    r.run(timeout=120)
    assert "] full True" in r.out, r.describe()  # the pods did fill the disk
    assert disk.free() < 512 * 1024, disk.free()  # and it is still (nearly) full
    assert get_state(r, name) == state, r.describe()
    g = cli(r, "get")
    row = [line.split() for line in g.stdout.splitlines() if line.startswith(name + " ")]
    assert row and row[0][1] == state, g.stdout
    d = cli(r, "describe", name)
    assert d.returncode == 0 and f"State:            {state}" in d.stdout, d.stdout + d.stderr
    pods = [line.split() for line in d.stdout.splitlines() if line.strip().startswith(name)
            and f"{name}-w-0-" in line.split()[0]]
    assert len(pods) == 2 and all(p[3] in ("Succeeded", "Failed") for p in pods), d.stdout
    assert any(p[3] == phase for p in pods), d.stdout
    assert all(p["phase"] in ("Succeeded", "Failed")
               for p in record(disk, name, "pods.json")), record(disk, name, "pods.json")
    assert record(disk, name, "run.json")["state"] == state
    assert not os.path.exists(os.path.join(run_dir(disk, name), "reserve"))
    assert "cannot write the run's final" not in r.err, r.describe()
    assert not r.leftovers(), r.leftovers()


@test
def a_full_disk_keeps_the_end_of_a_failed_run():
    with SmallDisk() as disk:
        if disk.why:
            print(f"  skipped: {disk.why}")
            return
        ends_recorded(disk, "fullfail", "Failed", "Failed")


@test
def a_full_disk_keeps_the_end_of_a_completed_run():
    with SmallDisk() as disk:
        if disk.why:
            print(f"  skipped: {disk.why}")
            return
        ends_recorded(disk, "fullok", "Completed", "Succeeded")


def written(disk, name, file):
    """Whether the final `file` of the failed run holds its end."""
    try:
        v = record(disk, name, file)
    except (OSError, ValueError):
        return False
    if file == "run.json":
        return v.get("state") == "Failed"
    if file == "pods.json":
        return all(p["phase"] in ("Succeeded", "Failed") for p in v)
    if file == "jobs.json":
        return all(any(c["type"] == "Failed" for c in j["status"].get("conditions", []))
                   for j in v)
    return any(c["type"] == "Failed" and c["status"] == "True"
               for c in v["status"].get("conditions", []))


@test
def a_final_record_that_cannot_be_written_is_named_on_stderr():
    with SmallDisk() as disk:
        if disk.why:
            print(f"  skipped: {disk.why}")
            return
        r = on(disk, jobset("taken", TAKE, disk.dir, 1, pods=1)).run(timeout=120)
        assert r.rc == 1 and "] full True" in r.out, r.describe()
        named = [f for f in FINAL if f"cannot write the run's final {f} in " in r.err]
        assert named, r.describe()  # pods.json at least: it has no room beside the old one
        for f in FINAL:
            assert (f in named) != written(disk, "taken", f), (f, r.describe())
        if "run.json" not in named:
            assert get_state(r, "taken") == "Failed", r.describe()
        assert not r.leftovers(), r.leftovers()


@test
def a_disk_without_room_for_the_final_records_refuses_the_run():
    with SmallDisk() as disk:
        if disk.why:
            print(f"  skipped: {disk.why}")
            return
        with open(os.path.join(disk.dir, "filler"), "wb") as f:
            f.write(bytes(max(disk.free() - 32 * 1024, 0)))
        r = on(disk, jobset("noroom", FILL, disk.dir, 0)).run()
        assert r.rc == 2, r.describe()
        assert "cannot reserve" in r.err and "bytes for the run's final records: No space " \
            "left on device" in r.err, r.describe()
        assert "] full" not in r.out, r.describe()  # no pod started
        assert not r.leftovers(), r.leftovers()


if __name__ == "__main__":
    main()
