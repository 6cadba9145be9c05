/* Unit tests for the converters (api/convert/convert.h): JAXJob, TrainJob + runtime, AIchor -> JobSet.
 * JSON texts are written with ' for " (see tu_qjson), so expected JobSets stay readable. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert/convert.h"
#include "api/schema/keys.h"
#include "obj/tree/jx.h"

static void assert_json_eq(const json_t *got, const json_t *want)
{
    if (json_equal((json_t *)got, (json_t *)want))
        return;
    char *g = got ? json_dumps(got, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    char *w = json_dumps(want, JSON_INDENT(1) | JSON_SORT_KEYS);
    print_error("got:\n%s\nwant:\n%s\n", g ? g : "(null)", w ? w : "(oom)");
    free(g);
    free(w);
    fail();
}

/* Asserts that conversion failed with exactly one error containing `want`. */
static void assert_one_error(const json_t *got, const struct ferr_list *errs, const char *name,
                             const char *want)
{
    if (got || errs->n != 1) {
        print_error("case %s: result %s, %zu errors:\n%s", name, got ? "non-NULL" : "NULL",
                    errs->n, tu_ferrs(errs));
        fail();
    }
    tu_assert_ferr(errs, want);
}

/* ---- JAXJob ------------------------------------------------------------------------------ */

#define JJ_HEAD "'apiVersion':'kubeflow.org/v1','kind':'JAXJob'"
#define JS_HEAD "'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet'"
/* The Training Operator's labels on every Worker pod of JAXJob `name` (createNewPod). */
#define JJ_LABELS(name)                                                                      \
    "'training.kubeflow.org/job-name':'" name "',"                                            \
    "'training.kubeflow.org/operator-name':'jaxjob-controller',"                             \
    "'training.kubeflow.org/replica-type':'worker'"
#define JJ_ANN(port)                                                                        \
    "'jaxset.dev/jax-runtime':'jaxjob','jaxset.dev/source-kind':'JAXJob',"                \
    "'jaxset.dev/jax-coordinator-port':'" port "'"

static void check_jaxjob(const char *in, const char *want)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson(in), *w = tu_qjson(want);
    json_t *got = conv_jaxjob(doc, &errs);
    if (!got)
        fail_msg("conversion failed:\n%s", tu_ferrs(&errs));
    assert_int_equal(errs.n, 0);
    assert_json_eq(got, w);
    json_decref(got);
    json_decref(w);
    json_decref(doc);
    ferr_list_release(&errs);
}

/* Defaults (training-operator SetDefaults_JAXJob): replicas 1, restartPolicy Never (->
 * backoffLimit 0), port jaxjob-port:6666 appended to container jax; no image needed. */
static void test_jaxjob_minimal(void **state)
{
    (void)state;
    check_jaxjob(
        "{" JJ_HEAD ",'metadata':{'name':'jj'},'spec':{'jaxReplicaSpecs':{'Worker':{'template':"
        "{'spec':{'containers':[{'name':'jax','command':['python3','train.py']}]}}}}}}",
        "{" JS_HEAD ",'metadata':{'name':'jj','annotations':{" JJ_ANN("6666") "}},"
        "'spec':{'replicatedJobs':[{'name':'worker','replicas':1,'template':{'spec':{"
        "'completionMode':'Indexed','parallelism':1,'completions':1,'backoffLimit':0,"
        "'template':{'metadata':{'labels':{" JJ_LABELS("jj") "}},"
        "'spec':{'restartPolicy':'Never','containers':[{'name':'jax',"
        "'command':['python3','train.py'],"
        "'ports':[{'name':'jaxjob-port','containerPort':6666}]}]}}}}}]}}");
}

static void test_jaxjob_full(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson(
        "{" JJ_HEAD ",'metadata':{'name':'big','namespace':'ml','labels':{'team':'a'},"
        "'annotations':{'note':'x'}},'spec':{'runPolicy':{'backoffLimit':3,"
        "'activeDeadlineSeconds':600,'ttlSecondsAfterFinished':60,'suspend':true,"
        "'cleanPodPolicy':'None'},'jaxReplicaSpecs':{'worker':{'replicas':4,"
        "'restartPolicy':'OnFailure','template':{'metadata':{'labels':{'app':'jax'}},"
        "'spec':{'restartPolicy':'Always','containers':[{'name':'sidecar','image':'s'},"
        "{'name':'jax','image':'j','ports':[{'name':'metrics','containerPort':9090},"
        "{'name':'jaxjob-port','containerPort':7777}],'env':[{'name':'FOO','value':'1'}]}]}}}}}}");
    json_t *want = tu_qjson(
        "{" JS_HEAD ",'metadata':{'name':'big','namespace':'ml','labels':{'team':'a'},"
        "'annotations':{'note':'x'," JJ_ANN("7777") "}},'spec':{'suspend':true,"
        "'ttlSecondsAfterFinished':60,'replicatedJobs':[{'name':'worker','replicas':1,"
        "'template':{'spec':{'completionMode':'Indexed','parallelism':4,'completions':4,"
        "'backoffLimit':3,'activeDeadlineSeconds':600,'template':{'metadata':{'labels':"
        "{'app':'jax'," JJ_LABELS("big") "}},'spec':{'restartPolicy':'OnFailure','containers':[{'name':'sidecar',"
        "'image':'s'},{'name':'jax','image':'j','ports':[{'name':'metrics','containerPort':"
        "9090},{'name':'jaxjob-port','containerPort':7777}],'env':[{'name':'FOO','value':"
        "'1'}]}]}}}}}]}}");
    /* the run policy is kept verbatim, in its order, as compact JSON */
    assert_int_equal(jx_set_meta(jx_obj(want, "metadata"), "annotations", ANN_JAXJOB_RUN_POLICY,
                                 "{\"backoffLimit\":3,\"activeDeadlineSeconds\":600,"
                                 "\"ttlSecondsAfterFinished\":60,\"suspend\":true,"
                                 "\"cleanPodPolicy\":\"None\"}"),
                     0);
    json_t *got = conv_jaxjob(doc, &errs);
    if (!got)
        fail_msg("conversion failed:\n%s", tu_ferrs(&errs));
    assert_json_eq(got, want);
    json_decref(got);
    json_decref(want);
    json_decref(doc);
    ferr_list_release(&errs);
}

#define JJ_ONE(policy)                                                                       \
    "{" JJ_HEAD ",'metadata':{'name':'p'},'spec':{'runPolicy':{'backoffLimit':2},"           \
    "'jaxReplicaSpecs':{'Worker':{'replicas':2,'restartPolicy':'" policy "','template':{"    \
    "'spec':{'containers':[{'name':'jax'}]}}}}}}"

/* Always -> OnFailure (a Job pod cannot be Always); backoffLimit from runPolicy. */
static void test_jaxjob_restart_always(void **state)
{
    (void)state;
    check_jaxjob(
        JJ_ONE("Always"),
        "{" JS_HEAD ",'metadata':{'name':'p','annotations':{" JJ_ANN("6666") ","
        "'jaxset.dev/jaxjob-run-policy':'{\\'backoffLimit\\':2}'}},"
        "'spec':{'replicatedJobs':[{'name':'worker','replicas':1,'template':{'spec':{"
        "'completionMode':'Indexed','parallelism':2,'completions':2,'backoffLimit':2,"
        "'template':{'metadata':{'labels':{" JJ_LABELS("p") "}},"
        "'spec':{'restartPolicy':'OnFailure','containers':[{'name':'jax',"
        "'ports':[{'name':'jaxjob-port','containerPort':6666}]}]}}}}}]}}");
}

/* ExitCode -> pod restartPolicy Never + podFailurePolicy FailJob on jax exit codes 1..127;
 * the runPolicy backoffLimit still applies (retryable codes >= 128). */
static void test_jaxjob_restart_exit_code(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson(JJ_ONE("ExitCode"));
    json_t *got = conv_jaxjob(doc, &errs);
    assert_non_null(got);
    json_t *jspec = jx_path(json_array_get(jx_path(got, "spec.replicatedJobs"), 0),
                            "template.spec");
    assert_int_equal(jx_int_or(jspec, "backoffLimit", -1), 2);
    assert_string_equal(jx_str(jx_path(jspec, "template.spec"), "restartPolicy"), "Never");
    json_t *rules = jx_arr(jx_obj(jspec, "podFailurePolicy"), "rules");
    assert_int_equal(json_array_size(rules), 1);
    json_t *rule = json_array_get(rules, 0);
    assert_string_equal(jx_str(rule, "action"), "FailJob");
    json_t *codes = jx_obj(rule, "onExitCodes");
    assert_string_equal(jx_str(codes, "containerName"), "jax");
    assert_string_equal(jx_str(codes, "operator"), "In");
    json_t *values = jx_arr(codes, "values");
    assert_int_equal(json_array_size(values), 127);
    for (size_t i = 0; i < 127; i++)
        assert_int_equal(json_integer_value(json_array_get(values, i)), (long long)i + 1);
    json_decref(got);
    json_decref(doc);
    ferr_list_release(&errs);
}

/* Never ignores runPolicy.backoffLimit: a JAXJob fails on the first failed Never pod. */
static void test_jaxjob_restart_never(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson(JJ_ONE("Never"));
    json_t *got = conv_jaxjob(doc, &errs);
    assert_non_null(got);
    json_t *jspec = jx_path(json_array_get(jx_path(got, "spec.replicatedJobs"), 0),
                            "template.spec");
    assert_int_equal(jx_int_or(jspec, "backoffLimit", -1), 0);
    assert_null(json_object_get(jspec, "podFailurePolicy"));
    json_decref(got);
    json_decref(doc);
    ferr_list_release(&errs);
}

struct ecase {
    const char *name;
    const char *input;
    const char *want; /* the one error expected (substring of its formatted line) */
};

#define JJ_W(worker) "{" JJ_HEAD ",'metadata':{'name':'e'},'spec':{'jaxReplicaSpecs':{" worker "}}}"
#define JJ_C(containers) JJ_W("'Worker':{'template':{'spec':{'containers':" containers "}}}")
#define JJ_RP(rp)                                                                          \
    "{" JJ_HEAD ",'metadata':{'name':'e'},'spec':{'runPolicy':" rp ",'jaxReplicaSpecs':{" \
    "'Worker':{'template':{'spec':{'containers':[{'name':'jax'}]}}}}}}"
#define CTS "spec.jaxReplicaSpecs[Worker].template.spec.containers"

static const struct ecase jaxjob_errors[] = {
    {"no name", "{" JJ_HEAD ",'spec':{'jaxReplicaSpecs':{'Worker':{'template':{'spec':"
                "{'containers':[{'name':'jax'}]}}}}}}",
     "metadata.name: Required value"},
    {"bad name", "{" JJ_HEAD ",'metadata':{'name':'9lives'},'spec':{'jaxReplicaSpecs':"
                 "{'Worker':{'template':{'spec':{'containers':[{'name':'jax'}]}}}}}}",
     "metadata.name: Invalid value: \"9lives\": should match: a DNS-1035 label must consist of"},
    {"no replica specs", "{" JJ_HEAD ",'metadata':{'name':'e'},'spec':{}}",
     "spec.jaxReplicaSpecs: Required value"},
    {"empty replica specs", JJ_W(""),
     "spec.jaxReplicaSpecs: Required value: must be required"},
    {"other replica type",
     JJ_W("'Worker':{'template':{'spec':{'containers':[{'name':'jax'}]}}},"
          "'Chief':{'template':{'spec':{'containers':[{'name':'jax'}]}}}"),
     "spec.jaxReplicaSpecs[Chief]: Unsupported value: \"Chief\": supported values: "
     "\"Worker\""},
    {"worker twice",
     JJ_W("'Worker':{'template':{'spec':{'containers':[{'name':'jax'}]}}},"
          "'worker':{'template':{'spec':{'containers':[{'name':'jax'}]}}}"),
     "spec.jaxReplicaSpecs[worker]: Duplicate value: \"worker\""},
    {"containers not a list", JJ_C("{}"), CTS ": Invalid value: {}: must be a list"},
    {"no jax container", JJ_C("[{'name':'trainer','image':'x'}]"),
     CTS ": Required value: must have at least one container with name jax"},
    {"container without name", JJ_C("[{'name':'jax'},{'image':'x'}]"),
     CTS "[1].name: Required value"},
    /* kubeflow/training-operator pkg/webhooks/jax/jaxjob_webhook_test.go "image is empty" */
    {"empty image is required", JJ_C("[{'name':'jax','image':''}]"),
     CTS "[0].image: Required value: must be required"},
    /* ... "jaxJob default container name doesn't present": that one error, no name error */
    {"empty container name: only the missing jax container",
     JJ_C("[{'name':'','image':'x'}]"),
     CTS ": Required value: must have at least one container with name jax"},
    {"reserved JAXJob name", JJ_C("[{'name':'jax','env':[{'name':'OK','value':'1'},"
                                  "{'name':'PROCESS_ID','value':'0'}]}]"),
     CTS "[0].env[1].name: Invalid value: \"PROCESS_ID\": is set by the JAX runtime and may "
         "not be set in the manifest"},
    {"reserved JAX name in a sidecar",
     JJ_C("[{'name':'jax'},{'name':'side','env':[{'name':'JAX_COORDINATOR_ADDRESS'}]}]"),
     CTS "[1].env[0].name: Invalid value: \"JAX_COORDINATOR_ADDRESS\": is set by the JAX "
         "runtime"},
    {"bad port", JJ_C("[{'name':'jax','ports':[{'name':'jaxjob-port','containerPort':70000}]}]"),
     CTS "[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, "
         "inclusive"},
    {"port without number", JJ_C("[{'name':'jax','ports':[{'name':'jaxjob-port'}]}]"),
     CTS "[0].ports[0].containerPort: Required value"},
    {"negative replicas",
     JJ_W("'Worker':{'replicas':-1,'template':{'spec':{'containers':[{'name':'jax'}]}}}"),
     "spec.jaxReplicaSpecs[Worker].replicas: Invalid value: -1: must be greater than or equal "
     "to 0"},
    {"restart policy",
     JJ_W("'Worker':{'restartPolicy':'Sometimes','template':{'spec':{'containers':"
          "[{'name':'jax'}]}}}"),
     "spec.jaxReplicaSpecs[Worker].restartPolicy: Unsupported value: \"Sometimes\": supported "
     "values: \"Always\", \"OnFailure\", \"Never\", \"ExitCode\""},
    {"backoff limit", JJ_RP("{'backoffLimit':-2}"),
     "spec.runPolicy.backoffLimit: Invalid value: -2: must be greater than or equal to 0"},
    {"deadline type", JJ_RP("{'activeDeadlineSeconds':'1h'}"),
     "spec.runPolicy.activeDeadlineSeconds: Invalid value: \"1h\": must be an integer"},
    {"suspend type", JJ_RP("{'suspend':'yes'}"),
     "spec.runPolicy.suspend: Invalid value: \"yes\": must be a boolean"},
    {"clean pod policy", JJ_RP("{'cleanPodPolicy':'Some'}"),
     "spec.runPolicy.cleanPodPolicy: Unsupported value: \"Some\": supported values: \"All\", "
     "\"Running\", \"None\""},
};

static void test_jaxjob_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(jaxjob_errors) / sizeof(jaxjob_errors[0]); i++) {
        const struct ecase *k = &jaxjob_errors[i];
        struct ferr_list errs;
        ferr_list_init(&errs);
        json_t *doc = tu_qjson(k->input);
        json_t *got = conv_jaxjob(doc, &errs);
        assert_one_error(got, &errs, k->name, k->want);
        json_decref(doc);
        ferr_list_release(&errs);
    }
}

/* The JAXJob webhook reports both, as upstream's validateJAXReplicaSpecs does for a replica
 * without containers: "must be specified" and the missing "jax" container. */
static void test_jaxjob_without_containers_two_errors(void **state)
{
    (void)state;
    const char *inputs[] = {JJ_C("[]"), JJ_W("'Worker':{'replicas':1}")};
    for (size_t i = 0; i < 2; i++) {
        struct ferr_list errs;
        ferr_list_init(&errs);
        json_t *doc = tu_qjson(inputs[i]);
        json_t *got = conv_jaxjob(doc, &errs);
        assert_null(got);
        assert_int_equal(errs.n, 2);
        tu_assert_ferr(&errs, CTS ": Required value: must be specified");
        tu_assert_ferr(&errs, CTS ": Required value: must have at least one container with name "
                              "jax");
        json_decref(doc);
        ferr_list_release(&errs);
    }
}

/* ---- TrainJob ---------------------------------------------------------------------------- */

#define TJ_HEAD "'apiVersion':'trainer.kubeflow.org/v1alpha1','kind':'TrainJob'"
#define RT_HEAD "'apiVersion':'trainer.kubeflow.org/v1alpha1'"
#define ANCESTOR "'trainer.kubeflow.org/trainjob-ancestor-step'"
/* The built-in runtime, kubeflow/trainer manifests/base/runtimes/jax_distributed.yaml. */
#define RT_BUILTIN                                                                            \
    "{" RT_HEAD ",'kind':'ClusterTrainingRuntime','metadata':{'name':'jax-distributed',"     \
    "'labels':{'trainer.kubeflow.org/framework':'jax'}},'spec':{'mlPolicy':{'numNodes':1,"   \
    "'jax':{}},'template':{'spec':{'replicatedJobs':[{'name':'node','template':{'metadata':" \
    "{'labels':{" ANCESTOR ":'trainer'}},'spec':{'template':{'spec':{'containers':[{"       \
    "'name':'node','image':'nvcr.io/nvidia/jax:25.10-py3'}]}}}}}]}}}}"
#define TJ_ANN(rjs)                                                                         \
    "'jaxset.dev/jax-runtime':'trainjob','jaxset.dev/source-kind':'TrainJob',"            \
    "'jaxset.dev/jax-coordinator-port':'29500','jaxset.dev/jax-replicated-jobs':'" rjs "'"

static void check_trainjob(const char *job, const char *runtime, const char *want)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson(job), *rt = tu_qjson(runtime), *w = tu_qjson(want);
    json_t *rt_copy = json_deep_copy(rt);
    json_t *got = conv_trainjob(doc, rt, &errs);
    if (!got)
        fail_msg("conversion failed:\n%s", tu_ferrs(&errs));
    assert_json_eq(got, w);
    assert_true(json_equal(rt, rt_copy)); /* the runtime is borrowed, not modified */
    json_decref(got);
    json_decref(w);
    json_decref(rt);
    json_decref(rt_copy);
    json_decref(doc);
    ferr_list_release(&errs);
}

static void test_trainjob_minimal(void **state)
{
    (void)state;
    check_trainjob(
        "{" TJ_HEAD ",'metadata':{'name':'mnist'},'spec':{'runtimeRef':{'name':"
        "'jax-distributed'}}}",
        RT_BUILTIN,
        "{" JS_HEAD ",'metadata':{'name':'mnist','annotations':{" TJ_ANN("node") "}},"
        "'spec':{'replicatedJobs':[{'name':'node','replicas':1,'template':{'metadata':"
        "{'labels':{" ANCESTOR ":'trainer'}},'spec':{'parallelism':1,'completions':1,"
        "'template':{'spec':{'containers':[{'name':'node','image':"
        "'nvcr.io/nvidia/jax:25.10-py3','ports':[{'containerPort':29500}]}]}}}}}]}}");
}

/* What kubeflow/trainer's JAX plugin upserts into the trainer container when the TrainJob has
 * spec.trainer (plugins/jax/jax.go EnforceMLPolicy). */
#define JAX_ENV(n, tj)                                                                        \
    "{'name':'JAX_NUM_PROCESSES','value':'" n "'},{'name':'JAX_PROCESS_ID','valueFrom':{"     \
    "'fieldRef':{'fieldPath':'metadata.annotations[\\u0027batch.kubernetes.io/job-"          \
    "completion-index\\u0027]'}}},{'name':'JAX_COORDINATOR_ADDRESS','value':'" tj        \
    "-node-0-0." tj ":29500'}"

/* numNodes from mlPolicy; trainer job found by its name "node" (no ancestor label); an
 * existing containerPort 29500 is not duplicated. */
static void test_trainjob_runtime_defaults(void **state)
{
    (void)state;
    check_trainjob(
        "{" TJ_HEAD ",'metadata':{'name':'t2'},'spec':{'runtimeRef':{'name':'rt',"
        "'kind':'ClusterTrainingRuntime'},'trainer':{'command':['python3','x.py']}}}",
        "{" RT_HEAD ",'kind':'ClusterTrainingRuntime','metadata':{'name':'rt'},'spec':{"
        "'mlPolicy':{'numNodes':2,'jax':{}},'template':{'spec':{'replicatedJobs':[{'name':"
        "'node','template':{'spec':{'template':{'spec':{'containers':[{'name':'node',"
        "'ports':[{'containerPort':29500}]}]}}}}}]}}}}",
        "{" JS_HEAD ",'metadata':{'name':'t2','annotations':{" TJ_ANN("node") "}},"
        "'spec':{'replicatedJobs':[{'name':'node','replicas':1,'template':{'spec':{"
        "'parallelism':2,'completions':2,'template':{'spec':{'containers':[{'name':'node',"
        "'command':['python3','x.py'],'env':[" JAX_ENV("2", "t2") "],'ports':[{'containerPort':"
        "29500}]}]}}}}}]}}");
}

/* A namespaced TrainingRuntime with an initializer job, template metadata, its own suspend
 * and failure policy, and a trainer job of 3 replicas (multi-slice: the 3 nodes split across its
 * Jobs); the TrainJob overrides numNodes, image, command, args, env (merged by name),
 * resources, suspend and the deadline. */
static void test_trainjob_overrides(void **state)
{
    (void)state;
    check_trainjob(
        "{" TJ_HEAD ",'metadata':{'name':'tj','namespace':'ml','labels':{'ignored':'yes'}},"
        "'spec':{'runtimeRef':{'name':'jax-custom','kind':'TrainingRuntime','apiGroup':"
        "'trainer.kubeflow.org'},'suspend':false,'activeDeadlineSeconds':3600,'trainer':{"
        "'numNodes':3,'numProcPerNode':1,'image':'new','command':['python3'],'args':['-u',"
        "'t.py'],'env':[{'name':'B','value':'3'},{'name':'C','value':'4'}],"
        "'resourcesPerNode':{'limits':{'nvidia.com/gpu':1}}}}}",
        "{" RT_HEAD ",'kind':'TrainingRuntime','metadata':{'name':'jax-custom','namespace':"
        "'ml'},'spec':{'mlPolicy':{'numNodes':2,'jax':{}},'template':{'metadata':{'labels':"
        "{'l':'v'},'annotations':{'a':'b'}},'spec':{'suspend':true,'failurePolicy':{"
        "'maxRestarts':2},'replicatedJobs':[{'name':'dataset-initializer','template':{"
        "'metadata':{'labels':{" ANCESTOR ":'dataset-initializer'}},'spec':{'template':{"
        "'spec':{'containers':[{'name':'dataset-initializer','image':'init'}]}}}}},{'name':"
        "'train','replicas':3,'template':{'metadata':{'labels':{" ANCESTOR ":'trainer'}},"
        "'spec':{'parallelism':9,'template':{'spec':{'containers':[{'name':'node','image':"
        "'old','command':['old'],'env':[{'name':'A','value':'1'},{'name':'B','value':'2'}],"
        "'resources':{'requests':{'cpu':'9'}},'ports':[{'name':'coord','containerPort':"
        "29500}]}]}}}}}]}}}}",
        "{" JS_HEAD ",'metadata':{'name':'tj','namespace':'ml','labels':{'l':'v'},"
        "'annotations':{'a':'b'," TJ_ANN("train") "}},'spec':{'suspend':false,"
        "'failurePolicy':{'maxRestarts':2},'replicatedJobs':[{'name':'dataset-initializer',"
        "'replicas':1,'template':{'metadata':{'labels':{" ANCESTOR ":'dataset-initializer'}},"
        "'spec':{"
        "'template':{'spec':{'containers':[{'name':'dataset-initializer','image':'init'}]}}}}"
        "},{'name':'train','replicas':3,'template':{'metadata':{'labels':{" ANCESTOR
        ":'trainer'}},'spec':{'parallelism':1,'completions':1,'activeDeadlineSeconds':3600,"
        "'template':{'spec':{'containers':[{'name':'node','image':'new','command':"
        "['python3'],'args':['-u','t.py'],'env':[{'name':'A','value':'1'},{'name':'B',"
        "'value':'3'},{'name':'C','value':'4'}," JAX_ENV("3", "tj") "],'resources':{'limits':{"
        "'nvidia.com/gpu':1}},"
        "'ports':[{'name':'coord','containerPort':29500}]}]}}}}}]}}");
}

struct tcase {
    const char *name;
    const char *job;
    const char *runtime; /* NULL: the built-in runtime; "": none given */
    const char *want;
};

#define TJ_JOB(spec) "{" TJ_HEAD ",'metadata':{'name':'tj'},'spec':" spec "}"
#define TJ_REF "'runtimeRef':{'name':'jax-distributed'}"
#define TJ_TRAINER(tr) TJ_JOB("{" TJ_REF ",'trainer':" tr "}")
#define RT_RJS(name, rjs)                                                                 \
    "{" RT_HEAD ",'kind':'ClusterTrainingRuntime','metadata':{'name':'" name "'},'spec':{" \
    "'mlPolicy':{'jax':{}},'template':{'spec':{'replicatedJobs':" rjs "}}}}"
#define RJS_PATH "spec.template.spec.replicatedJobs"

static const struct tcase trainjob_errors[] = {
    {"runtime missing", TJ_JOB("{'runtimeRef':{'name':'no-such-runtime'}}"), "",
     "spec.runtimeRef.name: Invalid value: \"no-such-runtime\": no ClusterTrainingRuntime "
     "\"no-such-runtime\" was given (put it in the same file or name its file on the command "
     "line)"},
    {"namespaced runtime missing",
     TJ_JOB("{'runtimeRef':{'name':'r','kind':'TrainingRuntime'}}"), "",
     "spec.runtimeRef.name: Invalid value: \"r\": no TrainingRuntime \"r\" was given"},
    {"initializer storageUri", TJ_JOB("{" TJ_REF ",'initializer':{'model':{'storageUri':5}}}"),
     NULL, "spec.initializer.model.storageUri: Invalid value: 5: must be a string"},
    {"initializer env item", TJ_JOB("{" TJ_REF ",'initializer':{'dataset':{'env':[3]}}}"), NULL,
     "spec.initializer.dataset.env[0]: Invalid value: 3: must be an object"},
    {"initializer secretRef", TJ_JOB("{" TJ_REF ",'initializer':{'dataset':{'secretRef':{}}}}"),
     NULL, "spec.initializer.dataset.secretRef.name: Required value"},
    {"torch runtime", TJ_JOB("{'runtimeRef':{'name':'torch-distributed'}}"),
     "{" RT_HEAD ",'kind':'ClusterTrainingRuntime','metadata':{'name':'torch-distributed'},"
     "'spec':{'mlPolicy':{'numNodes':1,'torch':{}},'template':{'spec':{'replicatedJobs':[]}}}}",
     "spec.mlPolicy: Unsupported value: \"torch\": supported values: \"jax\" "
     "(ClusterTrainingRuntime \"torch-distributed\": jaxset runs JAX runtimes only)"},
    {"runtime without policy", TJ_JOB("{'runtimeRef':{'name':'bare'}}"),
     "{" RT_HEAD ",'kind':'ClusterTrainingRuntime','metadata':{'name':'bare'},'spec':{}}",
     "spec.mlPolicy: Required value: ClusterTrainingRuntime \"bare\" has no mlPolicy.jax: "
     "jaxset runs JAX runtimes only"},
    {"no name", "{" TJ_HEAD ",'spec':{" TJ_REF "}}", NULL, "metadata.name: Required value"},
    {"name too long",
     "{" TJ_HEAD ",'metadata':{'name':'a234567890123456789012345678901234567890123456789012345"
     "678901234'},'spec':{" TJ_REF "}}",
     NULL, "metadata.name: Invalid value: \"a23456789012345678901234567890123456789012345678901"
           "2345678901234\": must be no more than 63 characters"},
    {"no runtimeRef", TJ_JOB("{}"), NULL, "spec.runtimeRef: Required value"},
    {"no runtimeRef name", TJ_JOB("{'runtimeRef':{}}"), NULL,
     "spec.runtimeRef.name: Required value"},
    {"runtimeRef kind", TJ_JOB("{'runtimeRef':{'name':'x','kind':'Runtime'}}"), NULL,
     "spec.runtimeRef.kind: Unsupported value: \"Runtime\": supported values: "
     "\"ClusterTrainingRuntime\", \"TrainingRuntime\""},
    {"runtimeRef apiGroup", TJ_JOB("{'runtimeRef':{'name':'x','apiGroup':'kubeflow.org'}}"),
     NULL,
     "spec.runtimeRef.apiGroup: Unsupported value: \"kubeflow.org\": supported values: "
     "\"trainer.kubeflow.org\""},
    {"runtime of another kind",
     TJ_JOB("{'runtimeRef':{'name':'jax-distributed','kind':'TrainingRuntime'}}"), NULL,
     "spec.runtimeRef.kind: Invalid value: \"TrainingRuntime\": the runtime given is a "
     "ClusterTrainingRuntime"},
    {"runtime of another name", TJ_JOB("{'runtimeRef':{'name':'other'}}"), NULL,
     "spec.runtimeRef.name: Invalid value: \"other\": the ClusterTrainingRuntime given is "
     "named \"jax-distributed\""},
    {"runtime in another namespace",
     "{" TJ_HEAD ",'metadata':{'name':'tj','namespace':'a'},'spec':{'runtimeRef':{'name':'r',"
     "'kind':'TrainingRuntime'}}}",
     "{" RT_HEAD ",'kind':'TrainingRuntime','metadata':{'name':'r'},'spec':{}}",
     "spec.runtimeRef.name: Invalid value: \"r\": TrainingRuntime \"r\" is in namespace "
     "\"default\", not in the TrainJob's namespace \"a\""},
    {"reserved env", TJ_TRAINER("{'env':[{'name':'JAX_PROCESS_ID','value':'0'}]}"), NULL,
     "spec.trainer.env[0].name: Invalid value: \"JAX_PROCESS_ID\": is set by the JAX runtime "
     "and may not be set in the manifest"},
    {"negative numNodes", TJ_TRAINER("{'numNodes':-1}"), NULL,
     "spec.trainer.numNodes: Invalid value: -1: must be greater than or equal to 0"},
    {"command not strings", TJ_TRAINER("{'command':['python3',3]}"), NULL,
     "spec.trainer.command[1]: Invalid value: 3: must be a string"},
    {"image type", TJ_TRAINER("{'image':7}"), NULL,
     "spec.trainer.image: Invalid value: 7: must be a string"},
    {"deadline", TJ_JOB("{" TJ_REF ",'activeDeadlineSeconds':0}"), NULL,
     "spec.activeDeadlineSeconds: Invalid value: 0: must be greater than or equal to 1"},
    {"no trainer job", TJ_JOB("{'runtimeRef':{'name':'r'}}"),
     RT_RJS("r", "[{'name':'launcher','template':{'spec':{'template':{'spec':{'containers':"
                 "[{'name':'node'}]}}}}}]"),
     RJS_PATH ": Required value: ClusterTrainingRuntime \"r\" has no replicated job labelled "
              "trainer.kubeflow.org/trainjob-ancestor-step=trainer or named \"node\""},
    {"no node container", TJ_JOB("{'runtimeRef':{'name':'r'}}"),
     RT_RJS("r", "[{'name':'node','template':{'spec':{'template':{'spec':{'containers':"
                 "[{'name':'trainer'}]}}}}}]"),
     RJS_PATH "[0].template.spec.template.spec.containers: Required value: must have a "
              "container named \"node\""},
    {"reserved env in the runtime", TJ_JOB("{'runtimeRef':{'name':'r'}}"),
     RT_RJS("r", "[{'name':'node','template':{'spec':{'template':{'spec':{'containers':"
                 "[{'name':'node','env':[{'name':'JAX_NUM_PROCESSES','value':'2'}]}]}}}}}]"),
     RJS_PATH "[0].template.spec.template.spec.containers[0].env[0].name: Invalid value: "
              "\"JAX_NUM_PROCESSES\": is set by the JAX runtime"},
};

static void test_trainjob_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(trainjob_errors) / sizeof(trainjob_errors[0]); i++) {
        const struct tcase *k = &trainjob_errors[i];
        struct ferr_list errs;
        ferr_list_init(&errs);
        json_t *doc = tu_qjson(k->job);
        json_t *rt = !k->runtime ? tu_qjson(RT_BUILTIN) : *k->runtime ? tu_qjson(k->runtime) : NULL;
        json_t *got = conv_trainjob(doc, rt, &errs);
        assert_one_error(got, &errs, k->name, k->want);
        json_decref(rt);
        json_decref(doc);
        ferr_list_release(&errs);
    }
}

/* ---- AIchor ------------------------------------------------------------------------------ */

#define AI_ANN                                                                            \
    "'jaxset.dev/jax-runtime':'aichor','jaxset.dev/source-kind':'AIchorManifest',"      \
    "'jaxset.dev/jax-coordinator-port':'1234'"
#define AI_COORD "'coordinator':{'replicatedJob':'worker','jobIndex':0,'podIndex':0}"

static void check_aichor(const char *in, const char *fallback, const char *want)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson(in), *w = tu_qjson(want);
    json_t *got = conv_aichor(doc, fallback, &errs);
    if (!got)
        fail_msg("conversion failed:\n%s", tu_ferrs(&errs));
    assert_json_eq(got, w);
    json_decref(got);
    json_decref(w);
    json_decref(doc);
    ferr_list_release(&errs);
}

/* count 1, cpus 1, cpuLimitRatio 2; the name comes from the file. */
static void test_aichor_minimal(void **state)
{
    (void)state;
    check_aichor(
        "{'kind':'AIchorManifest','apiVersion':'0.2.3','builder':{'image':'jax-demo'},"
        "'spec':{'operator':'jax','image':'jax-demo','command':'python3 -u main.py','types':"
        "{'worker':{'resources':{'ramRatio':2}}}}}",
        "exp",
        "{" JS_HEAD ",'metadata':{'name':'exp','annotations':{" AI_ANN "}},'spec':{" AI_COORD
        ",'replicatedJobs':[{'name':'worker','replicas':1,'template':{'spec':{"
        "'completionMode':'Indexed','parallelism':1,'completions':1,'backoffLimit':0,"
        "'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'worker','image':"
        "'jax-demo','command':['/bin/sh','-c','python3 -u main.py'],'resources':{'requests':"
        "{'cpu':'1','memory':'2G'},'limits':{'cpu':'2','memory':'2G'}}}]}}}}}]}}");
}

static void test_aichor_full(void **state)
{
    (void)state;
    check_aichor(
        "{'kind':'AIchorManifest','apiVersion':'0.2.2','name':'aichor-jax','metadata':{"
        "'namespace':'team'},'builder':{},'clone':{'depth':1},'spec':{'operator':'jax',"
        "'image':'img','command':'python3 main.py','activeDeadlineSeconds':100,'timeout':3600,"
        "'tensorboard':{'enabled':true},'storage':{'sharedVolume':{'mountPoint':'/mnt/s',"
        "'sizeGB':16}},'types':{'Worker':{'count':4,'resources':{'cpus':4,'ramRatio':4,"
        "'cpuLimitRatio':1,'shmSizeGB':8,'accelerators':{'gpu':{'count':2,'type':'gpu',"
        "'product':'NVIDIA-A100-SXM4-80GB'}}}}}}}",
        "ignored",
        "{" JS_HEAD ",'metadata':{'name':'aichor-jax','namespace':'team','annotations':{"
        AI_ANN "}},'spec':{" AI_COORD ",'replicatedJobs':[{'name':'worker','replicas':1,"
        "'template':{'spec':{'completionMode':'Indexed','parallelism':4,'completions':4,"
        "'backoffLimit':0,'activeDeadlineSeconds':3600,'template':{'spec':{'restartPolicy':"
        "'Never','containers':[{'name':'worker','image':'img','command':['/bin/sh','-c',"
        "'python3 main.py'],'resources':{'requests':{'cpu':'4','memory':'16G',"
        "'nvidia.com/gpu':'2'},'limits':{'cpu':'4','memory':'16G','nvidia.com/gpu':'2'}},"
        "'volumeMounts':[{'name':'dshm','mountPath':'/dev/shm'}]}],'volumes':[{'name':'dshm',"
        "'emptyDir':{'medium':'Memory','sizeLimit':'8G'}}]}}}}}]}}");
}

/* metadata.name wins over the top-level name; activeDeadlineSeconds alone is used. */
static void test_aichor_names(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson("{'name':'top','metadata':{'name':'meta'},'spec':{'operator':'jax',"
                      "'image':'i','command':'c','activeDeadlineSeconds':100,'types':{'worker':"
                      "{'resources':{'memory':1}}}}}");
    json_t *got = conv_aichor(doc, "file", &errs);
    assert_non_null(got);
    assert_string_equal(jx_str(jx_obj(got, "metadata"), "name"), "meta");
    json_t *jspec = jx_path(json_array_get(jx_path(got, "spec.replicatedJobs"), 0),
                            "template.spec");
    assert_int_equal(jx_int_or(jspec, "activeDeadlineSeconds", -1), 100);
    json_decref(got);
    json_object_del(jx_obj(doc, "metadata"), "name");
    got = conv_aichor(doc, "file", &errs);
    assert_non_null(got);
    assert_string_equal(jx_str(jx_obj(got, "metadata"), "name"), "top");
    json_decref(got);
    json_decref(doc);
    ferr_list_release(&errs);
}

static const struct {
    const char *resources;
    const char *want;
} aichor_resources[] = {
    {"{'cpus':0.5,'memory':10,'cpuLimitRatio':3}",
     "{'requests':{'cpu':'500m','memory':'10G'},'limits':{'cpu':'1500m','memory':'10G'}}"},
    {"{'cpus':1,'ramRatio':1.5}",
     "{'requests':{'cpu':'1','memory':'1500M'},'limits':{'cpu':'2','memory':'1500M'}}"},
    {"{'cpus':2,'ramRatio':3,'accelerators':{'gpu':{'count':0}}}",
     "{'requests':{'cpu':'2','memory':'6G'},'limits':{'cpu':'4','memory':'6G'}}"},
    {"{'memory':64,'accelerators':{'gpu':{'count':8}}}",
     "{'requests':{'cpu':'1','memory':'64G','nvidia.com/gpu':'8'},'limits':{'cpu':'2',"
     "'memory':'64G','nvidia.com/gpu':'8'}}"},
};

static void test_aichor_resources(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(aichor_resources) / sizeof(aichor_resources[0]); i++) {
        struct ferr_list errs;
        ferr_list_init(&errs);
        char in[1024];
        snprintf(in, sizeof(in),
                 "{'spec':{'operator':'jax','image':'i','command':'c','types':{'worker':{"
                 "'count':2,'resources':%s}}}}",
                 aichor_resources[i].resources);
        json_t *doc = tu_qjson(in), *want = tu_qjson(aichor_resources[i].want);
        json_t *got = conv_aichor(doc, "r", &errs);
        if (!got)
            fail_msg("case %zu failed:\n%s", i, tu_ferrs(&errs));
        json_t *ct = json_array_get(
            jx_path(json_array_get(jx_path(got, "spec.replicatedJobs"), 0),
                    "template.spec.template.spec.containers"),
            0);
        assert_json_eq(json_object_get(ct, "resources"), want);
        json_decref(got);
        json_decref(want);
        json_decref(doc);
        ferr_list_release(&errs);
    }
}

#define AI_SPEC(rest) "{'name':'x','spec':{'operator':'jax','image':'i','command':'c'," rest "}}"
#define AI_RES(res) AI_SPEC("'types':{'worker':{'resources':" res "}}")
#define AI_RES_PATH "spec.types.worker.resources"

static const struct ecase aichor_errors[] = {
    {"operator", "{'name':'x','spec':{'operator':'pytorch','image':'i','command':'c'}}",
     "spec.operator: Unsupported value: \"pytorch\": supported values: \"jax\""},
    {"no operator", "{'name':'x','spec':{'image':'i','command':'c','types':{'worker':{"
                    "'resources':{'memory':1}}}}}",
     "spec.operator: Required value"},
    {"no spec", "{'name':'x'}", "spec: Required value"},
    {"no image", "{'name':'x','spec':{'operator':'jax','command':'c','types':{'worker':{"
                 "'resources':{'memory':1}}}}}",
     "spec.image: Required value"},
    {"command list", "{'name':'x','spec':{'operator':'jax','image':'i','command':['a','b'],"
                     "'types':{'worker':{'resources':{'memory':1}}}}}",
     "spec.command: Invalid value: [\"a\",\"b\"]: must be a string"},
    {"no types", AI_SPEC("'timeout':5"), "spec.types: Required value"},
    {"no worker type", AI_SPEC("'types':{}"), "spec.types.worker: Required value"},
    {"other type", AI_SPEC("'types':{'worker':{'resources':{'memory':1}},'ps':{}}"),
     "spec.types[ps]: Unsupported value: \"ps\": supported values: \"worker\""},
    {"worker twice", AI_SPEC("'types':{'worker':{'resources':{'memory':1}},'Worker':{}}"),
     "spec.types[Worker]: Duplicate value: \"Worker\""},
    {"count 0", AI_SPEC("'types':{'worker':{'count':0,'resources':{'memory':1}}}"),
     "spec.types.worker.count: Invalid value: 0: must be greater than or equal to 1"},
    {"no resources", AI_SPEC("'types':{'worker':{'count':1}}"),
     "spec.types.worker.resources: Required value"},
    {"both memories", AI_RES("{'ramRatio':2,'memory':4}"),
     AI_RES_PATH ".memory: Forbidden: may not be set together with ramRatio"},
    {"no memory", AI_RES("{'cpus':2}"),
     AI_RES_PATH ": Required value: exactly one of ramRatio or memory must be set"},
    {"cpus zero", AI_RES("{'cpus':0,'memory':1}"),
     AI_RES_PATH ".cpus: Invalid value: 0: must be greater than 0"},
    {"cpu limit ratio", AI_RES("{'memory':1,'cpuLimitRatio':0.5}"),
     AI_RES_PATH ".cpuLimitRatio: Invalid value: 0.5: must be greater than or equal to 1"},
    {"ram ratio type", AI_RES("{'ramRatio':'4'}"),
     AI_RES_PATH ".ramRatio: Invalid value: \"4\": must be a number"},
    {"gpu count", AI_RES("{'memory':1,'accelerators':{'gpu':{'count':-1}}}"),
     AI_RES_PATH ".accelerators.gpu.count: Invalid value: -1: must be greater than or equal "
                 "to 0"},
    {"timeout string", AI_SPEC("'timeout':'2h','types':{'worker':{'resources':{'memory':1}}}"),
     "spec.timeout: Invalid value: \"2h\": must be a whole number of seconds >= 1"},
    {"bad name", "{'name':'Big','spec':{'operator':'jax','image':'i','command':'c','types':{"
                 "'worker':{'resources':{'memory':1}}}}}",
     "name: Invalid value: \"Big\": a DNS-1035 label"},
    {"bad metadata name", "{'metadata':{'name':'a.b'},'spec':{'operator':'jax','image':'i',"
                          "'command':'c','types':{'worker':{'resources':{'memory':1}}}}}",
     "metadata.name: Invalid value: \"a.b\": a DNS-1035 label"},
    {"api version", "{'apiVersion':'0.3.0','name':'x','spec':{'operator':'jax','image':'i',"
                    "'command':'c','types':{'worker':{'resources':{'memory':1}}}}}",
     "apiVersion: Unsupported value: \"0.3.0\": supported values: \"0.2.x\""},
};

static void test_aichor_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(aichor_errors) / sizeof(aichor_errors[0]); i++) {
        const struct ecase *k = &aichor_errors[i];
        struct ferr_list errs;
        ferr_list_init(&errs);
        json_t *doc = tu_qjson(k->input);
        json_t *got = conv_aichor(doc, "fallback", &errs);
        assert_one_error(got, &errs, k->name, k->want);
        json_decref(doc);
        ferr_list_release(&errs);
    }
}

/* A name taken from the file must be valid too; the message says where it came from. */
static void test_aichor_fallback_name(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *doc = tu_qjson("{'spec':{'operator':'jax','image':'i','command':'c','types':{'worker':{"
                      "'resources':{'memory':1}}}}}");
    json_t *got = conv_aichor(doc, "my_job", &errs);
    assert_one_error(got, &errs, "fallback", "name: Invalid value: \"my_job\": a DNS-1035");
    tu_assert_ferr(&errs, "(the manifest has no name, so jaxset took it from the file name");
    ferr_list_release(&errs);
    ferr_list_init(&errs);
    got = conv_aichor(doc, NULL, &errs);
    assert_one_error(got, &errs, "no name", "name: Required value");
    json_decref(doc);
    ferr_list_release(&errs);
}

/* Errors already in the list are kept and do not make a valid input fail. */
static void test_errors_appended(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    assert_int_equal(ferr_add(&errs, FERR_INVALID, "earlier", NULL, "x"), 0);
    json_t *doc = tu_qjson("{'spec':{'operator':'jax','image':'i','command':'c','types':{'worker':{"
                      "'resources':{'memory':1}}}}}");
    json_t *got = conv_aichor(doc, "ok", &errs);
    assert_non_null(got);
    assert_int_equal(errs.n, 1);
    json_decref(got);
    json_decref(doc);
    ferr_list_release(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jaxjob_minimal),
        cmocka_unit_test(test_jaxjob_full),
        cmocka_unit_test(test_jaxjob_restart_always),
        cmocka_unit_test(test_jaxjob_restart_exit_code),
        cmocka_unit_test(test_jaxjob_restart_never),
        cmocka_unit_test(test_jaxjob_errors),
        cmocka_unit_test(test_jaxjob_without_containers_two_errors),
        cmocka_unit_test(test_trainjob_minimal),
        cmocka_unit_test(test_trainjob_runtime_defaults),
        cmocka_unit_test(test_trainjob_overrides),
        cmocka_unit_test(test_trainjob_errors),
        cmocka_unit_test(test_aichor_minimal),
        cmocka_unit_test(test_aichor_full),
        cmocka_unit_test(test_aichor_names),
        cmocka_unit_test(test_aichor_resources),
        cmocka_unit_test(test_aichor_errors),
        cmocka_unit_test(test_aichor_fallback_name),
        cmocka_unit_test(test_errors_appended),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
