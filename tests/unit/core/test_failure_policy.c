/* Table tests of failure-policy rule matching (src/core/failure.c; kubernetes-sigs/jobset
 * pkg/controllers/failure_policy.go, ruleIsApplicable).  The end-to-end behaviour (first match wins, actions, limits) is in test_reconcile.c. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/reconcile_int.h"

struct rule_case {
    const char *name;
    const char *rule; /* JSON, single quotes */
    const char *rj, *reason, *message;
    bool want;
};

static const struct rule_case rule_cases[] = {
    {"empty rule applies to any labelled Job", "{}", "w", "BackoffLimitExceeded", "m", true},
    {"no replicatedjob-name label: never applies", "{}", NULL, "BackoffLimitExceeded", "m", false},
    {"empty replicatedjob-name label: never applies", "{}", "", "BackoffLimitExceeded", "m", false},
    {"reason listed", "{'onJobFailureReasons':['DeadlineExceeded','BackoffLimitExceeded']}", "w",
     "BackoffLimitExceeded", "m", true},
    {"reason not listed", "{'onJobFailureReasons':['DeadlineExceeded']}", "w",
     "BackoffLimitExceeded", "m", false},
    {"no reason on the condition", "{'onJobFailureReasons':['DeadlineExceeded']}", "w", NULL,
     "m", false},
    {"empty reason list = any", "{'onJobFailureReasons':[]}", "w", "PodFailurePolicy", "m", true},
    {"pattern searched unanchored", "{'onJobFailureMessagePatterns':['preempt']}", "w", "R",
     "pod was preempted", true},
    {"anchored pattern", "{'onJobFailureMessagePatterns':['^Pod']}", "w", "R", "a Pod failed",
     false},
    {"anchored pattern matching", "{'onJobFailureMessagePatterns':['^Pod .* failed$']}", "w",
     "R", "Pod x-1 failed", true},
    {"patterns are case sensitive", "{'onJobFailureMessagePatterns':['pod']}", "w", "R",
     "Pod failed", false},
    {"alternation and groups", "{'onJobFailureMessagePatterns':['(OOM|oom)Killed']}", "w", "R",
     "container OOMKilled", true},
    {"any of several patterns", "{'onJobFailureMessagePatterns':['^x$','exit code [0-9]+']}", "w",
     "R", "exit code 137", true},
    {"invalid pattern matches nothing", "{'onJobFailureMessagePatterns':['([']}", "w", "R", "([",
     false},
    {"invalid pattern skipped", "{'onJobFailureMessagePatterns':['([','fail']}", "w", "R",
     "failed", true},
    /* Go's regexp (RE2) syntax, as upstream matches with regexp.MatchString */
    {"(?i) flag", "{'onJobFailureMessagePatterns':['(?i)^pod .*FAILED']}", "w", "R",
     "Pod x failed", true},
    {"\\d is a digit", "{'onJobFailureMessagePatterns':['exit code \\\\d+$']}", "w", "R",
     "exit code 137", true},
    {"\\d is not the letter d", "{'onJobFailureMessagePatterns':['code \\\\d']}", "w", "R",
     "code d", false},
    {"\\b word boundary", "{'onJobFailureMessagePatterns':['\\\\bOOM\\\\b']}", "w", "R",
     "reason: OOM (killed)", true},
    {"lookahead is invalid in Go: no match", "{'onJobFailureMessagePatterns':['pod(?=x)']}", "w",
     "R", "podx", false},
    {"backreference is invalid in Go: no match", "{'onJobFailureMessagePatterns':['(a)\\\\1']}",
     "w", "R", "aa", false},
    {"UTF-8 character class", "{'onJobFailureMessagePatterns':['^.{3}$']}", "w", "R",
     "\xc3\xa9t\xc3\xa9", true},
    {"missing message is the empty string", "{'onJobFailureMessagePatterns':['^$']}", "w", "R",
     NULL, true},
    {"target listed", "{'targetReplicatedJobs':['d','w']}", "w", "R", "m", true},
    {"target not listed", "{'targetReplicatedJobs':['d']}", "w", "R", "m", false},
    {"all filters match",
     "{'onJobFailureReasons':['PodFailurePolicy'],'onJobFailureMessagePatterns':['evict'],"
     "'targetReplicatedJobs':['w']}",
     "w", "PodFailurePolicy", "pod evicted", true},
    {"all filters but the target match",
     "{'onJobFailureReasons':['PodFailurePolicy'],'onJobFailureMessagePatterns':['evict'],"
     "'targetReplicatedJobs':['d']}",
     "w", "PodFailurePolicy", "pod evicted", false},
    {"reason matches, pattern does not",
     "{'onJobFailureReasons':['PodFailurePolicy'],'onJobFailureMessagePatterns':['^evict']}", "w",
     "PodFailurePolicy", "pod evicted", false},
    {"non-string list items are ignored", "{'targetReplicatedJobs':[1,'w']}", "w", "R", "m", true},
};

static void test_rule_applies(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
        const struct rule_case *k = &rule_cases[i];
        char *text = strdup(k->rule);
        for (char *p = text; *p; p++)
            if (*p == '\'')
                *p = '"';
        json_t *rule = tu_json(text);
        free(text);
        bool got = rec_rule_applies(rule, k->rj, k->reason, k->message);
        json_decref(rule);
        if (got != k->want)
            fail_msg("%s: want %d, got %d", k->name, k->want, got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_applies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
