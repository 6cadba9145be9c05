/* Unit tests for the unknown-field check (api/schema/schema.h) and its modes in manifest loading
 * (api/convert/manifest.h: strict, warn, ignore). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/convert/manifest.h"
#include "api/schema/schema.h"
#include "obj/tree/jx.h"

/* The formatted errors of `doc` (YAML) checked against `root`, one per line. */
static const char *check(const char *yaml, const struct sch_type *root, const char *where)
{
    static char out[8192];
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_yaml(yaml);
    assert_int_equal(sch_check(doc, root, where, &errs), 0);
    snprintf(out, sizeof(out), "%s", tu_ferrs(&errs));
    json_decref(doc);
    ferr_list_release(&errs);
    return out;
}

static void expect(const char *yaml, const struct sch_type *root, const char *want)
{
    const char *got = check(yaml, root, NULL);
    if (strcmp(got, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", got, want);
}

#define JS_HEAD "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: a}\n"
#define POD "spec.replicatedJobs[0].template.spec.template.spec"

/* A JobSet whose pod spec is `pod` (YAML flow mapping). */
static char *jobset_with_pod(const char *pod)
{
    char *s = NULL;
    if (asprintf(&s,
                 JS_HEAD "spec:\n  replicatedJobs:\n  - name: w\n    template:\n      spec:\n"
                         "        template:\n          spec: %s\n",
                 pod) < 0)
        fail();
    return s;
}

static void test_jobset_unknown_at_every_depth(void **state)
{
    (void)state;
    expect(JS_HEAD "foo: 1\n"
                   "spec:\n"
                   "  sucess: {}\n"
                   "  failurePolicy: {maxRestarts: 1, rules: [{name: r, action: FailJobSet, "
                   "bogus: 1}]}\n"
                   "  replicatedJobs:\n"
                   "  - name: w\n"
                   "    replica: 2\n"
                   "    template:\n"
                   "      metadata: {labels: {a: b}, generateName: x}\n"
                   "      spec:\n"
                   "        paralelism: 2\n"
                   "        template:\n"
                   "          metadata: {labels: {a: b}, nam: x}\n"
                   "          spec:\n"
                   "            containers:\n"
                   "            - name: c\n"
                   "              comand: [x]\n"
                   "              env: [{name: A, valueFrom: {fieldRef: {fieldPath: x, "
                   "foo: 1}}}]\n"
                   "            volumes: [{name: v, emptyDir: {medium: Memory, size: 1}}]\n"
                   "status: {restarts: 0, restart: 1}\n",
           &sch_jobset,
           "foo: unknown field\n"
           "spec.sucess: unknown field\n"
           "spec.failurePolicy.rules[0].bogus: unknown field\n"
           "spec.replicatedJobs[0].replica: unknown field: did you mean \"replicas\"?\n"
           "spec.replicatedJobs[0].template.metadata.generateName: unknown field\n"
           "spec.replicatedJobs[0].template.spec.paralelism: unknown field: did you mean "
           "\"parallelism\"?\n"
           "spec.replicatedJobs[0].template.spec.template.metadata.nam: unknown field: did "
           "you mean \"name\"?\n" POD ".containers[0].comand: unknown field: did you mean "
           "\"command\"?\n" POD ".containers[0].env[0].valueFrom.fieldRef.foo: unknown field\n" POD
           ".volumes[0].emptyDir.size: unknown field\n"
           "status.restart: unknown field: did you mean \"restarts\"?\n");
}

static void test_root_metadata_is_object_meta(void **state)
{
    (void)state;
    expect("metadata: {name: a, generateName: b, namespace: c, uid: d, labels: {x.y/z: w},\n"
           "  annotations: {a: b}, finalizers: [f], ownerReferences: [{kind: K, name: n, "
           "uid: u, apiVersion: v, controller: true, blockOwnerDeletion: true, x: 1}],\n"
           "  managedFields: [{manager: m, fieldsV1: {f:a: {}}, z: 1}], resourceVersion: '1',\n"
           "  creationTimestamp: null, clusterName: x}\n",
           &sch_jobset,
           "metadata.ownerReferences[0].x: unknown field\n"
           "metadata.managedFields[0].z: unknown field\n"
           "metadata.clusterName: unknown field\n");
}

/* Fields a PodSpec or Container has in Kubernetes pass even where jaxset ignores them. */
static void test_known_pod_fields_pass(void **state)
{
    (void)state;
    char *js = jobset_with_pod(
        "{restartPolicy: Never, hostAliases: [{ip: 1.2.3.4, hostnames: [a]}],\n"
        " nodeSelector: {kubernetes.io/arch: amd64, any key: x},\n"
        " affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: [{matchExpressions: [{key: k, operator: In, values: [v]}]}]}},\n"
        "   podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1,\n"
        "     podAffinityTerm: {topologyKey: t, labelSelector: {matchLabels: {a: b}}}}]}},\n"
        " tolerations: [{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 1}],\n"
        " securityContext: {runAsUser: 1, fsGroup: 2, seccompProfile: {type: RuntimeDefault},\n"
        "   sysctls: [{name: a, value: b}]},\n"
        " topologySpreadConstraints: [{maxSkew: 1, topologyKey: k, whenUnsatisfiable: "
        "DoNotSchedule, labelSelector: {matchLabels: {a: b}}}],\n"
        " resourceClaims: [{name: gpu, resourceClaimTemplateName: t}],\n"
        " schedulingGates: [{name: g}], os: {name: linux}, overhead: {cpu: 1},\n"
        " dnsConfig: {nameservers: [1.1.1.1], options: [{name: ndots, value: '2'}]},\n"
        " priorityClassName: p, runtimeClassName: r, shareProcessNamespace: true,\n"
        " terminationGracePeriodSeconds: 5, serviceAccountName: s, hostNetwork: false,\n"
        " imagePullSecrets: [{name: s}], readinessGates: [{conditionType: c}],\n"
        " volumes: [{name: a, emptyDir: {medium: Memory, sizeLimit: 1Gi}},\n"
        "   {name: b, configMap: {name: c, items: [{key: k, path: p, mode: 420}]}},\n"
        "   {name: c, projected: {sources: [{serviceAccountToken: {path: t}},\n"
        "     {downwardAPI: {items: [{path: p, fieldRef: {fieldPath: metadata.name}}]}}]}},\n"
        "   {name: d, persistentVolumeClaim: {claimName: x}}, {name: e, hostPath: {path: /x}},\n"
        "   {name: f, csi: {driver: d, volumeAttributes: {any: thing}}},\n"
        "   {name: g, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce],\n"
        "     resources: {requests: {storage: 1Gi}}}}}}],\n"
        " initContainers: [{name: i, image: x, restartPolicy: Always}],\n"
        " ephemeralContainers: [{name: e, image: x, targetContainerName: c}],\n"
        " containers: [{name: c, image: x, command: [a], args: [b], workingDir: /,\n"
        "   env: [{name: A, value: b}, {name: B, valueFrom: {secretKeyRef: {name: s, key: k}}},\n"
        "     {name: C, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}],\n"
        "   envFrom: [{configMapRef: {name: c}, prefix: P}],\n"
        "   ports: [{name: p, containerPort: 80, protocol: TCP, hostPort: 8080}],\n"
        "   resources: {limits: {cpu: '2', nvidia.com/gpu: 1, example.com/foo: 3},\n"
        "     requests: {memory: 1Gi}, claims: [{name: gpu}]},\n"
        "   resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}],\n"
        "   volumeMounts: [{name: a, mountPath: /a, readOnly: true, subPath: x}],\n"
        "   volumeDevices: [{name: b, devicePath: /dev/x}],\n"
        "   livenessProbe: {httpGet: {path: /, port: 80, httpHeaders: [{name: a, value: b}]},\n"
        "     periodSeconds: 1, failureThreshold: 3},\n"
        "   readinessProbe: {grpc: {port: 1}}, startupProbe: {tcpSocket: {port: p}},\n"
        "   lifecycle: {preStop: {sleep: {seconds: 1}}, postStart: {exec: {command: [x]}}},\n"
        "   securityContext: {capabilities: {add: [NET_ADMIN]}, privileged: false,\n"
        "     readOnlyRootFilesystem: true, runAsNonRoot: true},\n"
        "   stdin: false, tty: false, terminationMessagePolicy: File, imagePullPolicy: Never}]}");
    expect(js, &sch_jobset, "");
    free(js);
}

/* A value of another JSON type than the schema's is not looked into (nor reported here). */
static void test_wrong_types_not_walked(void **state)
{
    (void)state;
    expect(JS_HEAD "spec: {replicatedJobs: [3, x, {name: w, template: [1]}], network: 1}\n",
           &sch_jobset, "");
    expect(JS_HEAD "spec: hello\n", &sch_jobset, "");
    char *js = jobset_with_pod("{containers: {name: c}, volumes: [[1]], affinity: [x]}");
    expect(js, &sch_jobset, "");
    free(js);
}

static void test_jaxjob(void **state)
{
    (void)state;
    expect("apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: j}\n"
           "spec:\n"
           "  runPolicy: {cleanPodPolicy: None, backofLimit: 2, schedulingPolicy: {queue: q, "
           "minResources: {cpu: 1}, foo: 1}}\n"
           "  jaxReplicaSpecs:\n"
           "    Worker:\n"
           "      replica: 2\n"
           "      restartPolicy: OnFailure\n"
           "      template:\n"
           "        spec:\n"
           "          containers: [{name: jax, image: x, comand: [y]}]\n",
           &sch_jaxjob,
           "spec.runPolicy.backofLimit: unknown field: did you mean \"backoffLimit\"?\n"
           "spec.runPolicy.schedulingPolicy.foo: unknown field\n"
           "spec.jaxReplicaSpecs.Worker.replica: unknown field: did you mean \"replicas\"?\n"
           "spec.jaxReplicaSpecs.Worker.template.spec.containers[0].comand: unknown field: did "
           "you mean \"command\"?\n");
}

static void test_trainjob_and_runtimes(void **state)
{
    (void)state;
    expect("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
           "spec:\n"
           "  runtimeRef: {name: r, kind: ClusterTrainingRuntime, apiGroup: "
           "trainer.kubeflow.org, nmae: x}\n"
           "  trainer: {numNode: 2, image: i, env: [{name: A, value: b}],\n"
           "    resourcesPerNode: {requests: {cpu: 1}}, numProcPerNode: 1}\n"
           "  suspend: false\n",
           &sch_trainjob,
           "spec.runtimeRef.nmae: unknown field: did you mean \"name\"?\n"
           "spec.trainer.numNode: unknown field: did you mean \"numNodes\"?\n");
    const char *rt = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
                     "metadata: {name: r}\n"
                     "spec:\n"
                     "  mlPolicy: {numNodes: 1, jax: {anything: 1}, jaxx: {}}\n"
                     "  template:\n"
                     "    metadata: {labels: {a: b}}\n"
                     "    spec:\n"
                     "      replicatedJobs:\n"
                     "      - name: node\n"
                     "        replica: 1\n";
    const char *got = check(rt, &sch_cluster_training_runtime, "in ClusterTrainingRuntime \"r\"");
    const char *want = "spec.mlPolicy.jax.anything: unknown field: in ClusterTrainingRuntime "
                       "\"r\"\n"
                       "spec.mlPolicy.jaxx: unknown field: in ClusterTrainingRuntime \"r\"; did "
                       "you mean \"jax\"?\n"
                       "spec.template.spec.replicatedJobs[0].replica: unknown field: in "
                       "ClusterTrainingRuntime \"r\"; did you mean \"replicas\"?\n";
    if (strcmp(got, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", got, want);
    expect("kind: TrainingRuntime\n"
           "spec: {mlPolicy: {torch: {envInjection: {targets: [{jobName: j}]}}}}\n",
           &sch_training_runtime, "");
}

static void test_aichor(void **state)
{
    (void)state;
    expect("kind: AIchorManifest\napiVersion: 0.2.3\nname: a\n"
           "builder: {image: i, dockerfile: ./D, buildArgs: {ANY: 1}, skipBuild: {enabled: "
           "true, experimentId: x}}\n"
           "clone: {depth: 1}\n"
           "spce: {}\n"
           "spec:\n"
           "  operator: jax\n  image: i\n  command: c\n  timeout: 3600\n"
           "  storage: {sharedVolume: {mountPoint: /m, sizeGB: 1}, attachExistingPVCs: "
           "[{name: p, mountPoint: /p, size: 1}]}\n"
           "  types:\n"
           "    worker:\n"
           "      cout: 2\n"
           "      resources: {cpu: 1, ramRatio: 2, accelerators: {gpu: {count: 1, product: "
           "x, typ: gpu}}}\n",
           &sch_aichor,
           "builder.skipBuild.experimentId: unknown field: did you mean \"experimentID\"?\n"
           "spce: unknown field: did you mean \"spec\"?\n"
           "spec.storage.attachExistingPVCs[0].size: unknown field\n"
           "spec.types.worker.cout: unknown field: did you mean \"count\"?\n"
           "spec.types.worker.resources.cpu: unknown field: did you mean \"cpus\"?\n"
           "spec.types.worker.resources.accelerators.gpu.typ: unknown field: did you mean "
           "\"type\"?\n");
}

static void test_suggestions(void **state)
{
    (void)state;
    /* case, transposition, two edits in a long name, nothing for a far name */
    expect(JS_HEAD "spec: {Suspend: true, susepnd: 1, ttlSecondsAfterFinishd: 1, "
                   "managedby: x, zzz: 1, network: {enableDNSHostname: true}}\n",
           &sch_jobset,
           "spec.Suspend: unknown field: did you mean \"suspend\"?\n"
           "spec.susepnd: unknown field: did you mean \"suspend\"?\n"
           "spec.ttlSecondsAfterFinishd: unknown field: did you mean "
           "\"ttlSecondsAfterFinished\"?\n"
           "spec.managedby: unknown field: did you mean \"managedBy\"?\n"
           "spec.zzz: unknown field\n"
           "spec.network.enableDNSHostname: unknown field: did you mean "
           "\"enableDNSHostnames\"?\n");
    char *longkey = malloc(200);
    assert_non_null(longkey);
    memset(longkey, 'x', 199);
    longkey[199] = 0;
    json_t *doc = json_pack("{s:{s:i}}", "spec", longkey, 1);
    struct ferr_list errs;
    ferr_list_init(&errs);
    assert_int_equal(sch_check(doc, &sch_jobset, NULL, &errs), 0);
    assert_int_equal(errs.n, 1);
    assert_null(errs.v[0].detail);
    ferr_list_release(&errs);
    json_decref(doc);
    free(longkey);
}

/* One error per unknown field up to SCH_MAX_ERRORS, then one counting the rest; pruning
 * drops them all.  Long map keys are cut in paths. */
static void test_many_fields(void **state)
{
    (void)state;
    json_t *env = json_array();
    for (int i = 0; i < 20000; i++)
        json_array_append_new(env, json_pack("{s:s, s:s, s:i}", "name", "A", "value", "b",
                                             "vaule", i));
    json_t *doc = json_pack("{s:{s:[{s:s, s:{s:{s:{s:{s:[{s:s, s:o}]}}}}}]}}", "spec",
                            "replicatedJobs", "name", "w", "template", "spec", "template",
                            "spec", "containers", "name", "c", "env", env);
    struct ferr_list errs;
    ferr_list_init(&errs);
    assert_int_equal(sch_check(doc, &sch_jobset, NULL, &errs), 0);
    assert_int_equal(errs.n, SCH_MAX_ERRORS + 1);
    assert_string_equal(errs.v[999].path, POD ".containers[0].env[999].vaule");
    assert_string_equal(errs.v[1000].path, POD ".containers[0].env[1000].vaule");
    assert_string_equal(errs.v[1000].detail, "and 18999 more unknown fields, not listed");
    ferr_list_release(&errs);
    assert_int_equal(sch_prune(doc, &sch_jobset, NULL, NULL), 0);
    for (size_t i = 0; i < json_array_size(env); i++)
        assert_null(json_object_get(json_array_get(env, i), "vaule"));
    json_decref(doc);

    char *key = malloc(100001);
    assert_non_null(key);
    memset(key, 'W', 100000);
    key[100000] = 0;
    key[255] = (char)0xc3; /* a 2-byte character across the cut goes whole */
    key[256] = (char)0xa9;
    doc = json_pack("{s:{s:{s:{s:i}}}}", "spec", "jaxReplicaSpecs", key, "replica", 1);
    ferr_list_init(&errs);
    assert_int_equal(sch_check(doc, &sch_jaxjob, NULL, &errs), 0);
    assert_int_equal(errs.n, 1);
    key[255] = 0;
    char want[400];
    snprintf(want, sizeof(want), "spec.jaxReplicaSpecs.%s....replica", key);
    assert_string_equal(errs.v[0].path, want);
    ferr_list_release(&errs);
    json_decref(doc);
    free(key);
}

/* sch_prune drops exactly the unknown fields, at every depth, reporting them when asked. */
static void test_prune(void **state)
{
    (void)state;
    char *js = jobset_with_pod("{containers: [{name: c, comand: [x], image: i}], foo: 1}");
    json_t *doc = tu_yaml(js), *want = tu_yaml(js);
    json_t *pspec = jx_path(json_array_get(jx_arr(jx_obj(want, "spec"), "replicatedJobs"), 0),
                            "template.spec.template.spec");
    json_object_del(pspec, "foo");
    json_object_del(json_array_get(jx_arr(pspec, "containers"), 0), "comand");
    struct ferr_list errs;
    ferr_list_init(&errs);
    assert_int_equal(sch_prune(doc, &sch_jobset, NULL, &errs), 0);
    assert_int_equal(errs.n, 2);
    assert_true(json_equal(doc, want));
    assert_int_equal(sch_prune(doc, &sch_jobset, NULL, NULL), 0);
    assert_true(json_equal(doc, want));
    ferr_list_release(&errs);
    json_decref(doc);
    json_decref(want);
    free(js);
}

/* ---- modes in manifest loading ----------------------------------------------------------- */

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/jaxset-test-schema-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static const char job_with_typo[] =
    JS_HEAD "spec:\n  replicatedJobs:\n  - name: w\n    replica: 2\n    template:\n"
            "      spec:\n        template:\n          spec:\n            restartPolicy: Never\n"
            "            containers: [{name: c, command: ['true']}]\n";

static void load(const char *text, enum manifest_validate mode, struct manifest_set *s)
{
    char *path = write_tmp(text);
    const char *files[] = {path};
    struct manifest_opts o = {.validate = mode};
    struct err e = {{0}};
    assert_int_equal(manifest_load_opts(files, 1, &o, s, &e), 0);
    unlink(path);
    free(path);
}

static void test_modes(void **state)
{
    (void)state;
    struct manifest_set s;
    load(job_with_typo, MANIFEST_VALIDATE_STRICT, &s);
    assert_int_equal(s.v[0].errs.n, 1);
    tu_assert_ferr(&s.v[0].errs, "spec.replicatedJobs[0].replica: unknown field");
    assert_int_equal(s.v[0].warnings.n, 0);
    manifest_set_release(&s);

    load(job_with_typo, MANIFEST_VALIDATE_WARN, &s);
    assert_int_equal(s.v[0].errs.n, 0);
    assert_int_equal(s.v[0].warnings.n, 1);
    tu_assert_ferr(&s.v[0].warnings, "spec.replicatedJobs[0].replica: unknown field");
    /* dropped, as an API server drops it */
    assert_int_equal(s.v[0].view.rj[0].replicas, 1);
    assert_null(json_object_get(json_array_get(jx_arr(jx_obj(s.v[0].jobset, "spec"),
                                                      "replicatedJobs"), 0), "replica"));
    manifest_set_release(&s);

    load(job_with_typo, MANIFEST_VALIDATE_IGNORE, &s);
    assert_int_equal(manifest_set_errors(&s), 0);
    assert_int_equal(s.v[0].warnings.n, 0);
    assert_null(json_object_get(json_array_get(jx_arr(jx_obj(s.v[0].jobset, "spec"),
                                                      "replicatedJobs"), 0), "replica"));
    manifest_set_release(&s);

    /* the default is strict */
    char *path = write_tmp(job_with_typo);
    const char *files[] = {path};
    struct err e = {{0}};
    assert_int_equal(manifest_load(files, 1, &s, &e), 0);
    assert_int_equal(manifest_set_errors(&s), 1);
    manifest_set_release(&s);
    unlink(path);
    free(path);
}

/* A TrainJob's runtime is checked with it; its errors name the runtime. */
static void test_trainjob_runtime_in_manifest(void **state)
{
    (void)state;
    struct manifest_set s;
    load("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
         "metadata: {name: rt}\n"
         "spec:\n  mlPolicy: {numNodes: 1, jax: {}, numNode: 2}\n  template:\n    spec:\n"
         "      replicatedJobs:\n      - name: node\n        template:\n          spec:\n"
         "            template:\n              spec:\n"
         "                containers: [{name: node, image: x, command: [x]}]\n"
         "---\n"
         "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
         "spec: {runtimeRef: {name: rt}, trainer: {numNodes: 1, comand: [x]}}\n",
         MANIFEST_VALIDATE_STRICT, &s);
    assert_int_equal(s.n, 1);
    tu_assert_ferr(&s.v[0].errs, "spec.trainer.comand: unknown field: did you mean \"command\"?");
    tu_assert_ferr(&s.v[0].errs, "spec.mlPolicy.numNode: unknown field: in "
                                 "ClusterTrainingRuntime \"rt\"; did you mean \"numNodes\"?");
    manifest_set_release(&s);
}

/* An AIchor manifest of another operator is refused by its converter, not field by field. */
static void test_aichor_other_operator(void **state)
{
    (void)state;
    struct manifest_set s;
    load("kind: AIchorManifest\nname: a\nbuilder: {}\n"
         "spec: {operator: kuberay, image: i, command: c, "
         "rayVersion: '2', types: {Head: {resources: {cpus: 1, ramRatio: 2}}}}\n",
         MANIFEST_VALIDATE_STRICT, &s);
    assert_int_equal(s.v[0].errs.n, 1);
    tu_assert_ferr(&s.v[0].errs, "spec.operator: Unsupported value: \"kuberay\"");
    manifest_set_release(&s);
}

/* Every example validates strictly. */
static void test_examples_pass(void **state)
{
    (void)state;
    static const char *const ex[] = {"aichor", "jax-allreduce", "jax-psum",
                                     "jaxjob", "leader-workers", "trainjob"};
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "examples/%s.yaml", ex[i]);
        char *file = strdup(tu_src(rel));
        const char *files[] = {file};
        struct manifest_set s;
        struct err e = {{0}};
        assert_int_equal(manifest_load(files, 1, &s, &e), 0);
        if (manifest_set_errors(&s))
            fail_msg("%s:\n%s", rel, tu_ferrs(&s.v[0].errs));
        manifest_set_release(&s);
        free(file);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobset_unknown_at_every_depth),
        cmocka_unit_test(test_root_metadata_is_object_meta),
        cmocka_unit_test(test_known_pod_fields_pass),
        cmocka_unit_test(test_wrong_types_not_walked),
        cmocka_unit_test(test_jaxjob),
        cmocka_unit_test(test_trainjob_and_runtimes),
        cmocka_unit_test(test_aichor),
        cmocka_unit_test(test_suggestions),
        cmocka_unit_test(test_many_fields),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_trainjob_runtime_in_manifest),
        cmocka_unit_test(test_aichor_other_operator),
        cmocka_unit_test(test_examples_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
