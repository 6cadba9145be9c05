"""Tiny harness for the CLI tests: run jaxset, count passes and failures, print the summary
line CI reads ('N passed, N failed')."""
import os
import subprocess
import sys

BIN = os.environ.get("JAXSET_BIN", "build/jaxset")
SRC = os.environ.get("JAXSET_SRC", ".")


def run(*args, stdin=None, timeout=60):
    """Runs jaxset with args (cwd = source root); returns (rc, stdout, stderr)."""
    p = subprocess.run([BIN, *args], cwd=SRC, input=stdin, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


class Suite:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {name}\n{detail}", file=sys.stderr)

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed or not self.passed else 0)
