"""The plain helpers over the binary: jaxset.validate (summary lines, ValidationError with the
field errors `validate --errors=json` prints as JSON lines), jaxset.run (Completed, Failed,
invalid, pod output echoed), jaxset.decode; finding the binary; the package installs with pip
offline."""
import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402
from sdktest import BIN, SRC  # noqa: E402

import jaxset  # noqa: E402
from jaxset import BinaryNotFoundError, FieldError, ValidationError  # noqa: E402
from jaxset.errors import field_errors, json_lines  # noqa: E402


def jobset(name, code=0, pods=2):
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "annotations": {"jaxset.dev/jax-runtime": "jobset"}},
        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {
            "parallelism": pods, "completions": pods, "backoffLimit": 0,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{
                "name": "c", "image": "x",
                "command": ["python3", "-c",
                            f"import os, sys; print('id', os.environ['JAX_PROCESS_ID']); "
                            f"sys.exit({code})"]}]}}}}}]},
    }


def builder():
    """An interpreter that can build the package offline: pip, setuptools, and a bdist_wheel
    (the wheel package, or setuptools >= 70.1); this one, else Debian's."""
    check = ("import setuptools, pip\n"
             "try:\n    import wheel\n"
             "except ImportError:\n    from setuptools.command import bdist_wheel\n")
    for python in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", check], capture_output=True).returncode == 0:
            return python
    return None


class CommandsTest(sdktest.SdkTest):
    def test_validate(self):
        lines = jaxset.validate(os.path.join(SRC, "examples", "jaxjob.yaml"), jobset("ok"))
        self.assertEqual(len(lines), 2)
        self.assertIn("valid: JobSet default/jaxjob-simple (from JAXJob)", lines[0])
        self.assertTrue(lines[1].startswith("<JobSet ok>: valid: JobSet default/ok"), lines[1])
        bad = jobset("bad")
        bad["spec"]["replicatedJobs"][0]["replicas"] = -1
        with self.assertRaises(ValidationError) as cm:
            jaxset.validate(bad)
        self.assertEqual(cm.exception.errors, [FieldError(
            "<JobSet bad>", "spec.replicatedJobs[0].replicas",
            "Invalid value: -1: must be greater than or equal to 0")])
        self.assertIsInstance(cm.exception, ValueError)
        self.assertIn("spec.replicatedJobs[0].replicas", str(cm.exception))
        invalid = os.path.join(SRC, "tests", "data", "invalid", "types-and-duplicates.yaml")
        with self.assertRaises(ValidationError) as cm:
            jaxset.validate(invalid)
        self.assertGreaterEqual(len(cm.exception.errors), 2)
        self.assertTrue(all(e.file == invalid and e.field for e in cm.exception.errors))
        with self.assertRaises(ValueError):
            jaxset.validate()
        with self.assertRaises(TypeError):
            jaxset.validate(42)

    def test_field_errors(self):
        """The errors are the JSON lines (docs/cli.md, "Errors for programs"), whatever the
        text around them says; labels rename files."""
        lines = [
            'a: b.yaml: spec.x[0].y: Invalid value: "a: b": bad',
            json.dumps({"file": "a: b.yaml", "field": "spec.x[0].y", "type": "Invalid value",
                        "value": '"a: b"', "detail": "bad",
                        "message": 'Invalid value: "a: b": bad'}),
            "other.yaml: line 3, column 1: did not find expected key",
            json.dumps({"file": "other.yaml", "field": "", "type": None, "value": None,
                        "detail": None, "message": "line 3, column 1: did not find expected key"}),
            "{not json: a line for people",
            json.dumps({"kind": "Status", "message": "x", "field": "", "code": 404}),
        ]
        got = field_errors("\n".join(lines) + "\n", {"other.yaml": "<JobSet o>"})
        self.assertEqual(got, [
            FieldError("a: b.yaml", "spec.x[0].y", 'Invalid value: "a: b": bad'),
            FieldError("<JobSet o>", "", "line 3, column 1: did not find expected key"),
        ])
        self.assertEqual((got[0].type, got[0].value, got[0].detail),
                         ("Invalid value", '"a: b"', "bad"))
        objs, text = json_lines("\n".join(lines))
        self.assertEqual(len(objs), 3)
        self.assertEqual(text.splitlines(), [lines[0], lines[2], lines[4]])

    def test_validate_errors_json(self):
        """`jaxset validate --errors=json`: each error line followed by its JSON line, the
        human lines as they are without it."""
        bad = os.path.join(self.tmp, "bad.json")
        doc = jobset("bad")
        doc["spec"]["replicatedJobs"][0]["replicas"] = -1
        with open(bad, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        plain = subprocess.run([BIN, "validate", bad], capture_output=True, text=True)
        p = subprocess.run([BIN, "validate", "--errors=json", bad], capture_output=True,
                           text=True)
        self.assertEqual((p.returncode, plain.returncode), (2, 2))
        objs, text = json_lines(p.stderr)
        self.assertEqual(text, plain.stderr.rstrip("\n"))
        self.assertEqual(objs, [{
            "file": bad, "field": "spec.replicatedJobs[0].replicas", "type": "Invalid value",
            "value": "-1", "detail": "must be greater than or equal to 0",
            "message": "Invalid value: -1: must be greater than or equal to 0"}])
        self.assertEqual(p.stderr.splitlines()[0],
                         f"{bad}: spec.replicatedJobs[0].replicas: {objs[0]['message']}")

    def test_run(self):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            r = jaxset.run(jobset("fine"), home=self.home)
        self.assertEqual((r.exit_status, r.state, r.succeeded), (0, "Completed", True))
        self.assertTrue(r.run_dir.startswith(os.path.join(self.home, "runs", "fine")),
                        r.run_dir)
        self.assertTrue(os.path.exists(os.path.join(r.run_dir, "pods.json")))
        self.assertIn("] id 1", out.getvalue())
        self.assertIn("JobSet fine Completed", err.getvalue())
        rdir = os.path.join(self.tmp, "run")
        r = jaxset.run(jobset("broken", code=3), run_dir=rdir, quiet=True, echo=False,
                       grace_period_seconds=1)
        self.assertEqual((r.exit_status, r.state, r.run_dir), (1, "Failed", rdir))
        self.assertIn("JobSet broken Failed", r.stderr)
        bad = jobset("bad")
        bad["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] = 1
        with self.assertRaises(ValidationError) as cm:
            jaxset.run(bad, home=self.home, echo=False)
        self.assertIn("parallelism", cm.exception.errors[0].field)
        self.assertFalse(os.path.exists(os.path.join(self.home, "runs", "bad")))

    def test_quiet_is_quiet(self):
        """run(quiet=True) prints nothing, neither the pods' output nor jaxset's (issue 21
        item 5); jaxset's lines are still in the result."""
        path = os.path.join(self.tmp, "fine.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(jobset("fine"), f)
        probe = ("import sys, jaxset\n"
                 "r = jaxset.run(sys.argv[1], quiet=True)\n"
                 "sys.exit(0 if r.state == 'Completed' and 'Completed' in r.stderr else 5)\n")
        p = subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True,
                           timeout=120, env=dict(os.environ, JAXSET_HOME=self.home,
                                                 PYTHONPATH=os.path.join(SRC, "python")))
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))

    def test_decode(self):
        docs = jaxset.decode(os.path.join(SRC, "examples", "trainjob.yaml"))
        self.assertEqual([d["kind"] for d in docs], ["ClusterTrainingRuntime", "TrainJob"])

    def test_find_binary(self):
        from jaxset._binary import find_binary
        self.assertEqual(find_binary(), BIN)
        self.assertEqual(find_binary(BIN), BIN)
        with self.assertRaises(BinaryNotFoundError):
            find_binary(os.path.join(self.tmp, "missing"))
        os.environ["JAXSET_BIN"] = os.path.join(self.tmp, "missing")
        try:
            with self.assertRaises(BinaryNotFoundError) as cm:
                jaxset.validate(jobset("x"))
            self.assertIn("$JAXSET_BIN", str(cm.exception))
        finally:
            os.environ["JAXSET_BIN"] = BIN
        self.assertIsInstance(cm.exception, FileNotFoundError)

    def test_pip_install_offline(self):
        """pip installs the package from a copy of python/ without an index (the build backend
        is the installed setuptools), and the installed package is typed."""
        src = os.path.join(self.tmp, "src")
        shutil.copytree(os.path.join(SRC, "python"), src,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        shutil.copy(os.path.join(SRC, "VERSION"), self.tmp)  # beside python/, as in a checkout
        target = os.path.join(self.tmp, "site")
        python = builder()
        if python is None:
            self.skipTest("no Python here has pip, setuptools and wheel (Debian: python3-pip "
                          "python3-setuptools python3-wheel)")
        p = subprocess.run([python, "-m", "pip", "install", "--no-index",
                            "--no-build-isolation", "--no-deps", "--quiet", "--target", target,
                            src], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(target, "jaxset", "py.typed")))
        probe = subprocess.run([sys.executable, "-c", "import jaxset; print(jaxset.__file__)"],
                               capture_output=True, text=True, cwd=self.tmp,
                               env=dict(os.environ, PYTHONPATH=target))
        self.assertTrue(probe.stdout.startswith(target), probe.stdout + probe.stderr)
        with open(os.path.join(SRC, "VERSION"), encoding="utf-8") as f:
            want = f.read().strip()
        dist = [d for d in os.listdir(target) if d.startswith("jaxset-")]
        self.assertEqual(dist, [f"jaxset-{want}.dist-info"])  # the one VERSION file's

    def test_installed_package_finds_its_own_binary(self):
        """pip install with $JAXSET_BIN set puts that binary in the package (jaxset/bin), and
        the installed package finds it with no $JAXSET_BIN and nothing on PATH."""
        python = builder()
        if python is None:
            self.skipTest("no Python here has pip, setuptools and wheel")
        src = os.path.join(self.tmp, "src")
        shutil.copytree(os.path.join(SRC, "python"), src,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        shutil.copy(os.path.join(SRC, "VERSION"), self.tmp)  # beside python/, as in a checkout
        target = os.path.join(self.tmp, "site")
        p = subprocess.run([python, "-m", "pip", "install", "--no-index",
                            "--no-build-isolation", "--no-deps", "--quiet", "--target", target,
                            src], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, JAXSET_BIN=BIN))
        self.assertEqual(p.returncode, 0, p.stderr)
        shipped = os.path.join(target, "jaxset", "bin", "jaxset")
        self.assertTrue(os.access(shipped, os.X_OK), "no executable jaxset/bin/jaxset")
        env = {k: v for k, v in os.environ.items() if k != "JAXSET_BIN"}
        env.update(PYTHONPATH=target, PATH=self.tmp)
        probe = subprocess.run([sys.executable, "-c",
                                "from jaxset._binary import find_binary; print(find_binary())"],
                               capture_output=True, text=True, cwd=self.tmp, env=env)
        self.assertEqual(probe.stdout.strip(), shipped, probe.stderr)
        # the commands the binary loads from its module beside it work from the package too
        version = subprocess.run([shipped, "version"], capture_output=True, text=True, env=env)
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertTrue(version.stdout.startswith("jaxset "), version.stdout)


if __name__ == "__main__":
    sdktest.main()
