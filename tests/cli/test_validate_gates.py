"""--feature-gates on validate, render and run: upstream's gated features are refused without
their gate (the message names the gate and how to turn it on) and accepted with it; render with
RestartJob on equals its golden file (tests/golden/gates/; UPDATE_GOLDEN=1 rewrites it); bad
values are usage errors (exit 2) naming the option; a gate on but unused changes nothing."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from clitest import SRC, Suite, run  # noqa: E402

RESTART_JOB = "tests/data/gates/restart-job.yaml"
IN_PLACE = "tests/data/gates/in-place-restart.yaml"
IN_PLACE_BAD = "tests/data/gates/in-place-restart-invalid.yaml"
KNOWN = ("AllAlpha, AllBeta, ElasticJobSet, InPlaceRestart, RestartJob, TLSOptions, "
         "TrainJobStatus")


def check_refused_then_accepted(suite):
    cases = [
        (RESTART_JOB, "RestartJob",
         'spec.failurePolicy.rules[0].action: Invalid value: "RestartJob": RestartJob and '
         "RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob "
         "feature gate is disabled (turn it on with --feature-gates=RestartJob=true)"),
        (IN_PLACE, "InPlaceRestart",
         'spec.failurePolicy.restartStrategy: Invalid value: "InPlaceRestart": InPlaceRestart '
         "restart strategy cannot be set when InPlaceRestart feature gate is disabled (turn it "
         "on with --feature-gates=InPlaceRestart=true)"),
    ]
    for path, gate, line in cases:
        for cmd in ("validate", "render", "run"):
            for other in ([], ["--feature-gates=ElasticJobSet=true"]):
                rc, out, err = run(cmd, path, *other)
                suite.check(f"{cmd} {path} {other}: refused without {gate}",
                            rc == 2 and out == "" and f"{path}: {line}" in err.splitlines(),
                            f"rc={rc}\n{out}{err}")
        for flag in ([f"--feature-gates={gate}=true"], ["--feature-gates", f"{gate}=t"],
                     ["--feature-gates=AllAlpha=true"],
                     ["--feature-gates=RestartJob=true,InPlaceRestart=true"],
                     [f"--feature-gates={gate}=false", f"--feature-gates={gate}=true"]):
            rc, out, err = run("validate", path, *flag)
            suite.check(f"validate {path} {flag}: valid",
                        rc == 0 and out.startswith(f"{path}: valid: JobSet") and err == "",
                        f"rc={rc}\n{out}{err}")
        rc, out, err = run("validate", path, f"--feature-gates={gate}=true,AllAlpha=false")
        suite.check(f"{gate}: named wins over AllAlpha=false", rc == 0, err)
        rc, out, err = run("validate", path, f"--feature-gates=AllAlpha=true,{gate}=false")
        suite.check(f"{gate}=false wins over AllAlpha", rc == 2 and gate in err, err)


def check_in_place_requirements(suite):
    rc, out, err = run("validate", "--cluster", IN_PLACE_BAD, "--feature-gates=InPlaceRestart=1")
    want = [
        "spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: 6: replicatedJob rj: "
        "must be set to 2147483647 (MaxInt32) when in-place restart is enabled",
        "spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: null: "
        "replicatedJob rj: must be set to Failed when in-place restart is enabled",
        "spec.replicatedJobs[0].template.spec.completions: Invalid value: null: replicatedJob "
        "rj: completions and parallelism must be set and equal to each other when in-place "
        "restart is enabled",
    ]
    for line in want:
        suite.check(f"in-place requirement: {line[:60]}",
                    rc == 2 and f"{IN_PLACE_BAD}: {line}" in err.splitlines(), err)


def check_render(suite):
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    rc, out, err = run("render", RESTART_JOB, "--feature-gates=RestartJob=true", "-o", "json")
    suite.check("render RestartJob: exit 0", rc == 0, err)
    items = json.loads(out)["items"] if rc == 0 else []
    jobs = [i for i in items if i["kind"] == "Job"]
    suite.check("render RestartJob: 3 Jobs", len(jobs) == 3, out)
    key = "jobset.sigs.k8s.io/job-restart-attempt"
    for job in jobs:
        name = job["metadata"]["name"]
        meta, pmeta = job["metadata"], job["spec"]["template"]["metadata"]
        suite.check(f"{name}: job-restart-attempt 0 on the Job and its pods",
                    meta["labels"].get(key) == "0" and meta["annotations"].get(key) == "0"
                    and pmeta["labels"].get(key) == "0"
                    and pmeta["annotations"].get(key) == "0", meta)
    golden = os.path.join(SRC, "tests", "golden", "gates", "restart-job.yaml")
    rc, out, err = run("render", RESTART_JOB, "--feature-gates=RestartJob=true")
    if update:
        with open(golden, "w", encoding="utf-8") as f:
            f.write(out)
    with open(golden, encoding="utf-8") as f:
        suite.check("render RestartJob equals tests/golden/gates/restart-job.yaml",
                    rc == 0 and out == f.read(), "re-run with UPDATE_GOLDEN=1 after checking")
    # InPlaceRestart changes nothing a cluster receives
    rc1, plain, _ = run("render", "examples/jax-allreduce.yaml")
    rc2, gated, err = run("render", "examples/jax-allreduce.yaml",
                          "--feature-gates=InPlaceRestart=true")
    suite.check("render: InPlaceRestart on changes nothing", rc1 == rc2 == 0 and plain == gated,
                err)
    rc, gated, err = run("render", "examples/jax-allreduce.yaml", "--feature-gates=RestartJob=1")
    kept = "".join(line for line in gated.splitlines(keepends=True)
                   if line.strip() != f'{key}: "0"')
    suite.check("render: RestartJob on labels every Job, nothing else",
                rc == 0 and kept == plain and gated != plain, gated)


def check_usage_errors(suite):
    bad = [
        ("RestartJobs=true", f"unrecognized feature gate: RestartJobs (known feature gates: "
                             f"{KNOWN})"),
        ("InPlaceRestart", "missing bool value for InPlaceRestart"),
        ("InPlaceRestart=yes", 'invalid value of InPlaceRestart=yes, err: strconv.ParseBool: '
                               'parsing "yes": invalid syntax'),
        ("TLSOptions=false", "cannot set feature gate TLSOptions to false, feature is locked to "
                             "true"),
    ]
    for cmd in ("validate", "render", "run"):
        for value, msg in bad:
            rc, out, err = run(cmd, RESTART_JOB, f"--feature-gates={value}")
            suite.check(f"{cmd} --feature-gates={value}: usage error",
                        rc == 2 and out == ""
                        and f"jaxset {cmd}: --feature-gates: {msg}" in err.splitlines()
                        and f"See `jaxset {cmd} --help`." in err, f"rc={rc}\n{err}")
        rc, out, err = run(cmd, RESTART_JOB, "--feature-gates")
        suite.check(f"{cmd} --feature-gates without a value: usage error", rc == 2, err)
        rc, out, err = run(cmd, "--help")
        suite.check(f"{cmd} --help lists --feature-gates",
                    rc == 0 and "--feature-gates A=BOOL,..." in out and "RestartJob" in out, out)
    rc, out, err = run("validate", "examples/jaxjob.yaml", "--feature-gates=TLSOptions=true")
    suite.check("a GA gate set: warned as upstream, still valid",
                rc == 0 and "Warning: Setting GA feature gate TLSOptions=true. It will be "
                            "removed in a future release." in err, err)


def check_unused_gates_are_silent(suite):
    for path in sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml"))):
        rel = os.path.relpath(path, SRC)
        rc, out, err = run("validate", rel)
        rc2, out2, err2 = run("validate", rel, "--feature-gates=InPlaceRestart=true,"
                                               "RestartJob=true,ElasticJobSet=true")
        suite.check(f"{rel}: gates on but unused change nothing",
                    rc == rc2 == 0 and out == out2 and err == err2, err2)


def main():
    suite = Suite()
    check_refused_then_accepted(suite)
    check_in_place_requirements(suite)
    check_render(suite)
    check_usage_errors(suite)
    check_unused_gates_are_silent(suite)
    suite.finish()


if __name__ == "__main__":
    main()
