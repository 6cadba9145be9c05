"""test_upstream_clients.py's `trainer` flow: kubeflow/sdk's TrainerClient with its Kubernetes
backend (kubeflow/trainer/api/trainer_client.py, backends/kubernetes/backend.py), unchanged,
on config/runtimes' jax-distributed runtime: runtimes, train with a CustomTrainer, with a
container command (CustomTrainerContainer + the TrainerCommand option), with the RuntimePatch
option (kubeflow/trainer/options/kubernetes.py: a pod label and a container env patched into
the runtime's `node` job), with dataset and model initializers (on a TrainingRuntime that has
the dataset-initializer and model-initializer jobs Trainer's manifests give its runtimes), then
status waits, logs, events and deletion."""
import json
import logging
import warnings

from clientflow import RUN_TIMEOUT, TIMEOUT, check, poll

MARK = "trained-by-customtrainer"


def train_fn():
    import os
    print("trained-by-customtrainer", os.environ.get("JAX_PROCESS_ID"),
          os.environ.get("PATCHED", "-"))


def initializer_runtime(ns):
    """A TrainingRuntime as Trainer's torch/deepspeed runtimes are laid out: dataset-initializer
    and model-initializer jobs (containers of those names) before the `node` job
    (dependsOn Complete)."""
    def job(name, command, depends=None):
        rj = {"name": name, "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": name}},
            "spec": {"template": {"spec": {"containers": [{
                "name": name, "image": "busybox", "command": ["sh", "-c", command]}]}}}}}
        if depends:
            rj["dependsOn"] = [{"name": d, "status": "Complete"} for d in depends]
        return rj
    jobs = [job("dataset-initializer", "echo dataset from $STORAGE_URI"),
            job("model-initializer", "echo model from $STORAGE_URI")]
    node = job("node", "echo node", ["dataset-initializer", "model-initializer"])
    node["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"] = \
        "trainer"
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
            "metadata": {"name": "jax-with-initializers", "namespace": ns,
                         "labels": {"trainer.kubeflow.org/framework": "jax"}},
            "spec": {"mlPolicy": {"numNodes": 1, "jax": {}},
                     "template": {"spec": {"replicatedJobs": jobs + [node]}}}}


class Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def run(env, flow):
    from kubeflow.trainer import KubernetesBackendConfig, TrainerClient
    ns = env.namespace()
    with flow("no_public_configmap_warning"):
        # the SDK reads Trainer's version from that ConfigMap (config/trainer installs it)
        # and warns, by logging or warnings.warn, when it cannot
        cap = Capture()
        logging.getLogger().addHandler(cap)
        try:
            with warnings.catch_warnings(record=True) as warned:
                warnings.simplefilter("always")
                client = TrainerClient(backend_config=KubernetesBackendConfig(
                    config_file=env.kubeconfig(ns), namespace=ns))
                client.list_runtimes()
        finally:
            logging.getLogger().removeHandler(cap)
        bad = [m for m in cap.lines + [str(w.message) for w in warned]
               if "kubeflow-trainer-public" in m or "version info is not available" in m]
        check(not bad, bad)
    runtime_steps(flow, client)
    names = train_steps(env, flow, client)
    feature_steps(env, flow, client, ns, names)
    with flow("delete_job"):
        for n in names:
            client.delete_job(n)
        poll(lambda: not client.list_jobs(), "every TrainJob gone", TIMEOUT)


def runtime_steps(flow, client):
    with flow("list_runtimes"):
        names = [r.name for r in client.list_runtimes()]
        check("jax-distributed" in names, names)
    with flow("get_runtime"):
        rt = client.get_runtime("jax-distributed")
        check(rt.name == "jax-distributed" and rt.trainer.framework == "jax", rt)


def wait_complete(env, client, name):
    env.need_pods()
    return client.wait_for_job_status(name, timeout=int(RUN_TIMEOUT), polling_interval=1)


def logs_of(client, name, step="node-0"):
    return list(client.get_job_logs(name, step=step))


def train_steps(env, flow, client):
    from kubeflow.trainer import CustomTrainer
    names = []
    with flow("train_custom_trainer"):
        rt = client.get_runtime("jax-distributed")
        names.append(client.train(runtime=rt, trainer=CustomTrainer(
            func=train_fn, num_nodes=2, resources_per_node={"cpu": 1})))
    name = names[0] if names else None
    with flow("wait_for_job_status"):
        check(name, "no TrainJob")
        job = wait_complete(env, client, name)
        check(job.status == "Complete", job)
    with flow("get_job_logs"):
        env.need_pods()
        lines = logs_of(client, name)
        check(any(MARK in ln for ln in lines), lines)
    with flow("get_job_events"):
        events = poll(lambda: client.get_job_events(name), "the TrainJob's events", TIMEOUT)
        check(all(e.involved_object_kind for e in events), events)
    return names


def feature_steps(env, flow, client, ns, names):
    from kubeflow.trainer import CustomTrainer, CustomTrainerContainer
    from kubeflow.trainer.options import (ContainerPatch, JobSetSpecPatch, JobSetTemplatePatch,
                                          JobSpecPatch, JobTemplatePatch, PodSpecPatch,
                                          PodTemplatePatch, ReplicatedJobPatch, RuntimePatch,
                                          TrainerCommand, TrainingRuntimeSpecPatch)
    rt = client.get_runtime("jax-distributed")
    with flow("train_container_command"):
        name = client.train(runtime=rt, trainer=CustomTrainerContainer(image="busybox"),
                            options=[TrainerCommand(["sh", "-c", "echo container-command"])])
        names.append(name)
        wait_complete(env, client, name)
        check(any("container-command" in ln for ln in logs_of(client, name)), name)
    with flow("train_runtime_patch"):
        pod = PodTemplatePatch(metadata={"labels": {"test.jaxset.dev/patched": "yes"}},
                               spec=PodSpecPatch(containers=[ContainerPatch(
                                   name="node", env=[{"name": "PATCHED", "value": "yes"}])]))
        patch = RuntimePatch(training_runtime_spec=TrainingRuntimeSpecPatch(
            template=JobSetTemplatePatch(spec=JobSetSpecPatch(replicated_jobs=[
                ReplicatedJobPatch(name="node", template=JobTemplatePatch(
                    spec=JobSpecPatch(template=pod)))]))))
        name = client.train(runtime=rt, trainer=CustomTrainer(func=train_fn, num_nodes=1),
                            options=[patch])
        names.append(name)
        wait_complete(env, client, name)
        check(any(MARK in ln and ln.endswith(" yes") for ln in logs_of(client, name)),
              logs_of(client, name))
    initializer_step(env, flow, client, ns, names)


def initializer_step(env, flow, client, ns, names):
    from kubeflow.trainer import (HuggingFaceDatasetInitializer, HuggingFaceModelInitializer,
                                  Initializer)
    with flow("train_initializers"):
        env.kubectl_ok("apply", "-f", "-", ns=ns, stdin=json.dumps(
            initializer_runtime(ns)))
        rt = poll(lambda: client.get_runtime("jax-with-initializers"), "the runtime", TIMEOUT)
        init = Initializer(
            dataset=HuggingFaceDatasetInitializer(storage_uri="hf://test/dataset"),
            model=HuggingFaceModelInitializer(storage_uri="hf://test/model"))
        name = client.train(runtime=rt, initializer=init)
        names.append(name)
        wait_complete(env, client, name)
        for step, text in (("dataset-initializer", "dataset from hf://test/dataset"),
                           ("model-initializer", "model from hf://test/model")):
            lines = logs_of(client, name, step)
            check(any(text in ln for ln in lines), (step, lines))
