"""test_upstream_clients.py's `trainer` flow: kubeflow/sdk's TrainerClient with its Kubernetes
backend (kubeflow/trainer/api/trainer_client.py, backends/kubernetes/backend.py), unchanged,
on config/runtimes' jax-distributed runtime: runtimes, train with a CustomTrainer, with a
container command (CustomTrainerContainer + the TrainerCommand option), with the RuntimePatch
option (kubeflow/trainer/options/kubernetes.py: a pod label and a nodeSelector patched into
the runtime's `node` job; an env patch of the node container refused as Trainer refuses it),
with dataset and model initializers (on a TrainingRuntime that has the dataset-initializer and
model-initializer jobs Trainer's manifests give its runtimes), then status waits, logs, events
and deletion. Written against kubeflow/sdk 0.5.0 with kubeflow/trainer v2.3.0's
api/python_api."""
import contextlib
import io
import json
import logging
import warnings

from clientflow import RUN_TIMEOUT, TIMEOUT, check, poll

MARK = "trained-by-customtrainer"


def train_fn(note="-"):
    import os
    print("trained-by-customtrainer", os.environ.get("JAX_PROCESS_ID"), note,
          os.environ.get("TRAIN_ENV", "-"))


def initializer_runtime(ns):
    """A TrainingRuntime as Trainer's torch/deepspeed runtimes are laid out: dataset-initializer
    and model-initializer jobs (containers of those names) before the `node` job
    (dependsOn Complete)."""
    def job(name, command, depends=None):
        # Trainer's JobSet plugin wants the initializer containers to mount the `initializer`
        # volume (its runtimes claim it through volumeClaimPolicies; an emptyDir here)
        rj = {"name": name, "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": name}},
            "spec": {"template": {"spec": {
                "volumes": [{"name": "initializer", "emptyDir": {}}],
                "containers": [{
                    "name": name, "image": "busybox", "command": ["sh", "-c", command],
                    "volumeMounts": [{"name": "initializer", "mountPath": "/workspace"}]}]}}}}}
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


def fail_fast_runtime(ns):
    """jax-distributed as a namespaced TrainingRuntime whose node Job does not retry."""
    node = {"name": "node", "template": {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
                                                          "containers": [{
                                                              "name": "node",
                                                              "image": "busybox"}]}}}}}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
            "metadata": {"name": "jax-fail-fast", "namespace": ns,
                         "labels": {"trainer.kubeflow.org/framework": "jax"}},
            "spec": {"mlPolicy": {"numNodes": 1, "jax": {}},
                     "template": {"spec": {"replicatedJobs": [node]}}}}


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


def step_status(job):
    return {st.name: st.status for st in job.steps}


def logs_of(client, name, step="node-0"):
    return list(client.get_job_logs(name, step=step))


def train_steps(env, flow, client):
    from kubeflow.trainer import CustomTrainer
    names = []
    with flow("train_custom_trainer"):
        rt = client.get_runtime("jax-distributed")
        names.append(client.train(runtime=rt, trainer=CustomTrainer(
            func=train_fn, func_args={"note": "from-func-args"}, env={"TRAIN_ENV": "from-env"},
            num_nodes=2, resources_per_node={"cpu": 1})))
    name = names[0] if names else None
    with flow("wait_for_job_status"):
        check(name, "no TrainJob")
        job = wait_complete(env, client, name)
        check(job.status == "Complete", job)
    with flow("get_job_list_jobs"):
        check(name in [j.name for j in client.list_jobs()], client.list_jobs())
        job = client.get_job(name)
        check(job.runtime.name == "jax-distributed" and job.num_nodes == 2, job)
        if env.pods_run:  # the SDK builds the steps from the pods' JobSet labels
            check(step_status(job) == {"node-0": "Succeeded", "node-1": "Succeeded"}, job)
    with flow("get_job_logs"):
        env.need_pods()
        for i in range(2):  # each JAX process's log, its func_args and env
            lines = logs_of(client, name, f"node-{i}")
            check(any(ln.endswith(f"{MARK} {i} from-func-args from-env") for ln in lines),
                  lines)
    with flow("get_job_events"):
        events = poll(lambda: client.get_job_events(name), "the TrainJob's events", TIMEOUT)
        check(all(e.involved_object_kind for e in events), events)
    return names


def feature_steps(env, flow, client, ns, names):
    from kubeflow.trainer import CustomTrainer, CustomTrainerContainer
    from kubeflow.trainer.options import (ContainerPatch, PodSpecPatch, PodTemplatePatch,
                                          TrainerCommand)
    rt = client.get_runtime("jax-distributed")
    with flow("train_container_command"):
        name = client.train(runtime=rt, trainer=CustomTrainerContainer(image="busybox"),
                            options=[TrainerCommand(["sh", "-c", "echo container-command"])])
        names.append(name)
        cs = jobset_pod_template(env, ns, name)["spec"]["containers"]
        check([c.get("command") for c in cs if c["name"] == "node"] ==
              [["sh", "-c", "echo container-command"]], cs)
        wait_complete(env, client, name)
        check(any("container-command" in ln for ln in logs_of(client, name)), name)
    with flow("train_runtime_patch"):
        # a pod label and a nodeSelector patched into the runtime's `node` job; Trainer's
        # JobSet plugin refuses env patches of the node container (next step)
        patch = node_patch(PodTemplatePatch(
            metadata={"labels": {"test.jaxset.dev/patched": "yes"}},
            spec=PodSpecPatch(node_selector={"kubernetes.io/hostname": "runner-1"})))
        name = client.train(runtime=rt, trainer=CustomTrainer(func=train_fn, num_nodes=1),
                            options=[patch])
        names.append(name)
        pod = jobset_pod_template(env, ns, name)
        check(pod["metadata"]["labels"].get("test.jaxset.dev/patched") == "yes" and
              pod["spec"].get("nodeSelector") == {"kubernetes.io/hostname": "runner-1"}, pod)
        wait_complete(env, client, name)
        pods = env.pods(ns, "test.jaxset.dev/patched=yes")
        check(pods and all(p["spec"].get("nodeName") == "runner-1" for p in pods), pods)
        check(any(MARK in ln for ln in logs_of(client, name)), logs_of(client, name))
    with flow("runtime_patch_env_refused"):
        # Trainer's JobSet plugin (pkg/runtime/framework/plugins/jobset/jobset.go Validate):
        # "must not have envs for the dataset-initializer, model-initializer, node containers"
        patch = node_patch(PodTemplatePatch(spec=PodSpecPatch(containers=[ContainerPatch(
            name="node", env=[{"name": "PATCHED", "value": "yes"}])])))
        try:
            client.train(runtime=rt, trainer=CustomTrainer(func=train_fn, num_nodes=1),
                         options=[patch])
            raise AssertionError("a RuntimePatch with env for the node container was accepted")
        except RuntimeError as e:
            why = f"{e} {e.__cause__}"
            check("must not have envs for the dataset-initializer, model-initializer, node "
                  "containers" in why, why)
    initializer_step(env, flow, client, ns, names)
    option_steps(env, flow, client, ns, names)


def node_patch(pod):
    """The RuntimePatch option patching pod into the runtime's `node` job."""
    from kubeflow.trainer.options import (JobSetSpecPatch, JobSetTemplatePatch, JobSpecPatch,
                                          JobTemplatePatch, ReplicatedJobPatch, RuntimePatch,
                                          TrainingRuntimeSpecPatch)
    return RuntimePatch(training_runtime_spec=TrainingRuntimeSpecPatch(
        template=JobSetTemplatePatch(spec=JobSetSpecPatch(replicated_jobs=[
            ReplicatedJobPatch(name="node", template=JobTemplatePatch(
                spec=JobSpecPatch(template=pod)))]))))


def jobset_pod_template(env, ns, name, job="node"):
    """The pod template of the TrainJob's JobSet's replicated job `job`."""
    def get():
        r = env.server.get(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets/{name}")
        return r.json if r.status == 200 else None
    js = poll(get, f"the JobSet of TrainJob {name}", TIMEOUT)
    rjs = {rj["name"]: rj for rj in js["spec"]["replicatedJobs"]}
    check(job in rjs, list(rjs))
    return rjs[job]["template"]["spec"]["template"]


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
        # Trainer's JobSet plugin (builder.go Initializer) gives each initializer container
        # its storage URI as STORAGE_URI; the node job waits for both (dependsOn Complete)
        for step, uri in (("dataset-initializer", "hf://test/dataset"),
                          ("model-initializer", "hf://test/model")):
            c = jobset_pod_template(env, ns, name, step)["spec"]["containers"][0]
            check({"name": "STORAGE_URI", "value": uri} in (c.get("env") or []), (step, c))
        js = env.server.get(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets/{name}")
        node = [rj for rj in js.json["spec"]["replicatedJobs"] if rj["name"] == "node"][0]
        check(sorted(d["name"] for d in node.get("dependsOn") or []) ==
              ["dataset-initializer", "model-initializer"], node.get("dependsOn"))
        job = wait_complete(env, client, name)
        check(step_status(job) == {"dataset-initializer": "Succeeded", "model-initializer":
                                   "Succeeded", "node-0": "Succeeded"}, job.steps)
        for step, text in (("dataset-initializer", "dataset from hf://test/dataset"),
                           ("model-initializer", "model from hf://test/model")):
            lines = logs_of(client, name, step)
            check(any(text in ln for ln in lines), (step, lines))


def option_steps(env, flow, client, ns, names):
    """The options of kubeflow/trainer/options (common.py Name, kubernetes.py Labels,
    Annotations, TrainerArgs, ActiveDeadlineSeconds), a failing job, follow and
    get_runtime_packages."""
    from kubeflow.trainer import CustomTrainerContainer
    from kubeflow.trainer.options import (ActiveDeadlineSeconds, Annotations, Labels, Name,
                                          TrainerArgs, TrainerCommand)
    rt = client.get_runtime("jax-distributed")
    box = CustomTrainerContainer(image="busybox")
    with flow("train_options_name_labels_args"):
        name = client.train(runtime=rt, trainer=box, options=[
            Name("jaxset-named"), Labels({"test.jaxset.dev/team": "jax"}),
            Annotations({"test.jaxset.dev/note": "sdk"}), TrainerCommand(["echo"]),
            TrainerArgs(["args-reached-the-node"])])
        names.append(name)
        check(name == "jaxset-named", name)
        tj = env.server.get(f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/"
                            f"{name}").json
        check(tj["metadata"]["labels"].get("test.jaxset.dev/team") == "jax" and
              tj["metadata"]["annotations"].get("test.jaxset.dev/note") == "sdk", tj["metadata"])
        wait_complete(env, client, name)
        lines = list(client.get_job_logs(name, follow=True))
        check(any("args-reached-the-node" in ln for ln in lines), lines)
    with flow("active_deadline_seconds"):
        name = client.train(runtime=rt, trainer=box, options=[
            TrainerCommand(["sleep", "600"]), ActiveDeadlineSeconds(2)])
        names.append(name)
        env.need_pods()
        job = client.wait_for_job_status(name, status={"Failed"}, timeout=int(RUN_TIMEOUT),
                                         polling_interval=1)
        check(job.status == "Failed", job)
        tj = env.server.get(f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/"
                            f"{name}").json
        check(any(c["type"] == "Failed" and c.get("reason") == "DeadlineExceeded"
                  for c in tj["status"]["conditions"]), tj["status"])
    with flow("wait_running_then_failed"):
        # jax-distributed's Job retries a failed pod (backoffLimit 6, as upstream's runtime):
        # a runtime that fails at once, as a user writes one
        env.kubectl_ok("apply", "-f", "-", ns=ns, stdin=json.dumps(fail_fast_runtime(ns)))
        ff = poll(lambda: client.get_runtime("jax-fail-fast"), "the runtime", TIMEOUT)
        name = client.train(runtime=ff, trainer=box, options=[
            TrainerCommand(["sh", "-c", "sleep 4; exit 3"])])
        names.append(name)
        env.need_pods()
        job = client.wait_for_job_status(name, status={"Running"}, timeout=int(RUN_TIMEOUT),
                                         polling_interval=1)
        check(job.status == "Running", job)
        try:
            wait_complete(env, client, name)
            raise AssertionError("a TrainJob whose node exits 3 reached Complete")
        except RuntimeError as e:
            check(f"TrainJob {name} is Failed" in str(e), e)
    with flow("get_runtime_packages"):
        env.need_pods()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            client.get_runtime_packages(rt)
        check("Python: " in out.getvalue(), out.getvalue())
