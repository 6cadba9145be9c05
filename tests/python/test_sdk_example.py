"""examples/sdk/train_local.py runs to its end: SKIPPED without JAX, else the TrainJob
completes with the loss falling (the example checks it)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402
from sdktest import SRC  # noqa: E402


class ExampleTest(sdktest.SdkTest):
    def test_train_local(self):
        p = subprocess.run([sys.executable, os.path.join(SRC, "examples", "sdk", "train_local.py")],
                           capture_output=True, text=True, timeout=600, cwd=self.tmp,
                           env=dict(os.environ, JAXSET_HOME=self.home))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        if "SKIPPED" in p.stdout:
            self.assertIn("JAX is not installed", p.stdout)
        else:
            self.assertIn(": Complete", p.stdout)
            self.assertIn("loss", p.stdout)


if __name__ == "__main__":
    sdktest.main()
