/* js_validate: one small JobSet per case (a base JobSet plus a few path=value mutations), each
 * asserting the exact error line Kubernetes / the JobSet webhook would give, and the valid
 * examples of kubernetes-sigs/jobset (site/static/examples). */
#include "api/jobset/jobset.h"
#include "testutil.h"

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Table rows leave the trailing fields (count, raw) out when they are zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* ---- helpers: single-quoted JSON, <<N:c>> repetition, path=value mutations ---------------- */

/* Copies s, expanding "<<N:c>>" into N copies of c and, when `quotes`, ' into ". */
static char *expand(const char *s, bool quotes)
{
    size_t cap = strlen(s) + 1, n = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    while (*s) {
        size_t rep = 1;
        char ch = *s;
        char *end;
        if (strncmp(s, "<<", 2) == 0 && (rep = strtoul(s + 2, &end, 10)) && *end == ':') {
            ch = end[1];
            s = end + 4; /* ":c>>" */
        } else {
            rep = 1;
            s++;
        }
        if (quotes && ch == '\'')
            ch = '"';
        if (n + rep + 1 > cap) {
            cap = (n + rep + 1) * 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        memset(out + n, ch, rep);
        n += rep;
    }
    out[n] = '\0';
    return out;
}

static json_t *qjson(const char *text)
{
    char *s = expand(text, true);
    json_t *v = tu_json(s);
    free(s);
    return v;
}

struct tok {
    bool idx;
    size_t i;
    char key[128];
};

/* "a.b[2].<x.y/z>" → a, b, [2], x.y/z */
static size_t tokenize(const char *p, struct tok *t, size_t max)
{
    size_t n = 0;
    while (*p && n < max) {
        if (*p == '.') {
            p++;
            continue;
        }
        struct tok *k = &t[n++];
        memset(k, 0, sizeof(*k));
        if (*p == '[') {
            char *end;
            k->idx = true;
            k->i = strtoul(p + 1, &end, 10);
            p = end + 1;
            continue;
        }
        const char *start = p;
        size_t len;
        if (*p == '<') {
            start = ++p;
            while (*p && *p != '>')
                p++;
            len = (size_t)(p - start);
            p += *p ? 1 : 0;
        } else {
            while (*p && *p != '.' && *p != '[')
                p++;
            len = (size_t)(p - start);
        }
        assert_true(len < sizeof(k->key));
        memcpy(k->key, start, len);
    }
    return n;
}

static json_t *descend(json_t *cur, const struct tok *t, const struct tok *next)
{
    json_t *c = t->idx ? json_array_get(cur, t->i) : json_object_get(cur, t->key);
    if (c)
        return c;
    c = next->idx ? json_array() : json_object();
    if (t->idx)
        json_array_append_new(cur, c);
    else
        json_object_set_new(cur, t->key, c);
    return c;
}

/* "path=json" (single quotes allowed) or "path=~" to delete. */
static void mutate(json_t *root, const char *mut)
{
    char *m = expand(mut, false);
    char *eq = strchr(m, '=');
    assert_non_null(eq);
    *eq = '\0';
    struct tok t[32];
    size_t n = tokenize(m, t, 32);
    json_t *cur = root;
    for (size_t i = 0; i + 1 < n; i++)
        cur = descend(cur, &t[i], &t[i + 1]);
    const struct tok *leaf = &t[n - 1];
    if (strcmp(eq + 1, "~") == 0) {
        if (leaf->idx)
            json_array_remove(cur, leaf->i);
        else
            json_object_del(cur, leaf->key);
    } else {
        json_t *v = qjson(eq + 1);
        if (!leaf->idx)
            json_object_set_new(cur, leaf->key, v);
        else if (leaf->i < json_array_size(cur))
            json_array_set_new(cur, leaf->i, v);
        else
            json_array_append_new(cur, v);
    }
    free(m);
}

static const char BASE[] =
    "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'js'},"
    "'spec':{'replicatedJobs':["
    "{'name':'a','template':{'spec':{'parallelism':2,'completions':2,"
    "'template':{'spec':{'containers':[{'name':'c'}]}}}}},"
    "{'name':'b','replicas':2,'template':{'spec':{'template':{'spec':"
    "{'containers':[{'name':'c'}]}}}}}]}}";

#define MAXMUT 4

struct vcase {
    const char *mut[MAXMUT];
    const char *want; /* one exact error line; a trailing '*' makes it a prefix */
    int n;            /* number of errors expected; 0 means 1 */
    bool raw;         /* skip js_default */
};

static int run_case(const struct vcase *c, struct ferr_list *l)
{
    json_t *js = qjson(BASE);
    for (size_t i = 0; i < MAXMUT && c->mut[i]; i++)
        mutate(js, c->mut[i]);
    if (!c->raw)
        assert_int_equal(js_default(js), 0);
    int rc = js_validate(js, l);
    json_decref(js);
    return rc;
}

static bool line_matches(const char *got, const char *want)
{
    size_t wn = strlen(want);
    if (wn && want[wn - 1] == '*')
        return strncmp(got, want, wn - 1) == 0 && strlen(got) > wn - 1;
    return strcmp(got, want) == 0;
}

static bool has_line(const struct ferr_list *l, const char *want)
{
    bool hit = false;
    for (size_t i = 0; i < l->n && !hit; i++) {
        char *s = ferr_format(&l->v[i]);
        hit = s && line_matches(s, want);
        free(s);
    }
    return hit;
}

/* ---- messages ------------------------------------------------------------------------------ */

#include "k8s_msgs.h"
#define JOB_TOO_LONG                                                                               \
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
#define POD_TOO_LONG                                                                               \
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
#define RULE_RE                                                                                    \
    "a failure policy rule name must start with an alphabetic character, optionally followed "     \
    "by a string of alphanumeric characters or '_,:', and must end with an alphanumeric "          \
    "character or '_'"
#define ACTIONS                                                                                    \
    "\"FailJobSet\", \"RestartJobSet\", \"RestartJobSetAndIgnoreMaxRestarts\", \"RestartJob\", "   \
    "\"RestartJobAndIgnoreMaxRestarts\""

#define RJ0 "spec.replicatedJobs[0]"
#define RJ1 "spec.replicatedJobs[1]"
#define JS0 RJ0 ".template.spec"
#define JS1 RJ1 ".template.spec"
#define PS0 JS0 ".template.spec"
#define PS1 JS1 ".template.spec"
#define C0 PS0 ".containers[0]"
#define FP "spec.failurePolicy"
#define R0 FP ".rules[0]"
#define VCP0 "spec.volumeClaimPolicies[0]"
#define T0 VCP0 ".templates[0]"
#define MOUNT(n) C0 ".volumeMounts=[{'name':'" n "','mountPath':'/d'}]"
#define CLAIM(n) "spec.volumeClaimPolicies=[{'templates':[{'metadata':{'name':'" n "'}}]}]"

static const struct vcase cases[] = {
    /* resource basics and metadata */
    {{"apiVersion='batch/v1'"},
     "apiVersion: Unsupported value: \"batch/v1\": supported values: \"jobset.x-k8s.io/v1alpha2\""},
    {{"apiVersion=~"}, "apiVersion: Required value"},
    {{"kind='Job'"}, "kind: Unsupported value: \"Job\": supported values: \"JobSet\""},
    {{"kind=3"}, "kind: Invalid value: 3: must be of type string"},
    {{"metadata.name=~"}, "metadata.name: Required value: name or generateName is required"},
    {{"metadata.name=''"}, "metadata.name: Required value: name or generateName is required"},
    {{"metadata=~"}, "metadata.name: Required value: name or generateName is required"},
    {{"metadata.name='Js'"}, "metadata.name: Invalid value: \"Js\": " S1123, 4},
    {{"metadata.name=~", "metadata.generateName='Js-'"},
     "metadata.generateName: Invalid value: \"Js-\": " S1123,
     4},
    {{"metadata.name=~", "metadata.generateName='<<60:g>>-'"},
     RJ1 ".name: Invalid value: \"<<58:g>>bcdfg-b-1\": " JOB_TOO_LONG,
     3},
    {{"metadata.namespace='Team'"}, "metadata.namespace: Invalid value: \"Team\": " L1123},
    {{"metadata.namespace=''"}, "metadata.namespace: Required value", 3, true},
    {{"metadata.labels={'a b':'x'}"}, "metadata.labels: Invalid value: \"a b\": name part " QNAME},
    {{"metadata.labels={'app':'-x'}"}, "metadata.labels: Invalid value: \"-x\": " LVAL},
    {{"metadata.labels={'app':1}"},
     "metadata.labels[app]: Invalid value: 1: must be of type string"},
    {{"metadata.annotations={'a/b/c':'x'}"},
     "metadata.annotations: Invalid value: \"a/b/c\": a qualified name " QNAME
     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
    {{"metadata.annotations={'Example.COM/Key':'x'}"}, NULL, -1},
    /* spec and replicated jobs */
    {{"spec=~"}, "spec: Required value"},
    {{"spec.replicatedJobs=~"}, NULL, -1}, /* optional, as upstream's CRD */
    {{"spec.replicatedJobs={}"}, "spec.replicatedJobs: Invalid value: {}: must be of type array"},
    {{"spec.replicatedJobs[2]=3"},
     "spec.replicatedJobs[2]: Invalid value: 3: must be of type object"},
    {{"spec.replicatedJobs[1].name=~"}, RJ1 ".name: Required value"},
    {{"spec.replicatedJobs[1].name=''"}, RJ1 ".name: Required value"},
    {{"spec.replicatedJobs[1].name='a'"}, RJ1 ".name: Duplicate value: \"a\""},
    {{"spec.replicatedJobs[0].replicas=-1"},
     RJ0 ".replicas: Invalid value: -1: must be greater than or equal to 0"},
    {{"spec.replicatedJobs[0].replicas='two'"},
     RJ0 ".replicas: Invalid value: \"two\": must be of type integer"},
    {{"spec.replicatedJobs[0].replicas=1.5"},
     RJ0 ".replicas: Invalid value: 1.5: must be of type integer"},
    {{"spec.replicatedJobs[0].replicas=3000000000"},
     RJ0 ".replicas: Invalid value: 3000000000: must be a 32-bit integer"},
    {{"spec.replicatedJobs[0].replicas=2000000000"},
     RJ0 ".replicas: Invalid value: 2000000000: the product of replicas and parallelism must "
         "not exceed 2147483647 for replicatedJob 'a'"},
    {{"spec.replicatedJobs[0].groupName='Group'"},
     RJ0 ".groupName: Invalid value: \"Group\": " L1035},
    {{"spec.replicatedJobs[0].groupName='<<64:g>>'"},
     RJ0 ".groupName: Invalid value: \"<<64:g>>\": .spec.replicatedJob[].groupName is too long, "
         "must be less than 63 characters"},
    {{"spec.replicatedJobs[0].groupName=5"},
     RJ0 ".groupName: Invalid value: 5: must be of type string"},
    {{"metadata.name='<<55:j>>'"},
     RJ0 ".name: Invalid value: \"<<55:j>>-a-0-1-abcde\": " POD_TOO_LONG},
    {{"metadata.name='<<60:j>>'"}, RJ1 ".name: Invalid value: \"<<60:j>>-b-1\": " JOB_TOO_LONG, 3},
    {{"metadata.name='js.v1'"}, RJ1 ".name: Invalid value: \"js.v1-b-1\": " L1035, 3},
    {{"spec.replicatedJobs[1].name='B'"}, RJ1 ".name: Invalid value: \"js-B-1\": " L1035},
    /* dependsOn and startup policy */
    {{"spec.replicatedJobs[0].dependsOn=[{'name':'b','status':'Ready'}]"},
     RJ0 ".dependsOn: Invalid value: [{\"name\":\"b\",\"status\":\"Ready\"}]: DependsOn can't be "
         "set for the first ReplicatedJob"},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'x','status':'Ready'}]"},
     RJ1 ".dependsOn[0].name: Invalid value: \"x\": replicatedJob: b cannot depend on "
         "replicatedJob: x"},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'b','status':'Ready'}]"},
     RJ1 ".dependsOn[0].name: Invalid value: \"b\": replicatedJob: b cannot depend on "
         "replicatedJob: b"},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'a','status':'Started'}]"},
     RJ1 ".dependsOn[0].status: Unsupported value: \"Started\": supported values: \"Ready\", "
         "\"Complete\""},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'a'}]"},
     RJ1 ".dependsOn[0].status: Required value"},
    {{"spec.replicatedJobs[1].dependsOn=[{'status':'Ready'}]"},
     RJ1 ".dependsOn[0].name: Required value"},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'a','status':'Ready'},{'name':'a','status':"
      "'Complete'}]"},
     RJ1 ".dependsOn[1].name: Duplicate value: \"a\""},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'a','status':'Ready'},{'name':'a','status':"
      "'Ready'},{'name':'a','status':'Ready'},{'name':'a','status':'Ready'},{'name':'a',"
      "'status':'Ready'},{'name':'a','status':'Ready'}]"},
     RJ1 ".dependsOn: Too many: 6: must have at most 5 items",
     6},
    {{"spec.startupPolicy={'startupPolicyOrder':'InOrder'}",
      "spec.replicatedJobs[1].dependsOn=[{'name':'a','status':'Complete'}]"},
     "spec: Invalid value: \"object\": StartupPolicy and DependsOn APIs are mutually exclusive"},
    {{"spec.startupPolicy={'startupPolicyOrder':'Random'}"},
     "spec.startupPolicy.startupPolicyOrder: Unsupported value: \"Random\": supported values: "
     "\"AnyOrder\", \"InOrder\""},
    {{"spec.startupPolicy={}"}, "spec.startupPolicy.startupPolicyOrder: Required value"},
    /* success policy */
    {{"spec.successPolicy={'operator':'Some'}"},
     "spec.successPolicy.operator: Unsupported value: \"Some\": supported values: \"All\", "
     "\"Any\""},
    {{"spec.successPolicy={}"}, "spec.successPolicy.operator: Required value"},
    {{"spec.successPolicy={'operator':'All','targetReplicatedJobs':['a','zz']}"},
     "spec.successPolicy.targetReplicatedJobs[1]: Invalid value: \"zz\": invalid replicatedJob "
     "name 'zz' does not appear in .spec.ReplicatedJobs"},
    {{"spec.successPolicy={'operator':'Any','targetReplicatedJobs':[1]}"},
     "spec.successPolicy.targetReplicatedJobs[0]: Invalid value: 1: must be of type string"},
    /* network, managedBy, TTL, suspend */
    {{"spec.network.subdomain='My_Sub'"},
     "spec.network.subdomain: Invalid value: \"My_Sub\": " L1035,
     2},
    {{"spec.network.subdomain='My_Sub'"},
     "spec.network.subdomain: Invalid value: \"My_Sub\": " S1123,
     2},
    {{"spec.network.subdomain='<<64:s>>'"},
     "spec.network.subdomain: Invalid value: \"<<64:s>>\": .spec.network.subdomain is too long, "
     "must be less than 63 characters"},
    {{"spec.network.subdomain='a.b'"}, "spec.network.subdomain: Invalid value: \"a.b\": " L1035},
    {{"spec.network.subdomain='1abc'"}, "spec.network.subdomain: Invalid value: \"1abc\": " L1035},
    {{"spec.network.enableDNSHostnames='yes'"},
     "spec.network.enableDNSHostnames: Invalid value: \"yes\": must be of type boolean"},
    {{"spec.managedBy='my-controller'"},
     "spec.managedBy: Invalid value: \"my-controller\": must be a domain-prefixed path (such as "
     "\"acme.io/foo\")"},
    {{"spec.managedBy='example.com/<<60:x>>'"},
     "spec.managedBy: Too long: may not be more than 63 bytes"},
    {{"spec.managedBy=''"}, "spec.managedBy: Required value"},
    {{"spec.ttlSecondsAfterFinished=-5"},
     "spec.ttlSecondsAfterFinished: Invalid value: -5: must be greater than or equal to 0"},
    {{"spec.suspend='true'"}, "spec.suspend: Invalid value: \"true\": must be of type boolean"},
    /* failure policy */
    {{"spec.failurePolicy={'maxRestarts':-1}"},
     FP ".maxRestarts: Invalid value: -1: must be greater than or equal to 0"},
    {{"spec.failurePolicy={'restartStrategy':'Restart'}"},
     FP ".restartStrategy: Unsupported value: \"Restart\": supported values: \"Recreate\", "
        "\"BlockingRecreate\", \"InPlaceRestart\""},
    {{"spec.failurePolicy={'restartStrategy':'InPlaceRestart'}"},
     FP ".restartStrategy: Invalid value: \"InPlaceRestart\": InPlaceRestart restart strategy "
        "cannot be set when InPlaceRestart feature gate is disabled (turn it on with "
        "--feature-gates=InPlaceRestart=true)"},
    {{"spec.failurePolicy={'rules':[{'name':'r','action':'Explode'}]}"},
     R0 ".action: Unsupported value: \"Explode\": supported values: " ACTIONS},
    {{"spec.failurePolicy={'rules':[{'name':'r'}]}"}, R0 ".action: Required value"},
    {{"spec.failurePolicy={'rules':[{'name':'r','action':'FailJobSet'},{'name':'2',"
      "'action':'RestartJob','targetReplicatedJobs':['zz']}]}"},
     FP ".rules[1].action: Invalid value: \"RestartJob\": RestartJob and "
        "RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob "
        "feature gate is disabled (turn it on with --feature-gates=RestartJob=true)"},
    {{"spec.failurePolicy={'rules':[{'name':'1rule','action':'FailJobSet'}]}"},
     R0 ".name: Invalid value: \"1rule\": invalid failure policy rule name '1rule', " RULE_RE},
    {{"spec.failurePolicy={'rules':[{'name':'rule:','action':'FailJobSet'}]}"},
     R0 ".name: Invalid value: \"rule:\": invalid failure policy rule name 'rule:', " RULE_RE},
    {{"spec.failurePolicy={'rules':[{'name':'<<129:r>>','action':'FailJobSet'}]}"},
     R0 ".name: Invalid value: \"<<129:r>>\": invalid failure policy rule name of length 129, the "
        "rule name must be at least 1 characters long and at most 128 characters long"},
    {{"spec.failurePolicy={'rules':[{'name':'r','action':'FailJobSet'},{'name':'x','action':"
      "'FailJobSet'},{'name':'r','action':'RestartJobSet'}]}"},
     FP ".rules[2].name: Invalid value: \"r\": rule names are not unique, rules with indices [0 "
        "2] all have the same name 'r'"},
    {{"spec.failurePolicy={'rules':[{'name':'r','action':'FailJobSet','targetReplicatedJobs':"
      "['a','zz']}]}"},
     R0 ".targetReplicatedJobs[1]: Invalid value: \"zz\": invalid replicatedJob name 'zz' in "
        "failure policy does not appear in .spec.ReplicatedJobs"},
    {{"spec.failurePolicy={'rules':[{'name':'r','action':'FailJobSet','onJobFailureReasons':"
      "['Oops']}]}"},
     R0 ".onJobFailureReasons[0]: Invalid value: \"Oops\": invalid job failure reason 'Oops' in "
        "failure policy is not a recognized job failure reason"},
    {{"spec.failurePolicy={'rules':{}}"}, FP ".rules: Invalid value: {}: must be of type array"},
    /* coordinator */
    {{"spec.coordinator={'replicatedJob':'nope'}"},
     "spec.coordinator.replicatedJob: Invalid value: \"nope\": coordinator replicatedJob nope "
     "does not exist"},
    {{"spec.coordinator={'jobIndex':0}"}, "spec.coordinator.replicatedJob: Required value"},
    {{"spec.coordinator={'replicatedJob':'a','jobIndex':1}"},
     "spec.coordinator.jobIndex: Invalid value: 1: coordinator job index 1 is invalid for "
     "replicatedJob a"},
    {{"spec.coordinator={'replicatedJob':'a','jobIndex':-1}"},
     "spec.coordinator.jobIndex: Invalid value: -1: coordinator job index -1 is invalid for "
     "replicatedJob a"},
    {{"spec.coordinator={'replicatedJob':'b'}"},
     "spec.coordinator.replicatedJob: Invalid value: \"b\": job for coordinator pod must be "
     "indexed completion mode, and completions number must be set"},
    {{"spec.coordinator={'replicatedJob':'a'}", JS0 ".completionMode='NonIndexed'"},
     "spec.coordinator.replicatedJob: Invalid value: \"a\": job for coordinator pod must be "
     "indexed completion mode, and completions number must be set"},
    {{"spec.coordinator={'replicatedJob':'a','podIndex':2}"},
     "spec.coordinator.podIndex: Invalid value: 2: coordinator pod index 2 is invalid for "
     "replicatedJob a job index 0"},
    {{"spec.coordinator={'replicatedJob':'a'}", "spec.network.subdomain='<<60:s>>'"},
     "spec.coordinator: Invalid value: spec will lead to invalid label value "
     "\"js-a-0-0.<<60:s>>\" for coordinator label \"jobset.sigs.k8s.io/coordinator\" (long "
     "JobSet / ReplicatedJob / SubDomain name?): must be no more than 63 characters"},
    {{"spec.coordinator={'replicatedJob':'a','jobIndex':'x'}"},
     "spec.coordinator.jobIndex: Invalid value: \"x\": must be of type integer"},
    /* volumeClaimPolicies */
    {{CLAIM("data")},
     "spec.replicatedJobs: Invalid value: replicatedJob containers don't have a matching "
     "volumeMount: data from VolumeClaimPolicies"},
    {{"spec.volumeClaimPolicies=[{'templates':[{'metadata':{'name':'data','namespace':'x'}}]}]",
      MOUNT("data")},
     VCP0 ": Invalid value: \"object\": namespace cannot be set for VolumeClaimPolicies "
          "templates"},
    {{"spec.volumeClaimPolicies=[{'templates':[{'metadata':{'name':'data','namespace':''}}]}]",
      MOUNT("data")},
     NULL, -1},
    {{"spec.volumeClaimPolicies=[{'templates':[{'metadata':{'name':'data'}}]},{'templates':["
      "{'metadata':{'name':'data'}}]}]",
      MOUNT("data")},
     "spec.volumeClaimPolicies[1].template[0].name: Invalid value: \"data\": names "
     "must be unique for VolumeClaimPolicies template"},
    {{CLAIM("Data"), MOUNT("Data")}, VCP0 ".template[0].name: Invalid value: \"Data\": " S1123},
    {{CLAIM("<<61:d>>"), MOUNT("<<61:d>>")},
     VCP0 ".template[0].name: Invalid value: \"<<61:d>>\": VolumeClaimPolicies template name is too "
        "long"},
    {{CLAIM("data"), MOUNT("data"), PS0 ".volumes=[{'name':'data'}]"},
     PS0 ".volumes[0].name: Invalid value: \"data\": volume name conflicts with VolumeClaimPolicy "
         "template name: data"},
    {{"spec.volumeClaimPolicies=[{'templates':[],'retentionPolicy':{'whenDeleted':'Keep'}}]"},
     VCP0 ".retentionPolicy.whenDeleted: Unsupported value: \"Keep\": supported values: "
          "\"Delete\", \"Retain\""},
    {{"spec.volumeClaimPolicies=[{}]"}, VCP0 ".templates: Required value"},
    {{"spec.volumeClaimPolicies=[{'templates':[{'spec':{}}]}]"},
     T0 ".metadata.name: Required value"},
    /* batch/v1 Job template */
    {{PS0 ".containers=~"}, PS0 ".containers: Required value"},
    {{PS0 ".containers=[]"}, PS0 ".containers: Required value"},
    {{RJ1 ".template=~"}, RJ1 ".template: Required value"},
    {{RJ1 ".template={}"}, PS1 ".containers: Required value"},
    {{RJ1 ".template.spec=3"}, JS1 ": Invalid value: 3: must be of type object"},
    {{PS0 ".containers=[{'image':'x'}]"}, C0 ".name: Required value"},
    {{PS0 ".containers=[{'name':'C_1'}]"}, C0 ".name: Invalid value: \"C_1\": " L1123},
    {{PS0 ".containers=[{'name':'c'},{'name':'c'}]"},
     PS0 ".containers[1].name: Duplicate value: \"c\""},
    {{PS0 ".initContainers=[{'name':'c'}]"}, C0 ".name: Duplicate value: \"c\""},
    {{PS0 ".restartPolicy='Always'"},
     PS0 ".restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", "
         "\"Never\""},
    {{NULL}, PS1 ".restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"", 2, true},
    {{JS0 ".podFailurePolicy={'rules':[]}"},
     PS0 ".restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is supported when "
         "podFailurePolicy is specified"},
    {{JS0 ".parallelism=-1"},
     JS0 ".parallelism: Invalid value: -1: must be greater than or equal to 0"},
    {{JS0 ".completions=-1"},
     JS0 ".completions: Invalid value: -1: must be greater than or equal to 0"},
    {{JS0 ".backoffLimit=-1"},
     JS0 ".backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
    {{JS0 ".activeDeadlineSeconds=-1"},
     JS0 ".activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"},
    {{JS0 ".completionMode='Ordered'"},
     JS0 ".completionMode: Unsupported value: \"Ordered\": supported values: \"NonIndexed\", "
         "\"Indexed\""},
    {{JS1 ".parallelism=3"}, JS1 ".completions: Required value: when completion mode is Indexed"},
    {{JS0 ".completions=100001"},
     JS0 ".completions: Invalid value: 100001: must be less than or equal to 100000 when "
         "completion mode is Indexed"},
    {{JS0 ".parallelism=100001"},
     JS0 ".parallelism: Invalid value: 100001: must be less than or equal to 100000 when "
         "completion mode is Indexed"},
    {{JS0 ".completionMode='NonIndexed'", JS0 ".backoffLimitPerIndex=1"},
     JS0 ".backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"},
    {{JS0 ".maxFailedIndexes=1"},
     JS0 ".backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"},
    {{JS0 ".podReplacementPolicy='Always'"},
     JS0 ".podReplacementPolicy: Unsupported value: \"Always\": supported values: \"Failed\", "
         "\"TerminatingOrFailed\""},
    {{C0 ".env=[{'value':'1'}]"}, C0 ".env[0].name: Required value"},
    {{C0 ".env=[{'name':'A=B'}]"},
     C0 ".env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist "
        "only of printable ASCII characters other than '='"},
    {{C0 ".ports=[{'containerPort':0}]"}, C0 ".ports[0].containerPort: Required value"},
    {{C0 ".ports=[{'name':'http'}]"}, C0 ".ports[0].containerPort: Required value"},
    {{C0 ".ports=[{'containerPort':70000}]"},
     C0 ".ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"},
    {{C0 ".ports=[{'containerPort':80,'protocol':'HTTP'}]"},
     C0 ".ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", "
        "\"UDP\""},
    {{C0 ".command='python x.py'"},
     C0 ".command: Invalid value: \"python x.py\": must be of type array"},
    {{C0 ".args=[1]"}, C0 ".args[0]: Invalid value: 1: must be of type string"},
    {{C0 ".volumeMounts=[{'name':'v'}]", PS0 ".volumes=[{'name':'v'}]"},
     C0 ".volumeMounts[0].mountPath: Required value"},
    /* volumes and volumeMounts (kubernetes ValidateVolumeMounts, validateVolumeSources) */
    {{MOUNT("v")}, C0 ".volumeMounts[0].name: Not found: \"v\""},
    {{PS0 ".volumes=[{'name':'v'}]",
      C0 ".volumeMounts=[{'name':'v','mountPath':'/d'},{'name':'v','mountPath':'/d'}]"},
     C0 ".volumeMounts[1].mountPath: Invalid value: \"/d\": must be unique"},
    {{PS0 ".volumes=[{'name':'v'}]", C0 ".volumeMounts=[{'name':'v','mountPath':'/d','subPath':'/a'}]"},
     C0 ".volumeMounts[0].subPath: Invalid value: \"/a\": must be a relative path"},
    {{PS0 ".volumes=[{'name':'v'}]",
      C0 ".volumeMounts=[{'name':'v','mountPath':'/d','subPath':'a/../..'}]"},
     C0 ".volumeMounts[0].subPath: Invalid value: \"a/../..\": must not contain '..'"},
    {{PS0 ".volumes=[{'name':'v','emptyDir':{},'hostPath':{'path':'/x'}}]"},
     PS0 ".volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"},
    {{PS0 ".initContainers=[{'name':'i','command':['x'],'volumeMounts':[{'name':'w','mountPath':'/d'}]}]"},
     PS0 ".initContainers[0].volumeMounts[0].name: Not found: \"w\""},
    {{PS0 ".volumes=[{'name':'v'},{'name':'v'}]"}, PS0 ".volumes[1].name: Duplicate value: \"v\""},
    {{PS0 ".volumes=[{'name':'V'}]"}, PS0 ".volumes[0].name: Invalid value: \"V\": " L1123},
    {{JS0 ".template.metadata.labels={'app':'-x'}"},
     JS0 ".template.metadata.labels: Invalid value: \"-x\": " LVAL},
    {{RJ0 ".template.metadata.labels={'<<64:k>>':'x'}"},
     RJ0 ".template.metadata.labels: Invalid value: \"<<64:k>>\": name part must be no more "
         "than 63 characters"},
};

static void test_cases(void **state)
{
    (void)state;
    size_t errors = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct vcase *c = &cases[i];
        struct ferr_list l;
        ferr_list_init(&l);
        int rc = run_case(c, &l);
        int want_n = c->n == 0 ? 1 : (c->n < 0 ? 0 : c->n);
        char *want = c->want ? expand(c->want, false) : NULL;
        bool ok = rc == (int)l.n && rc == want_n && (!want || has_line(&l, want));
        if (!ok) {
            print_error("case %zu (%s): rc=%d, %zu errors, want %d with\n  %s\ngot:\n%s\n", i,
                        c->mut[0] ? c->mut[0] : "-", rc, l.n, want_n, want ? want : "-",
                        tu_ferrs(&l));
            errors++;
        }
        free(want);
        ferr_list_release(&l);
    }
    if (errors)
        fail_msg("%zu of %zu cases failed", errors, sizeof(cases) / sizeof(cases[0]));
}

/* ---- valid JobSets ------------------------------------------------------------------------- */

#define HDR(name)                                                                                  \
    "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'" name "'},"

static const char *const valid_docs[] = {
    /* simple/paralleljobs.yaml */
    HDR("paralleljobs") "'spec':{'replicatedJobs':["
                        "{'name':'workers','template':{'spec':{'parallelism':4,'completions':4,'"
                        "backoffLimit':0,"
                        "'template':{'spec':{'containers':[{'name':'sleep','image':'busybox','"
                        "command':['sleep'],"
                        "'args':['100s']}]}}}}},"
                        "{'name':'driver','template':{'spec':{'parallelism':1,'completions':1,'"
                        "backoffLimit':0,"
                        "'template':{'spec':{'containers':[{'name':'sleep','image':'busybox','"
                        "command':['sleep'],"
                        "'args':['100s']}]}}}}}]}}",
    /* tpu-multislice/v6e-jax-workload.yaml */
    "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'v6e-multislice',"
    "'labels':{'kueue.x-k8s.io/queue-name':'multislice-queue'},'annotations':{"
    "'alpha.jobset.sigs.k8s.io/exclusive-topology':'cloud.google.com/gke-nodepool'}},"
    "'spec':{'failurePolicy':{'maxRestarts':4},'replicatedJobs':[{'name':'slice','replicas':2,"
    "'template':{'spec':{'parallelism':4,'completions':4,'backoffLimit':0,'template':{'spec':{"
    "'hostNetwork':true,'dnsPolicy':'ClusterFirstWithHostNet','nodeSelector':{"
    "'cloud.google.com/gke-tpu-accelerator':'tpu-v6e-slice','cloud.google.com/gke-tpu-topology':"
    "'4x4'},'containers':[{'name':'jax-tpu','image':'us-docker.pkg.dev/cloud-tpu-images/"
    "jax-ai-image/tpu:latest','securityContext':{'privileged':true},'command':['bash','-c',"
    "'python3 -c \\\"import jax; jax.distributed.initialize(); print(jax.device_count())\\\"'],"
    "'resources':{'limits':{'google.com/tpu':4}}}]}}}}}]}}",
    /* pytorch/cnn-mnist/mnist.yaml */
    HDR("pytorch") "'spec':{'replicatedJobs':[{'name':'workers','template':{'spec':{"
                   "'parallelism':4,'completions':4,'backoffLimit':0,'template':{'spec':{'"
                   "containers':[{"
                   "'name':'pytorch','image':'gcr.io/k8s-staging-jobset/"
                   "pytorch-mnist:latest','ports':[{"
                   "'containerPort':3389}],'env':[{'name':'MASTER_ADDR','value':'pytorch-workers-0-"
                   "0.pytorch'},"
                   "{'name':'MASTER_PORT','value':'3389'},{'name':'RANK','valueFrom':{'fieldRef':{'"
                   "fieldPath':"
                   "'metadata.annotations[batch.kubernetes.io/"
                   "job-completion-index]'}}}],'command':['bash',"
                   "'-xc','torchrun --nnodes=4 mnist.py']}]}}}}}]}}",
    /* failure-policy/host-maintenance-event-model.yaml */
    HDR("host-maintenance-event-model") "'spec':{'failurePolicy':{'maxRestarts':0,'rules':["
                                        "{'action':'RestartJobSetAndIgnoreMaxRestarts','"
                                        "onJobFailureReasons':['PodFailurePolicy']},"
                                        "{'action':'RestartJobSet','targetReplicatedJobs':['leader'"
                                        "]}]},'replicatedJobs':["
                                        "{'name':'leader','replicas':1,'template':{'spec':{'"
                                        "backoffLimit':0,'completions':2,"
                                        "'parallelism':2,'podFailurePolicy':{'rules':[{'action':'"
                                        "FailJob','onPodConditions':[{"
                                        "'type':'DisruptionTarget'}]}]},'template':{'spec':{'"
                                        "restartPolicy':'Never','containers':[{"
                                        "'name':'leader','image':'bash:latest','command':['bash','-"
                                        "c','sleep 1000']}]}}}}},"
                                        "{'name':'workers','replicas':1,'template':{'spec':{'"
                                        "backoffLimit':0,'completions':2,"
                                        "'parallelism':2,'template':{'spec':{'containers':[{'name':"
                                        "'worker','image':'bash:latest',"
                                        "'command':['bash','-c','sleep 1000']}]}}}}}]}}",
    /* a failure-policy variant */
    HDR("simple") "'spec':{'failurePolicy':{'restartStrategy':'BlockingRecreate','maxRestarts':3},"
                  "'replicatedJobs':[{'name':'w','template':{'spec':{'template':{'spec':{'"
                  "containers':[{"
                  "'name':'c'}]}}}}}]}}",
    /* simple/success-policy.yaml */
    HDR("success-policy") "'spec':{'successPolicy':{'operator':'All','targetReplicatedJobs':["
                          "'workers']},'replicatedJobs':[{'name':'leader','replicas':1,'template':{"
                          "'spec':{"
                          "'backoffLimit':0,'completions':1,'parallelism':1,'template':{'spec':{'"
                          "containers':[{"
                          "'name':'leader','image':'bash:latest','command':['bash','-xc','sleep "
                          "10000']}]}}}}},"
                          "{'name':'workers','replicas':1,'template':{'spec':{'backoffLimit':0,'"
                          "completions':2,"
                          "'parallelism':2,'template':{'spec':{'containers':[{'name':'worker','"
                          "image':'bash:latest',"
                          "'command':['bash','-xc','sleep 10']}]}}}}}]}}",
    /* startup-policy/startup-driver-ready.yaml (InOrder) */
    HDR("startup-driver-ready") "'spec':{'startupPolicy':{'startupPolicyOrder':'InOrder'},"
                                "'replicatedJobs':[{'name':'driver','template':{'spec':{'"
                                "parallelism':1,'completions':1,"
                                "'backoffLimit':0,'template':{'spec':{'containers':[{'name':'sleep'"
                                ",'image':'busybox',"
                                "'command':['sleep'],'args':['1000s'],'readinessProbe':{'exec':{'"
                                "command':['echo','ready']},"
                                "'initialDelaySeconds':30}}]}}}}},{'name':'workers','template':{'"
                                "spec':{'parallelism':4,"
                                "'completions':4,'backoffLimit':0,'template':{'spec':{'containers':"
                                "[{'name':'sleep',"
                                "'image':'busybox','command':['sleep'],'args':['100s']}]}}}}}]}}",
    /* depends-on/depends-on.yaml */
    HDR("depends-on") "'spec':{'replicatedJobs':[{'name':'initializer','template':{'spec':{"
                      "'template':{'spec':{'containers':[{'name':'initializer','image':'busybox','"
                      "command':["
                      "'/bin/sh','-c','sleep "
                      "10']}]}}}}},{'name':'launcher','dependsOn':[{'name':'initializer',"
                      "'status':'Complete'}],'template':{'spec':{'template':{'spec':{'containers':["
                      "{'name':"
                      "'launcher','image':'busybox','command':['/bin/sh','-c','sleep "
                      "20'],'startupProbe':{"
                      "'exec':{'command':['echo','started']},'initialDelaySeconds':5}}]}}}}},{'"
                      "name':'worker',"
                      "'dependsOn':[{'name':'launcher','status':'Ready'}],'template':{'spec':{'"
                      "parallelism':4,"
                      "'completions':4,'template':{'spec':{'containers':[{'name':'worker','image':'"
                      "busybox',"
                      "'command':['/bin/sh','-c','sleep 20']}]}}}}}]}}",
    /* simple/coordinator.yaml shape */
    HDR("coordinator-example") "'spec':{'coordinator':{'replicatedJob':'driver','jobIndex':0,"
                               "'podIndex':0},'replicatedJobs':[{'name':'driver','template':{'spec'"
                               ":{'parallelism':1,"
                               "'completions':1,'template':{'spec':{'containers':[{'name':'c'}]}}}}"
                               "},{'name':'workers',"
                               "'template':{'spec':{'parallelism':2,'completions':2,'template':{'"
                               "spec':{'containers':[{"
                               "'name':'c'}]}}}}}]}}",
    /* volume claim policy with a mount, network, group, TTL, managedBy, generateName */
    "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'generateName':"
    "'run-'},'spec':{'managedBy':'jobset.sigs.k8s.io/jobset-controller',"
    "'ttlSecondsAfterFinished':60,'suspend':false,'network':{'subdomain':'example',"
    "'enableDNSHostnames':true},'volumeClaimPolicies':[{'templates':[{'metadata':{'name':"
    "'data'},'spec':{'accessModes':['ReadWriteOnce']}}],'retentionPolicy':{'whenDeleted':"
    "'Retain'}}],'replicatedJobs':[{'name':'w','groupName':'trainers','replicas':3,'template':{"
    "'spec':{'completionMode':'NonIndexed','template':{'spec':{'restartPolicy':'Never',"
    "'initContainers':[{'name':'init','volumeMounts':[{'name':'data','mountPath':'/d'}]}],"
    "'containers':[{'name':'main','command':['true']}]}}}}}]}}",
};

static void test_valid_documents(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(valid_docs) / sizeof(valid_docs[0]); i++) {
        json_t *js = qjson(valid_docs[i]);
        struct ferr_list l;
        ferr_list_init(&l);
        assert_int_equal(js_default(js), 0);
        int rc = js_validate(js, &l);
        if (rc != 0)
            fail_msg("valid document %zu: rc=%d:\n%s", i, rc, tu_ferrs(&l));
        ferr_list_release(&l);
        json_decref(js);
    }
}

/* Mutations of the base JobSet that must stay valid. */
static const struct vcase valid_cases[] = {
    {{NULL}, NULL, -1},
    {{"metadata.name=~", "metadata.generateName='js-'"}, NULL, -1},
    {{"spec.replicatedJobs[0].replicas=2.0"}, NULL, -1},
    {{"spec.replicatedJobs[0].replicas=0"}, NULL, -1},
    {{"metadata.name='<<55:j>>'", JS0 ".completionMode='NonIndexed'"}, NULL, -1},
    {{"metadata.name='<<56:j>>'", JS1 ".completionMode='NonIndexed'",
      JS0 ".completionMode='NonIndexed'"},
     NULL,
     -1},
    {{"spec.replicatedJobs[1].dependsOn=[{'name':'a','status':'Ready'}]",
      "spec.startupPolicy={'startupPolicyOrder':'AnyOrder'}"},
     NULL,
     -1},
    {{"spec.successPolicy={'operator':'Any','targetReplicatedJobs':['a','b']}"}, NULL, -1},
    {{"spec.coordinator={'replicatedJob':'a','podIndex':1}"}, NULL, -1},
    {{"spec.failurePolicy={'rules':[{'name':'a_b:c,d_','action':'FailJobSet',"
      "'onJobFailureReasons':['BackoffLimitExceeded','DeadlineExceeded','FailedIndexes',"
      "'MaxFailedIndexesExceeded','PodFailurePolicy'],'onJobFailureMessagePatterns':["
      "'^Error: .*OOM','exit code [0-9]+'],'targetReplicatedJobs':['b']}]}"},
     NULL,
     -1},
    {{"spec.managedBy='kueue.x-k8s.io/multikueue'"}, NULL, -1},
    {{"spec.network.subdomain='<<63:s>>'"}, NULL, -1},
    {{C0 ".ports=[{'containerPort':65535,'hostPort':1,'protocol':'UDP'}]",
      C0 ".env=[{'name':'my.env-name'},{'name':'1_weird but printable'}]"},
     NULL,
     -1},
    {{
         PS0 ".restartPolicy='Never'",
         JS0 ".podFailurePolicy={'rules':[]}",
         JS0 ".podReplacementPolicy='Failed'",
         JS0 ".backoffLimitPerIndex=1",
     },
     NULL,
     -1},
    {{JS1 ".parallelism=3", JS1 ".completionMode='NonIndexed'"}, NULL, -1},
    {{"metadata.labels={'app.kubernetes.io/name':'x','empty':''}",
      "metadata.annotations={'Example.COM/Key':'any value'}"},
     NULL,
     -1},
};

static void test_valid_mutations(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
        struct ferr_list l;
        ferr_list_init(&l);
        int rc = run_case(&valid_cases[i], &l);
        if (rc != 0)
            fail_msg("valid case %zu (%s): rc=%d:\n%s", i,
                     valid_cases[i].mut[0] ? valid_cases[i].mut[0] : "base", rc, tu_ferrs(&l));
        ferr_list_release(&l);
    }
}

/* ---- odd shapes, maxItems, list handling --------------------------------------------------- */

static void test_not_an_object(void **state)
{
    (void)state;
    struct ferr_list l;
    ferr_list_init(&l);
    json_t *v = json_integer(3);
    assert_int_equal(js_validate(v, &l), 1);
    assert_string_equal(tu_ferrs(&l), "object: Invalid value: 3: must be of type object\n");
    json_decref(v);
    ferr_list_release(&l);
}

static void test_max_items(void **state)
{
    (void)state;
    json_t *js = qjson(BASE);
    json_t *pols = json_array(), *tmpls = json_array();
    for (int i = 0; i < 51; i++) {
        char name[16];
        snprintf(name, sizeof(name), "v%d", i);
        json_array_append_new(tmpls, json_pack("{s:{s:s}}", "metadata", "name", name));
        json_array_append_new(pols, json_pack("{s:[]}", "templates"));
    }
    json_object_set_new(json_array_get(pols, 0), "templates", tmpls);
    json_object_set_new(json_object_get(js, "spec"), "volumeClaimPolicies", pols);
    struct ferr_list l;
    ferr_list_init(&l);
    assert_int_equal(js_default(js), 0);
    int rc = js_validate(js, &l);
    /* 51 templates without a mount each give one error, plus the two maxItems errors */
    assert_int_equal(rc, 53);
    tu_assert_ferr(&l, "spec.volumeClaimPolicies: Too many: 51: must have at most 50 items");
    tu_assert_ferr(&l, "spec.volumeClaimPolicies[0].templates: Too many: 51: must have at most "
                       "50 items");
    ferr_list_release(&l);
    json_decref(js);
}

static void test_appends_to_existing_list(void **state)
{
    (void)state;
    struct ferr_list l;
    ferr_list_init(&l);
    assert_int_equal(ferr_add(&l, FERR_INTERNAL, "x", NULL, "earlier"), 0);
    json_t *js = qjson(BASE);
    json_object_set_new(js, "kind", json_string("Job"));
    assert_int_equal(js_default(js), 0);
    assert_int_equal(js_validate(js, &l), 1);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.v[0].path, "x");
    assert_string_equal(l.v[1].path, "kind");
    json_decref(js);
    ferr_list_release(&l);
}

/* Without defaulting a JobSet is still checked and nothing crashes on missing policies. */
static void test_undefaulted_base(void **state)
{
    (void)state;
    struct ferr_list l;
    ferr_list_init(&l);
    json_t *js = qjson(BASE);
    assert_int_equal(js_validate(js, &l), 2); /* the two restartPolicy Required */
    json_decref(js);
    ferr_list_release(&l);
}

/* Every field of the base and of the upstream examples, replaced by a value of every JSON type:
 * defaulting and validation never crash, and the count returned is the count added. */
static const char *const any_types[] = {"null", "'s'", "''", "0",   "-1",      "1.5",
                                        "true", "[]",  "{}", "[1]", "{'x':1}", "[{}]"};

static size_t check_shape(const json_t *root)
{
    json_t *c = json_deep_copy(root);
    struct ferr_list l;
    ferr_list_init(&l);
    assert_int_equal(js_default(c), 0);
    int rc = js_validate(c, &l);
    assert_true(rc >= 0);
    assert_int_equal((size_t)rc, l.n);
    ferr_list_release(&l);
    json_decref(c);
    return 1;
}

static size_t stress(json_t *root, json_t *node)
{
    size_t runs = 0;
    size_t n = json_is_object(node) ? json_object_size(node) : json_array_size(node);
    void *it = json_object_iter(node);
    for (size_t i = 0; i < n; i++) {
        json_t *orig = json_incref(it ? json_object_iter_value(it) : json_array_get(node, i));
        for (size_t k = 0; k < sizeof(any_types) / sizeof(any_types[0]); k++) {
            json_t *v = qjson(any_types[k]);
            if (it)
                json_object_iter_set_new(node, it, v);
            else
                json_array_set_new(node, i, v);
            runs += check_shape(root);
        }
        if (it)
            json_object_iter_set_new(node, it, orig);
        else
            json_array_set_new(node, i, orig);
        if (json_is_object(orig) || json_is_array(orig))
            runs += stress(root, orig);
        if (it)
            it = json_object_iter_next(node, it);
    }
    return runs;
}

static void test_every_field_every_type(void **state)
{
    (void)state;
    size_t runs = 0;
    for (size_t i = 0; i <= sizeof(valid_docs) / sizeof(valid_docs[0]); i++) {
        json_t *js = qjson(i == 0 ? BASE : valid_docs[i - 1]);
        if (i == 0) { /* reach the defaulted fields and the coordinator too */
            mutate(js, "spec.coordinator={'replicatedJob':'a'}");
            assert_int_equal(js_default(js), 0);
        }
        runs += stress(js, js);
        json_decref(js);
    }
    assert_true(runs > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_valid_documents),
        cmocka_unit_test(test_valid_mutations),
        cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_max_items),
        cmocka_unit_test(test_appends_to_existing_list),
        cmocka_unit_test(test_undefaulted_base),
        cmocka_unit_test(test_every_field_every_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
