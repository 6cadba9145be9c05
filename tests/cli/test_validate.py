"""`jaxset validate`: every example is valid (exit 0, one summary line each); every file in
tests/data/invalid/ exits 2 and prints each line its `# expect:` comments name, prefixed by
the file name; usage errors exit 2."""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from clitest import BIN, SRC, Suite, run  # noqa: E402


def expectations(path):
    with open(path, encoding="utf-8") as f:
        return [line.split("# expect:", 1)[1].strip() for line in f if "# expect:" in line]


def main():
    suite = Suite()
    for path in sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml"))):
        rel = os.path.relpath(path, SRC)
        rc, out, err = run("validate", rel)
        suite.check(f"{rel}: valid", rc == 0 and out.startswith(f"{rel}: valid: JobSet"),
                    out + err)
    invalid = sorted(glob.glob(os.path.join(SRC, "tests", "data", "invalid", "*.yaml")))
    suite.check("invalid cases exist", len(invalid) >= 10, invalid)
    for path in invalid:
        rel = os.path.relpath(path, SRC)
        want = expectations(path)
        suite.check(f"{rel}: has expectations", want, "add '# expect: <error line>' comments")
        rc, out, err = run("validate", rel)
        suite.check(f"{rel}: exit 2", rc == 2, f"rc={rc}\n{out}{err}")
        suite.check(f"{rel}: nothing on stdout", out == "", out)
        for line in want:
            suite.check(f"{rel}: prints {line!r}", f"{rel}: {line}" in err.splitlines()
                        or any(l.startswith(f"{rel}") and line in l for l in err.splitlines()),
                        err)
    for args in (["validate"], ["render"], ["render", "examples/jaxjob.yaml", "-o", "xml"],
                 ["validate", "--bogus", "x.yaml"], ["no-such-command"]):
        rc, out, err = run(*args)
        suite.check(f"usage {args}: exit 2", rc == 2 and err, f"rc={rc} {err}")
    rc, out, err = run("validate", "tests/data/does-not-exist.yaml")
    suite.check("missing file: exit 2 naming it", rc == 2 and "does-not-exist.yaml" in err, err)
    check_validate_modes(suite)
    check_pod_failure_policy_rules(suite)
    check_cluster_admits_what_fails_later(suite)
    check_no_replicated_jobs_admitted(suite)
    check_jaxjob_image_required(suite)
    check_jaxjob_admission_is_the_webhooks(suite)
    check_volume_paths_refused_as_the_api_server_refuses_them(suite)
    check_claim_names_that_are_no_claims_refused_by_run(suite)
    check_errors_json(suite)
    suite.finish()


PFP_JOBSET = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: pfp}
spec:
  replicatedJobs:
  - name: leader
    template:
      spec:
        backoffLimit: 0
        podFailurePolicy:
          rules:
          - action: FailJob
            onPodConditions: %s
            onExitCodes: {containerName: leader, operator: In, values: [1]}
        template:
          spec:
            restartPolicy: Never
            containers: [{name: leader, image: busybox, command: ["true"]}]
"""


def check_pod_failure_policy_rules(suite):
    """An empty onPodConditions beside onExitCodes is none, as batch/v1 validation counts it
    (len(rule.OnPodConditions) > 0): upstream JobSet's example
    onjobfailurereasons-present-podfailurepolicy.yaml has one."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for conds, ok in (("[]", True), ("[{type: DisruptionTarget}]", False)):
            path = os.path.join(d, "pfp.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(PFP_JOBSET % conds)
            rc, out, err = run("validate", path)
            if ok:
                suite.check("onPodConditions: [] with onExitCodes: valid", rc == 0, err)
            else:
                suite.check("both onPodConditions and onExitCodes: exit 2", rc == 2 and
                            "specifying both OnExitCodes and OnPodConditions" in err, err)


def check_validate_modes(suite):
    """--validate as kubectl's: strict (default, true, bare flag) fails on unknown fields, warn
    drops them with a warning, ignore (false) drops them silently; other values are usage
    errors for validate, render and run."""
    typo = "tests/data/invalid/unknown-fields-jobset.yaml"
    field = "spec.replicatedJobs[0].replica: unknown field"
    for flag in ("--validate", "--validate=true", "--validate=Strict"):
        rc, out, err = run("validate", flag, typo)
        suite.check(f"{flag}: exit 2", rc == 2 and f"{typo}: {field}" in err, f"rc={rc}\n{err}")
    # --cluster: with `comand` dropped the container has no command, which only `run` refuses
    rc, out, err = run("validate", "--cluster", "--validate=warn", typo)
    suite.check("--validate=warn: valid, the field dropped (1 job)",
                rc == 0 and "1 replicated job, 1 job, 1 pod" in out, f"rc={rc}\n{out}{err}")
    suite.check("--validate=warn: a warning per field",
                f"Warning: {typo}: {field}" in err and err.count("Warning: ") == 5, err)
    for flag in ("--validate=ignore", "--validate=false"):
        rc, out, err = run("validate", typo, flag, "--cluster")
        suite.check(f"{flag}: valid and silent", rc == 0 and err == "", f"rc={rc}\n{err}")
    rc, out, err = run("validate", "--validate=ignore", typo)
    suite.check("--validate=ignore without --cluster: run's refusal of the dropped command",
                rc == 2 and "has no command" in err, f"rc={rc}\n{err}")
    # --images, or JAXSET_IMAGES=1: what `run --images` refuses, where the image gives a command
    rc, out, err = run("validate", "--validate=ignore", "--images", typo)
    suite.check("--images: a container without command is valid (its image gives it)",
                rc == 0 and "1 pod" in out, f"rc={rc}\n{out}{err}")
    p = subprocess.run([BIN, "validate", "--validate=ignore", typo], cwd=SRC, text=True,
                       capture_output=True, timeout=60, env=dict(os.environ, JAXSET_IMAGES="1"))
    suite.check("JAXSET_IMAGES=1: as --images", p.returncode == 0 and "1 pod" in p.stdout,
                f"rc={p.returncode}\n{p.stdout}{p.stderr}")
    rc, out, err = run("render", "--validate=ignore", typo)
    suite.check("render --validate=ignore: unknown fields are not rendered",
                rc == 0 and "replica:" not in out and "comand" not in out, f"rc={rc}\n{err}")
    for cmd in ("validate", "render", "run"):
        rc, out, err = run(cmd, "--validate=maybe", "examples/jaxjob.yaml")
        suite.check(f"{cmd} --validate=maybe: usage error",
                    rc == 2 and "--validate" in err and out == "", f"rc={rc}\n{out}{err}")


VOL_JOBSET = """apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {k: v}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: vols}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["true"]
              volumeMounts: [{name: v, mountPath: %s}]
            volumes:
            - name: v
              %s
"""
POD = "spec.replicatedJobs[0].template.spec.template.spec"


def validate_volume(tmp, mount_path, source, *flags):
    path = os.path.join(tmp, "vols.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(VOL_JOBSET % (mount_path, source))
    return run("validate", *flags, path)


def check_volume_paths_refused_as_the_api_server_refuses_them(suite):
    """kubernetes validation.go: validateKeyToPath and validateDownwardAPIVolumeFile
    (ValidateLocalNonReservedPath: relative, no '..' element, not starting with '..') for
    items[].path of configMap, secret, downwardAPI and projected sources;
    validateHostPathVolumeSource (validatePathNoBacksteps)."""
    import tempfile
    item = "{key: k, path: %s}"
    down = "{path: %s, fieldRef: {fieldPath: metadata.name}}"
    cases = []
    for path, why in (("../x", "must not contain '..'"), ("/abs/x", "must be a relative path"),
                      ("..data/x", "must not start with '..'"), ("..a", "must not start with '..'"),
                      ("a/../b", "must not contain '..'")):
        cases += [
            (f"configMap: {{name: cm, items: [{item % path}]}}",
             f"volumes[0].configMap.items[0].path: Invalid value: \"{path}\": {why}"),
            (f"secret: {{secretName: s, optional: true, items: [{item % path}]}}",
             f"volumes[0].secret.items[0].path: Invalid value: \"{path}\": {why}"),
            (f"downwardAPI: {{items: [{down % path}]}}",
             f"volumes[0].downwardAPI.items[0].path: Invalid value: \"{path}\": {why}"),
            (f"projected: {{sources: [{{configMap: {{name: cm, items: [{item % path}]}}}}]}}",
             f"volumes[0].projected.sources[0].configMap.items[0].path: Invalid value: "
             f"\"{path}\": {why}"),
        ]
    cases += [("hostPath: {path: /tmp/../etc}",
               "volumes[0].hostPath.path: Invalid value: \"/tmp/../etc\": must not contain '..'"),
              ("persistentVolumeClaim: {claimName: ''}",
               "volumes[0].persistentVolumeClaim.claimName: Required value")]
    with tempfile.TemporaryDirectory() as d:
        for source, want in cases:
            for flags in (("--cluster",), ()):
                rc, out, err = validate_volume(d, "/d", source, *flags)
                suite.check(f"{source} {flags}: exit 2 naming the field",
                            rc == 2 and f"{POD}.{want}" in err, f"rc={rc}\n{out}{err}")
        for path in ("..b", "a..", "b/..c", "./x"):  # what the API server lets through
            rc, out, err = validate_volume(d, "/d", f"configMap: {{name: cm, items: "
                                                   f"[{item % repr(path)}]}}", "--cluster")
            ok = not path.startswith("..")
            suite.check(f"items path {path!r}: as the API server", (rc == 0) == ok, err)
        # mountPath "/." is the API server's to accept (ValidateVolumeMounts asks only for one,
        # unique); jaxset run cannot mount over the root it is
        rc, out, err = validate_volume(d, "/.", "emptyDir: {}", "--cluster")
        suite.check("mountPath /.: valid for the cluster", rc == 0, err)
        for mp in ("/.", "//", "/./."):
            rc, out, err = validate_volume(d, mp, "emptyDir: {}")
            suite.check(f"mountPath {mp}: refused by run's validation",
                        rc == 2 and f'volumeMounts[0].mountPath: Invalid value: "{mp}": cannot '
                        "be mounted over the root" in err, f"rc={rc}\n{err}")


def check_claim_names_that_are_no_claims_refused_by_run(suite):
    """The API server asks a claimName to be set only (validatePersistentClaimVolumeSource);
    no claim can be named "." or ".." (a PersistentVolumeClaim's name is a DNS-1123
    subdomain), and jaxset run would make <run dir>/volumes/.. of it: validate and run refuse
    such a name with its field path."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for claim in (".", "..", "a/b", "UP"):
            src = f"persistentVolumeClaim: {{claimName: '{claim}'}}"
            rc, out, err = validate_volume(d, "/d", src, "--cluster")
            suite.check(f"claimName {claim!r}: the API server's to accept", rc == 0, err)
            rc, out, err = validate_volume(d, "/d", src)
            suite.check(f"claimName {claim!r}: refused for jaxset run",
                        rc == 2 and f"{POD}.volumes[0].persistentVolumeClaim.claimName: "
                        f"Invalid value: \"{claim}\"" in err, f"rc={rc}\n{err}")


def errors_json(*args):
    """validate --errors=json: (rc, the JSON lines' objects, the other lines of stderr)."""
    import json
    rc, out, err = run("validate", "--errors=json", *args)
    objs = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    return rc, objs, [line for line in err.splitlines() if not line.startswith("{")]


def check_errors_json(suite):
    """validate --errors=json (docs/cli.md, "Errors for programs"): each error's line, as
    without the flag, then the same error as one JSON object with file, field, type, value,
    detail and message; a file that cannot be read and what run refuses have field "" and no
    type; the exit status is the same."""
    import tempfile
    keys = ["file", "field", "type", "value", "detail", "message"]
    rel = "tests/data/invalid/types-and-duplicates.yaml"
    rc, objs, text = errors_json(rel)
    _, _, plain = run("validate", rel)
    suite.check("--errors=json: exit 2, the lines for people as they are",
                rc == 2 and text == plain.splitlines(), f"rc={rc}\n{text}\n{plain}")
    suite.check("--errors=json: one object per error line, its keys",
                len(objs) == sum(line.startswith(rel + ": ") for line in text)
                and all(list(o) == keys for o in objs), objs)
    suite.check("--errors=json: the line's parts",
                objs and objs[0]["file"] == rel and objs[0]["field"] and objs[0]["type"]
                and f"{rel}: {objs[0]['field']}: {objs[0]['message']}" in text
                and objs[0]["message"].startswith(objs[0]["type"] + ": "), objs)
    rc, objs, text = errors_json("tests/data/does-not-exist.yaml")
    suite.check("--errors=json: a file that cannot be read",
                rc == 2 and len(objs) == 1 and objs[0]["file"] == "tests/data/does-not-exist.yaml"
                and objs[0]["field"] == "" and objs[0]["type"] is None
                and text == [f"{objs[0]['file']}: {objs[0]['message']}"], f"{objs}\n{text}")
    with tempfile.TemporaryDirectory() as d:
        path = write_tmp(d, ALWAYS_JOBSET.replace(', command: ["true"]', "")
                         .replace("restartPolicy: Always", "restartPolicy: Never"))
        rc, objs, text = errors_json(path)
        suite.check("--errors=json: what run refuses (a container without command)",
                    rc == 2 and len(objs) == 1 and objs[0]["file"] == path
                    and objs[0]["field"] == "" and f"{path}: {objs[0]['message']}" in text,
                    f"rc={rc}\n{objs}\n{text}")
    rc, objs, text = errors_json("examples/jaxjob.yaml")
    suite.check("--errors=json: a valid job prints no object", rc == 0 and not objs, objs)
    rc, out, err = run("validate", "--errors=yaml", "examples/jaxjob.yaml")
    suite.check("--errors takes text or json", rc == 2 and "--errors" in err, err)


ALWAYS_JOBSET = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: always}
spec:
  replicatedJobs:
  - name: rj
    template:
      spec:
        template:
          spec:
            restartPolicy: Always
            containers: [{name: c, image: busybox, command: ["true"]}]
"""


def write_tmp(d, text):
    path = os.path.join(d, "js.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def check_cluster_admits_what_fails_later(suite):
    """A pod restartPolicy Always passes the JobSet webhook (kubernetes-sigs/jobset
    jobset_webhook_test.go TestJobSetDefaulting "pod restart policy set") and fails only when
    the controller creates the Job: `validate --cluster` and `render` admit it with a warning
    naming the field; plain `validate` (a local run) refuses it."""
    import tempfile
    path_field = "spec.replicatedJobs[0].template.spec.template.spec.restartPolicy"
    with tempfile.TemporaryDirectory() as d:
        path = write_tmp(d, ALWAYS_JOBSET)
        rc, out, err = run("validate", "--cluster", path)
        suite.check("--cluster: restartPolicy Always admitted with a warning",
                    rc == 0 and f"Warning: {path}: {path_field}: Unsupported value" in err
                    and "creating its Jobs will fail" in err, f"rc={rc}\n{out}{err}")
        rc, out, err = run("render", path)
        suite.check("render: restartPolicy Always rendered with the warning",
                    rc == 0 and "restartPolicy: Always" in out and "Warning: " in err,
                    f"rc={rc}\n{err}")
        rc, out, err = run("validate", path)
        suite.check("plain validate: restartPolicy Always refused",
                    rc == 2 and f"{path}: {path_field}: Unsupported value" in err,
                    f"rc={rc}\n{err}")


def check_no_replicated_jobs_admitted(suite):
    """spec.replicatedJobs is optional in upstream's CRD (kubernetes-sigs/jobset
    test/integration/webhook/jobset_webhook_test.go "JobSet can create with no replicated
    jobs"): admitted, and rendered as the JobSet alone."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = write_tmp(d, "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
                            "metadata: {name: empty}\nspec: {}\n")
        for args in (("validate", "--cluster"), ("validate",)):
            rc, out, err = run(*args, path)
            suite.check(f"{' '.join(args)}: no replicatedJobs admitted",
                        rc == 0 and "0 replicated jobs" in out, f"rc={rc}\n{out}{err}")
        rc, out, err = run("render", path)
        suite.check("render: no replicatedJobs, no Jobs", rc == 0 and "kind: Job\n" not in out,
                    f"rc={rc}\n{err}")


JAXJOB_IMAGE = """apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: img}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: jax%s, command: ["true"]}]}}
"""


def check_jaxjob_image_required(suite):
    """The JAXJob webhook requires every container's image (kubeflow/training-operator
    pkg/webhooks/jax/jaxjob_webhook_test.go "image is empty"), at Go's path with the map key in
    brackets: `validate --cluster` refuses an empty or missing one; a local run needs none, so
    plain `validate` refuses only an empty one."""
    import tempfile
    want = "spec.jaxReplicaSpecs[Worker].template.spec.containers[0].image: Required value"
    with tempfile.TemporaryDirectory() as d:
        for image, local_ok in ((", image: ''", False), ("", True)):
            path = write_tmp(d, JAXJOB_IMAGE % image)
            rc, out, err = run("validate", "--cluster", path)
            suite.check(f"--cluster: JAXJob image {'empty' if image else 'missing'} refused",
                        rc == 2 and f"{path}: {want}" in err, f"rc={rc}\n{out}{err}")
            rc, out, err = run("validate", path)
            suite.check(f"plain validate: JAXJob image {'empty' if image else 'missing'}: "
                        f"{'admitted' if local_ok else 'refused'}",
                        (rc == 0) if local_ok else (rc == 2 and want in err),
                        f"rc={rc}\n{out}{err}")

def check_jaxjob_admission_is_the_webhooks(suite):
    """One rule set for JAXJobs (api/jaxjob_admission, also the cluster webhook's): the name's
    message is the webhook's ("should match: ..."), a lowercase "worker" is the Worker after
    upstream's defaulting, and a replica without containers gets both of upstream's errors."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = write_tmp(d, (JAXJOB_IMAGE % ", image: x").replace("name: img", "name: 9img"))
        rc, out, err = run("validate", "--cluster", path)
        suite.check("--cluster: a JAXJob name refused with the webhook's words",
                    rc == 2 and 'metadata.name: Invalid value: "9img": should match: a DNS-1035'
                    in err, f"rc={rc}\n{err}")
        path = write_tmp(d, (JAXJOB_IMAGE % ", image: x").replace("Worker:", "worker:"))
        rc, out, err = run("validate", "--cluster", path)
        suite.check("--cluster: a lowercase worker replica is the Worker", rc == 0,
                    f"rc={rc}\n{err}")
        path = write_tmp(d, JAXJOB_IMAGE.replace("containers: [{name: jax%s, command: [\"true\"]}]",
                                                 "containers: []"))
        rc, out, err = run("validate", "--cluster", path)
        want = "spec.jaxReplicaSpecs[Worker].template.spec.containers: Required value: must "
        suite.check("--cluster: no containers: both of the webhook's errors",
                    rc == 2 and want + "be specified" in err
                    and want + "have at least one container with name jax" in err,
                    f"rc={rc}\n{err}")



if __name__ == "__main__":
    main()
