"""test_upstream_clients.py's `jobset` flow (kubernetes-sigs/jobset's Python SDK models,
sdk/python/jobset/models, with the kubernetes client's CustomObjectsApi, as its
examples/create_jobset.py uses them) and `kubectl` flow (explain, scale, wait, server-side
apply)."""
import json

from clientflow import RUN_TIMEOUT, TIMEOUT, check, importable, poll, running

JS_STEPS = ("create", "get_into_models", "status_read_back", "delete")
KUBECTL_STEPS = ("explain_jobset_job_template", "explain_jaxjob", "scale_jaxjob",
                 "wait_jaxjob", "server_side_apply_twice")
GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"


def jobset_manifest(name, command="echo jobset; sleep 2"):
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": [{"name": "main", "replicas": 1, "template": {"spec": {
                "parallelism": 2, "completions": 2, "backoffLimit": 0,
                "template": {"spec": {"restartPolicy": "Never", "containers": [{
                    "name": "main", "image": "busybox", "command": ["sh", "-c", command],
                    "resources": {"requests": {"cpu": "100m"}}}]}}}}}]}}


def jobset(env, flow, paths):
    why = "no jobset/ checkout" if "jobset" not in paths else \
        importable("kubernetes", "pydantic", "jobset.models")
    if why:
        return flow.skip_all(JS_STEPS, why)
    from jobset.models import JobsetV1alpha2JobSet
    from kubernetes import client, config
    ns = env.namespace()
    api = client.CustomObjectsApi(config.new_client_from_config(env.kubeconfig(ns)))
    name = "sdk-jobset"
    with flow("create"):
        model = JobsetV1alpha2JobSet.from_dict(jobset_manifest(name))
        got = api.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, model.to_dict())
        check(got["metadata"]["name"] == name, got["metadata"])
    with flow("get_into_models"):
        js = JobsetV1alpha2JobSet.from_dict(
            api.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name))
        rj = js.spec.replicated_jobs[0]
        check(rj.name == "main" and rj.template.spec.parallelism == 2, rj)
        # jaxset's defaults, as upstream's webhook sets them, read into the strict models
        check(js.spec.success_policy and js.spec.success_policy.operator == "All",
              js.spec.success_policy)
    with flow("status_read_back"):
        def status():
            js = JobsetV1alpha2JobSet.from_dict(
                api.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name))
            st = js.status
            want = "Completed" if env.pods_run else None
            if st and st.replicated_jobs_status and (want is None or
                                                     st.terminal_state == want):
                return st
            return None
        st = poll(status, "the JobSet's status" + (" Completed" if env.pods_run else ""),
                  RUN_TIMEOUT if env.pods_run else TIMEOUT)
        check(st.replicated_jobs_status[0].name == "main", st)
        if env.pods_run:
            check(any(c.type == "Completed" and c.status == "True" for c in st.conditions),
                  st.conditions)
    with flow("delete"):
        api.delete_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name,
                                            propagation_policy="Foreground")

        def gone():
            try:
                api.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name)
                return False
            except client.ApiException as e:
                return e.status == 404
        poll(gone, "the JobSet deleted", RUN_TIMEOUT)


# ---------------------------------------------------------------------- kubectl


def jaxjob_manifest(name, replicas=2,
                    command="echo procs=$JAX_NUM_PROCESSES id=$JAX_PROCESS_ID; sleep 600"):
    return {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": name},
            "spec": {"jaxReplicaSpecs": {"Worker": {
                "replicas": replicas, "restartPolicy": "OnFailure",
                "template": {"spec": {"containers": [{
                    "name": "jax", "image": "docker.io/kubeflow/jaxjob-simple:latest",
                    "command": ["sh", "-c", command]}]}}}}}}


def kubectl(env, flow, paths):
    ns = env.namespace()
    with flow("explain_jobset_job_template"):
        out = env.kubectl_ok("explain", "jobset.spec.replicatedJobs.template.spec")
        for f in ("parallelism", "completions", "backoffLimit", "template",
                  "podFailurePolicy", "successPolicy", "managedBy"):   # 1.36's, as upstream's
            check(f"  {f}\t" in out or f"  {f} " in out, f"no field {f}:\n{out}")
        out = env.kubectl_ok("explain",
                             "jobset.spec.replicatedJobs.template.spec.template.spec.containers")
        check("  command\t" in out or "  command " in out, out)
    with flow("explain_jaxjob"):
        out = env.kubectl_ok("explain", "jaxjob.spec.runPolicy")
        for f in ("cleanPodPolicy", "backoffLimit", "suspend", "ttlSecondsAfterFinished"):
            check(f"  {f}\t" in out or f"  {f} " in out, f"no field {f}:\n{out}")
        out = env.kubectl_ok("explain", "jaxjob.spec.jaxReplicaSpecs")
        check("map[string]" in out, out)
    scale_step(env, flow, ns)
    with flow("wait_jaxjob"):
        env.need_pods()
        env.kubectl_ok("apply", "-f", "-", ns=ns,
                       stdin=json.dumps(jaxjob_manifest("waited", 1, "echo done")))
        out = env.kubectl_ok("wait", "--for=condition=Succeeded", "jaxjob/waited",
                             f"--timeout={int(RUN_TIMEOUT)}s", ns=ns)
        check("condition met" in out, out)
    with flow("server_side_apply_twice"):
        body = jaxjob_manifest("applied", 1)
        body["spec"]["runPolicy"] = {"suspend": True}
        text = json.dumps(body)
        gens = []
        for _ in range(2):
            out = env.kubectl_ok("apply", "--server-side", "-f", "-", ns=ns, stdin=text)
            check("serverside-applied" in out, out)
            gens.append(env.kubectl_ok("get", "jaxjob/applied", "-o",
                                       "jsonpath={.metadata.generation}", ns=ns))
        check(gens[0] == gens[1], f"generation changed by the same apply: {gens}")


def scale_step(env, flow, ns):
    """`kubectl scale jaxjob --replicas=3` restarts the gang with 3 processes (or is refused
    with a message)."""
    with flow("scale_jaxjob"):
        env.need_pods()
        env.kubectl_ok("apply", "-f", "-", ns=ns, stdin=json.dumps(jaxjob_manifest("scaled")))
        sel = "training.kubeflow.org/job-name=scaled"
        poll(lambda: len(running(env.pods(ns, sel))) == 2, "2 Running pods", RUN_TIMEOUT)
        r = env.kubectl("scale", "jaxjob/scaled", "--replicas=3", ns=ns)
        if r.returncode != 0:
            check(r.stderr.strip(), "refused without a message")
            print(f"     refused with: {r.stderr.strip()}")
            return

        def three():
            pods = running(env.pods(ns, sel))
            idx = sorted(p["metadata"]["labels"].get("training.kubeflow.org/replica-index")
                         for p in pods)
            return idx == ["0", "1", "2"] and pods
        pods = poll(three, "3 Running pods, indexes 0-2", RUN_TIMEOUT)
        # each process of the new gang was started with the new size (its log, read
        # through the API server from the kubelet)
        for p in pods:
            i = p["metadata"]["labels"]["training.kubeflow.org/replica-index"]
            path = f"/api/v1/namespaces/{ns}/pods/{p['metadata']['name']}/log?container=jax"
            poll(lambda: f"procs=3 id={i}" in (env.server.get(path).raw or b"").decode(),
                 f"pod {i}'s log line procs=3 id={i}", RUN_TIMEOUT)
        env.kubectl_ok("delete", "jaxjob/scaled", "--wait=false", ns=ns)


TRAINER_STEPS = ("no_public_configmap_warning", "list_runtimes", "get_runtime",
                 "train_custom_trainer", "wait_for_job_status", "get_job_logs",
                 "get_job_events", "train_container_command", "train_runtime_patch",
                 "train_initializers", "delete_job")


def trainer(env, flow, paths):
    import flows_trainer
    why = "no sdk/ checkout" if "sdk" not in paths else \
        importable("kubernetes", "pydantic", "kubeflow_trainer_api",
                   "kubeflow.trainer.api.trainer_client")
    if why:
        return flow.skip_all(TRAINER_STEPS, why)
    flows_trainer.run(env, flow)
