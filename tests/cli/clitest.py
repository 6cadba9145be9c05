"""Tiny harness for the CLI tests: run jaxset, count passes and failures, print the summary
line CI reads ('N passed, N failed')."""
import os
import re
import subprocess
import sys

BIN = os.environ.get("JAXSET_BIN", "build/jaxset")
SRC = os.environ.get("JAXSET_SRC", ".")


def run(*args, stdin=None, timeout=60):
    """Runs jaxset with args (cwd = source root); returns (rc, stdout, stderr)."""
    p = subprocess.run([BIN, *args], cwd=SRC, input=stdin, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# CEL's reserved words (cel-spec doc/langdef.md, Syntax: RESERVED, and the keywords in, true,
# false, null). A property so named is read in a Kubernetes CEL rule by its escaped name
# `__word__` (Kubernetes docs, "Escaping" in reference/using-api/cel).
CEL_RESERVED = ("as", "break", "const", "continue", "else", "false", "for", "function", "if",
                "import", "in", "let", "loop", "null", "package", "namespace", "return", "true",
                "var", "void", "while")
CEL_ESCAPED = re.compile(r"__(" + "|".join(CEL_RESERVED) + r")__")


def cel_unescaped(rule):
    """A CEL rule with escaped property names (`__namespace__`) written as upstream writes
    them (`namespace`)."""
    return CEL_ESCAPED.sub(r"\1", rule)


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
