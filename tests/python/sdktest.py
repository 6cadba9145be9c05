"""Shared by the SDK tests: the package from the source tree, the binary from $JAXSET_BIN, a
private state home per test, and a unittest runner that ends with the 'N passed, N failed'
line CI reads."""
import os
import shutil
from dataclasses import dataclass
import sys
import tempfile
import time
import unittest

SRC = os.path.abspath(os.environ.get("JAXSET_SRC",
                                     os.path.join(os.path.dirname(__file__), "..", "..")))
BIN = os.path.abspath(os.environ.get("JAXSET_BIN", os.path.join(SRC, "build", "jaxset")))
sys.path.insert(0, os.path.join(SRC, "python"))
os.environ["JAXSET_BIN"] = BIN


# kubeflow/sdk's initializer types as it defines them (kubeflow/trainer/types/types.py: dataclasses
# with these fields), for TrainerClient.train(initializer=...) without kubeflow installed.
@dataclass
class HuggingFaceDatasetInitializer:
    storage_uri: str
    ignore_patterns: "list | None" = None
    access_token: "str | None" = None


@dataclass
class HuggingFaceModelInitializer:
    storage_uri: str
    ignore_patterns: "list | None" = None
    access_token: "str | None" = None


@dataclass
class Initializer:
    dataset: "HuggingFaceDatasetInitializer | None" = None
    model: "HuggingFaceModelInitializer | None" = None

# what train() sends for INIT (below): storage_uri as storageUri, the other fields set as env
INIT_SPEC = {"dataset": {"storageUri": "hf://tatsu-lab/alpaca", "env": [
                 {"name": "ACCESS_TOKEN", "value": "hf_x"}]},
             "model": {"storageUri": "hf://meta-llama/Llama-3.2-1B", "env": [
                 {"name": "IGNORE_PATTERNS", "value": "*.bin,*.pt"}]}}
INIT = Initializer(dataset=HuggingFaceDatasetInitializer("hf://tatsu-lab/alpaca",
                                                         access_token="hf_x"),
                   model=HuggingFaceModelInitializer("hf://meta-llama/Llama-3.2-1B",
                                                     ignore_patterns=["*.bin", "*.pt"]))
EXAMPLE_INIT = os.path.join(SRC, "examples", "trainjob-initializers.yaml")


class SdkTest(unittest.TestCase):
    """A fresh $JAXSET_HOME per test, removed afterwards; `tmp` for the test's own files."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="jaxset-sdk-test-")
        self.home = os.path.join(self.tmp, "home")
        self._old_home = os.environ.get("JAXSET_HOME")
        os.environ["JAXSET_HOME"] = self.home

    def tearDown(self):
        if self._old_home is None:
            os.environ.pop("JAXSET_HOME", None)
        else:
            os.environ["JAXSET_HOME"] = self._old_home
        shutil.rmtree(self.tmp, ignore_errors=True)

    def config(self, **kw):
        from jaxset import LocalBackendConfig
        kw.setdefault("home", self.home)
        kw.setdefault("restart_backoff_ms", 0)
        kw.setdefault("grace_period_seconds", 5)
        return LocalBackendConfig(**kw)

    def nothing_started(self):
        """No job record and no run directory exist in the home."""
        for sub in ("runs", os.path.join("sdk", "jobs")):
            path = os.path.join(self.home, sub)
            self.assertEqual(os.listdir(path) if os.path.isdir(path) else [], [],
                             f"{path} is not empty")

    def go_file(self):
        return os.path.join(self.tmp, "go")

    def release(self):
        with open(self.go_file(), "w", encoding="utf-8"):
            pass


def pid_gone(pid, timeout=5.0):
    """The process has ended within `timeout` (a zombie not yet reaped by init counts as
    ended)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


def wait_files(directory, n, timeout=20.0):
    """Waits until `directory` holds `n` files, each written (a file is created before its
    pid is written in it); their contents as ints (pids)."""
    end = time.monotonic() + timeout
    while True:
        texts = []
        for name in sorted(os.listdir(directory)):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                texts.append(f.read().strip())
        if (len(texts) >= n and all(texts)) or time.monotonic() >= end:
            return [int(t) for t in texts]
        time.sleep(0.02)


def main():
    """Runs the calling module's tests; prints 'N passed, N failed'."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules["__main__"])
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    # a setUpClass error is an error of no test that ran (its holder is no TestCase)
    ran_bad = bad - sum(1 for t, _ in result.errors if not isinstance(t, unittest.TestCase))
    print(f"{result.testsRun - ran_bad} passed, {bad} failed")
    sys.exit(0 if bad == 0 and result.testsRun else 1)
