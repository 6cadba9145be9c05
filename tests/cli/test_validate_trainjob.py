"""`jaxset validate [--cluster]` on TrainJobs: kubeflow/trainer's admission (the TrainJob CRD,
the runtimes' CRDs and webhook, the TrainJob webhook's plugins; api/admit/trainjob_admission.h) is
one rule set with the cluster webhook's.  With --cluster, what a cluster admits and only
jaxset's controller would fail is valid with a `Warning:` line; plain validate refuses it."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from clitest import Suite, run  # noqa: E402

ANC = "trainer.kubeflow.org/trainjob-ancestor-step"


def rjob(name, ancestor, container=None):
    pod = {"containers": [{"name": container or name, "image": "python:3.11",
                           "volumeMounts": [{"name": "initializer", "mountPath": "/w"}]}],
           "volumes": [{"name": "initializer", "emptyDir": {}}]}
    return {"name": name, "template": {"metadata": {"labels": {ANC: ancestor}},
                                       "spec": {"template": {"spec": pod}}}}


def runtime(ml=None, kind="ClusterTrainingRuntime"):
    rt = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind,
          "metadata": {"name": "rt", "namespace": "default"},
          "spec": {"mlPolicy": ml if ml is not None else {"numNodes": 1, "jax": {}},
                   "template": {"spec": {"replicatedJobs": [
                       rjob("dataset-initializer", "dataset-initializer"),
                       rjob("node", "trainer")]}}}}
    return rt


def trainjob(name="tj", **spec):
    s = {"runtimeRef": {"name": "rt"}}
    s.update(spec)
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name, "namespace": "default"}, "spec": s}


def validate(docs, *flags):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("\n---\n".join(json.dumps(d) for d in docs))
    try:
        return run("validate", *flags, f.name)
    finally:
        os.unlink(f.name)


def refused(suite, name, docs, text, *flags):
    rc, out, err = validate(docs, *flags)
    suite.check(name, rc == 2 and text in err, f"rc={rc}\n{out}{err}")


def warned(suite, name, docs, text):
    rc, out, err = validate(docs, "--cluster")
    warn = [line for line in err.splitlines() if line.startswith("Warning:") and text in line]
    suite.check(name, rc == 0 and warn and ": valid: " in out, f"rc={rc}\n{out}{err}")
    rc, out, err = validate(docs)
    suite.check(name + " (plain validate refuses)", rc == 2, f"rc={rc}\n{out}{err}")


def plugin_rules(suite):
    for flags in ((), ("--cluster",)):
        tag = " ".join(flags) or "plain"
        refused(suite, f"{tag}: runtime patch of an unknown replicated job refused",
                [runtime(), trainjob(runtimePatches=[{"manager": "a.io/m", "trainingRuntimeSpec":
                 {"template": {"spec": {"replicatedJobs": [{"name": "nope"}]}}}}])],
                "spec.runtimePatches: Invalid value", *flags)
        refused(suite, f"{tag}: runtime patch manager not domain-prefixed refused",
                [runtime(), trainjob(runtimePatches=[{"manager": "kueue.k8s.io/"}])],
                "spec.runtimePatches.manager", *flags)
        refused(suite, f"{tag}: model initializer without its job refused",
                [runtime(), trainjob(initializer={"model": {"storageUri": "hf://m"}})],
                "must have model-initializer job when trainJob is configured with input "
                "modelConfig", *flags)
        refused(suite, f"{tag}: torch reserved env refused",
                [runtime({"torch": {}}), trainjob(trainer={"env": [{"name": "PET_NODE_RANK",
                                                                    "value": "1"}]})],
                "must not have reserved envs, invalid envs configured: [PET_NODE_RANK]", *flags)
        vol = runtime()
        vol["spec"]["podGroupPolicy"] = {"volcano": {}}
        vol["spec"]["template"]["metadata"] = {"annotations": {
            "scheduling.volcano.sh/queue-name": "q1"}}
        empty = {"manager": "a.io/m", "trainingRuntimeSpec": {"template": {"metadata": {
            "annotations": {"scheduling.volcano.sh/queue-name": ""}}}}}
        refused(suite, f"{tag}: empty Volcano queue (a runtime patch's) refused",
                [vol, trainjob(runtimePatches=[empty])],
                'spec.annotations[scheduling.volcano.sh/queue-name]: Invalid value: "": '
                "Volcano queue name must not be empty", *flags)
        if flags:  # (plain validate also asks for the commands it would run)
            rc, out, err = validate([vol, trainjob()], *flags)
            suite.check(f"{tag}: Volcano runtime with its queue admitted", rc == 0, err[-500:])


def grace_patch(seconds):
    pod = {"terminationGracePeriodSeconds": seconds}
    rj = {"name": "node", "template": {"spec": {"template": {"spec": pod}}}}
    return {"manager": "a.io/m",
            "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [rj]}}}}


def crd_rules(suite):
    for flags in ((), ("--cluster",)):
        tag = " ".join(flags) or "plain"
        refused(suite, f"{tag}: managedBy value refused", [runtime(), trainjob(managedBy="x")],
                'spec.managedBy: Invalid value: "string": ManagedBy must be', *flags)
        refused(suite, f"{tag}: storageUri without a scheme refused",
                [runtime(), trainjob(initializer={"dataset": {"storageUri": "s3://"}})],
                "spec.initializer.dataset.storageUri: Invalid value", *flags)
        refused(suite, f"{tag}: negative terminationGracePeriodSeconds in a patch refused",
                [runtime(), trainjob(runtimePatches=[grace_patch(-1)])],
                "template.spec.terminationGracePeriodSeconds: Invalid value: -1", *flags)
        refused(suite, f"{tag}: command item over 1 MiB refused",
                [runtime(), trainjob(trainer={"command": ["a" * 1048577]})],
                "spec.trainer.command[0]: Too long", *flags)
        refused(suite, f"{tag}: JAX and torch policies together refused",
                [runtime({"jax": {}, "torch": {}}), trainjob()],
                "spec.mlPolicy: Invalid value: \"object\": Only one of the policy can be "
                "configured", *flags)
    rc, out, err = validate([runtime(), trainjob(trainer={"command": ["a" * 1048576]})],
                            "--cluster")
    suite.check("command item of exactly 1 MiB admitted", rc == 0, err[-500:])


def cluster_admits(suite):
    rt = runtime()
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 2
    warned(suite, "ancestor job with replicas 2: warning under --cluster", [rt, trainjob()],
           "replicatedJobs[0].replicas: Invalid value: 2: always must be 1")
    rt = runtime()
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "containers"] = [{"name": "other", "image": "x"}]
    warned(suite, "initializer without its container: warning under --cluster", [rt, trainjob()],
           "must contain the required container for the ancestor: dataset-initializer")
    warned(suite, "torch runtime: admitted, jaxset's controller will fail it",
           [runtime({"torch": {}}), trainjob()], "jaxset runs JAX runtimes only")
    warned(suite, "numNodes 0: admitted, fails later",
           [runtime(), trainjob(trainer={"numNodes": 0})], "no replicated job runs JAX processes")
    rc, out, err = validate([trainjob()], "--cluster")
    suite.check("missing runtime refused with upstream's words",
                rc == 2 and "specified clusterTrainingRuntime must be created before the "
                "TrainJob is created" in err, err)
    rt = runtime()
    rt["metadata"]["labels"] = {"trainer.kubeflow.org/support": "deprecated"}
    rc, out, err = validate([rt, trainjob()], "--cluster")
    suite.check("deprecated ClusterTrainingRuntime: both of upstream's warnings",
                rc == 0 and 'Referenced ClusterTrainingRuntime "rt" is deprecated' in err
                and 'Warning: ' in err and err.count('ClusterTrainingRuntime "rt" is deprecated')
                == 2, err)


def runtime_alone(suite):
    rt = runtime()
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 2
    refused(suite, "--cluster: a runtime alone is checked as its creation",
            [rt], "replicatedJobs[0].replicas: Invalid value: 2: always must be 1", "--cluster")
    refused(suite, "--cluster: mpiImplementation's values",
            [runtime({"mpi": {"mpiImplementation": "x"}})],
            'spec.mlPolicy.mpi.mpiImplementation: Unsupported value: "x"', "--cluster")
    rt = runtime()
    rt["metadata"]["labels"] = {"trainer.kubeflow.org/support": "deprecated"}
    rc, out, err = validate([rt], "--cluster")
    suite.check("--cluster: creating a deprecated ClusterTrainingRuntime warns",
                rc == 0 and 'Warning: ' in err and 'ClusterTrainingRuntime "rt" is deprecated'
                in err and out.endswith("valid: ClusterTrainingRuntime\n"), out + err)


OPT_OUT = "trainer.kubeflow.org/webhook-validation"


def webhook_validation_disabled(suite):
    """kubeflow/trainer v2.3.0 (#3683): a runtime labelled webhook-validation: disabled is not
    sent to the runtime webhooks (their objectSelector), so nothing of theirs is said of it:
    not its jobs' rules, not the deprecation warning of its creation; its CRD's rules and the
    TrainJob webhook's still are."""
    rt = runtime()
    rt["metadata"]["labels"] = {OPT_OUT: "disabled"}
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 2
    rc, out, err = validate([rt, trainjob()], "--cluster")
    suite.check("--cluster: an opted-out runtime's jobs are not checked",
                rc == 0 and "always must be 1" not in err and "Warning" not in err,
                f"rc={rc}\n{out}{err}")
    rc, out, err = validate([rt, trainjob()])  # refused locally for other reasons (no command)
    suite.check("an opted-out runtime's jobs are not checked locally either",
                "always must be 1" not in err and "container dataset-initializer has no command"
                in err, f"rc={rc}\n{out}{err}")
    rc, out, err = validate([rt], "--cluster")
    suite.check("--cluster: an opted-out runtime alone is admitted", rc == 0 and
                out.endswith("valid: ClusterTrainingRuntime\n") and not err, out + err)
    rt["metadata"]["labels"][OPT_OUT] = "enabled"  # any other value: validated
    refused(suite, "--cluster: webhook-validation other than disabled is validated", [rt],
            "replicatedJobs[0].replicas: Invalid value: 2: always must be 1", "--cluster")
    rt = runtime()
    rt["metadata"]["labels"] = {OPT_OUT: "disabled", "trainer.kubeflow.org/support": "deprecated"}
    rc, out, err = validate([rt, trainjob()], "--cluster")
    suite.check("opted out and deprecated: only the TrainJob webhook's warning",
                rc == 0 and err.count('ClusterTrainingRuntime "rt" is deprecated') == 1 and
                'Referenced ClusterTrainingRuntime "rt" is deprecated' in err, err)
    rt = runtime({"torch": {}, "jax": {}})
    rt["metadata"]["labels"] = {OPT_OUT: "disabled"}
    refused(suite, "opted out: the CRD's rules still hold", [rt, trainjob()],
            "Only one of the policy can be configured", "--cluster")
    rt = runtime()
    rt["metadata"]["labels"] = {OPT_OUT: "disabled"}
    refused(suite, "opted out: the TrainJob webhook still checks the TrainJob",
            [rt, trainjob(initializer={"model": {"storageUri": "hf://m"}})],
            "must have model-initializer job when trainJob is configured with input modelConfig",
            "--cluster")


def multi_slice(suite):
    """A trainer job of several replicas (multi-slice, kubeflow/trainer #3408, open upstream: a
    deliberate difference, README): numNodes is the total, split evenly across the Jobs."""
    rt = runtime()
    rjs = rt["spec"]["template"]["spec"]["replicatedJobs"]
    del rjs[0]
    rjs[0]["replicas"] = 2
    cmd = ["python3", "train.py"]
    for flags in ((), ("--cluster",)):
        rc, out, err = validate([rt, trainjob(trainer={"numNodes": 4, "command": cmd})], *flags)
        suite.check(f"{' '.join(flags) or 'plain'}: trainer replicas 2, numNodes 4 admitted",
                    rc == 0 and ("2 jobs, 4 pods, JAX (trainjob): 4 processes" in out
                                 if not flags else not err), f"rc={rc}\n{out}{err}")
    warned(suite, "trainer replicas 2, numNodes 3: not a multiple",
           [rt, trainjob(trainer={"numNodes": 3, "command": cmd})],
           "spec.trainer.numNodes: Invalid value: 3: must be a multiple of "
           "spec.template.spec.replicatedJobs[0].replicas (2)")
    rt["spec"]["mlPolicy"]["numNodes"] = 5
    refused(suite, "the runtime's numNodes named when the TrainJob has none",
            [rt, trainjob(trainer={"command": cmd})],
            "spec.mlPolicy.numNodes: Invalid value: 5: must be a multiple of")
    rjs[0]["replicas"] = 0
    refused(suite, "--cluster: trainer replicas 0 refused by the runtime webhook", [rt],
            "replicatedJobs[0].replicas: Invalid value: 0: must be greater than or equal to 1",
            "--cluster")


def main():
    suite = Suite()
    webhook_validation_disabled(suite)
    runtime_alone(suite)
    multi_slice(suite)
    plugin_rules(suite)
    crd_rules(suite)
    cluster_admits(suite)
    suite.finish()


if __name__ == "__main__":
    main()
