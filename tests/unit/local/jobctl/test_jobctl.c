/* Local Job controller: one table of reconcile steps (Job, previous status, pods, now) →
 * (actions, status, next wake-up), plus the formatters, the spec checks and a simulated run. */
#include "local/jobctl/jobctl.h"
#include "obj/base/err.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
/* Job JSON with single quotes; fields end with a comma. */
#define JOB(rp, fields)                                                                            \
    "{'metadata':{'name':'x','namespace':'default'},'spec':{" fields                               \
    "'template':{'spec':{'restartPolicy':'" rp "','containers':[{'name':'jax'}]}}}}"
#define IDX(c, p) "'completionMode':'Indexed','completions':" #c ",'parallelism':" #p ","
#define NONIDX(c, p) "'completions':" #c ",'parallelism':" #p ","
#define BL(n) "'backoffLimit':" #n ","
#define ADS(n) "'activeDeadlineSeconds':" #n ","
#define PFP(rules) "'podFailurePolicy':{'rules':[" rules "]},"
#define EXIT_RULE(action, extra, op, vals)                                                         \
    "{'action':'" action "','onExitCodes':{" extra "'operator':'" op "','values':[" vals "]}}"
#define BLPI(n) "'backoffLimitPerIndex':" #n ","
#define MFI(n) "'maxFailedIndexes':" #n ","
#define SP(rules) "'successPolicy':{'rules':[" rules "]},"

#define RUN(i, st) {.index = (i), .phase = JOBCTL_RUNNING, .ready = true, .start_ms = (st)}
#define RUN_NR(i, st) {.index = (i), .phase = JOBCTL_RUNNING, .start_ms = (st)}
#define PEND(i, st) {.index = (i), .phase = JOBCTL_PENDING, .start_ms = (st)}
#define OK(i, fin) {.index = (i), .phase = JOBCTL_SUCCEEDED, .start_ms = 1000, .finish_ms = (fin)}
#define FAIL(i, code, fin)                                                                         \
    {.index = (i), .phase = JOBCTL_FAILED, .exit_code = (code), .start_ms = 1000,                  \
     .finish_ms = (fin)}
#define FAIL_SIG(i, sig, fin)                                                                      \
    {.index = (i), .phase = JOBCTL_FAILED, .signal = (sig), .start_ms = 1000, .finish_ms = (fin)}
#define KILLED(i, fin)                                                                             \
    {.index = (i), .phase = JOBCTL_FAILED, .terminating = true, .signal = 15, .start_ms = 1000,    \
     .finish_ms = (fin)}
#define DYING(i) {.index = (i), .phase = JOBCTL_RUNNING, .terminating = true, .start_ms = 1000}
#define WAIT(i, rc, st, fin)                                                                       \
    {.index = (i), .phase = JOBCTL_RUNNING, .waiting = true, .restart_count = (rc),               \
     .exit_code = 1, .start_ms = (st), .finish_ms = (fin)}

#define PV(s) {.start = (s)}
#define PVC(s, c, ms) {.start = (s), .cond = (c), .cond_ms = (ms)}
#define MAXPODS 6
#define NOPODS {{.index = 0}}

struct prev {
    int64_t start;    /* 0: no startTime */
    const char *cond; /* "Failed:<reason>", "Complete", "Suspended" or NULL */
    int64_t cond_ms;
};

struct case_ {
    const char *name;
    const char *job;
    struct prev prev;
    struct jobctl_pod pods[MAXPODS];
    size_t npods;
    int64_t now;
    const struct jobctl_config *cfg;
    const char *want_actions; /* "kill(1,Suspended) restart(0) start(2)" or "" */
    const char *want_status;  /* see summarize() */
    const char *want_msg;     /* exact Failed (else Complete) message, or error substring */
    int want_rc;
};

static const struct jobctl_config fast = {100, 300000, 100, 360000};

#define PFP_MSG(code, rule, at)                                                                    \
    "Container jax for pod default/x-0 failed with exit code " #code " matching " rule             \
    " rule at index " #at

static const struct case_ cases[] = {
    /* ---- Indexed ---- */
    {"indexed new job starts every index", JOB("Never", IDX(3, 3)), PV(0), NOPODS, 0, 1000, NULL,
     "start(0) start(1) start(2)",
     "a=3 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"indexed parallelism bounds the starts", JOB("Never", IDX(5, 2)), PV(0), NOPODS, 0, 1000, NULL,
     "start(0) start(1)", "a=2 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none",
     NULL, 0},
    {"indexed starts the lowest missing index", JOB("Never", IDX(5, 2)), PV(1000),
     {OK(0, 5000), RUN(1, 1000)}, 2, 6000, NULL, "start(2)",
     "a=2 r=1 s=1 f=0 t=0 idx='0' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"indexed skips succeeded and active indexes", JOB("Never", IDX(4, 4)), PV(1000),
     {OK(0, 5000), PEND(2, 1000)}, 2, 6000, NULL, "start(1) start(3)",
     "a=3 r=0 s=1 f=0 t=0 idx='0' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"indexed wanted pods capped by remaining completions", JOB("Never", IDX(3, 5)), PV(1000),
     {OK(0, 5000), OK(1, 5000)}, 2, 6000, NULL, "start(2)",
     "a=1 r=0 s=2 f=0 t=0 idx='0,1' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"indexed job completes", JOB("Never", IDX(3, 3)), PV(1000),
     {OK(0, 5000), OK(1, 6000), OK(2, 7000)}, 3, 8000, NULL, "",
     "a=0 r=0 s=3 f=0 t=0 idx='0-2' start=1000 done=8000 "
     "conds=[Complete=True:CompletionsReached@8000] wake=none", NULL, 0},
    {"indexed not complete while an index runs", JOB("Never", IDX(3, 3)), PV(1000),
     {OK(0, 5000), OK(1, 6000), RUN(2, 1000)}, 3, 8000, NULL, "",
     "a=1 r=1 s=2 f=0 t=0 idx='0,1' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"completedIndexes compresses three or more", JOB("Never", IDX(8, 0)), PV(1000),
     {OK(0, 2000), OK(1, 2000), OK(2, 2000), OK(4, 2000), OK(6, 2000), OK(7, 2000)}, 6, 3000, NULL,
     "", "a=0 r=0 s=6 f=0 t=0 idx='0-2,4,6,7' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"an index succeeded twice counts once", JOB("Never", IDX(2, 1)), PV(1000),
     {OK(0, 2000), OK(0, 3000)}, 2, 4000, NULL, "start(1)",
     "a=1 r=0 s=1 f=0 t=0 idx='0' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"index out of range is killed, nothing started", JOB("Never", IDX(2, 2)), PV(1000),
     {RUN(5, 1000), RUN(0, 1000)}, 2, 4000, NULL, "kill(0,InvalidIndex)",
     "a=1 r=1 s=0 f=0 t=1 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"duplicate index keeps the running ready pod", JOB("Never", IDX(2, 2)), PV(1000),
     {PEND(0, 2000), RUN(0, 1000), RUN(1, 1000)}, 3, 4000, NULL, "kill(0,DuplicateIndex)",
     "a=2 r=2 s=0 f=0 t=1 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    /* ---- NonIndexed ---- */
    {"nonindexed starts up to parallelism", JOB("Never", NONIDX(4, 2)), PV(0), NOPODS, 0, 1000,
     NULL, "start(-1) start(-1)",
     "a=2 r=0 s=0 f=0 t=0 idx=- start=1000 done=- conds=[] wake=none", NULL, 0},
    {"nonindexed capped by remaining completions", JOB("Never", NONIDX(4, 3)), PV(1000),
     {OK(-1, 2000), OK(-1, 2000), RUN(-1, 1000)}, 3, 3000, NULL, "start(-1)",
     "a=2 r=1 s=2 f=0 t=0 idx=- start=1000 done=- conds=[] wake=none", NULL, 0},
    {"nonindexed completes", JOB("Never", NONIDX(2, 2)), PV(1000), {OK(-1, 2000), OK(-1, 2500)}, 2,
     3000, NULL, "",
     "a=0 r=0 s=2 f=0 t=0 idx=- start=1000 done=3000 conds=[Complete=True:CompletionsReached@3000] "
     "wake=none", NULL, 0},
    {"nonindexed kills excess once completions are reached", JOB("Never", NONIDX(2, 2)), PV(1000),
     {OK(-1, 2000), OK(-1, 2500), RUN(-1, 1000)}, 3, 3000, NULL, "kill(2,TooManyPods)",
     "a=0 r=0 s=2 f=0 t=1 idx=- start=1000 done=3000 conds=[Complete=True:CompletionsReached@3000] "
     "wake=none", NULL, 0},
    {"excess kills pending, then not ready, newest first", JOB("Never", NONIDX(10, 1)), PV(1000),
     {RUN(-1, 1000), PEND(-1, 3000), RUN_NR(-1, 2000)}, 3, 4000, NULL,
     "kill(1,TooManyPods) kill(2,TooManyPods)",
     "a=1 r=1 s=0 f=0 t=2 idx=- start=1000 done=- conds=[] wake=none", NULL, 0},
    {"completions unset runs parallelism pods", JOB("Never", "'parallelism':2,"), PV(0), NOPODS, 0,
     1000, NULL, "start(-1) start(-1)",
     "a=2 r=0 s=0 f=0 t=0 idx=- start=1000 done=- conds=[] wake=none", NULL, 0},
    {"completions unset: no new pods after a success", JOB("Never", "'parallelism':2,"), PV(1000),
     {OK(-1, 2000), RUN(-1, 1000)}, 2, 3000, NULL, "",
     "a=1 r=1 s=1 f=0 t=0 idx=- start=1000 done=- conds=[] wake=none", NULL, 0},
    {"completions unset: complete when nothing runs", JOB("Never", "'parallelism':2,"), PV(1000),
     {OK(-1, 2000), OK(-1, 2500)}, 2, 3000, NULL, "",
     "a=0 r=0 s=2 f=0 t=0 idx=- start=1000 done=3000 conds=[Complete=True:CompletionsReached@3000] "
     "wake=none", NULL, 0},
    {"no parallelism, no completions: one pod", JOB("Never", ""), PV(0), NOPODS, 0, 1000, NULL,
     "start(-1)", "a=1 r=0 s=0 f=0 t=0 idx=- start=1000 done=- conds=[] wake=none", NULL, 0},
    /* ---- OnFailure: in-place restarts ---- */
    {"OnFailure restarts after 10 s", JOB("OnFailure", IDX(1, 1)), PV(1000),
     {WAIT(0, 0, 1000, 5000)}, 1, 15000, NULL, "restart(0)",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"OnFailure waits out the backoff", JOB("OnFailure", IDX(1, 1)), PV(1000),
     {WAIT(0, 0, 1000, 5000)}, 1, 14999, NULL, "",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=15000", NULL, 0},
    {"OnFailure backoff doubles per restart", JOB("OnFailure", IDX(1, 1)), PV(1000),
     {WAIT(0, 2, 40000, 50000)}, 1, 89999, NULL, "",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=90000", NULL, 0},
    {"OnFailure backoff capped at 5 min", JOB("OnFailure", IDX(1, 1) BL(10)), PV(1000),
     {WAIT(0, 5, 990000, 1000000)}, 1, 1200000, NULL, "",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=1300000", NULL, 0},
    {"OnFailure base is configurable", JOB("OnFailure", IDX(1, 1)), PV(1000),
     {WAIT(0, 3, 4000, 5000)}, 1, 5800, &fast, "restart(0)",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"OnFailure long run resets the backoff", JOB("OnFailure", IDX(1, 1) BL(10)), PV(1000),
     {WAIT(0, 5, 1000, 700000)}, 1, 710000, NULL, "restart(0)",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"OnFailure restarts reaching backoffLimit fail the Job", JOB("OnFailure", IDX(1, 1) BL(2)),
     PV(1000), {WAIT(0, 1, 20000, 30000)}, 1, 30001, NULL, "kill(0,JobFailed)",
     "a=0 r=0 s=0 f=1 t=1 idx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@30001] wake=none",
     "Job has reached the specified backoff limit", 0},
    {"OnFailure restarts of all pods add up", JOB("OnFailure", IDX(2, 2) BL(3)), PV(1000),
     {WAIT(0, 0, 1000, 29000), WAIT(1, 1, 20000, 30000)}, 2, 30001, NULL,
     "kill(0,JobFailed) kill(1,JobFailed)",
     "a=0 r=0 s=0 f=2 t=2 idx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@30001] wake=none", NULL, 0},
    {"OnFailure below backoffLimit keeps restarting", JOB("OnFailure", IDX(1, 1) BL(3)), PV(1000),
     {WAIT(0, 1, 20000, 30000)}, 1, 50000, NULL, "restart(0)",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"OnFailure backoffLimit 0 fails at the first crash", JOB("OnFailure", IDX(1, 1) BL(0)),
     PV(1000), {WAIT(0, 0, 1000, 5000)}, 1, 5001, NULL, "kill(0,JobFailed)",
     "a=0 r=0 s=0 f=1 t=1 idx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@5001] wake=none", NULL, 0},
    {"OnFailure exit 0 pod counts as success", JOB("OnFailure", IDX(2, 2)), PV(1000),
     {OK(0, 5000), RUN(1, 1000)}, 2, 6000, NULL, "",
     "a=1 r=1 s=1 f=0 t=0 idx='0' start=1000 done=- conds=[] wake=none", NULL, 0},
    /* ---- Never: replacement pods ---- */
    {"Never replaces a failed index after 10 s", JOB("Never", IDX(2, 2)), PV(1000),
     {FAIL(0, 1, 5000), RUN(1, 1000)}, 2, 15000, NULL, "start(0)",
     "a=2 r=1 s=0 f=1 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"Never replacement waits for the pod backoff", JOB("Never", IDX(2, 2)), PV(1000),
     {FAIL(0, 1, 5000), RUN(1, 1000)}, 2, 14000, NULL, "",
     "a=1 r=1 s=0 f=1 t=0 idx='' start=1000 done=- conds=[] wake=15000", NULL, 0},
    {"Never pod backoff doubles per consecutive failure", JOB("Never", IDX(1, 1)), PV(1000),
     {FAIL(0, 1, 5000), FAIL(0, 1, 20000), FAIL(0, 1, 50000)}, 3, 60000, NULL, "",
     "a=0 r=0 s=0 f=3 t=0 idx='' start=1000 done=- conds=[] wake=90000", NULL, 0},
    {"Never a later success resets the pod backoff", JOB("Never", IDX(3, 3)), PV(1000),
     {FAIL(0, 1, 5000), OK(1, 6000), RUN(2, 1000)}, 3, 6001, NULL, "start(0)",
     "a=2 r=1 s=1 f=1 t=0 idx='1' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"Never failures beyond backoffLimit fail the Job", JOB("Never", IDX(2, 2) BL(1)), PV(1000),
     {FAIL(0, 1, 5000), FAIL(0, 1, 20000), RUN(1, 1000)}, 3, 30000, NULL, "kill(2,JobFailed)",
     "a=0 r=0 s=0 f=3 t=1 idx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@30000] wake=none", NULL, 0},
    {"Never failures equal to backoffLimit keep going", JOB("Never", IDX(2, 2) BL(2)), PV(1000),
     {FAIL(0, 1, 5000), FAIL(0, 1, 6000), RUN(1, 1000)}, 3, 100000, NULL, "start(0)",
     "a=2 r=1 s=0 f=2 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"backoffLimit 0: the first failure fails the Job", JOB("Never", IDX(2, 2) BL(0)), PV(1000),
     {FAIL(0, 1, 5000), RUN(1, 1000)}, 2, 5001, NULL, "kill(1,JobFailed)",
     "a=0 r=0 s=0 f=2 t=1 idx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@5001] wake=none", NULL, 0},
    /* ---- activeDeadlineSeconds ---- */
    {"deadline exceeded kills everything", JOB("Never", IDX(2, 2) ADS(60)), PV(1000),
     {RUN(0, 1000), RUN(1, 1000)}, 2, 61000, NULL, "kill(0,JobFailed) kill(1,JobFailed)",
     "a=0 r=0 s=0 f=2 t=2 idx='' start=1000 done=- conds=[Failed=True:DeadlineExceeded@61000] "
     "wake=none", "Job was active longer than specified deadline", 0},
    {"deadline ahead: wake up at it", JOB("Never", IDX(2, 2) ADS(60)), PV(1000),
     {RUN(0, 1000), RUN(1, 1000)}, 2, 30000, NULL, "",
     "a=2 r=2 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=61000", NULL, 0},
    {"deadline earlier than a pending restart", JOB("OnFailure", IDX(1, 1) ADS(60)), PV(1000),
     {WAIT(0, 3, 1000, 40000)}, 1, 41000, NULL, "",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=61000", NULL, 0},
    {"a new Job's deadline counts from now", JOB("Never", IDX(1, 1) ADS(5)), PV(0), NOPODS, 0, 7000,
     NULL, "start(0)", "a=1 r=0 s=0 f=0 t=0 idx='' start=7000 done=- conds=[] wake=12000", NULL, 0},
    /* ---- podFailurePolicy ---- */
    {"FailJob on an exit code of a named container",
     JOB("Never", IDX(2, 2) PFP(EXIT_RULE("FailJob", "'containerName':'jax',", "In", "3"))),
     PV(1000),
     {FAIL(0, 3, 5000), RUN(1, 1000)}, 2, 6000, NULL, "kill(1,JobFailed)",
     "a=0 r=0 s=0 f=2 t=1 idx='' start=1000 done=- conds=[Failed=True:PodFailurePolicy@6000] "
     "wake=none", PFP_MSG(3, "FailJob", 0), 0},
    {"FailJob for another container does not match",
     JOB("Never", IDX(2, 2) PFP(EXIT_RULE("FailJob", "'containerName':'side',", "In", "3"))),
     PV(1000), {FAIL(0, 3, 5000), RUN(1, 1000)}, 2, 6000, NULL, "",
     "a=1 r=1 s=0 f=1 t=0 idx='' start=1000 done=- conds=[] wake=15000", NULL, 0},
    {"Ignore keeps a failure out of the count",
     JOB("Never", IDX(1, 1) BL(0) PFP(EXIT_RULE("Ignore", "", "In", "137"))), PV(1000),
     {FAIL_SIG(0, 9, 5000)}, 1, 15000, NULL, "start(0)",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"Count with NotIn counts towards backoffLimit",
     JOB("Never", IDX(1, 1) BL(0) PFP(EXIT_RULE("Count", "", "NotIn", "1"))), PV(1000),
     {FAIL(0, 2, 5000)}, 1, 5001, NULL, "",
     "a=0 r=0 s=0 f=1 t=0 idx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@5001] wake=none", NULL, 0},
    {"first matching rule wins and is named by position",
     JOB("Never", IDX(1, 1) PFP(EXIT_RULE("Ignore", "", "In", "42") ","
                                EXIT_RULE("FailJob", "", "In", "3,4"))),
     PV(1000), {FAIL(0, 4, 5000)}, 1, 5001, NULL, "",
     "a=0 r=0 s=0 f=1 t=0 idx='' start=1000 done=- conds=[Failed=True:PodFailurePolicy@5001] "
     "wake=none", PFP_MSG(4, "FailJob", 1), 0},
    {"NotIn never matches exit code 0 pods",
     JOB("Never", IDX(1, 1) PFP(EXIT_RULE("FailJob", "", "NotIn", "1"))), PV(1000), {OK(0, 5000)},
     1, 5001, NULL, "",
     "a=0 r=0 s=1 f=0 t=0 idx='0' start=1000 done=5001 "
     "conds=[Complete=True:CompletionsReached@5001] wake=none", NULL, 0},
    {"onPodConditions DisruptionTarget Ignore",
     JOB("Never", IDX(1, 1) BL(0)
         PFP("{'action':'Ignore','onPodConditions':[{'type':'DisruptionTarget'}]}")),
     PV(1000),
     {{.index = 0, .phase = JOBCTL_FAILED, .disruption_target = true, .signal = 15,
       .finish_ms = 5000}},
     1, 15000, NULL, "start(0)", "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none",
     NULL, 0},
    {"pods we killed are not judged by the policy",
     JOB("Never", IDX(1, 1) BL(0) PFP(EXIT_RULE("FailJob", "", "NotIn", "0"))), PV(1000),
     {KILLED(0, 5000)}, 1, 5001, NULL, "start(0)",
     "a=1 r=0 s=0 f=0 t=0 idx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    /* ---- backoffLimitPerIndex ---- */
    {"per index: a failure within the limit is retried after the index's backoff",
     JOB("Never", IDX(3, 3) BLPI(1)), PV(1000), {FAIL(0, 1, 5000), RUN(1, 1000), RUN(2, 1000)}, 3,
     15000, NULL, "start(0)",
     "a=3 r=2 s=0 f=1 t=0 idx='' fidx='' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"per index: an index in backoff does not hold back another", JOB("Never", IDX(3, 3) BLPI(2)),
     PV(1000), {FAIL(0, 1, 5000), FAIL(0, 1, 20000), FAIL(1, 1, 19000), RUN(2, 1000)}, 4, 30000,
     NULL, "start(1)",
     "a=2 r=1 s=0 f=3 t=0 idx='' fidx='' start=1000 done=- conds=[] wake=40000", NULL, 0},
    {"per index: failures beyond the limit fail the index, the others go on",
     JOB("Never", IDX(3, 3) BLPI(1)), PV(1000),
     {FAIL(1, 1, 5000), FAIL(1, 1, 20000), RUN(0, 1000), RUN(2, 1000)}, 4, 90000, NULL, "",
     "a=2 r=2 s=0 f=2 t=0 idx='' fidx='1' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"per index: failedIndexes is compressed as completedIndexes is",
     JOB("Never", IDX(6, 6) BLPI(0)), PV(1000),
     {FAIL(1, 1, 5000), FAIL(3, 1, 5000), FAIL(4, 1, 5000), FAIL(5, 1, 5000), RUN(0, 1000),
      RUN(2, 1000)}, 6, 6000, NULL, "",
     "a=2 r=2 s=0 f=4 t=0 idx='' fidx='1,3-5' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"per index: every index finished, some failed: FailedIndexes",
     JOB("Never", IDX(3, 3) BLPI(0)), PV(1000), {OK(0, 5000), FAIL(1, 1, 6000), OK(2, 7000)}, 3,
     8000, NULL, "",
     "a=0 r=0 s=2 f=1 t=0 idx='0,2' fidx='1' start=1000 done=- "
     "conds=[Failed=True:FailedIndexes@8000] wake=none", "Job has failed indexes", 0},
    {"per index: more failed indexes than maxFailedIndexes fail the Job at once",
     JOB("Never", IDX(4, 4) BLPI(0) MFI(1)), PV(1000),
     {FAIL(0, 1, 5000), FAIL(1, 1, 6000), RUN(2, 1000), RUN(3, 1000)}, 4, 7000, NULL,
     "kill(2,JobFailed) kill(3,JobFailed)",
     "a=0 r=0 s=0 f=4 t=2 idx='' fidx='0,1' start=1000 done=- "
     "conds=[Failed=True:MaxFailedIndexesExceeded@7000] wake=none",
     "Job has exceeded the specified maximal number of failed indexes", 0},
    {"per index: as many failed indexes as maxFailedIndexes: the Job goes on",
     JOB("Never", IDX(4, 4) BLPI(0) MFI(2)), PV(1000),
     {FAIL(0, 1, 5000), FAIL(1, 1, 6000), RUN(2, 1000), RUN(3, 1000)}, 4, 7000, NULL, "",
     "a=2 r=2 s=0 f=2 t=0 idx='' fidx='0,1' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"per index: FailIndex fails the index at its first match",
     JOB("Never", IDX(2, 2) BLPI(3) PFP(EXIT_RULE("FailIndex", "", "In", "42"))), PV(1000),
     {FAIL(0, 42, 5000), RUN(1, 1000)}, 2, 5001, NULL, "",
     "a=1 r=1 s=0 f=1 t=0 idx='' fidx='0' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"per index: FailIndex of the last open index: FailedIndexes",
     JOB("Never", IDX(2, 2) BLPI(3) PFP(EXIT_RULE("FailIndex", "", "In", "42"))), PV(1000),
     {OK(1, 4000), FAIL(0, 42, 5000)}, 2, 5001, NULL, "",
     "a=0 r=0 s=1 f=1 t=0 idx='1' fidx='0' start=1000 done=- "
     "conds=[Failed=True:FailedIndexes@5001] wake=none", "Job has failed indexes", 0},
    {"per index: ignored failures do not count but lengthen the backoff",
     JOB("Never", IDX(1, 1) BLPI(0) PFP(EXIT_RULE("Ignore", "", "In", "137"))), PV(1000),
     {FAIL_SIG(0, 9, 5000), FAIL_SIG(0, 9, 20000)}, 2, 30000, NULL, "",
     "a=0 r=0 s=0 f=0 t=0 idx='' fidx='' start=1000 done=- conds=[] wake=40000", NULL, 0},
    {"per index: a backoffLimit set still applies", JOB("Never", IDX(2, 2) BLPI(5) BL(1)),
     PV(1000), {FAIL(0, 1, 5000), FAIL(1, 1, 6000)}, 2, 7000, NULL, "",
     "a=0 r=0 s=0 f=2 t=0 idx='' fidx='' start=1000 done=- "
     "conds=[Failed=True:BackoffLimitExceeded@7000] wake=none", NULL, 0},
    /* ---- successPolicy ---- */
    {"successPolicy by indexes: met, the other pods are killed",
     JOB("Never", IDX(4, 4) SP("{'succeededIndexes':'0,2'}")), PV(1000),
     {OK(0, 5000), RUN(1, 1000), OK(2, 6000), RUN(3, 1000)}, 4, 7000, NULL,
     "kill(1,JobComplete) kill(3,JobComplete)",
     "a=0 r=0 s=2 f=0 t=2 idx='0,2' start=1000 done=7000 "
     "conds=[SuccessCriteriaMet=True:SuccessPolicy@7000,Complete=True:SuccessPolicy@7000] "
     "wake=none", "Matched rules at index 0", 0},
    {"successPolicy by indexes: not met while one is missing",
     JOB("Never", IDX(4, 4) SP("{'succeededIndexes':'0-2'}")), PV(1000),
     {OK(0, 5000), OK(2, 6000), RUN(1, 1000), RUN(3, 1000)}, 4, 7000, NULL, "",
     "a=2 r=2 s=2 f=0 t=0 idx='0,2' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"successPolicy by count", JOB("Never", IDX(5, 5) SP("{'succeededCount':2}")), PV(1000),
     {OK(3, 5000), OK(4, 6000), RUN(0, 1000), RUN(1, 1000), RUN(2, 1000)}, 5, 7000, NULL,
     "kill(2,JobComplete) kill(3,JobComplete) kill(4,JobComplete)",
     "a=0 r=0 s=2 f=0 t=3 idx='3,4' start=1000 done=7000 "
     "conds=[SuccessCriteriaMet=True:SuccessPolicy@7000,Complete=True:SuccessPolicy@7000] "
     "wake=none", "Matched rules at index 0", 0},
    {"successPolicy by indexes and count: the first met rule is named",
     JOB("Never", IDX(6, 6) SP("{'succeededIndexes':'0-2','succeededCount':3},"
                               "{'succeededIndexes':'3-5','succeededCount':2}")),
     PV(1000), {OK(0, 5000), OK(3, 5000), OK(5, 5000), RUN(1, 1000), RUN(2, 1000), RUN(4, 1000)},
     6, 7000, NULL, "kill(3,JobComplete) kill(4,JobComplete) kill(5,JobComplete)",
     "a=0 r=0 s=3 f=0 t=3 idx='0,3,5' start=1000 done=7000 "
     "conds=[SuccessCriteriaMet=True:SuccessPolicy@7000,Complete=True:SuccessPolicy@7000] "
     "wake=none", "Matched rules at index 1", 0},
    {"successPolicy count counts only the indexes the rule names",
     JOB("Never", IDX(6, 6) SP("{'succeededIndexes':'1-4','succeededCount':3}")), PV(1000),
     {OK(1, 5000), OK(3, 5000), OK(5, 5000), RUN(0, 1000), RUN(2, 1000), RUN(4, 1000)}, 6, 7000,
     NULL, "", "a=3 r=3 s=3 f=0 t=0 idx='1,3,5' start=1000 done=- conds=[] wake=none", NULL, 0},
    {"successPolicy before CompletionsReached",
     JOB("Never", IDX(2, 2) SP("{'succeededIndexes':'0'}")), PV(1000),
     {OK(0, 5000), OK(1, 5000)}, 2, 7000, NULL, "",
     "a=0 r=0 s=2 f=0 t=0 idx='0,1' start=1000 done=7000 "
     "conds=[SuccessCriteriaMet=True:SuccessPolicy@7000,Complete=True:SuccessPolicy@7000] "
     "wake=none", "Matched rules at index 0", 0},
    {"failed indexes are judged before the successPolicy",
     JOB("Never", IDX(3, 3) BLPI(0) SP("{'succeededCount':2}")), PV(1000),
     {OK(0, 5000), FAIL(1, 1, 6000), OK(2, 7000)}, 3, 8000, NULL, "",
     "a=0 r=0 s=2 f=1 t=0 idx='0,2' fidx='1' start=1000 done=- "
     "conds=[Failed=True:FailedIndexes@8000] wake=none", "Job has failed indexes", 0},
    /* ---- suspend ---- */
    {"suspend kills active pods and sets Suspended", JOB("Never", IDX(2, 2) "'suspend':true,"),
     PV(1000), {RUN(0, 1000), PEND(1, 1000)}, 2, 5000, NULL,
     "kill(0,Suspended) kill(1,Suspended)",
     "a=0 r=0 s=0 f=0 t=2 idx='' start=- done=- conds=[Suspended=True:JobSuspended@5000] wake=none",
     NULL, 0},
    {"a Job created suspended starts nothing", JOB("Never", IDX(2, 2) "'suspend':true," ADS(5)),
     PV(0), NOPODS, 0, 1000, NULL, "",
     "a=0 r=0 s=0 f=0 t=0 idx='' start=- done=- conds=[Suspended=True:JobSuspended@1000] wake=none",
     NULL, 0},
    {"suspended again keeps the transition time", JOB("Never", IDX(2, 2) "'suspend':true,"),
     PVC(0, "Suspended", 1000), {KILLED(0, 1500), KILLED(1, 1600)}, 2, 9000, NULL, "",
     "a=0 r=0 s=0 f=0 t=0 idx='' start=- done=- conds=[Suspended=True:JobSuspended@1000] wake=none",
     NULL, 0},
    {"resume sets Suspended False and restarts the clock", JOB("Never", IDX(2, 2) ADS(60)),
     PVC(0, "Suspended", 1000), {KILLED(0, 1500), KILLED(1, 1600)}, 2, 9000, NULL,
     "start(0) start(1)",
     "a=2 r=0 s=0 f=0 t=0 idx='' start=9000 done=- conds=[Suspended=False:JobResumed@9000] "
     "wake=69000", NULL, 0},
    /* ---- finished Jobs ---- */
    {"a failed Job re-kills what still runs", JOB("Never", IDX(2, 2) BL(0)),
     PVC(1000, "Failed:BackoffLimitExceeded", 5000), {FAIL(0, 1, 4000), RUN(1, 1000)}, 2, 6000,
     NULL,
     "kill(1,JobFailed)",
     "a=0 r=0 s=0 f=2 t=1 idx='' start=1000 done=- conds=[Failed=True:BackoffLimitExceeded@5000] "
     "wake=none", NULL, 0},
    {"a failed Job counts pods killed with it, not earlier kills", JOB("Never", NONIDX(3, 3)),
     PVC(1000, "Failed:DeadlineExceeded", 50000),
     {KILLED(-1, 10000), KILLED(-1, 50500), DYING(-1)}, 3, 60000, NULL, "",
     "a=0 r=0 s=0 f=2 t=1 idx=- start=1000 done=- conds=[Failed=True:DeadlineExceeded@50000] "
     "wake=none", NULL, 0},
    {"a complete Job stays as it is", JOB("Never", IDX(2, 2)), PVC(1000, "Complete", 7000),
     {OK(0, 5000), OK(1, 6000)}, 2, 90000, NULL, "",
     "a=0 r=0 s=2 f=0 t=0 idx='0,1' start=1000 done=7000 "
     "conds=[Complete=True:CompletionsReached@7000] wake=none", NULL, 0},
    /* ---- invalid Jobs ---- */
    {"podFailurePolicy needs restartPolicy Never",
     JOB("OnFailure", IDX(1, 1) PFP(EXIT_RULE("FailJob", "", "In", "3"))), PV(0), NOPODS, 0, 1000,
     NULL, NULL, NULL,
     "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is supported "
     "when podFailurePolicy is specified", -EINVAL},
    {"Indexed needs completions", JOB("Never", "'completionMode':'Indexed','parallelism':2,"),
     PV(0), NOPODS, 0, 1000, NULL, NULL, NULL,
     "spec.completions: Required value: when completion mode is Indexed", -EINVAL},
    {"negative backoffLimit", JOB("Never", BL(-1)), PV(0), NOPODS, 0, 1000, NULL, NULL, NULL,
     "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0", -EINVAL},
    {"restartPolicy Always is not a Job policy", JOB("Always", ""), PV(0), NOPODS, 0, 1000, NULL,
     NULL, NULL,
     "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: "
     "\"OnFailure\", \"Never\"", -EINVAL},
    {"FailIndex needs backoffLimitPerIndex",
     JOB("Never", IDX(1, 1) PFP(EXIT_RULE("FailIndex", "", "In", "3"))), PV(0), NOPODS, 0, 1000,
     NULL, NULL, NULL,
     "spec.podFailurePolicy.rules[0].action: Invalid value: \"FailIndex\": requires the "
     "backoffLimitPerIndex to be set", -EINVAL},
    {"In with exit code 0 is rejected",
     JOB("Never", IDX(1, 1) PFP(EXIT_RULE("FailJob", "", "In", "1,0"))), PV(0), NOPODS, 0, 1000,
     NULL, NULL, NULL,
     "spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for "
     "the In operator", -EINVAL},
};

/* clang-format on */

static void prev_status(const struct prev *pv, struct jobctl_status *st)
{
    memset(st, 0, sizeof(*st));
    st->has_start = pv->start != 0;
    st->start_ms = pv->start;
    if (!pv->cond)
        return;
    struct jobctl_cond *c = &st->suspended;
    const char *reason = "JobSuspended", *msg = "Job suspended";
    if (strncmp(pv->cond, "Failed:", 7) == 0) {
        c = &st->failed_cond;
        reason = pv->cond + 7;
        msg = "m";
    } else if (strcmp(pv->cond, "Complete") == 0) {
        c = &st->complete;
        reason = "CompletionsReached";
        msg = "Reached expected number of succeeded pods";
        st->has_completion = true;
        st->completion_ms = pv->cond_ms;
    }
    c->status = JOBCTL_COND_TRUE;
    snprintf(c->reason, sizeof(c->reason), "%s", reason);
    snprintf(c->message, sizeof(c->message), "%s", msg);
    c->time_ms = pv->cond_ms;
}

static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t off = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + off, n - off, fmt, ap);
    va_end(ap);
}

static void summarize_actions(const struct jobctl_result *r, char *buf, size_t n)
{
    buf[0] = 0;
    for (size_t i = 0; i < r->nactions; i++) {
        const struct jobctl_action *a = &r->actions[i];
        const char *sp = i ? " " : "";
        if (a->kind == JOBCTL_START)
            append(buf, n, "%sstart(%d)", sp, a->index);
        else if (a->kind == JOBCTL_RESTART)
            append(buf, n, "%srestart(%zu)", sp, a->pod);
        else
            append(buf, n, "%skill(%zu,%s)", sp, a->pod, jobctl_kill_reason_str(a->reason));
    }
}

static void summarize_cond(char *buf, size_t n, const char *type, const struct jobctl_cond *c)
{
    if (c->status == JOBCTL_COND_ABSENT)
        return;
    append(buf, n, "%s%s=%s:%s@%lld", buf[strlen(buf) - 1] == '[' ? "" : ",", type,
           c->status == JOBCTL_COND_TRUE ? "True" : "False", c->reason, (long long)c->time_ms);
}

static void ms_or_dash(char *buf, size_t n, const char *key, bool has, int64_t v)
{
    if (has)
        append(buf, n, " %s=%lld", key, (long long)v);
    else
        append(buf, n, " %s=-", key);
}

/* "a=active r=ready s=succeeded f=failed t=terminating idx='completedIndexes'|-
 *  [fidx='failedIndexes'] start=ms|- done=completionMs|- conds=[Type=Status:Reason@ms,...]
 *  wake=ms|none" */
static void summarize(const struct jobctl_result *r, char *buf, size_t n)
{
    const struct jobctl_status *st = &r->status;
    buf[0] = 0;
    append(buf, n, "a=%d r=%d s=%d f=%d t=%d", st->active, st->ready, st->succeeded, st->failed,
           st->terminating);
    if (st->completed_indexes)
        append(buf, n, " idx='%s'", st->completed_indexes);
    else
        append(buf, n, " idx=-");
    if (st->failed_indexes)
        append(buf, n, " fidx='%s'", st->failed_indexes);
    ms_or_dash(buf, n, "start", st->has_start, st->start_ms);
    ms_or_dash(buf, n, "done", st->has_completion, st->completion_ms);
    append(buf, n, " conds=[");
    summarize_cond(buf, n, "SuccessCriteriaMet", &st->success_criteria);
    summarize_cond(buf, n, "Complete", &st->complete);
    summarize_cond(buf, n, "Failed", &st->failed_cond);
    summarize_cond(buf, n, "Suspended", &st->suspended);
    append(buf, n, "]");
    if (r->next_wakeup_ms == JOBCTL_NO_WAKEUP)
        append(buf, n, " wake=none");
    else
        append(buf, n, " wake=%lld", (long long)r->next_wakeup_ms);
}

static void run_case(const struct case_ *c)
{
    json_t *job = tu_qjson(c->job);
    struct jobctl_status prev;
    struct jobctl_pod pods[MAXPODS];
    char names[MAXPODS][16];
    struct jobctl_result res;
    struct err e = {{0}};
    char got[1024];

    prev_status(&c->prev, &prev);
    memcpy(pods, c->pods, sizeof(pods));
    for (size_t i = 0; i < c->npods; i++) {
        snprintf(names[i], sizeof(names[i]), "x-%d", pods[i].index < 0 ? (int)i : pods[i].index);
        pods[i].name = names[i];
    }
    struct jobctl_input in = {job, &prev, pods, c->npods, c->now, c->cfg};
    int rc = jobctl_sync(&in, &res, &e);
    if (rc != c->want_rc)
        fail_msg("%s: rc %d, want %d (%s)", c->name, rc, c->want_rc, e.msg);
    if (rc < 0) {
        if (!strstr(e.msg, c->want_msg))
            fail_msg("%s: error\n  got:  %s\n  want: %s", c->name, e.msg, c->want_msg);
        json_decref(job);
        return;
    }
    summarize_actions(&res, got, sizeof(got));
    if (strcmp(got, c->want_actions) != 0)
        fail_msg("%s: actions\n  got:  %s\n  want: %s", c->name, got, c->want_actions);
    summarize(&res, got, sizeof(got));
    if (strcmp(got, c->want_status) != 0)
        fail_msg("%s: status\n  got:  %s\n  want: %s", c->name, got, c->want_status);
    const struct jobctl_cond *fc = &res.status.failed_cond;
    const char *msg = fc->status == JOBCTL_COND_TRUE ? fc->message : res.status.complete.message;
    if (c->want_msg && strcmp(msg, c->want_msg) != 0)
        fail_msg("%s: message\n  got:  %s\n  want: %s", c->name, msg, c->want_msg);
    jobctl_result_release(&res);
    json_decref(job);
}

static void test_sync_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
}

static void test_indexes_format(void **state)
{
    static const struct {
        int idx[8];
        size_t n;
        const char *want;
    } t[] = {
        {{0}, 0, ""},
        {{4}, 1, "4"},
        {{1, 2}, 2, "1,2"},
        {{0, 1, 2, 4}, 4, "0-2,4"},
        {{1, 3, 4, 5, 7}, 5, "1,3-5,7"},
        {{0, 2, 3, 5, 6, 7, 9, 10}, 8, "0,2,3,5-7,9,10"},
        {{99998, 99999, 100000}, 3, "99998-100000"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *s = NULL;
        assert_int_equal(jobctl_indexes_format(t[i].idx, t[i].n, &s), 0);
        assert_string_equal(s, t[i].want);
        free(s);
    }
}

static void test_spec_defaults(void **state)
{
    struct jobctl_spec s;
    struct err e = {{0}};
    json_t *job = tu_qjson("{'spec':{'template':{'spec':{'restartPolicy':'OnFailure'}}}}");
    (void)state;
    assert_int_equal(jobctl_spec_parse(job, &s, &e), 0);
    assert_string_equal(s.ns, "default");
    assert_string_equal(s.container, "");
    assert_false(s.indexed);
    assert_false(s.suspend);
    assert_int_equal(s.parallelism, 1);
    assert_int_equal(s.completions, 1);
    assert_int_equal(s.backoff_limit, 6);
    assert_int_equal(s.active_deadline_s, -1);
    assert_int_equal(s.restart_policy, JOBCTL_RESTART_ON_FAILURE);
    assert_null(s.pod_failure_rules);
    assert_int_equal(s.backoff_limit_per_index, -1);
    assert_int_equal(s.max_failed_indexes, -1);
    assert_null(s.success_rules);
    json_decref(job);

    job = tu_qjson("{'metadata':{'namespace':'ml'},'spec':{'parallelism':3,"
                   "'completionMode':'NonIndexed','template':{'spec':{'restartPolicy':'Never',"
                   "'containers':[{'name':'main'},{'name':'side'}]}}}}");
    assert_int_equal(jobctl_spec_parse(job, &s, &e), 0);
    assert_string_equal(s.ns, "ml");
    assert_string_equal(s.container, "main");
    assert_int_equal(s.parallelism, 3);
    assert_int_equal(s.completions, -1);
    assert_int_equal(s.restart_policy, JOBCTL_RESTART_NEVER);
    json_decref(job);
}

/* batch/v1 defaulting: backoffLimit is 2^31-1 with backoffLimitPerIndex, unless set. */
static void test_spec_per_index(void **state)
{
    struct jobctl_spec s;
    struct err e = {{0}};
    json_t *job = tu_qjson(JOB("Never", IDX(4, 2) BLPI(1) MFI(2)
                                            SP("{'succeededIndexes':'0-2,3'}")));
    (void)state;
    assert_int_equal(jobctl_spec_parse(job, &s, &e), 0);
    assert_int_equal(s.backoff_limit, INT32_MAX);
    assert_int_equal(s.backoff_limit_per_index, 1);
    assert_int_equal(s.max_failed_indexes, 2);
    assert_int_equal(json_array_size(s.success_rules), 1);
    json_decref(job);
    job = tu_qjson(JOB("Never", IDX(4, 2) BLPI(1) BL(3)));
    assert_int_equal(jobctl_spec_parse(job, &s, &e), 0);
    assert_int_equal(s.backoff_limit, 3);
    json_decref(job);
}

static void test_spec_errors(void **state)
{
    static const struct {
        const char *spec;
        const char *want;
    } t[] = {
        {"'parallelism':'two',", "spec.parallelism: Invalid value: must be an integer"},
        {"'completions':-1,",
         "spec.completions: Invalid value: -1: must be greater than or equal to 0"},
        {"'parallelism':2147483648,",
         "spec.parallelism: Invalid value: 2147483648: must be less than or equal to 2147483647"},
        {"'completionMode':'Sparse',",
         "spec.completionMode: Unsupported value: \"Sparse\": supported values: \"NonIndexed\", "
         "\"Indexed\""},
        {"'completionMode':'Indexed','completions':2,'parallelism':100001,",
         "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when "
         "completion mode is Indexed"},
        {"'activeDeadlineSeconds':-5,",
         "spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0"},
        {"'podFailurePolicy':{},", "spec.podFailurePolicy.rules: Required value"},
        {"'podFailurePolicy':{'rules':[{'action':'Retry','onExitCodes':{'operator':'In','values':["
         "1]}}]},",
         "spec.podFailurePolicy.rules[0].action: Unsupported value: \"Retry\""},
        {"'podFailurePolicy':{'rules':[{'action':'Ignore'}]},",
         "spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and "
         "OnPodConditions is required"},
        {"'podFailurePolicy':{'rules':[{'action':'Count','onExitCodes':{'operator':'Has','values':["
         "1]}}]},",
         "spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: \"Has\""},
        {"'podFailurePolicy':{'rules':[{'action':'Count','onExitCodes':{'operator':'In','values':[]"
         "}}]},",
         "spec.podFailurePolicy.rules[0].onExitCodes.values: Required value"},
        {IDX(4, 4) "'backoffLimitPerIndex':-1,",
         "spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0"},
        {SP("{'succeededCount':1}"),
         "spec.successPolicy: Invalid value: requires indexed completion mode"},
        {IDX(4, 4) "'successPolicy':{'rules':[]},",
         "spec.successPolicy.rules: Required value: at least one rules must be specified when the "
         "successPolicy is specified"},
        {IDX(4, 4) SP("{}"),
         "spec.successPolicy.rules[0]: Required value: at least one of succeededCount or "
         "succeededIndexes must be specified"},
        {IDX(4, 4) SP("{'succeededIndexes':'0,x'}"),
         "spec.successPolicy.rules[0].succeededIndexes: Invalid value: \"0,x\": error parsing "
         "succeededIndexes: cannot convert string to integer for index: \"x\""},
        {IDX(4, 4) SP("{'succeededIndexes':'0,,1'}"),
         "error parsing succeededIndexes: cannot convert string to integer for index: \"\""},
        {IDX(4, 4) SP("{'succeededIndexes':'3-1'}"),
         "error parsing succeededIndexes: non-increasing order, previous: 3, current: 1"},
        {IDX(4, 4) SP("{'succeededIndexes':'0-2,2'}"),
         "error parsing succeededIndexes: non-increasing order, previous: 2, current: 2"},
        {IDX(4, 4) SP("{'succeededIndexes':'1,4'}"),
         "error parsing succeededIndexes: too large index: \"4\""},
        {IDX(4, 4) SP("{'succeededIndexes':'0-1-2'}"),
         "error parsing succeededIndexes: the fragment \"0-1-2\" violates the requirement that "
         "an index interval can have at most two parts separated by '-'"},
        {IDX(4, 4) SP("{'succeededCount':5}"),
         "spec.successPolicy.rules[0].succeededCount: Invalid value: 5: must be less than or equal "
         "to 4 (the number of specified completions)"},
        {IDX(4, 4) SP("{'succeededIndexes':'1,3','succeededCount':3}"),
         "spec.successPolicy.rules[0].succeededCount: Invalid value: 3: must be less than or equal "
         "to 2 (the number of indexes in the specified succeededIndexes field)"},
        {IDX(4, 4) SP("{'succeededCount':-1}"),
         "spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or "
         "equal to 0"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char text[1024];
        struct jobctl_spec s;
        struct err e = {{0}};
        snprintf(text, sizeof(text), JOB("Never", "%s"), t[i].spec);
        json_t *job = tu_qjson(text);
        assert_int_equal(jobctl_spec_parse(job, &s, &e), -EINVAL);
        if (!strstr(e.msg, t[i].want))
            fail_msg("case %zu\n  got:  %s\n  want: %s", i, e.msg, t[i].want);
        json_decref(job);
    }
}

static void test_status_json(void **state)
{
    struct jobctl_status st = {.active = 0,
                               .ready = 0,
                               .succeeded = 3,
                               .failed = 1,
                               .has_start = true,
                               .start_ms = 1714564800000LL,
                               .has_completion = true,
                               .completion_ms = 1714564860000LL};
    json_t *got = NULL;
    (void)state;
    st.completed_indexes = strdup("0-2");
    st.complete =
        (struct jobctl_cond){JOBCTL_COND_TRUE, "CompletionsReached",
                             "Reached expected number of succeeded pods", 1714564860000LL};
    st.suspended =
        (struct jobctl_cond){JOBCTL_COND_FALSE, "JobResumed", "Job resumed", 1714564700000LL};
    assert_int_equal(jobctl_status_to_json(&st, &got), 0);
    json_t *want = tu_qjson(
        "{'ready':0,'succeeded':3,'failed':1,'terminating':0,'completedIndexes':'0-2',"
        "'startTime':'2024-05-01T12:00:00Z','completionTime':'2024-05-01T12:01:00Z',"
        "'uncountedTerminatedPods':{},'conditions':["
        "{'type':'Suspended','status':'False','reason':'JobResumed','message':'Job resumed',"
        "'lastProbeTime':'2024-05-01T11:58:20Z','lastTransitionTime':'2024-05-01T11:58:20Z'},"
        "{'type':'Complete','status':'True','reason':'CompletionsReached',"
        "'message':'Reached expected number of succeeded pods',"
        "'lastProbeTime':'2024-05-01T12:01:00Z','lastTransitionTime':'2024-05-01T12:01:00Z'}]}");
    if (!json_equal(got, want)) {
        char *s = json_dumps(got, JSON_SORT_KEYS);
        fail_msg("status JSON: %s", s);
    }
    json_decref(got);
    json_decref(want);
    jobctl_status_release(&st);
    assert_null(st.completed_indexes);
}

/* failedIndexes is written even empty once set; SuccessCriteriaMet comes before Complete. */
static void test_status_json_index_sets(void **state)
{
    struct jobctl_status st = {.succeeded = 1, .has_completion = true, .completion_ms = 0};
    const struct jobctl_cond met = {JOBCTL_COND_TRUE, "SuccessPolicy", "Matched rules at index 0",
                                    0};
    json_t *got = NULL;
    (void)state;
    st.completed_indexes = strdup("2");
    st.failed_indexes = strdup("");
    st.complete = met;
    st.success_criteria = met;
    assert_int_equal(jobctl_status_to_json(&st, &got), 0);
    json_t *want = tu_qjson(
        "{'ready':0,'succeeded':1,'terminating':0,'completedIndexes':'2','failedIndexes':'',"
        "'completionTime':'1970-01-01T00:00:00Z','uncountedTerminatedPods':{},'conditions':["
        "{'type':'SuccessCriteriaMet','status':'True','reason':'SuccessPolicy',"
        "'message':'Matched rules at index 0','lastProbeTime':'1970-01-01T00:00:00Z',"
        "'lastTransitionTime':'1970-01-01T00:00:00Z'},"
        "{'type':'Complete','status':'True','reason':'SuccessPolicy',"
        "'message':'Matched rules at index 0','lastProbeTime':'1970-01-01T00:00:00Z',"
        "'lastTransitionTime':'1970-01-01T00:00:00Z'}]}");
    if (!json_equal(got, want)) {
        char *s = json_dumps(got, JSON_SORT_KEYS);
        fail_msg("status JSON: %s", s);
    }
    json_decref(got);
    json_decref(want);
    jobctl_status_release(&st);
    assert_null(st.failed_indexes);
}

static void test_kubelet_exit(void **state)
{
    struct jobctl_pod p = {.phase = JOBCTL_RUNNING, .ready = true, .start_ms = 10};
    (void)state;
    jobctl_pod_exited(&p, JOBCTL_RESTART_ON_FAILURE, 1, 0, 20);
    assert_int_equal(p.phase, JOBCTL_RUNNING);
    assert_true(p.waiting);
    assert_false(p.ready);
    assert_int_equal(p.finish_ms, 20);
    jobctl_pod_restarted(&p, 30);
    assert_int_equal(p.restart_count, 1);
    assert_false(p.waiting);
    assert_int_equal(p.start_ms, 30);
    jobctl_pod_exited(&p, JOBCTL_RESTART_ON_FAILURE, 0, 0, 40);
    assert_int_equal(p.phase, JOBCTL_SUCCEEDED);

    p = (struct jobctl_pod){.phase = JOBCTL_RUNNING};
    jobctl_pod_exited(&p, JOBCTL_RESTART_NEVER, 0, 9, 50);
    assert_int_equal(p.phase, JOBCTL_FAILED);
    assert_int_equal(p.signal, 9);

    p = (struct jobctl_pod){.phase = JOBCTL_RUNNING, .terminating = true};
    jobctl_pod_exited(&p, JOBCTL_RESTART_ON_FAILURE, 143, 0, 60);
    assert_int_equal(p.phase, JOBCTL_FAILED);
    assert_false(p.waiting);
}

/* A tiny supervisor: applies actions to a pod table; scripted exit codes per index/attempt. */
struct sim {
    struct jobctl_pod pods[32];
    size_t n;
};

static void sim_apply(struct sim *sm, const struct jobctl_result *r, int64_t now)
{
    for (size_t i = 0; i < r->nactions; i++) {
        const struct jobctl_action *a = &r->actions[i];
        if (a->kind == JOBCTL_START) {
            assert_true(sm->n < 32);
            sm->pods[sm->n++] = (struct jobctl_pod){
                .name = "sim", .index = a->index, .phase = JOBCTL_RUNNING, .start_ms = now};
        } else if (a->kind == JOBCTL_RESTART) {
            jobctl_pod_restarted(&sm->pods[a->pod], now);
        } else {
            sm->pods[a->pod].terminating = true;
        }
    }
}

static void sim_step(json_t *job, struct sim *sm, struct jobctl_result *r, int64_t now)
{
    struct jobctl_result next;
    struct jobctl_input in = {job, &r->status, sm->pods, sm->n, now, &fast};
    assert_int_equal(jobctl_sync(&in, &next, NULL), 0);
    sim_apply(sm, &next, now);
    jobctl_result_release(r);
    *r = next;
}

/* Index 1 crashes twice, restarts in place with 100 ms, 200 ms backoff, then all succeed. */
static void test_simulated_run(void **state)
{
    json_t *job = tu_qjson(JOB("OnFailure", IDX(3, 3)));
    struct sim sm = {.n = 0};
    struct jobctl_result r = {.next_wakeup_ms = JOBCTL_NO_WAKEUP};
    (void)state;
    sim_step(job, &sm, &r, 1000);
    assert_int_equal(sm.n, 3);
    jobctl_pod_exited(&sm.pods[1], JOBCTL_RESTART_ON_FAILURE, 1, 0, 1500);
    sim_step(job, &sm, &r, 1500);
    assert_int_equal(r.next_wakeup_ms, 1600);
    sim_step(job, &sm, &r, 1600);
    assert_int_equal(sm.pods[1].restart_count, 1);
    jobctl_pod_exited(&sm.pods[1], JOBCTL_RESTART_ON_FAILURE, 0, 11, 1700);
    sim_step(job, &sm, &r, 1700);
    assert_int_equal(r.next_wakeup_ms, 1900);
    sim_step(job, &sm, &r, 1900);
    assert_int_equal(sm.pods[1].restart_count, 2);
    for (size_t i = 0; i < 3; i++)
        jobctl_pod_exited(&sm.pods[i], JOBCTL_RESTART_ON_FAILURE, 0, 0, 2000);
    sim_step(job, &sm, &r, 2000);
    assert_int_equal(sm.n, 3);
    assert_true(jobctl_status_finished(&r.status));
    assert_int_equal(r.status.complete.status, JOBCTL_COND_TRUE);
    assert_string_equal(r.status.completed_indexes, "0-2");
    assert_int_equal(r.status.succeeded, 3);
    assert_int_equal(r.status.failed, 0);
    jobctl_result_release(&r);
    json_decref(job);
}

/* Never + backoffLimit 1: two failures of index 0 fail the Job and kill index 1. */
static void test_simulated_failure(void **state)
{
    json_t *job = tu_qjson(JOB("Never", IDX(2, 2) BL(1)));
    struct sim sm = {.n = 0};
    struct jobctl_result r = {.next_wakeup_ms = JOBCTL_NO_WAKEUP};
    (void)state;
    sim_step(job, &sm, &r, 1000);
    jobctl_pod_exited(&sm.pods[0], JOBCTL_RESTART_NEVER, 2, 0, 1100);
    sim_step(job, &sm, &r, 1100);
    assert_int_equal(sm.n, 2);
    assert_int_equal(r.next_wakeup_ms, 1200);
    sim_step(job, &sm, &r, 1200);
    assert_int_equal(sm.n, 3);
    assert_int_equal(sm.pods[2].index, 0);
    jobctl_pod_exited(&sm.pods[2], JOBCTL_RESTART_NEVER, 2, 0, 1300);
    sim_step(job, &sm, &r, 1300);
    assert_true(sm.pods[1].terminating);
    assert_string_equal(r.status.failed_cond.reason, "BackoffLimitExceeded");
    jobctl_pod_exited(&sm.pods[1], JOBCTL_RESTART_NEVER, 0, 15, 1400);
    sim_step(job, &sm, &r, 1400);
    assert_int_equal(r.nactions, 0);
    assert_int_equal(r.status.failed, 3);
    assert_int_equal(r.status.terminating, 0);
    assert_int_equal(r.status.failed_cond.time_ms, 1300);
    jobctl_result_release(&r);
    json_decref(job);
}

/* backoffLimitPerIndex 1: index 1 fails twice (the retry after its own 100 ms backoff), the
 * others succeed: the Job fails with FailedIndexes, failedIndexes "1". */
static void test_simulated_per_index(void **state)
{
    json_t *job = tu_qjson(JOB("Never", IDX(3, 3) BLPI(1)));
    struct sim sm = {.n = 0};
    struct jobctl_result r = {.next_wakeup_ms = JOBCTL_NO_WAKEUP};
    (void)state;
    sim_step(job, &sm, &r, 1000);
    assert_int_equal(sm.n, 3);
    jobctl_pod_exited(&sm.pods[1], JOBCTL_RESTART_NEVER, 1, 0, 1100);
    jobctl_pod_exited(&sm.pods[0], JOBCTL_RESTART_NEVER, 0, 0, 1150);
    sim_step(job, &sm, &r, 1150);
    assert_int_equal(sm.n, 3);
    assert_int_equal(r.next_wakeup_ms, 1200); /* a success does not reset an index's backoff */
    sim_step(job, &sm, &r, 1200);
    assert_int_equal(sm.n, 4);
    assert_int_equal(sm.pods[3].index, 1);
    jobctl_pod_exited(&sm.pods[3], JOBCTL_RESTART_NEVER, 1, 0, 1300);
    sim_step(job, &sm, &r, 1300);
    assert_string_equal(r.status.failed_indexes, "1");
    assert_false(jobctl_status_finished(&r.status));
    assert_int_equal(r.next_wakeup_ms, JOBCTL_NO_WAKEUP);
    jobctl_pod_exited(&sm.pods[2], JOBCTL_RESTART_NEVER, 0, 0, 1400);
    sim_step(job, &sm, &r, 1400);
    assert_int_equal(sm.n, 4);
    assert_string_equal(r.status.failed_cond.reason, "FailedIndexes");
    assert_string_equal(r.status.completed_indexes, "0,2");
    assert_int_equal(r.status.failed, 2);
    assert_int_equal(r.status.succeeded, 2);
    jobctl_result_release(&r);
    json_decref(job);
}

/* successPolicy on index 0: its success completes the Job; the killed pods are not failures. */
static void test_simulated_success_policy(void **state)
{
    json_t *job = tu_qjson(JOB("Never", IDX(3, 3) SP("{'succeededIndexes':'0'}")));
    struct sim sm = {.n = 0};
    struct jobctl_result r = {.next_wakeup_ms = JOBCTL_NO_WAKEUP};
    (void)state;
    sim_step(job, &sm, &r, 1000);
    jobctl_pod_exited(&sm.pods[0], JOBCTL_RESTART_NEVER, 0, 0, 1100);
    sim_step(job, &sm, &r, 1100);
    assert_true(sm.pods[1].terminating && sm.pods[2].terminating);
    assert_int_equal(r.status.success_criteria.status, JOBCTL_COND_TRUE);
    assert_string_equal(r.status.complete.reason, "SuccessPolicy");
    jobctl_pod_exited(&sm.pods[1], JOBCTL_RESTART_NEVER, 0, 15, 1200);
    jobctl_pod_exited(&sm.pods[2], JOBCTL_RESTART_NEVER, 143, 0, 1200);
    sim_step(job, &sm, &r, 1200);
    assert_int_equal(r.nactions, 0);
    assert_int_equal(r.status.failed, 0);
    assert_int_equal(r.status.succeeded, 1);
    assert_int_equal(r.status.terminating, 0);
    assert_int_equal(r.status.completion_ms, 1100);
    assert_null(r.status.failed_indexes);
    jobctl_result_release(&r);
    json_decref(job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_table),
        cmocka_unit_test(test_indexes_format),    cmocka_unit_test(test_spec_defaults),
        cmocka_unit_test(test_spec_errors),       cmocka_unit_test(test_status_json),
        cmocka_unit_test(test_kubelet_exit),      cmocka_unit_test(test_simulated_run),
        cmocka_unit_test(test_simulated_failure), cmocka_unit_test(test_spec_per_index),
        cmocka_unit_test(test_status_json_index_sets),
        cmocka_unit_test(test_simulated_per_index),
        cmocka_unit_test(test_simulated_success_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
