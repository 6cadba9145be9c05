"""Resource quantities as a cluster reads them (k8s.io/apimachinery pkg/api/resource
ParseQuantity) and as the API server validates them (kubernetes pkg/apis/core/validation):
what is no quantity ("abc", "1e3Mi") is refused by `validate`, `validate --cluster` and `run`
(exit 2, the field and apimachinery's message, nothing started); what the API server refuses
only when the child Job is created (a negative memory limit, a GPU count that is negative or not
whole) is refused by `validate` and `run`, and admitted by `validate --cluster` with a warning
saying the Jobs will fail, as a cluster does; GPU counts are quantities ("2k" is 2000, "1e1" is
10) and one past 64 bits is refused; a valid but huge quantity reaches a downwardAPI file as the
kubelet's ceil(value / divisor), not 0."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from clitest import BIN, SRC, Suite  # noqa: E402

CTR = "spec.replicatedJobs[0].template.spec.template.spec.containers[0]"
VOL = "spec.replicatedJobs[0].template.spec.template.spec.volumes[0]"
FORMAT = ("quantities must match the regular expression "
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
LATER = "(a cluster admits the JobSet; creating its Jobs will fail)"


def jobset(containers, volumes=(), replicas=1):
    pod = {"restartPolicy": "Never", "containers": containers, "volumes": list(volumes)}
    rj = {"name": "w", "replicas": replicas, "template": {"spec": {"template": {"spec": pod}}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "q"}, "spec": {"replicatedJobs": [rj]}}


def ctr(script="print('ran')", name="c", **extra):
    c = {"name": name, "command": ["python3", "-c", script]}
    c.update(extra)
    return c


class Case:
    """A manifest in a fresh JAXSET_HOME, run through the CLI."""

    def __init__(self, doc):
        self.home = tempfile.mkdtemp(prefix="jaxset-qty-")
        self.path = os.path.join(self.home, "js.yaml")
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(doc, f)

    def cli(self, *args, timeout=60):
        env = dict(os.environ, JAXSET_HOME=self.home, NO_COLOR="1")
        p = subprocess.run([BIN, *args], cwd=SRC, env=env, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def started(self):
        """Whether a run left anything: a run directory, or a pod's line."""
        runs = os.path.join(self.home, "runs")
        return os.path.isdir(runs) and any(os.scandir(runs))

    def close(self):
        shutil.rmtree(self.home, ignore_errors=True)


def refused_everywhere(suite, what, doc, line):
    """`validate`, `validate --cluster` and `run`: exit 2, the error line, nothing started."""
    c = Case(doc)
    for args in (["validate"], ["validate", "--cluster"], ["run", "--gpus", "8"]):
        rc, out, err = c.cli(*args, c.path)
        suite.check(f"{what}: {' '.join(args)} exits 2 naming the field",
                    rc == 2 and f"{c.path}: {line}" in err, f"rc={rc}\n{out}{err}")
    suite.check(f"{what}: run started nothing", not c.started(), os.listdir(c.home))
    c.close()


def refused_locally_admitted_by_a_cluster(suite, what, doc, line):
    """`validate` and `run` refuse it (exit 2, nothing started); `validate --cluster` admits it
    with a warning that the Jobs will fail, as the JobSet webhook lets the template through."""
    c = Case(doc)
    for args in (["validate"], ["run", "--gpus", "8"]):
        rc, out, err = c.cli(*args, c.path)
        suite.check(f"{what}: {' '.join(args)} exits 2 naming the field",
                    rc == 2 and f"{c.path}: {line}" in err, f"rc={rc}\n{out}{err}")
    suite.check(f"{what}: run started nothing", not c.started(), os.listdir(c.home))
    rc, out, err = c.cli("validate", "--cluster", c.path)
    suite.check(f"{what}: validate --cluster admits it with the warning",
                rc == 0 and f"Warning: {c.path}: {line} {LATER}" in err, f"rc={rc}\n{out}{err}")
    c.close()


def memory_quantities_are_read_as_the_api_server_reads_them(suite):
    for v in ("abc", "1e3Mi"):
        refused_everywhere(suite, f"memory {v}",
                           jobset([ctr(resources={"limits": {"memory": v}})]),
                           f'{CTR}.resources.limits[memory]: Invalid value: "{v}": {FORMAT}')
    refused_locally_admitted_by_a_cluster(
        suite, "memory -1Gi", jobset([ctr(resources={"limits": {"memory": "-1Gi"}})]),
        f'{CTR}.resources.limits[memory]: Invalid value: "-1Gi": '
        "must be greater than or equal to 0")
    refused_everywhere(suite, "sizeLimit abc",
                       jobset([ctr()], [{"name": "d", "emptyDir": {"sizeLimit": "abc"}}]),
                       f'{VOL}.emptyDir.sizeLimit: Invalid value: "abc": {FORMAT}')
    refused_locally_admitted_by_a_cluster(
        suite, "sizeLimit -1Gi",
        jobset([ctr()], [{"name": "d", "emptyDir": {"sizeLimit": "-1Gi"}}]),
        f"{VOL}.emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity")
    item = {"path": "m", "resourceFieldRef": {"containerName": "c", "resource": "limits.memory",
                                              "divisor": "1e3Mi"}}
    refused_everywhere(suite, "divisor 1e3Mi",
                       jobset([ctr()], [{"name": "i", "downwardAPI": {"items": [item]}}]),
                       f'{VOL}.downwardAPI.items[0].resourceFieldRef.divisor: Invalid value: '
                       f'"1e3Mi": {FORMAT}')


def gpu_counts_that_are_no_count_are_refused(suite):
    def gpus(v):
        return jobset([ctr(resources={"limits": {"nvidia.com/gpu": v}})])
    path = f"{CTR}.resources.limits[nvidia.com/gpu]"
    for v in ("abc", "1e3Mi"):
        refused_everywhere(suite, f"gpu {v}", gpus(v), f'{path}: Invalid value: "{v}": {FORMAT}')
    refused_locally_admitted_by_a_cluster(
        suite, "gpu -1", gpus("-1"),
        f'{path}: Invalid value: "-1": must be greater than or equal to 0')
    refused_locally_admitted_by_a_cluster(suite, "gpu 1.5", gpus("1.5"),
                                          f'{path}: Invalid value: "1500m": must be an integer')
    # requests of an extended resource must equal its limit (no overcommit)
    refused_locally_admitted_by_a_cluster(
        suite, "gpu request 1 under limit 2",
        jobset([ctr(resources={"limits": {"nvidia.com/gpu": 2},
                               "requests": {"nvidia.com/gpu": 1}})]),
        f'{CTR}.resources.requests: Invalid value: "1": '
        "must be equal to nvidia.com/gpu limit of 2")


def a_negative_gpu_request_cancels_no_other(suite):
    # 2 + (-1) would have fitted one GPU: the -1 is refused, nothing runs
    c = Case(jobset([ctr(resources={"limits": {"nvidia.com/gpu": 2}}),
                     ctr(name="d", resources={"limits": {"nvidia.com/gpu": -1}})]))
    rc, out, err = c.cli("run", "--gpus", "1", c.path)
    suite.check("a negative GPU count is refused, not subtracted",
                rc == 2 and "containers[1].resources.limits[nvidia.com/gpu]: Invalid value: "
                "\"-1\": must be greater than or equal to 0" in err and not c.started(),
                f"rc={rc}\n{out}{err}")
    c.close()


def gpu_counts_are_quantities(suite):
    for v, n in (("2k", 2000), ("1e1", 10), (20, 20)):
        c = Case(jobset([ctr(resources={"limits": {"nvidia.com/gpu": v}})]))
        rc, out, err = c.cli("run", "--gpus", "8", c.path)
        suite.check(f"gpu {v} counts {n}",
                    rc == 2 and f"the pods request {n} nvidia.com/gpu in all, this machine has 8"
                    in err and not c.started(), f"rc={rc}\n{out}{err}")
        c.close()
    c = Case(jobset([ctr(resources={"limits": {"nvidia.com/gpu": "100000000000000000000Ei"}})],
                    replicas=3))
    rc, out, err = c.cli("run", "--gpus", "8", c.path)
    suite.check("a GPU count past 64 bits is refused, not wrapped",
                rc == 2 and "the pods request at least 9223372036854775807 nvidia.com/gpu" in err
                and not c.started(), f"rc={rc}\n{out}{err}")
    c.close()
    script = "import os; print('gpus', os.environ['CUDA_VISIBLE_DEVICES'])"
    c = Case(jobset([ctr(script, resources={"limits": {"nvidia.com/gpu": "1e1"}})]))
    rc, out, err = c.cli("run", "--gpus", "12", c.path)
    suite.check("gpu 1e1 runs with 10 GPUs",
                rc == 0 and "gpus 0,1,2,3,4,5,6,7,8,9\n" in out, f"rc={rc}\n{out}{err}")
    c.close()


def userns_ok():
    return shutil.which("unshare") and subprocess.run(
        ["unshare", "-Ur", "true"], capture_output=True).returncode == 0


def a_huge_memory_limit_reaches_a_downward_api_file_unwrapped(suite):
    if os.geteuid() != 0 and not userns_ok():
        print("  (no user namespaces here: the downwardAPI volume is not checked)")
        return
    items = [{"path": p, "resourceFieldRef": dict(containerName="c", resource="limits.memory",
                                                  **({"divisor": d} if d else {}))}
             for p, d in (("bytes", None), ("mi", "1Mi"))]
    script = ("print('mem', open('/etc/info/bytes').read(), open('/etc/info/mi').read())")
    big = ctr(script, resources={"limits": {"memory": "100000000000000000000Ei"}},
              volumeMounts=[{"name": "info", "mountPath": "/etc/info"}])
    c = Case(jobset([big], [{"name": "info", "downwardAPI": {"items": items}}]))
    rc, out, err = c.cli("run", c.path)
    # ParseQuantity caps a binary quantity at 2^63-1; the file has it, in units of the divisor
    suite.check("100000000000000000000Ei is 9223372036854775807 bytes, 8796093022208Mi",
                rc == 0 and "mem 9223372036854775807 8796093022208\n" in out,
                f"rc={rc}\n{out}{err}")
    c.close()
    big["resources"]["limits"]["memory"] = "1e30"
    c = Case(jobset([big], [{"name": "info", "downwardAPI": {"items": items}}]))
    rc, out, err = c.cli("run", c.path)
    suite.check("a value past 64 bits for a downwardAPI file is refused before anything starts",
                rc == 2 and f'{VOL}.downwardAPI.items[0].resourceFieldRef: Invalid value: '
                '"limits.memory"' in err and not c.started(), f"rc={rc}\n{out}{err}")
    c.close()


def main():
    suite = Suite()
    memory_quantities_are_read_as_the_api_server_reads_them(suite)
    gpu_counts_that_are_no_count_are_refused(suite)
    a_negative_gpu_request_cancels_no_other(suite)
    gpu_counts_are_quantities(suite)
    a_huge_memory_limit_reaches_a_downward_api_file_unwrapped(suite)
    suite.finish()


if __name__ == "__main__":
    main()
