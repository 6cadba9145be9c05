"""`jaxset validate`: every example is valid (exit 0, one summary line each); every file in
tests/data/invalid/ exits 2 and prints each line its `# expect:` comments name, prefixed by
the file name; usage errors exit 2."""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from clitest import SRC, Suite, run  # noqa: E402


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
    suite.finish()


if __name__ == "__main__":
    main()
