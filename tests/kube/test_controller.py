"""Scenario tests of `jaxset controller` against an API server, envtest-style as
kubernetes-sigs/jobset's integration suite (test/integration/controller/
jobset_controller_test.go): the test creates JobSets and plays the Job controller and the
kubelet (Job status, pods), and waits, with deadlines, for the Jobs, Services, status,
conditions and events the upstream controller would produce.

The server is the project's test API server, or a real kube-apiserver (and etcd, and
kube-controller-manager's garbage collector when present) when KUBEBUILDER_ASSETS names a
folder holding them. One server and one controller serve every scenario, each in a namespace
of its own; the scenarios that disrupt the controller (faults, SIGKILL, leader election) run
last. `python3 test_controller.py NAME...` runs some of them."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import (CRDS, JOBSET_CRD, JS_API, L_ATTEMPT, L_COORD, L_JOBSET,  # noqa: E402
                     L_RJ, POLL, Case, Controller, attempt, cond_true, poll, rjob,
                     start_server, steady, terminating, test_jobset)
from kubetest import Skip, check, expect, main, test  # noqa: E402

RJ_A, RJ_B = "replicated-job-a", "replicated-job-b"
ALL4 = {RJ_A: 1, RJ_B: 3}


class Env:
    def __init__(self):
        self.server = start_server()
        import envtest
        print(envtest.describe(self.server), flush=True)
        self.controllers = []    # every controller started, for their logs
        self.cases = []          # the scenarios' namespaces since the current test began
        self.controller = self.start_controller()

    def start_controller(self, *args, tag="ctl"):
        c = Controller(self.server, *args, tag=tag)
        self.controllers.append(c)
        return c

    def restart_controller(self, *args):
        self.controller = self.start_controller(*args)
        return self.controller

    def dump(self):
        """The controllers' log lines about this test's namespaces, and their errors."""
        names = [c.ns for c in self.cases]
        for ctl in self.controllers[-3:]:
            lines = [ln for ln in ctl.log().splitlines()
                     if any(n in ln for n in names) or "\tERROR\t" in ln]
            print(f"--- controller log ({ctl.log_path}), {len(lines)} lines:")
            print("\n".join(lines[-80:]))


def policy(max_restarts=1, rules=None, strategy=None):
    p = {"maxRestarts": max_restarts}
    if rules is not None:
        p["rules"] = rules
    if strategy:
        p["restartStrategy"] = strategy
    return p


def rule(name, action, reasons=None, targets=None, patterns=None):
    r = {"name": name, "action": action}
    if reasons is not None:
        r["onJobFailureReasons"] = reasons
    if targets is not None:
        r["targetReplicatedJobs"] = targets
    if patterns is not None:
        r["onJobFailureMessagePatterns"] = patterns
    return r


def job_name(c, rj, i):
    return f"{c.name}-{rj}-{i}"


def first_of(c, rj):
    return job_name(c, rj, 0)


def restart_counts(c, restarts, towards_max):
    def ok():
        st = c.status()
        got = (st.get("restarts", 0), st.get("restartsCountTowardsMax", 0))
        return got if got == (restarts, towards_max) else (False, got)
    poll(ok, f"restarts {restarts}, restartsCountTowardsMax {towards_max}")


def gang_restart(c, attempt_, n=4):
    """After a whole-JobSet restart: the previous attempt's Jobs, held by their pods, are in
    Foreground deletion; the kubelet lets them go; every Job comes back with the new
    restart-attempt label."""
    old = c.wait_terminating(n)
    check(all(int(attempt(j)) == attempt_ - 1 for j in old), "old attempt's jobs")
    c.release(old)
    return c.wait_jobs(n, attempt_)


def recreated(c, attempt_, n=4):
    """The Jobs of a restart without pods: the garbage collector lets the old ones go at
    once; without one (envtest), the test strips their foregroundDeletion finalizers."""
    if not c.s.has_gc:
        c.release(c.wait_terminating(n))
    return c.wait_jobs(n, attempt_)


def no_active_jobs(c, finished):
    """checkNoActiveJobs: only the finished Jobs are left (the others deleted, Foreground)."""
    def ok():
        live = c.jobs(live_only=True)
        good = len(live) == finished and all(cond_true(j, "Complete") or cond_true(j, "Failed")
                                             for j in live)
        return live if good else (False, [j["metadata"]["name"] for j in live])
    poll(ok, f"only the {finished} finished job(s) left")


# ====================================================================== creation


@test
def creates_jobs_service_and_status(env):
    c = Case(env, test_jobset())
    jobs = c.wait_jobs(4, 0)
    names = [j["metadata"]["name"] for j in jobs]
    check(names == [first_of(c, RJ_A)] + [job_name(c, RJ_B, i) for i in range(3)], names)
    for gidx, j in enumerate(jobs):
        m = j["metadata"]
        rj = RJ_A if gidx == 0 else RJ_B
        want = {L_JOBSET: c.name, L_RJ: rj, "jobset.sigs.k8s.io/replicatedjob-replicas":
                str(ALL4[rj]), "jobset.sigs.k8s.io/global-replicas": "4",
                "jobset.sigs.k8s.io/job-index": str(0 if gidx == 0 else gidx - 1),
                "jobset.sigs.k8s.io/job-global-index": str(gidx), L_ATTEMPT: "0",
                "jobset.sigs.k8s.io/jobset-uid": c.uid}
        for k, v in want.items():
            check(m["labels"].get(k) == v, f"{m['name']} label {k}: {m['labels'].get(k)}")
            check(m["annotations"].get(k) == v, f"{m['name']} annotation {k}")
            tm = j["spec"]["template"]["metadata"]
            check(tm["labels"].get(k) == v and tm["annotations"].get(k) == v,
                  f"{m['name']} pod template key {k}: {tm}")
        check(len(m["labels"]["jobset.sigs.k8s.io/job-key"]) == 40, m["labels"])
        refs = m["ownerReferences"]
        check(len(refs) == 1 and refs[0]["uid"] == c.uid and refs[0]["kind"] == "JobSet" and
              refs[0]["controller"] is True and refs[0]["blockOwnerDeletion"] is True, refs)
        check(j["spec"]["suspend"] is False, j["spec"])
        check(j["spec"]["template"]["spec"]["subdomain"] == c.name, j["spec"]["template"])
        check(j["spec"]["completionMode"] == "Indexed", j["spec"])
    svc = poll(lambda: c.services(), "headless service")
    check(len(svc) == 1, svc)
    sm, ss = svc[0]["metadata"], svc[0]["spec"]
    check(sm["name"] == c.name and ss["clusterIP"] == "None" and
          ss["selector"] == {L_JOBSET: c.name} and ss["publishNotReadyAddresses"] is True, svc)
    check(sm["ownerReferences"][0]["uid"] == c.uid and
          sm["ownerReferences"][0]["controller"] is True, sm)
    c.wait_rj_status({RJ_A: {}, RJ_B: {}})
    st = c.status()
    check(st.get("restarts", 0) == 0 and not st.get("conditions"), st)
    steady(lambda: len(c.jobs()) == 4, "no more than 4 jobs")


@test
def succeeds_after_all_jobs_succeed(env):
    c = Case(env, test_jobset())
    for j in c.wait_jobs(4):
        c.complete(j)
    cond = c.wait_condition("Completed", reason="AllJobsCompleted",
                            message="jobset completed successfully")
    check(cond["lastTransitionTime"], cond)
    c.wait_rj_status({RJ_B: {"succeeded": 3}, RJ_A: {"succeeded": 1}})
    check(c.status().get("terminalState") == "Completed", c.status())
    ev = c.wait_event("AllJobsCompleted", "Normal", "jobset completed successfully")
    check(ev["involvedObject"]["uid"] == c.uid and ev["involvedObject"]["kind"] == "JobSet",
          ev)
    check(ev.get("source", {}).get("component") == "jobset", ev)
    steady(lambda: len(c.jobs(live_only=True)) == 4, "finished jobs are kept")


@test
def ignores_jobs_of_another_owner_uid(env):
    c = Case(env, test_jobset())
    jobs = c.wait_jobs(4)
    dummy = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": "dummy-job", "labels": {L_JOBSET: c.name, L_RJ: "non-existent-replicated-job"},
        "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                             "name": c.name, "uid": "12345678-1234-1234-1234-123456789abc",
                             "controller": True}]},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "test", "image": "bash:latest"}]}}}}
    expect(c.s.post(c.path("jobs"), dummy), 201, "dummy job")
    for j in jobs:
        c.complete(j)
    c.wait_condition("Completed")
    c.wait_rj_status({RJ_B: {"succeeded": 3}, RJ_A: {"succeeded": 1}})


@test
def not_complete_while_a_job_runs(env):
    c = Case(env, test_jobset())
    jobs = c.wait_jobs(4)
    for j in jobs[:-1]:
        c.complete(j)
    c.ready(jobs[-1])
    c.wait_rj_status({RJ_B: {"succeeded": 2, "ready": 1, "active": 1},
                      RJ_A: {"succeeded": 1}})
    steady(lambda: c.condition("Completed") is None, "not completed")


# ====================================================================== success policy


@test
def success_policy_all_with_targets(env):
    c = Case(env, test_jobset(successPolicy={"operator": "All",
                                             "targetReplicatedJobs": [RJ_B]}))
    c.wait_jobs(4)
    c.complete(first_of(c, RJ_A))
    c.wait_rj_status({RJ_A: {"succeeded": 1}, RJ_B: {}})
    c.complete(first_of(c, RJ_B))
    c.wait_rj_status({RJ_A: {"succeeded": 1}, RJ_B: {"succeeded": 1}})
    check(c.condition("Completed") is None, c.status())
    c.complete(job_name(c, RJ_B, 1))
    c.complete(job_name(c, RJ_B, 2))
    c.wait_condition("Completed", reason="AllJobsCompleted")


@test
def success_policy_all_with_empty_targets(env):
    c = Case(env, test_jobset(successPolicy={"operator": "All", "targetReplicatedJobs": []}))
    c.wait_jobs(4)
    c.complete(first_of(c, RJ_A))
    c.wait_rj_status({RJ_A: {"succeeded": 1}, RJ_B: {}})
    steady(lambda: c.condition("Completed") is None, "still active", 0.3)
    for i in range(3):
        c.complete(job_name(c, RJ_B, i))
    c.wait_condition("Completed")


@test
def success_policy_any_deletes_active_jobs(env):
    """Any with a target: one Job of replicated-job-b completes the JobSet; the Jobs still
    running are then deleted (Foreground), the finished one kept."""
    c = Case(env, test_jobset(successPolicy={"operator": "Any",
                                             "targetReplicatedJobs": [RJ_B]}))
    c.wait_jobs(4)
    c.complete(job_name(c, RJ_B, 1))
    c.wait_condition("Completed", reason="AllJobsCompleted")
    no_active_jobs(c, 1)
    check(c.jobs(live_only=True)[0]["metadata"]["name"] == job_name(c, RJ_B, 1), c.jobs())


@test
def success_policy_any_without_targets(env):
    c = Case(env, test_jobset(successPolicy={"operator": "Any", "targetReplicatedJobs": []}))
    c.wait_jobs(4)
    c.complete(first_of(c, RJ_A))
    c.wait_condition("Completed")
    check(c.status().get("terminalState") == "Completed", c.status())


# ====================================================================== failure policy


@test
def fails_without_failure_policy(env):
    c = Case(env, test_jobset())
    c.wait_jobs(4)
    failed = first_of(c, RJ_B)
    c.fail(failed)
    msg = f"jobset failed due to one or more job failures (first failed job: {failed})"
    c.wait_condition("Failed", reason="FailedJobs", message=msg)
    check(c.status().get("terminalState") == "Failed", c.status())
    c.wait_event("FailedJobs", "Warning", msg)
    no_active_jobs(c, 1)
    check(c.status().get("restarts", 0) == 0, c.status())


@test
def fail_jobset_rule_matches_reason_and_message(env):
    rules = [rule("failFast", "FailJobSet", ["PodFailurePolicy"], patterns=["some message"])]
    c = Case(env, test_jobset(failurePolicy=policy(1, rules)))
    c.wait_jobs(4)
    c.fail(first_of(c, RJ_A), "PodFailurePolicy", "this is some message with critical error")
    msg = f"applying FailJobSet failure policy action (first failed job: {first_of(c, RJ_A)})"
    c.wait_condition("Failed", reason="FailJobSetFailurePolicyAction", message=msg)
    c.wait_event("FailJobSetFailurePolicyAction", "Warning", msg)
    restart_counts(c, 0, 0)


@test
def fail_jobset_rule_not_matched_restarts(env):
    """Neither the reason nor the message pattern matches: the default action restarts."""
    cases = [
        rule("r", "FailJobSet", ["BackoffLimitExceeded"]),
        rule("r", "FailJobSet", [], patterns=["some message"]),
        rule("r", "FailJobSet", ["PodFailurePolicy"], patterns=["some message"]),
    ]
    cs = [Case(env, test_jobset(failurePolicy=policy(1, [r]))) for r in cases]
    for c in cs:
        c.wait_jobs(4)
        c.fail(first_of(c, RJ_A), "PodFailurePolicy", "some critical error with a message")
    for c in cs:
        restart_counts(c, 1, 1)
        msg = (f"applying RestartJobSet failure policy action (first failed job: "
               f"{first_of(c, RJ_A)})")
        c.wait_condition("RestartingJobSet", reason="DefaultFailurePolicy", message=msg)
        c.wait_event("RestartJobSetFailurePolicyAction", "Warning", msg)
        check(c.condition("Failed") is None, c.status())
        recreated(c, 1)


@test
def restarting_condition_transitions(env):
    rules = [rule("Rule1", "RestartJobSet", ["PodFailurePolicy"])]
    c = Case(env, test_jobset(failurePolicy=policy(1, rules)))
    c.add_pods(c.wait_jobs(4, 0))
    c.fail(first_of(c, RJ_A), "PodFailurePolicy")
    c.wait_condition("RestartingJobSet", "True", "FailurePolicy_Rule1")
    restart_counts(c, 1, 1)
    c.wait_rj_status({RJ_A: {}, RJ_B: {}})
    jobs = gang_restart(c, 1)
    for j in jobs:
        c.ready(j)
    c.wait_condition("RestartingJobSet", "False", "JobsReady", "all jobs are ready")
    c.wait_rj_status({RJ_A: {"ready": 1, "active": 1}, RJ_B: {"ready": 3, "active": 3}})
    c.wait_event("JobsReady", "Normal")
    check(c.condition("Failed") is None and c.condition("Completed") is None, c.status())


@test
def max_restarts_reached(env):
    """maxRestarts 1: the first failure restarts, the second fails the JobSet; a Job that
    succeeded before the restart is recreated too ('job succeeds after one failure')."""
    c = Case(env, test_jobset(failurePolicy=policy(1)))
    c.add_pods(c.wait_jobs(4, 0))
    c.complete(first_of(c, RJ_A))
    c.fail(first_of(c, RJ_B))
    restart_counts(c, 1, 1)
    c.add_pods(gang_restart(c, 1))
    c.fail(job_name(c, RJ_B, 1))
    msg = ("jobset failed due to reaching max number of restarts (first failed job: "
           f"{job_name(c, RJ_B, 1)})")
    c.wait_condition("Failed", reason="ReachedMaxRestarts", message=msg)
    c.wait_condition("RestartingJobSet", "False", "JobSetFailed", "jobset failed")
    restart_counts(c, 1, 1)
    check(c.status().get("terminalState") == "Failed", c.status())


@test
def restart_ignore_max_restarts(env):
    """RestartJobSetAndIgnoreMaxRestarts restarts without counting towards maxRestarts; a
    failure it does not match falls to the FailJobSet rule (rules order test 3)."""
    rules = [rule("ignore", "RestartJobSetAndIgnoreMaxRestarts", ["MaxFailedIndexesExceeded"],
                  [RJ_A]),
             rule("fail", "FailJobSet", [], [])]
    c = Case(env, test_jobset(failurePolicy=policy(1, rules)))
    c.wait_jobs(4, 0)
    for n in (1, 2, 3):
        c.fail(first_of(c, RJ_A), "MaxFailedIndexesExceeded")
        restart_counts(c, n, 0)
        msg = ("applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first "
               f"failed job: {first_of(c, RJ_A)})")
        c.wait_condition("RestartingJobSet", reason="FailurePolicy_ignore", message=msg)
        recreated(c, n)
    c.wait_event("RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction", "Warning")
    c.fail(first_of(c, RJ_B))
    c.wait_condition("Failed", reason="FailJobSetFailurePolicyAction")
    restart_counts(c, 3, 0)


@test
def rule_target_replicated_jobs(env):
    contained = Case(env, test_jobset(failurePolicy=policy(1, [
        rule("r", "FailJobSet", ["FailedIndexes"], [RJ_B])])))
    other = Case(env, test_jobset(failurePolicy=policy(1, [
        rule("r", "FailJobSet", ["BackoffLimitExceeded"], [RJ_A])])))
    for c in (contained, other):
        c.wait_jobs(4)
    contained.fail(first_of(contained, RJ_B), "FailedIndexes")
    other.fail(first_of(other, RJ_B), "BackoffLimitExceeded")
    contained.wait_condition("Failed", reason="FailJobSetFailurePolicyAction")
    restart_counts(contained, 0, 0)
    restart_counts(other, 1, 1)
    recreated(other, 1)
    check(other.condition("Failed") is None, other.status())


@test
def rules_are_tried_in_order(env):
    fail_first = Case(env, test_jobset(failurePolicy=policy(1, [
        rule("f", "FailJobSet", ["MaxFailedIndexesExceeded"], [RJ_A]),
        rule("r", "RestartJobSet", ["MaxFailedIndexesExceeded"], [RJ_A])])))
    restart_first = Case(env, test_jobset(failurePolicy=policy(1, [
        rule("r", "RestartJobSet", ["MaxFailedIndexesExceeded"], [RJ_A]),
        rule("f", "FailJobSet", ["MaxFailedIndexesExceeded"], [RJ_A])])))
    for c in (fail_first, restart_first):
        c.wait_jobs(4)
        c.fail(first_of(c, RJ_A), "MaxFailedIndexesExceeded")
    fail_first.wait_condition("Failed", reason="FailJobSetFailurePolicyAction")
    restart_counts(fail_first, 0, 0)
    restart_first.wait_condition("RestartingJobSet", reason="FailurePolicy_r")
    restart_counts(restart_first, 1, 1)


@test
def recreate_replaces_each_job_when_its_predecessor_is_gone(env):
    c = Case(env, test_jobset(failurePolicy=policy(1, strategy="Recreate")))
    c.add_pods(c.wait_jobs(4, 0))
    c.fail(first_of(c, RJ_A), "PodFailurePolicy")
    restart_counts(c, 1, 1)
    old = c.wait_terminating(4)
    c.release(old[1:])
    poll(lambda: c.attempts() == {0: 1, 1: 3} or (False, c.attempts()), "3 of 4 recreated")
    c.release(old[:1])
    poll(lambda: c.attempts() == {1: 4} or (False, c.attempts()), "all 4 recreated")


@test
def blocking_recreate_waits_for_every_old_job(env):
    c = Case(env, test_jobset(failurePolicy=policy(1, strategy="BlockingRecreate")))
    c.add_pods(c.wait_jobs(4, 0))
    c.fail(first_of(c, RJ_A), "PodFailurePolicy")
    restart_counts(c, 1, 1)
    old = c.wait_terminating(4)
    c.release(old[1:])
    poll(lambda: c.attempts() == {0: 1} or (False, c.attempts()), "one old job left")
    steady(lambda: c.attempts() == {0: 1}, "nothing recreated while an old job remains")
    c.release(old[:1])
    poll(lambda: c.attempts() == {1: 4} or (False, c.attempts()), "all 4 recreated")


# ====================================================================== startup order


@test
def startup_policy_in_order(env):
    """InOrder: replicated-job-b's Jobs are created once replicated-job-a's are ready;
    StartupPolicyInProgress until every replicated job is ready, then Completed."""
    c = Case(env, test_jobset(startupPolicy={"startupPolicyOrder": "InOrder"}))
    c.wait_jobs(1, rj=RJ_A)
    c.wait_condition("StartupPolicyInProgress", "True", "InOrderStartupPolicyInProgress",
                     "in order startup policy is in progress")
    steady(lambda: len(c.jobs()) == 1, "replicated-job-b waits", 0.3)
    c.ready(first_of(c, RJ_A))
    c.wait_jobs(3, rj=RJ_B)
    for i in range(3):
        c.write_job_status(job_name(c, RJ_B, i), lambda st, j: st.update(active=1))
    c.wait_rj_status({RJ_B: {"active": 3}, RJ_A: {"ready": 1, "active": 1}})
    check(c.condition("StartupPolicyInProgress")["status"] == "True", c.status())
    for i in range(3):
        c.ready(job_name(c, RJ_B, i))
    c.wait_condition("StartupPolicyCompleted", "True", "InOrderStartupPolicyCompleted",
                     "in order startup policy has completed")
    c.wait_condition("StartupPolicyInProgress", "False")
    c.wait_rj_status({RJ_B: {"ready": 3, "active": 3}, RJ_A: {"ready": 1, "active": 1}})


@test
def depends_on_ready(env):
    b = rjob(RJ_B, 3)
    b["dependsOn"] = [{"name": RJ_A, "status": "Ready"}]
    c = Case(env, test_jobset(replicatedJobs=[rjob(RJ_A, 1), b]))
    c.wait_jobs(1, rj=RJ_A)
    steady(lambda: len(c.jobs()) == 1, "replicated-job-b waits for a to be ready", 0.3)
    c.ready(first_of(c, RJ_A))
    c.wait_jobs(4)
    for i in range(3):
        c.ready(job_name(c, RJ_B, i))
    c.wait_rj_status({RJ_B: {"ready": 3, "active": 3}, RJ_A: {"ready": 1, "active": 1}})


# ====================================================================== suspend and resume

TEMPLATE_UPDATES = {
    "labels": {"label": "value"},
    "annotations": {"annotation": "value"},
    "nodeSelector": {"node-selector-test": "test"},
    "tolerations": [{"key": "key", "operator": "Equal", "value": "value",
                     "effect": "NoSchedule"}],
}


def update_pod_templates(js):
    for r in js["spec"]["replicatedJobs"]:
        t = r["template"]["spec"]["template"]
        t.setdefault("metadata", {})["labels"] = dict(TEMPLATE_UPDATES["labels"])
        t["metadata"]["annotations"] = dict(TEMPLATE_UPDATES["annotations"])
        t["spec"]["nodeSelector"] = dict(TEMPLATE_UPDATES["nodeSelector"])
        t["spec"]["tolerations"] = list(TEMPLATE_UPDATES["tolerations"])


def check_template_updates(c):
    for j in c.jobs(live_only=True):
        t = j["spec"]["template"]
        name = j["metadata"]["name"]
        check(t["metadata"]["labels"].get("label") == "value", f"{name} labels {t}")
        check(t["metadata"]["labels"].get(L_JOBSET) == c.name, f"{name} keeps its labels")
        check(t["metadata"]["annotations"].get("annotation") == "value", f"{name} annotations")
        check(t["spec"].get("nodeSelector", {}).get("node-selector-test") == "test",
              f"{name} nodeSelector")
        check(TEMPLATE_UPDATES["tolerations"][0] in t["spec"].get("tolerations", []),
              f"{name} tolerations {t['spec'].get('tolerations')}")


def suspended_jobs(c, flag):
    jobs = c.jobs(live_only=True)
    good = len(jobs) == 4 and all(j["spec"].get("suspend") is flag for j in jobs)
    return jobs if good else (False, [(j["metadata"]["name"], j["spec"].get("suspend"))
                                      for j in jobs])


@test
def created_suspended_then_resumed_with_template_propagation(env):
    c = Case(env, test_jobset(suspend=True))
    poll(lambda: suspended_jobs(c, True), "4 suspended jobs")
    c.wait_condition("Suspended", "True", "SuspendedJobs", "jobset is suspended")
    c.wait_rj_status({RJ_B: {"suspended": 3}, RJ_A: {"suspended": 1}})
    c.wait_event("SuspendedJobs", "Normal")
    # K8s 1.36 requires the Job controller's Suspended condition before template changes.
    for j in c.jobs():
        c.write_job_status(j["metadata"]["name"], lambda st, _: st.update(conditions=[
            {"type": "Suspended", "status": "True", "reason": "JobSuspended",
             "message": "Job suspended", "lastTransitionTime": time.strftime(
                 "%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "lastProbeTime": time.strftime(
                 "%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]))
    c.update_js(update_pod_templates)
    c.update_js(lambda js: js["spec"].update(suspend=False))
    poll(lambda: suspended_jobs(c, False), "4 resumed jobs")
    c.wait_condition("Suspended", "False", "ResumeJobs", "jobset is resumed")
    c.wait_event("ResumeJobs", "Normal")
    check_template_updates(c)
    c.wait_rj_status({RJ_B: {}, RJ_A: {}})
    for j in c.jobs():
        c.complete(j)
    c.wait_condition("Completed")
    c.wait_rj_status({RJ_B: {"succeeded": 3}, RJ_A: {"succeeded": 1}})


@test
def suspend_running_then_resume_clears_start_time(env):
    """As Kueue preempting a workload: a running JobSet is suspended (its Jobs too), the
    templates change while suspended, and on resume the Jobs' startTime is cleared before
    their templates are updated (kube-apiserver refuses template changes otherwise)."""
    c = Case(env, test_jobset())
    poll(lambda: suspended_jobs(c, False), "4 running jobs")
    for j in c.jobs():
        c.ready(j)
    c.wait_rj_status({RJ_B: {"ready": 3, "active": 3}, RJ_A: {"ready": 1, "active": 1}})
    c.update_js(lambda js: js["spec"].update(suspend=True))
    poll(lambda: suspended_jobs(c, True), "4 suspended jobs")
    c.wait_condition("Suspended", "True", "SuspendedJobs")
    # The Job controller deletes the pods of suspended Jobs; startTime stays.
    for j in c.jobs():
        c.write_job_status(j["metadata"]["name"],
                           lambda st, _: st.update(active=0, ready=0))
    check(all(j["status"].get("startTime") for j in c.jobs()), "startTime kept")
    c.update_js(update_pod_templates)
    c.update_js(lambda js: js["spec"].update(suspend=False))
    poll(lambda: suspended_jobs(c, False), "4 resumed jobs")
    c.wait_condition("Suspended", "False", "ResumeJobs")
    check_template_updates(c)
    for j in c.jobs():
        check(not j["status"].get("startTime"), f"startTime cleared: {j['status']}")


# ====================================================================== service, names


@test
def headless_service_deleted_is_recreated(env):
    c = Case(env, test_jobset())
    svc = poll(lambda: c.services(), "service")[0]
    expect(c.s.delete(c.path("services", c.name, api="/api/v1")), 200, "delete service")
    again = poll(lambda: [s for s in c.services()
                          if s["metadata"]["uid"] != svc["metadata"]["uid"]],
                 "service recreated")
    check(again[0]["metadata"]["name"] == c.name, again)


@test
def generate_name_and_coordinator(env):
    """A JobSet named by generateName gets a Service of its final name; the coordinator
    label and annotation name the coordinator pod's DNS name on every Job and template."""
    body = test_jobset(coordinator={"replicatedJob": RJ_A, "jobIndex": 0, "podIndex": 0})
    body["metadata"] = {"generateName": "name-prefix-"}
    c = Case(env, body)
    check(c.name.startswith("name-prefix-") and len(c.name) > len("name-prefix-"), c.name)
    poll(lambda: [s for s in c.services() if s["metadata"]["name"] == c.name], "service")
    want = f"{c.name}-{RJ_A}-0-0.{c.name}"
    for j in c.wait_jobs(4):
        for meta in (j["metadata"], j["spec"]["template"]["metadata"]):
            check(meta["labels"].get(L_COORD) == want and
                  meta["annotations"].get(L_COORD) == want, f"coordinator {meta}")


@test
def ttl_after_finished_deletes_the_jobset(env):
    """ttlSecondsAfterFinished 2 (upstream's test value): the finished JobSet is deleted
    (Foreground) once 2 s have passed since its Failed condition; one without it is kept."""
    ttl = Case(env, test_jobset(ttlSecondsAfterFinished=2))
    keep = Case(env, test_jobset())
    ttl.wait_jobs(4)
    keep.wait_jobs(4)
    ttl.fail(first_of(ttl, RJ_A))
    t0 = time.monotonic()
    for j in keep.jobs():
        keep.complete(j)
    ttl.wait_condition("Failed")
    keep.wait_condition("Completed")

    def deleted():
        js = ttl.js()
        return js is None or terminating(js)
    poll(deleted, "the finished JobSet with a TTL deleted")
    # lastTransitionTime has whole seconds: the TTL runs from the second the failure fell in
    check(time.monotonic() - t0 > 0.9, f"deleted after {time.monotonic() - t0:.2f}s")
    if ttl.s.has_gc:
        poll(lambda: ttl.js() is None and not ttl.jobs(), "it and its jobs gone")
    steady(lambda: keep.js() is not None and not terminating(keep.js()),
           "the JobSet without a TTL kept", 0.3)


@test
def managed_by_another_controller(env):
    body = test_jobset(managedBy="example.com/other-controller", suspend=True)
    c = Case(env, body)
    control = Case(env, test_jobset())
    control.wait_jobs(4)
    steady(lambda: not c.jobs() and not c.status(), "no jobs, no status", 0.3)
    c.update_js(lambda js: js["spec"].update(suspend=False))
    want = {"conditions": [{"type": "Failed", "status": "False", "reason": "ByTest",
                            "message": "", "lastTransitionTime": "2024-01-01T00:00:00Z"}],
            "restarts": 1,
            "replicatedJobsStatus": [{"name": RJ_A, "ready": 2, "succeeded": 3, "failed": 4,
                                      "active": 5, "suspended": 6}]}

    def set_status(js):
        js["status"] = want
        return js
    js = set_status(c.js())
    expect(c.s.put(c.js_path("status"), js), 200, "status by the other controller")
    steady(lambda: not c.jobs() and not c.services() and c.status() == want,
           "no jobs, status preserved")


# ====================================================================== restart grace


@test
def restart_grace_zero_deletes_old_pods_at_once(env):
    """jaxset.dev/restart-grace-seconds "0": after a failure-policy restart, the old gang's
    pods (which would get their 3600 s terminationGracePeriodSeconds) are deleted with grace
    0, so the restart does not wait for them. A JobSet without it keeps upstream's
    behaviour: its pods are still terminating."""
    fast_body = test_jobset(failurePolicy=policy(2))
    fast_body["metadata"]["annotations"] = {"jaxset.dev/restart-grace-seconds": "0"}
    fast = Case(env, fast_body)
    slow = Case(env, test_jobset(failurePolicy=policy(2)))
    for c in (fast, slow):
        jobs = c.wait_jobs(4, 0)
        # the Jobs' pods carry the restart grace as their own, so that a first deletion by
        # the Job controller or the garbage collector gets it (the kubelet keeps the first
        # grace, kubernetes#83916); without the annotation the API server's
        # default stays
        graces = [j["spec"]["template"]["spec"].get("terminationGracePeriodSeconds")
                  for j in jobs]
        check(graces == [0] * 4 if c is fast else all(g in (None, 30) for g in graces), graces)
        c.add_pods(jobs)
        c.fail(first_of(c, RJ_A))
    restart_counts(fast, 1, 1)
    restart_counts(slow, 1, 1)
    recreated(fast, 1)
    poll(lambda: not fast.pods() or (False, [p["metadata"]["name"] for p in fast.pods()]),
         "old pods deleted at once")
    check("deleted 4 pods with grace 0s" in env.controller.log(), env.controller.log()[-2000:])
    old = slow.wait_terminating(4)
    if slow.s.has_gc:
        pods = poll(lambda: [p for p in slow.pods() if terminating(p)] if len(
            [p for p in slow.pods() if terminating(p)]) == 4 else False,
            "pods of the other JobSet terminating")
        check(all(p["metadata"].get("deletionGracePeriodSeconds") == 3600 for p in pods),
              [p["metadata"].get("deletionGracePeriodSeconds") for p in pods])
    slow.release(old)
    slow.wait_jobs(4, 1)


# ====================================================================== malformed input


def controller_still_works(env):
    c = Case(env, test_jobset())
    c.wait_jobs(4)
    env.controller.check_alive()


@test
def invalid_jobset_is_logged_and_skipped(env):
    """A JobSet the webhook would refuse (here: a success policy naming an unknown
    replicated job; the CRD schema lets it through) is logged and not reconciled."""
    c = Case(env, test_jobset(successPolicy={"operator": "All",
                                             "targetReplicatedJobs": ["nope"]}))
    poll(lambda: f"{c.ns}/{c.name}" in env.controller.log() and "invalid" in
         env.controller.log(), "the invalid JobSet logged")
    steady(lambda: not c.jobs() and not c.status(), "nothing done", 0.3)
    controller_still_works(env)


@test
def job_with_bad_restart_attempt_label(env):
    """A Job of the JobSet whose restart-attempt label is not an integer: the reconcile
    fails as upstream's (logged, retried with backoff), nothing crashes; once the Job is
    gone the JobSet proceeds."""
    c = Case(env, test_jobset(suspend=True))
    jobs = c.wait_jobs(4)
    bad = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": "bad-attempt", "labels": {L_JOBSET: c.name, L_RJ: RJ_A, L_ATTEMPT: "x"},
        "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                             "name": c.name, "uid": c.uid, "controller": True}]},
        "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [{"name": "c",
                                                                        "image": "x"}]}}}}
    expect(c.s.post(c.path("jobs"), bad), 201, "bad job")
    c.update_js(lambda js: js["spec"].update(suspend=False))
    poll(lambda: "bad-attempt" in env.controller.log(), "the bad job logged")
    steady(lambda: all(j["spec"]["suspend"] for j in c.jobs()), "not resumed meanwhile", 0.3)
    env.controller.check_alive()
    expect(c.s.delete(c.path("jobs", "bad-attempt"), {"propagationPolicy": "Background"}),
           200, "delete bad job")
    poll(lambda: suspended_jobs(c, False), "resumed once the bad job is gone")
    check(len(jobs) == 4, jobs)
    controller_still_works(env)


@test
def malformed_jobset_without_schema(env):
    """With a CRD that has no schema (x-kubernetes-preserve-unknown-fields), a JobSet of
    wrong types reaches the controller: it is logged and skipped. The CRD is restored."""
    crd = expect(env.server.get(f"{CRDS}/{JOBSET_CRD}"), 200, "crd")
    original = [dict(v) for v in crd["spec"]["versions"]]
    for v in crd["spec"]["versions"]:
        v["schema"] = {"openAPIV3Schema": {"type": "object",
                                           "x-kubernetes-preserve-unknown-fields": True}}
        v.pop("additionalPrinterColumns", None)
    expect(env.server.put(f"{CRDS}/{JOBSET_CRD}", crd), 200, "crd without schema")
    c = None
    try:
        bad = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
               "metadata": {"name": "garbage"},
               "spec": {"replicatedJobs": [{"name": 5, "replicas": "three",
                                            "template": ["not", "an", "object"]}],
                        "suspend": "yes", "failurePolicy": 7},
               "status": {"restarts": "many"}}
        c = Case(env, test_jobset(), create=False)
        c.body = bad
        poll(lambda: c.s.post(c.path("jobsets", api=JS_API), bad).status == 201,
             "the JobSet accepted without schema")
        c.name = "garbage"
        bad2 = dict(bad, metadata={"name": "garbage2"}, spec="a string")
        expect(c.s.post(c.path("jobsets", api=JS_API), bad2), 201, "spec a string")
        poll(lambda: "garbage" in env.controller.log(), "the malformed JobSet logged")
        steady(lambda: not c.jobs(), "no jobs", 0.3)
        env.controller.check_alive()
        for n in ("garbage", "garbage2"):
            c.s.delete(c.js_path(name=n))
        poll(lambda: c.js("garbage") is None and c.js("garbage2") is None, "deleted")
    finally:
        cur = expect(env.server.get(f"{CRDS}/{JOBSET_CRD}"), 200, "crd")
        cur["spec"]["versions"] = original
        expect(env.server.put(f"{CRDS}/{JOBSET_CRD}", cur), 200, "crd restored")
    poll(lambda: env.server.get(f"{JS_API}/jobsets").status == 200, "JobSets served again")
    controller_still_works(env)



@test
def invalid_jobset_recreated_under_its_name_is_reported_again(env):
    """The invalid JobSets already reported are remembered per JobSet, not per name@generation
    for ever: a deleted one is forgotten (bounded memory), so the same name recreated, again
    at generation 1, is reported again."""
    c = Case(env, test_jobset(successPolicy={"operator": "All",
                                             "targetReplicatedJobs": ["nope"]}))
    line = f"{c.ns}/{c.name}"

    def reports():
        return sum(1 for ln in env.controller.log().splitlines()
                   if line in ln and "not reconciled: invalid" in ln)
    poll(lambda: reports() == 1, "the invalid JobSet reported")
    expect(c.s.delete(c.js_path()), 200, "delete")
    poll(lambda: c.js() is None, "deleted")
    c.create()
    poll(lambda: reports() == 2, "the recreated invalid JobSet reported again")
    steady(lambda: reports() == 2, "reported once per object")
    controller_still_works(env)


def nul_job(c, name):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": name, "labels": {L_JOBSET: "anything"}, "annotations": {"nul": "a\u0000b"}},
        "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [{"name": "c",
                                                                        "image": "x"}]}}}}


@test
def a_nul_in_a_job_or_jobset_does_not_blind_the_watches(env):
    """JSON allows \\u0000: a Job with the jobset-name label and a NUL in an annotation, and a
    JobSet with one (no webhook), are read like any other; a deleted Job of another JobSet
    is still recreated afterwards, and the NUL JobSet's Jobs are made."""
    c = Case(env, test_jobset())
    jobs = c.wait_jobs(4)
    expect(c.s.post(c.path("jobs"), nul_job(c, "nul-job")), 201, "the NUL job")
    victim = jobs[0]["metadata"]
    expect(c.s.delete(c.path("jobs", victim["name"]), {"propagationPolicy": "Background"}),
           200, "delete a job")
    poll(lambda: any(j["metadata"]["name"] == victim["name"] and
                     j["metadata"]["uid"] != victim["uid"] for j in c.jobs()),
         "the deleted job recreated")
    body = test_jobset(name="nul-js")
    body["metadata"]["annotations"] = {"nul": "x\u0000y"}
    body["spec"]["replicatedJobs"][0]["template"]["metadata"] = {
        "annotations": {"nul": "p\u0000q"}}
    c2 = Case(env, body)
    jobs2 = c2.wait_jobs(4)
    check(any((j["metadata"].get("annotations") or {}).get("nul") == "p\u0000q" for j in jobs2),
          "the NUL reaches the Job byte for byte")
    check("is not JSON" not in env.controller.log(), "no watch failed")
    controller_still_works(env)

# ====================================================================== faults (test server)


def need_admin(env):
    if not getattr(env.server, "has_admin", False):
        raise Skip("fault injection needs the test API server's /__admin")


def faults(env, *rules):
    expect(env.server.admin("faults", list(rules)), 200, "faults")


def clear_faults(env):
    env.server.admin("faults", method="DELETE")


@test
def recovers_from_5xx_and_429(env):
    need_admin(env)
    try:
        faults(env,
               {"verb": "create", "resource": "jobs", "code": 500, "count": 2},
               {"verb": "create", "resource": "jobs", "code": 429, "retryAfter": 1,
                "count": 2, "skip": 1},
               {"verb": "update", "resource": "jobsets", "subresource": "status",
                "code": 503, "retryAfter": 1, "count": 2},
               {"verb": "create", "resource": "services", "code": 504, "count": 1})
        c = Case(env, test_jobset())
        c.wait_jobs(4, 0)
        poll(lambda: c.services(), "service")
        c.wait_rj_status({RJ_A: {}, RJ_B: {}})
        for j in c.jobs():
            c.complete(j)
        c.wait_condition("Completed")
        env.controller.check_alive()
    finally:
        clear_faults(env)


@test
def recovers_from_dropped_and_expired_watches(env):
    need_admin(env)
    c = Case(env, test_jobset())
    jobs = c.wait_jobs(4)
    expect(env.server.admin("watches", {"action": "drop"}), 200, "drop")
    c.complete(jobs[0])
    c.wait_rj_status({RJ_A: {"succeeded": 1}, RJ_B: {}})
    expect(env.server.admin("compact", {}), 200, "compact")
    expect(env.server.admin("watches", {"action": "expire"}), 200, "expire")
    for j in jobs[1:]:
        c.complete(j)
    c.wait_condition("Completed")
    # Watches dropped again while nothing changes, then a new JobSet.
    expect(env.server.admin("watches", {"action": "drop"}), 200, "drop")
    controller_still_works(env)


@test
def recovers_under_latency_and_failing_deletes(env):
    need_admin(env)
    try:
        faults(env, {"verb": "*", "resource": "*", "latency": 0.1, "count": 0},
               {"verb": "delete", "resource": "jobs", "code": 500, "count": 2})
        c = Case(env, test_jobset(failurePolicy=policy(2)))
        c.wait_jobs(4, 0)
        c.fail(first_of(c, RJ_B))
        c.wait_jobs(4, 1)
        restart_counts(c, 1, 1)
    finally:
        clear_faults(env)
    controller_still_works(env)



@test
def jobs_deleted_during_a_watch_gap_are_recreated(env):
    """The Job watch is cut and cannot come back while Jobs are deleted, and the history is
    compacted: the relist finds them gone and the deletion it reports carries the owner, so
    the JobSet is requeued and its Jobs recreated (not after the 10-hour resync)."""
    need_admin(env)
    c = Case(env, test_jobset())
    jobs = c.wait_jobs(4)
    old = {j["metadata"]["uid"] for j in jobs}
    try:
        faults(env, {"verb": "watch", "resource": "jobs", "code": 500, "count": 0},
               {"verb": "list", "resource": "jobs", "code": 500, "count": 0})
        expect(env.server.admin("watches", {"action": "drop"}), 200, "drop")
        for j in jobs:
            expect(c.s.delete(c.path("jobs", j["metadata"]["name"]),
                              {"propagationPolicy": "Background"}), 200, "delete job")
        poll(lambda: all(c.s.get(c.path("jobs", j["metadata"]["name"])).status == 404
                         for j in jobs), "the jobs gone")  # (lists fail meanwhile)
        expect(env.server.admin("compact", {}), 200, "compact")
    finally:
        clear_faults(env)
    poll(lambda: len(c.jobs()) == 4 and not old & {j["metadata"]["uid"] for j in c.jobs()},
         "every job recreated")
    controller_still_works(env)


@test
def retry_after_is_capped(env):
    """A 429 asking to wait 999999999 s (31 years) parks the request no longer than the cap
    (10 s): the JobSet's Jobs are created."""
    need_admin(env)
    try:
        faults(env, {"verb": "create", "resource": "jobs", "code": 429,
                     "retryAfter": 999999999, "count": 1})
        c = Case(env, test_jobset())
        poll(lambda: len(c.jobs()) == 4, "the jobs created", timeout=30)
    finally:
        clear_faults(env)
    controller_still_works(env)

# ====================================================================== SIGKILL


def converged_once(c, restarts=1):
    """Four Jobs of attempt `restarts`, the restart counted once, and nothing churning."""
    jobs = c.wait_jobs(4, restarts)
    restart_counts(c, restarts, restarts)
    uids = {j["metadata"]["uid"] for j in jobs}
    steady(lambda: {j["metadata"]["uid"] for j in c.jobs()} == uids, "the same 4 jobs")
    check(max(c.attempts()) == restarts, c.attempts())
    evs = c.events("RestartJobSetFailurePolicyAction")
    check(sum(e.get("count", 1) for e in evs) <= restarts, evs)


@test
def sigkill_in_the_middle_of_a_restart(env):
    """The controller is killed right after writing restarts=1 (before or while deleting the
    old Jobs); a new one finishes the restart: no duplicate Job, the restart counted once."""
    c = Case(env, test_jobset(failurePolicy=policy(3)))
    c.add_pods(c.wait_jobs(4, 0))
    admin = getattr(env.server, "has_admin", False)
    try:
        if admin:  # the old attempt's deletes slowed down: killed while they are in flight
            faults(env, {"verb": "delete", "resource": "jobs", "namespace": c.ns,
                         "latency": 0.5, "count": 0})
        c.fail(first_of(c, RJ_A))
        poll(lambda: c.status().get("restarts") == 1, "restarts 1")
        if admin:
            poll(lambda: env.server.admin("faults", method="GET").json["rules"][0]["hits"],
                 "deletes in flight")
        env.controller.kill()
    finally:
        if admin:
            clear_faults(env)
    env.restart_controller()
    gang_restart(c, 1)
    converged_once(c)


@test
def sigkill_while_creating_jobs(env):
    """Killed while the new attempt's Job creates are in flight (slowed down by the test
    server): some land after it died; the next controller adopts them (AlreadyExists is no
    failure) and creates the rest."""
    need_admin(env)
    c = Case(env, test_jobset(failurePolicy=policy(3)))
    c.add_pods(c.wait_jobs(4, 0))
    c.fail(first_of(c, RJ_A))
    old = c.wait_terminating(4)
    try:
        faults(env, {"verb": "create", "resource": "jobs", "namespace": c.ns, "latency": 0.6,
                     "count": 0})
        c.release(old)

        def creates_in_flight():
            rules = env.server.admin("faults", method="GET").json["rules"]
            return rules and rules[0]["hits"] >= 2
        poll(creates_in_flight, "job creates in flight")
        env.controller.kill()
        check(len(c.jobs()) < 4, "killed before every create landed")
        env.restart_controller()
    finally:
        clear_faults(env)
    converged_once(c)


# ====================================================================== leader election


def lease(env, ns, name):
    r = env.server.get(f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/{name}")
    return r.json if r.status == 200 else None


@test
def leader_election_one_acts(env):
    """Two controllers with --leader-elect: one holds the Lease and acts; killed, the other
    takes over once the lease expires."""
    c0 = Case(env, test_jobset(), create=False)
    ns, lname = c0.ns, "jaxset-test-lease"
    flags = ("--leader-elect", "--leader-election-namespace", ns, "--leader-election-id",
             lname, "--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline",
             "1500ms", "--leader-elect-retry-period", "300ms")
    env.controller.stop()
    a = env.start_controller(*flags, "--identity", "ctl-a", tag="ctl-a")
    b = None
    try:
        end = time.monotonic() + 5
        while time.monotonic() < end and lease(env, ns, lname) is None:
            time.sleep(POLL)
        if lease(env, ns, lname) is None:
            if "lease" not in a.log().lower():
                raise Skip("leader election is not implemented yet: the controller wrote "
                           "no Lease and logged nothing about one")
            raise AssertionError(f"no Lease written:\n{a.log()}")
        b = env.start_controller(*flags, "--identity", "ctl-b", tag="ctl-b")
        holder = poll(lambda: (lease(env, ns, lname) or {}).get("spec", {}).get(
            "holderIdentity"), "a holder")
        check(holder == "ctl-a", holder)
        c0.create()
        c0.wait_jobs(4)
        steady(lambda: "created" not in b.log(), "the follower does nothing", 0.5)
        a.kill()
        poll(lambda: (lease(env, ns, lname) or {}).get("spec", {}).get("holderIdentity")
             == "ctl-b", "ctl-b leads", 10)
        c1 = Case(env, test_jobset())
        c1.wait_jobs(4)
        b.stop()
        b = None
    finally:
        if a.alive():
            a.kill()
        if b is not None:
            b.kill()
        env.restart_controller()


@test
def leadership_lost_mid_pass_sends_nothing_more(env):
    """The lease taken over while a pass waits for its Job creates (slowed down by the test
    server): the controller exits 1 once the creates are answered and sends nothing after
    them, not even the pass's status write (upstream's manager exits at once)."""
    need_admin(env)
    c0 = Case(env, test_jobset(), create=False)
    ns, lname = c0.ns, "jaxset-lost-lease"
    env.controller.stop()
    a = env.start_controller("--leader-elect", "--leader-election-namespace", ns,
                             "--leader-election-id", lname, "--leader-elect-lease-duration",
                             "2s", "--leader-elect-renew-deadline", "1500ms",
                             "--leader-elect-retry-period", "300ms", "--identity", "ctl-a",
                             tag="ctl-lost")
    try:
        poll(lambda: (lease(env, ns, lname) or {}).get("spec", {}).get("holderIdentity")
             == "ctl-a", "ctl-a leads")
        faults(env, {"verb": "create", "resource": "jobs", "namespace": ns, "latency": 3,
                     "count": 0})
        c0.create()
        poll(lambda: env.server.admin("faults", method="GET").json["rules"][0]["hits"],
             "creates in flight")
        def take_over():  # ctl-a renews every 300 ms: a renewal between GET and PUT is a 409
            held = lease(env, ns, lname)
            held["spec"].update(holderIdentity="usurper", leaseDurationSeconds=60,
                                renewTime=time.strftime("%Y-%m-%dT%H:%M:%S.000000Z",
                                                        time.gmtime()))
            r = env.server.put(f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/{lname}",
                               held)
            return r.status == 200 or (False, r.status)
        poll(take_over, "the lease taken over")
        rc = a.proc.wait(20)
        check(rc == 1, f"exit status {rc} after losing the lease:\n{a.log()[-3000:]}")
        check("leader election lost" in a.log(), a.log()[-3000:])
        check(len(c0.jobs()) == 4, "the creates already sent were answered")
        check(not c0.status(), f"a status written after the loss: {c0.status()}")
    finally:
        clear_faults(env)
        if a.alive():
            a.kill()
        env.restart_controller()


@test
def sigterm_during_a_long_list_is_taken_between_its_pages(env):
    """The informers list page by page (500 objects) in the loop's stead: a SIGTERM that comes
    during such a list is taken between two pages, not after the whole list (bench_admission
    found a loaded kube-apiserver taking over 60 s a page of a 40,000-pod list, and the
    controller outliving its termination grace). 501 labelled pods make two pages, each pod
    list waits 2 s: the second page is never asked for, and the controller exits 0."""
    need_admin(env)
    c = Case(env, test_jobset(), create=False)
    for i in range(501):
        expect(env.server.post(c.path("pods", api="/api/v1"), {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p-{i}", "labels": {L_JOBSET: "elsewhere"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}), 201, "pod")
    env.controller.stop()
    try:
        faults(env, {"verb": "list", "resource": "pods", "latency": 2, "count": 0})
        ctl = env.restart_controller()
        poll(lambda: "starting:" in ctl.log(), "the controller starting")
        time.sleep(0.5)  # its informers list: the pods' first page is being served
        t0 = time.monotonic()
        ctl.stop()
        took = time.monotonic() - t0
        rules = env.server.admin("faults", method="GET").json["rules"]
        hits = [r["hits"] for r in rules if r["resource"] == "pods"]
        check(hits == [1], f"pod lists asked for after SIGTERM: {hits} (one expected)")
        check(took < 10, f"the controller took {took:.1f} s to stop")
    finally:
        clear_faults(env)
        env.server.request("DELETE", c.path("pods", api="/api/v1"))
    env.restart_controller()
    controller_still_works(env)


@test
def controller_stops_cleanly(env):
    """SIGTERM: exit status 0, and under ASan no leak or error report."""
    controller_still_works(env)
    env.controller.stop()
    env.restart_controller()


def setup():
    socket.setdefaulttimeout(30)
    return Env()


def before_each(env, name):
    env.cases = []


def on_failure(env, name):
    env.dump()


def teardown(env):
    keep = os.environ.get("JAXSET_KEEP_LOGS")
    for ctl in env.controllers:
        if ctl.alive():
            ctl.kill()
        if keep:
            print(f"controller log kept: {ctl.log_path}")
        else:
            ctl.cleanup()
    env.server.stop()


if __name__ == "__main__":
    main(setup, teardown, on_failure, before_each)
