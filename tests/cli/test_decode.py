"""`jaxset decode`: the documents of YAML and JSON files as one JSON array, with kubectl's
scalar rules; a syntax error or a missing file exits 2 naming the file."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from clitest import Suite, run  # noqa: E402


def main():
    suite = Suite()
    rc, out, err = run("decode", "examples/trainjob.yaml", "examples/jaxjob.yaml")
    docs = json.loads(out) if rc == 0 else []
    suite.check("two files: every document, in order", rc == 0 and
                [d.get("kind") for d in docs] == ["ClusterTrainingRuntime", "TrainJob", "JAXJob"],
                out + err)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("a: yes\nb: '0755'\nc: 0755\n---\n---\n{\"d\": [1, 2.5]}\n")
        rc, out, err = run("decode", path)
        suite.check("YAML 1.1 scalars, empty documents skipped, JSON documents",
                    rc == 0 and json.loads(out) == [{"a": True, "b": "0755", "c": 493},
                                                    {"d": [1, 2.5]}], out + err)
        with open(path, "w", encoding="utf-8") as f:
            f.write("a: [1\n")
        rc, out, err = run("decode", path)
        suite.check("syntax error: exit 2 naming the file and line",
                    rc == 2 and out == "" and err.startswith(path + ": line"), err)
    rc, out, err = run("decode", "tests/data/does-not-exist.yaml")
    suite.check("missing file: exit 2 naming it", rc == 2 and "does-not-exist.yaml" in err, err)
    for args in (["decode"], ["decode", "--bogus", "x.yaml"]):
        rc, out, err = run(*args)
        suite.check(f"usage {args}: exit 2", rc == 2 and "`jaxset decode --help`" in err, err)
    suite.finish()


if __name__ == "__main__":
    main()
