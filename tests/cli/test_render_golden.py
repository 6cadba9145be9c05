"""`jaxset render` of every example equals its golden file (tests/golden/<example>.yaml and
.json).  UPDATE_GOLDEN=1 rewrites the golden files from the current output."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from clitest import SRC, Suite, run  # noqa: E402


def check_invariants(suite, name, items):
    """Structural facts that must hold whatever the golden says."""
    kinds = [i["kind"] for i in items]
    # the files' ConfigMaps and Secrets come first, as written; then each JobSet and its objects
    first = next((k for k in kinds if k not in ("ConfigMap", "Secret")), None)
    suite.check(f"{name}: first item after ConfigMaps/Secrets is the JobSet", first == "JobSet",
                kinds)
    js = items[kinds.index("JobSet")]
    uid = js["metadata"]["uid"]
    for job in (i for i in items if i["kind"] == "Job"):
        owner = job["metadata"]["ownerReferences"][0]
        suite.check(f"{name}: {job['metadata']['name']} owned by the JobSet",
                    owner["uid"] == uid and owner["controller"] is True, owner)
        labels = job["metadata"]["labels"]
        tlabels = job["spec"]["template"]["metadata"]["labels"]
        suite.check(f"{name}: {job['metadata']['name']} pod template carries the labels",
                    all(tlabels.get(k) == v for k, v in labels.items()
                        if k.startswith("jobset.sigs.k8s.io/")), tlabels)
        suite.check(f"{name}: job-key is 40 hex chars",
                    len(labels["jobset.sigs.k8s.io/job-key"]) == 40)


def main():
    suite = Suite()
    update = os.environ.get("UPDATE_GOLDEN") == "1"
    examples = sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml")))
    suite.check("examples exist", len(examples) >= 5, examples)
    for path in examples:
        name = os.path.splitext(os.path.basename(path))[0]
        rel = os.path.relpath(path, SRC)
        for fmt in ("yaml", "json"):
            rc, out, err = run("render", rel, "-o", fmt)
            suite.check(f"{name} -o {fmt}: exit 0", rc == 0, err)
            golden = os.path.join(SRC, "tests", "golden", f"{name}.{fmt}")
            if update:
                with open(golden, "w", encoding="utf-8") as f:
                    f.write(out)
            if not os.path.exists(golden):
                suite.check(f"{name} -o {fmt}: golden file exists", False,
                            f"missing {golden}: create it with UPDATE_GOLDEN=1")
                continue
            with open(golden, encoding="utf-8") as f:
                want = f.read()
            suite.check(f"{name} -o {fmt}: equals {os.path.relpath(golden, SRC)}", out == want,
                        "re-run with UPDATE_GOLDEN=1 after checking the difference")
            if fmt == "json" and rc == 0:
                check_invariants(suite, name, json.loads(out)["items"])
    suite.finish()


if __name__ == "__main__":
    main()
