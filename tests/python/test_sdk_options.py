"""TrainerClient.train(options=[...]) with kubeflow/sdk 0.5.0's training options (jaxset.options;
kubeflow/sdk kubeflow/trainer/options/), on the local backend on real processes (the TrainJob
the run keeps, `jaxset get trainjob/NAME -o json`, its JobSet and pods, what the processes
run) and on the Kubernetes backend (the TrainJob as the API server has it, and the JobSet
jaxset's converter builds from it): Name, Labels, Annotations, TrainerCommand, TrainerArgs,
ActiveDeadlineSeconds, RuntimePatch, TrainerEnvFrom (kubeflow/sdk PR #477); kubeflow/sdk's own
option objects (stand-ins of its classes, never called); a custom callable option; and the
refusals, with nothing started or created."""
import dataclasses
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402
from sdktest import BIN  # noqa: E402
import kubesdk  # noqa: E402
from kubesdk import CLUSTER_RUNTIMES, KubeTest, jax_runtime, ok  # noqa: E402

import jaxset  # noqa: E402
from jaxset import (ActiveDeadlineSeconds, Annotations, ContainerPatch,  # noqa: E402
                    CustomTrainer, CustomTrainerContainer, JobFailedError, JobSetSpecPatch,
                    JobSetTemplatePatch, JobSpecPatch, JobTemplatePatch, Labels, Name,
                    PodSpecPatch, PodTemplatePatch, ReplicatedJobPatch, RuntimePatch,
                    TrainerArgs, TrainerClient, TrainerCommand, TrainerEnvFrom,
                    TrainingRuntimeSpecPatch, ValidationError)
from jaxset import options as jo  # noqa: E402

MANAGER = "trainer.kubeflow.org/kubeflow-sdk"
# a trainer command for any backend: prints its process id and arguments
PRINT_ARGS = ["python3", "-c", "import os, sys; print('id', os.environ['JAX_PROCESS_ID'], "
              "'args', *sys.argv[1:])"]


def hello():
    print("hello", flush=True)


def pod_patch(rj="node", job_meta=None, pod_meta=None, js_meta=None, **spec):
    """A RuntimePatch of replicated job `rj`: its Job template's and pod template's metadata
    and pod spec fields."""
    pod = PodTemplatePatch(metadata=pod_meta, spec=PodSpecPatch(**spec) if spec else None)
    job = JobTemplatePatch(metadata=job_meta, spec=JobSpecPatch(template=pod))
    return RuntimePatch(training_runtime_spec=TrainingRuntimeSpecPatch(
        template=JobSetTemplatePatch(metadata=js_meta, spec=JobSetSpecPatch(
            replicated_jobs=[ReplicatedJobPatch(name=rj, template=job)]))))


POD_PATCH_DICT = {
    "manager": MANAGER,
    "trainingRuntimeSpec": {"template": {
        "metadata": {"labels": {"js-team": "ml"}},
        "spec": {"replicatedJobs": [{"name": "node", "template": {
            "metadata": {"labels": {"job-tier": "gold"}},
            "spec": {"template": {
                "metadata": {"labels": {"pod-color": "blue"},
                             "annotations": {"pod-note": "patched"}},
                "spec": {"nodeSelector": {"disk": "ssd"},
                         "containers": [{"name": "node", "securityContext": {
                             "allowPrivilegeEscalation": False}}]}}}}}]}}}}


def the_pod_patch():
    """The patch POD_PATCH_DICT says, in jaxset's types."""
    return pod_patch(js_meta={"labels": {"js-team": "ml"}},
                     job_meta={"labels": {"job-tier": "gold"}},
                     pod_meta={"labels": {"pod-color": "blue"},
                               "annotations": {"pod-note": "patched"}},
                     node_selector={"disk": "ssd"},
                     containers=[ContainerPatch(name="node", security_context={
                         "allowPrivilegeEscalation": False})])


# -- kubeflow/sdk's option classes as it defines them (kubeflow/trainer/options/common.py and
# kubernetes.py: dataclasses of these names and fields; TrainerEnvFrom as PR #477 has it).
# Calling one would import kubeflow's KubernetesBackend: the stand-ins fail when called. -------

class _Upstream:
    def __call__(self, job_spec, trainer, backend):
        raise AssertionError(f"kubeflow's {type(self).__name__} was called")


def _kubeflow():
    """A namespace of stand-ins with kubeflow/sdk's class names and fields."""
    ns: Dict[str, Any] = {}

    @dataclass
    class Name(_Upstream):
        name: str

    @dataclass
    class Labels(_Upstream):
        labels: Dict[str, str]

    @dataclass
    class Annotations(_Upstream):
        annotations: Dict[str, str]

    @dataclass
    class TrainerCommand(_Upstream):
        command: List[str]

    @dataclass
    class TrainerArgs(_Upstream):
        args: List[str]

    @dataclass
    class ActiveDeadlineSeconds(_Upstream):
        seconds: int

    @dataclass
    class ContainerPatch:
        name: str
        env: Optional[list] = None
        volume_mounts: Optional[list] = None
        security_context: Optional[dict] = None

    @dataclass
    class PodSpecPatch:
        service_account_name: Optional[str] = None
        volumes: Optional[list] = None
        init_containers: Optional[list] = None
        containers: Optional[list] = None
        image_pull_secrets: Optional[list] = None
        security_context: Optional[dict] = None
        node_selector: Optional[dict] = None
        affinity: Optional[dict] = None
        tolerations: Optional[list] = None
        scheduling_gates: Optional[list] = None

    @dataclass
    class PodTemplatePatch:
        metadata: Optional[dict] = None
        spec: Optional[Any] = None

    @dataclass
    class JobSpecPatch:
        template: Optional[Any] = None

    @dataclass
    class JobTemplatePatch:
        metadata: Optional[dict] = None
        spec: Optional[Any] = None

    @dataclass
    class ReplicatedJobPatch:
        name: str
        template: Optional[Any] = None

    @dataclass
    class JobSetSpecPatch:
        replicated_jobs: Optional[list] = None

    @dataclass
    class JobSetTemplatePatch:
        metadata: Optional[dict] = None
        spec: Optional[Any] = None

    @dataclass
    class TrainingRuntimeSpecPatch:
        template: Optional[Any] = None

    @dataclass
    class RuntimePatch(_Upstream):
        training_runtime_spec: Optional[Any] = None
        manager: str = dataclasses.field(default=MANAGER, init=False, repr=False)

    class EnvVarSource:  # kubeflow_trainer_api's model: to_dict() gives the API's dict
        def __init__(self, **kw):
            self.kw = kw

        def to_dict(self):
            return dict(self.kw)

    class TrainerEnvFrom(_Upstream):
        def __init__(self, env_name, value_from):
            self._env_name, self._value_from = env_name, value_from

    ns.update({k: v for k, v in locals().items() if isinstance(v, type)})
    return type("kubeflow", (), ns)


KF = _kubeflow()


def kubeflow_pod_patch():
    """POD_PATCH_DICT in the stand-ins of kubeflow's patch classes."""
    pod = KF.PodTemplatePatch(
        metadata={"labels": {"pod-color": "blue"}, "annotations": {"pod-note": "patched"}},
        spec=KF.PodSpecPatch(node_selector={"disk": "ssd"}, containers=[KF.ContainerPatch(
            name="node", security_context={"allowPrivilegeEscalation": False})]))
    rj = KF.ReplicatedJobPatch(name="node", template=KF.JobTemplatePatch(
        metadata={"labels": {"job-tier": "gold"}}, spec=KF.JobSpecPatch(template=pod)))
    return KF.RuntimePatch(training_runtime_spec=KF.TrainingRuntimeSpecPatch(
        template=KF.JobSetTemplatePatch(metadata={"labels": {"js-team": "ml"}},
                                        spec=KF.JobSetSpecPatch(replicated_jobs=[rj]))))


class OptionTypesTest(sdktest.SdkTest):
    """The options' own checks and the dicts they write, as kubeflow/sdk's unit tests
    (kubeflow/trainer/options/kubernetes_test.py) state them."""

    def test_checks_at_construction(self):
        for bad in (0, -1, True, 1.5, "3"):
            with self.assertRaises(ValueError) as cm:
                ActiveDeadlineSeconds(bad)
            self.assertEqual(str(cm.exception),
                             "activeDeadlineSeconds must be a positive integer (minimum 1)")
        for kw, msg in [({"name": ""}, "Container name must be a non-empty string"),
                        ({"name": "  "}, "Container name must be a non-empty string"),
                        ({"name": "c", "env": {}}, "env must be a list of dictionaries"),
                        ({"name": "c", "env": [{"invalid": "structure"}]},
                         "Each env entry must have a 'name' key"),
                        ({"name": "c", "env": [{"name": "A"}]},
                         "Each env entry must have either 'value' or 'valueFrom' key"),
                        ({"name": "c", "env": [{"name": "A", "valueFrom": {"x": 1}}]},
                         "env 'valueFrom' must contain one of"),
                        ({"name": "c", "volume_mounts": [{"name": "vol"}]},
                         "Each volume_mounts entry must have a 'mountPath' key"),
                        ({"name": "c", "volume_mounts": [{"name": "v", "mountPath": "d"}]},
                         "must be an absolute path (start with /): d")]:
            with self.assertRaises(ValueError) as cm:
                ContainerPatch(**kw)
            self.assertIn(msg, str(cm.exception), kw)
        with self.assertRaises(ValueError):
            TrainerEnvFrom("", {"secretKeyRef": {"name": "s", "key": "k"}})
        self.assertEqual(RuntimePatch().manager, MANAGER)
        with self.assertRaises(TypeError):  # manager is not the caller's (init=False)
            RuntimePatch(manager="x")

    def test_the_dicts_written(self):
        kube = object()  # any backend but the local one is Kubernetes
        cases = [
            (Labels({"app": "test"}), {"metadata": {"labels": {"app": "test"}}}),
            (Annotations({"d": "t"}), {"metadata": {"annotations": {"d": "t"}}}),
            (Name("custom-job-name"), {"metadata": {"name": "custom-job-name"}}),
            (TrainerCommand(["python", "train.py"]),
             {"spec": {"trainer": {"command": ["python", "train.py"]}}}),
            (TrainerArgs(["--epochs", "10"]), {"spec": {"trainer": {"args": ["--epochs", "10"]}}}),
            (ActiveDeadlineSeconds(30), {"spec": {"activeDeadlineSeconds": 30}}),
            (TrainerEnvFrom.secret("S", secret_name="s", key="k"),
             {"spec": {"trainer": {"env": [{"name": "S", "valueFrom": {
                 "secretKeyRef": {"name": "s", "key": "k"}}}]}}}),
            (TrainerEnvFrom.config_map("C", config_map_name="cm", key="k"),
             {"spec": {"trainer": {"env": [{"name": "C", "valueFrom": {
                 "configMapKeyRef": {"name": "cm", "key": "k"}}}]}}}),
            (RuntimePatch(), {"spec": {"runtimePatches": [{"manager": MANAGER}]}}),
            (the_pod_patch(), {"spec": {"runtimePatches": [POD_PATCH_DICT]}}),
            # an empty nested patch or list is left out, as upstream's _patch_to_dict
            (RuntimePatch(TrainingRuntimeSpecPatch(JobSetTemplatePatch(
                spec=JobSetSpecPatch(replicated_jobs=[])))),
             {"spec": {"runtimePatches": [{"manager": MANAGER}]}}),
        ]
        for option, want in cases:
            spec: Dict[str, Any] = {}
            option(spec, None, kube)
            self.assertEqual(spec, want, option)
        # each option of a list in order, patches appended, a later Labels replacing
        got = jo.apply_options([Labels({"a": "1"}), RuntimePatch(), Labels({"b": "2"}),
                                RuntimePatch()], None, kube)
        self.assertEqual(got, {"metadata": {"labels": {"b": "2"}},
                               "spec": {"runtimePatches": [{"manager": MANAGER}] * 2}})

    def test_kubeflow_objects_are_adopted_not_called(self):
        cases = [(KF.Name("n1"), Name("n1")), (KF.Labels({"a": "b"}), Labels({"a": "b"})),
                 (KF.Annotations({"a": "b"}), Annotations({"a": "b"})),
                 (KF.TrainerCommand(["x"]), TrainerCommand(["x"])),
                 (KF.TrainerArgs(["y"]), TrainerArgs(["y"])),
                 (KF.ActiveDeadlineSeconds(5), ActiveDeadlineSeconds(5)),
                 (KF.TrainerEnvFrom("S", KF.EnvVarSource(
                     secretKeyRef={"name": "s", "key": "k"})),
                  TrainerEnvFrom.secret("S", secret_name="s", key="k"))]
        for theirs, ours in cases:
            self.assertEqual(jo.adopt(theirs), ours)
        a, b = {}, {}
        jo.adopt(kubeflow_pod_patch())(a, None, object())
        the_pod_patch()(b, None, object())
        self.assertEqual(a, b)
        self.assertEqual(a, {"spec": {"runtimePatches": [POD_PATCH_DICT]}})
        # kubeflow's checks are kept: an ActiveDeadlineSeconds it would refuse is refused
        with self.assertRaises(ValueError):
            jo.adopt(KF.ActiveDeadlineSeconds(0))


class LocalOptionsTest(sdktest.SdkTest):
    """The local backend honours every option but TrainerEnvFrom: the run keeps the TrainJob
    as written, and jaxset's converter carries it into the JobSet, pods and processes."""

    def client(self, **kw):
        return TrainerClient(backend_config=self.config(**kw))

    def get(self, what, *args):
        out = subprocess.run([BIN, "get", what, *args, "-o", "json", "--local"],
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, JAXSET_HOME=self.home))
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def test_name_labels_annotations_kept_on_the_trainjob(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=hello),
                       options=[Name("opt-meta"), Labels({"team": "ml", "tier": "gold"}),
                                Annotations({"owner": "alice@example.com"})])
        self.assertEqual(name, "opt-meta")
        self.assertEqual(c.wait_for_job_status(name, timeout=60, polling_interval=0.05).status,
                         "Complete")
        self.assertEqual(list(c.get_job_logs(name)), ["hello"])
        tj = self.get(f"trainjob/{name}")
        self.assertEqual(tj["metadata"]["name"], "opt-meta")
        self.assertEqual(tj["metadata"]["labels"], {"team": "ml", "tier": "gold"})
        self.assertEqual(tj["metadata"]["annotations"]["owner"], "alice@example.com")
        # the labels select it, as on a cluster
        self.assertEqual([t["metadata"]["name"] for t in
                          self.get("trainjobs", "-l", "team=ml")["items"]], ["opt-meta"])
        out = subprocess.run([BIN, "get", "trainjobs", "-l", "team=other", "--local"],
                             capture_output=True, text=True,
                             env=dict(os.environ, JAXSET_HOME=self.home))
        self.assertEqual(out.stdout, "")
        # Trainer puts a TrainJob's own labels on nothing it creates; nor does jaxset
        js = self.get(f"jobset/{name}")
        self.assertNotIn("team", js["metadata"].get("labels") or {})
        self.assertEqual([j.name for j in c.list_jobs()], ["opt-meta"])
        # the name is taken: a second job of that name is refused, nothing more started
        with self.assertRaises(RuntimeError) as cm:
            c.train(trainer=CustomTrainer(func=hello), options=[Name("opt-meta")])
        self.assertIn("already exists", str(cm.exception))
        c.delete_job(name)
        self.nothing_started()

    def test_trainer_command_and_args_run_in_every_process(self):
        c = self.client()
        name = c.train(trainer=CustomTrainerContainer(image="my/img:1", num_nodes=2),
                       options=[TrainerCommand(PRINT_ARGS), TrainerArgs(["--lr", "0.1"])])
        self.assertEqual(c.wait_for_job_status(name, timeout=60, polling_interval=0.05).status,
                         "Complete")
        for i in range(2):
            self.assertEqual(list(c.get_job_logs(name, step=f"node-{i}")),
                             [f"id {i} args --lr 0.1"])
        trainer = self.get(f"trainjob/{name}")["spec"]["trainer"]
        self.assertEqual((trainer["image"], trainer["numNodes"], trainer["command"],
                          trainer["args"]), ("my/img:1", 2, PRINT_ARGS, ["--lr", "0.1"]))
        node = self.get(f"jobset/{name}")["spec"]["replicatedJobs"][0]
        ctr = node["template"]["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual((ctr["command"], ctr["args"]), (PRINT_ARGS, ["--lr", "0.1"]))
        # without a trainer, as upstream: the options make spec.trainer
        other = c.train(options=[TrainerCommand(PRINT_ARGS), TrainerArgs(["solo"])])
        c.wait_for_job_status(other, timeout=60, polling_interval=0.05)
        self.assertEqual(list(c.get_job_logs(other)), ["id 0 args solo"])
        self.assertEqual(self.get(f"trainjob/{other}")["spec"]["trainer"],
                         {"command": PRINT_ARGS, "args": ["solo"]})

    def test_runtime_patch_reaches_the_jobset_and_pods(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=hello, num_nodes=2),
                       options=[the_pod_patch()])
        c.wait_for_job_status(name, timeout=60, polling_interval=0.05)
        self.assertEqual(self.get(f"trainjob/{name}")["spec"]["runtimePatches"],
                         [POD_PATCH_DICT])
        js = self.get(f"jobset/{name}")
        self.assertEqual(js["metadata"]["labels"]["js-team"], "ml")
        rj = js["spec"]["replicatedJobs"][0]
        self.assertEqual(rj["template"]["metadata"]["labels"]["job-tier"], "gold")
        pod = rj["template"]["spec"]["template"]
        self.assertEqual(pod["metadata"]["labels"]["pod-color"], "blue")
        self.assertEqual(pod["metadata"]["annotations"]["pod-note"], "patched")
        self.assertEqual(pod["spec"]["nodeSelector"], {"disk": "ssd"})
        node = [x for x in pod["spec"]["containers"] if x["name"] == "node"][0]
        self.assertEqual(node["securityContext"], {"allowPrivilegeEscalation": False})
        self.assertTrue(node["command"])  # the function's command is still there
        pods = self.get("pods", "--all", "-l", f"jobset.sigs.k8s.io/jobset-name={name}")
        self.assertEqual(len(pods["items"]), 2)
        for p in pods["items"]:
            self.assertEqual(p["metadata"]["labels"]["pod-color"], "blue")
        self.assertEqual(list(c.get_job_logs(name, step="node-1")), ["hello"])

    def test_active_deadline_fails_the_job(self):
        c = self.client()
        name = c.train(options=[ActiveDeadlineSeconds(1), TrainerCommand(["sleep", "30"])])
        with self.assertRaises(JobFailedError) as cm:
            c.wait_for_job_status(name, timeout=60, polling_interval=0.05)
        self.assertIn("DeadlineExceeded", str(cm.exception))
        self.assertEqual(self.get(f"trainjob/{name}")["spec"]["activeDeadlineSeconds"], 1)
        rj = self.get(f"jobset/{name}")["spec"]["replicatedJobs"][0]
        self.assertEqual(rj["template"]["spec"]["activeDeadlineSeconds"], 1)

    def test_kubeflow_objects_and_custom_callables(self):
        seen = []

        def my_option(job_spec, trainer, backend):  # upstream calls any option so
            seen.append((trainer, type(backend).__name__))
            job_spec.setdefault("metadata", {}).setdefault("annotations", {})["by"] = "mine"

        c = self.client()
        trainer = CustomTrainerContainer(image="x")
        name = c.train(trainer=trainer, options=[
            KF.Name("kf-job"), KF.Labels({"from": "kubeflow"}), KF.TrainerCommand(PRINT_ARGS),
            KF.TrainerArgs(["kf"]), KF.ActiveDeadlineSeconds(600), kubeflow_pod_patch(),
            my_option])
        self.assertEqual(name, "kf-job")
        self.assertEqual(seen, [(trainer, "Local")])
        c.wait_for_job_status(name, timeout=60, polling_interval=0.05)
        self.assertEqual(list(c.get_job_logs(name)), ["id 0 args kf"])
        tj = self.get(f"trainjob/{name}")
        self.assertEqual(tj["metadata"]["labels"], {"from": "kubeflow"})
        self.assertEqual(tj["metadata"]["annotations"]["by"], "mine")
        self.assertEqual((tj["spec"]["activeDeadlineSeconds"], tj["spec"]["runtimePatches"]),
                         (600, [POD_PATCH_DICT]))

    def test_refusals_start_nothing(self):
        c = self.client()
        fn = CustomTrainer(func=hello)
        for options, trainer, error, msg in [
            # Kubernetes only, as upstream: the local backend has no Secret to read
            ([TrainerEnvFrom.secret("S", secret_name="s", key="k")], fn, ValueError,
             "TrainerEnvFrom option is not compatible with LocalProcessBackend (jaxset's "
             "LocalBackendConfig). Supported backends: KubernetesBackend"),
            ([KF.TrainerEnvFrom("S", {"secretKeyRef": {"name": "s", "key": "k"}})], None,
             ValueError, "TrainerEnvFrom option is not compatible with LocalProcessBackend"),
            # upstream's trainer conflicts
            ([TrainerCommand(["x"])], fn, ValueError,
             "TrainerCommand can only be used with CustomTrainerContainer. CustomTrainer "
             "generates its own command from the function, and BuiltinTrainer uses "
             "pre-configured commands."),
            ([TrainerArgs(["x"])], fn, ValueError,
             "TrainerArgs can only be used with CustomTrainerContainer. CustomTrainer "
             "generates its own arguments from the function, and BuiltinTrainer uses "
             "pre-configured arguments."),
            ([KF.TrainerCommand(["x"])], fn, ValueError,
             "TrainerCommand can only be used with CustomTrainerContainer"),
            # what is no option, or no list of them
            (["x"], fn, ValueError, "'x' is not a training option"),
            (Labels({"a": "b"}), fn, ValueError, "options must be a list"),
            ([Labels({"a": 1})], fn, ValueError, "Labels must be a dict of strings"),
            ([TrainerCommand("python train.py")], None, ValueError,
             "TrainerCommand must be a list of strings"),
            ([Name("")], fn, ValueError, "the name must be a non-empty string"),
            ([Name("Not_A_Label")], fn, ValueError, "must be a lowercase RFC 1035 label"),
            ([Name("a" * 64)], fn, ValueError, "at most 63 characters"),
            # Trainer's webhook rules on runtime patches, as a cluster's admission
            ([pod_patch(containers=[ContainerPatch(name="node", env=[
                {"name": "A", "value": "1"}])])], fn, ValidationError,
             "must not have envs for the dataset-initializer, model-initializer, node"),
            ([pod_patch(rj="nope", node_selector={"a": "b"})], fn, ValidationError,
             "must not have replicated job that doesn't exist in the runtime job template"),
        ]:
            with self.subTest(msg=msg):
                with self.assertRaises(error) as cm:
                    c.train(trainer=trainer, options=options)
                self.assertIn(msg, str(cm.exception))
        self.nothing_started()


class KubeOptionsTest(KubeTest):
    """The Kubernetes backend: the TrainJob the API server stores, and the JobSet jaxset's
    converter (its controller's) builds from it with the runtime."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        ok(cls.server.post(CLUSTER_RUNTIMES, jax_runtime()), 201, 409)

    def client(self):
        return TrainerClient(backend_config=self.config())

    def trainjobs(self):
        return ok(self.server.get(kubesdk.TRAINJOBS.format(ns=self.ns)))["items"]

    def render(self, tj):
        """The JobSet jaxset builds from the TrainJob and the runtime (`jaxset render`)."""
        for k in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"):
            tj["metadata"].pop(k, None)
        with jaxset._binary.ManifestFiles([tj, jax_runtime()]) as mf:
            out = subprocess.run([BIN, "render", "-o", "json", *mf.paths],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        return [o for o in json.loads(out.stdout)["items"] if o["kind"] == "JobSet"][0]

    def test_every_option_on_the_trainjob_and_its_jobset(self):
        c = self.client()
        name = c.train(
            trainer=CustomTrainerContainer(image="my/img:2", num_nodes=2, env={"A": "1"}),
            options=[Name("kube-opts"), Labels({"team": "ml"}), Annotations({"note": "x"}),
                     TrainerCommand(PRINT_ARGS), TrainerArgs(["--lr", "0.1"]),
                     TrainerEnvFrom.secret("TOKEN", secret_name="creds", key="token"),
                     ActiveDeadlineSeconds(3600), the_pod_patch()])
        self.assertEqual(name, "kube-opts")
        tj = self.trainjob(name)
        self.assertEqual((tj["metadata"]["labels"], tj["metadata"]["annotations"]),
                         ({"team": "ml"}, {"note": "x"}))
        self.assertEqual(tj["spec"]["trainer"], {
            "image": "my/img:2", "numNodes": 2, "command": PRINT_ARGS, "args": ["--lr", "0.1"],
            "env": [{"name": "A", "value": "1"},
                    {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds",
                                                                     "key": "token"}}}]})
        self.assertEqual(tj["spec"]["activeDeadlineSeconds"], 3600)
        self.assertEqual(tj["spec"]["runtimePatches"], [POD_PATCH_DICT])
        js = self.render(tj)
        self.assertEqual(js["metadata"]["name"], "kube-opts")
        self.assertEqual(js["metadata"]["labels"]["js-team"], "ml")
        self.assertNotIn("team", js["metadata"]["labels"])  # as Trainer: the TrainJob's own
        rj = js["spec"]["replicatedJobs"][0]
        self.assertEqual(rj["template"]["metadata"]["labels"]["job-tier"], "gold")
        self.assertEqual(rj["template"]["spec"]["activeDeadlineSeconds"], 3600)
        pod = rj["template"]["spec"]["template"]
        self.assertEqual((pod["metadata"]["labels"]["pod-color"],
                          pod["metadata"]["annotations"]["pod-note"],
                          pod["spec"]["nodeSelector"]), ("blue", "patched", {"disk": "ssd"}))
        node = [x for x in pod["spec"]["containers"] if x["name"] == "node"][0]
        self.assertEqual((node["image"], node["command"], node["args"]),
                         ("my/img:2", PRINT_ARGS, ["--lr", "0.1"]))
        env = {e["name"]: e for e in node["env"]}
        self.assertEqual(env["A"]["value"], "1")
        self.assertEqual(env["TOKEN"]["valueFrom"],
                         {"secretKeyRef": {"name": "creds", "key": "token"}})
        self.assertEqual(env["JAX_NUM_PROCESSES"]["value"], "2")
        self.assertEqual(node["securityContext"], {"allowPrivilegeEscalation": False})

    def test_kubeflow_objects(self):
        c = self.client()
        name = c.train(trainer=CustomTrainer(func=hello), options=[
            KF.Name("kf-kube"), KF.Annotations({"a": "b"}), kubeflow_pod_patch(),
            KF.TrainerEnvFrom("CFG", KF.EnvVarSource(
                configMapKeyRef={"name": "cm", "key": "k"}))])
        tj = self.trainjob(name)
        self.assertEqual((name, tj["metadata"]["annotations"], tj["spec"]["runtimePatches"]),
                         ("kf-kube", {"a": "b"}, [POD_PATCH_DICT]))
        self.assertEqual(tj["spec"]["trainer"]["env"], [
            {"name": "CFG", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}])
        self.assertTrue(tj["spec"]["trainer"]["command"])  # the function's

    def test_refusals_create_nothing(self):
        c = self.client()
        for options, error, msg in [
            ([TrainerCommand(["x"])], ValueError,
             "TrainerCommand can only be used with CustomTrainerContainer"),
            ([TrainerArgs(["x"])], ValueError,
             "TrainerArgs can only be used with CustomTrainerContainer"),
            ([Labels(["a"])], ValueError, "Labels must be a dict"),
            ([7], ValueError, "7 is not a training option"),
        ]:
            with self.subTest(msg=msg):
                with self.assertRaises(error) as cm:
                    c.train(trainer=CustomTrainer(func=hello), options=options)
                self.assertIn(msg, str(cm.exception))
        # a name the server refuses is its 422
        with self.assertRaises(jaxset.ApiError) as cm:
            c.train(trainer=CustomTrainer(func=hello), options=[Name("Not_A_Label")])
        self.assertEqual(cm.exception.code, 422)
        self.assertEqual(self.trainjobs(), [])


if __name__ == "__main__":
    sdktest.main()
