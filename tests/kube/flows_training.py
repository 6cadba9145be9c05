"""test_upstream_clients.py's `training` flow: kubeflow/training-operator's TrainingClient
(release-1.9, sdk/python/kubeflow/training/api/training_client.py) with job_kind="JAXJob",
unchanged, through its own e2e flow (sdk/python/test/e2e/test_e2e_jaxjob.py test_sdk_e2e: a
JAXJob of 2 Workers, restartPolicy OnFailure, cleanPodPolicy None, container `jax`;
utils.verify_job_e2e's condition checks), then the pod, log and update calls."""
from clientflow import RUN_TIMEOUT, TIMEOUT, check, importable, poll, running

STEPS = ("create_job", "get_job", "list_jobs", "wait_for_job_conditions_running",
         "is_job_created_running", "get_job_pods_master", "get_job_pods_replica_index_0",
         "get_job_pod_names", "get_job_logs", "wait_for_job_conditions_succeeded",
         "verify_job_e2e", "update_job_suspend", "update_job_resume", "delete_job")


def jaxjob(ns, name, command, replicas=2):
    """The e2e test's JAXJob (generate_jaxjob, generate_container) with a command that runs on
    the kubelet stand-in."""
    from kubeflow.training import (KubeflowOrgV1JAXJob, KubeflowOrgV1JAXJobSpec,
                                   KubeflowOrgV1ReplicaSpec, KubeflowOrgV1RunPolicy)
    from kubeflow.training.constants import constants
    from kubernetes.client import (V1Container, V1ObjectMeta, V1PodSpec, V1PodTemplateSpec,
                                   V1ResourceRequirements)
    container = V1Container(name="jax", image="docker.io/kubeflow/jaxjob-dist-spmd-mnist:latest",
                            command=["sh", "-c", command],
                            resources=V1ResourceRequirements(limits={"memory": "3Gi",
                                                                     "cpu": "1.2"}))
    worker = KubeflowOrgV1ReplicaSpec(
        replicas=replicas, restart_policy="OnFailure",
        template=V1PodTemplateSpec(
            metadata=V1ObjectMeta(annotations={constants.ISTIO_SIDECAR_INJECTION: "false"}),
            spec=V1PodSpec(containers=[container])))
    return KubeflowOrgV1JAXJob(
        api_version=constants.API_VERSION, kind=constants.JAXJOB_KIND,
        metadata=V1ObjectMeta(name=name, namespace=ns),
        spec=KubeflowOrgV1JAXJobSpec(run_policy=KubeflowOrgV1RunPolicy(clean_pod_policy="None"),
                                     jax_replica_specs={"Worker": worker}))


def training(env, flow, paths):
    why = "no training-operator/ checkout" if "training-operator" not in paths else \
        importable("kubernetes", "kubeflow.training")
    if why:
        return flow.skip_all(STEPS, why)
    from kubeflow.training import TrainingClient
    ns = env.namespace()
    tc = TrainingClient(config_file=env.kubeconfig(ns), namespace=ns, job_kind="JAXJob")
    name = "jaxjob-cpu-ci-test"
    e2e_steps(env, flow, tc, ns, name)
    update_steps(env, flow, tc, ns)
    with flow("delete_job"):
        tc.delete_job(name, ns)
        poll(lambda: name not in [j.metadata.name for j in tc.list_jobs(ns)],
             "the JAXJob gone", TIMEOUT)
        if env.pods_run:
            poll(lambda: not env.pods(ns, f"training.kubeflow.org/job-name={name}"),
                 "its pods gone", RUN_TIMEOUT)


def e2e_steps(env, flow, tc, ns, name):
    with flow("create_job"):
        tc.create_job(job=jaxjob(ns, name, "echo hello from $HOSTNAME; sleep 5; echo bye"),
                      namespace=ns)
    with flow("get_job"):
        job = tc.get_job(name, ns)
        check(job.metadata.name == name and job.kind == "JAXJob", job.metadata)
    with flow("list_jobs"):
        names = [j.metadata.name for j in tc.list_jobs(ns)]
        check(names == [name], names)
    with flow("wait_for_job_conditions_running"):
        env.need_pods()
        job = tc.wait_for_job_conditions(name, ns, expected_conditions={"Running"},
                                         wait_timeout=int(RUN_TIMEOUT), polling_interval=1)
    with flow("is_job_created_running"):
        env.need_pods()
        check(tc.is_job_created(name, ns), tc.get_job_conditions(name, ns))
        check(tc.is_job_running(name, ns) or tc.is_job_succeeded(name, ns),
              tc.get_job_conditions(name, ns))
    pod_steps(env, flow, tc, ns, name)
    with flow("wait_for_job_conditions_succeeded"):
        env.need_pods()
        job = tc.wait_for_job_conditions(name, ns, wait_timeout=int(RUN_TIMEOUT),
                                         polling_interval=1)
    with flow("verify_job_e2e"):
        env.need_pods()
        job = tc.get_job(name, ns)
        conditions = tc.get_job_conditions(job=job)
        check(len(conditions) >= 2, f"conditions: {conditions}")
        check(tc.is_job_created(job=job) and tc.is_job_succeeded(job=job) and
              not tc.is_job_running(job=job) and not tc.is_job_restarting(job=job) and
              not tc.is_job_failed(job=job), f"conditions: {conditions}")


def pod_steps(env, flow, tc, ns, name):
    with flow("get_job_pods_master"):
        env.need_pods()
        pods = tc.get_job_pods(name, ns, is_master=True)
        check(len(pods) == 1, [p.metadata.name for p in pods])
        labels = pods[0].metadata.labels
        check(labels.get("training.kubeflow.org/replica-index") == "0" and
              labels.get("training.kubeflow.org/job-role") == "master", labels)
    with flow("get_job_pods_replica_index_0"):
        env.need_pods()
        pods = tc.get_job_pods(name, ns, is_master=False, replica_index=0)
        check(len(pods) == 1, [p.metadata.name for p in pods])
        every = tc.get_job_pods(name, ns, is_master=False)
        check(len(every) == 2, [p.metadata.name for p in every])
    with flow("get_job_pod_names"):
        env.need_pods()
        names = tc.get_job_pod_names(name, ns, is_master=False)
        check(len(names) == 2 and all(n.startswith(name) for n in names), names)
    with flow("get_job_logs"):
        env.need_pods()

        def logged():
            logs, _ = tc.get_job_logs(name, ns)
            return logs if any("hello from" in v for v in logs.values()) else None
        logs = poll(logged, "the master's log line", RUN_TIMEOUT)
        check(len(logs) == 1, logs)


def update_steps(env, flow, tc, ns):
    """update_job with runPolicy.suspend set, then cleared (the Training Operator's suspend:
    pods deleted, Suspended condition; resumed: Running again)."""
    name = "jaxjob-suspend"
    sel = f"training.kubeflow.org/job-name={name}"
    with flow("update_job_suspend"):
        tc.create_job(job=jaxjob(ns, name, "echo up; sleep 600"), namespace=ns)
        if env.pods_run:
            tc.wait_for_job_conditions(name, ns, expected_conditions={"Running"},
                                       wait_timeout=int(RUN_TIMEOUT), polling_interval=1)
        job = tc.get_job(name, ns)
        job.spec.run_policy.suspend = True
        tc.update_job(job, name, ns)
        poll(lambda: tc.get_job(name, ns).spec.run_policy.suspend is True, "suspend kept",
             TIMEOUT)
        poll(lambda: has_condition(tc, name, ns, "Suspended"), "Suspended", TIMEOUT)
        check(not tc.is_job_running(name, ns), tc.get_job_conditions(name, ns))
        if env.pods_run:
            poll(lambda: not env.pods(ns, sel), "the suspended job's pods gone", RUN_TIMEOUT)
    with flow("update_job_resume"):
        job = tc.get_job(name, ns)
        job.spec.run_policy.suspend = False
        tc.update_job(job, name, ns)
        poll(lambda: not has_condition(tc, name, ns, "Suspended"), "Suspended cleared",
             TIMEOUT)
        if env.pods_run:  # on the test API server nothing runs the pods again
            tc.wait_for_job_conditions(name, ns, expected_conditions={"Running"},
                                       wait_timeout=int(RUN_TIMEOUT), polling_interval=1)
            poll(lambda: len(running(env.pods(ns, sel))) == 2, "2 Running pods again",
                 RUN_TIMEOUT)
    tc.delete_job(name, ns)


def has_condition(tc, name, ns, ctype):
    return any(c.type == ctype and c.status == "True" for c in tc.get_job_conditions(name, ns))
