"""docs/cli.md's command reference is what the binary's help prints (scripts/gen_cli_ref.py
generates it): the committed text must equal `jaxset --help` and `jaxset help CMD` for every
command, so that the reference cannot drift from the program."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from clitest import BIN, SRC, Suite

GEN = os.path.join(SRC, "scripts", "gen_cli_ref.py")
DOC = os.path.join(SRC, "docs", "cli.md")


def gen(*args):
    return subprocess.run([sys.executable, GEN, BIN, *args], capture_output=True, text=True,
                          timeout=60)


def main():
    suite = Suite()
    p = gen("--check")
    suite.check("docs/cli.md's reference is the binary's help", p.returncode == 0, p.stderr)
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    top = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=30).stdout
    commands = [line.split()[0] for line in top.splitlines()
                if line.startswith("  ") and line[2:3].isalpha()]
    missing = [c for c in commands if c != "help" and f"\n### jaxset {c}\n" not in doc]
    suite.check("every command of `jaxset --help` has a section", commands and not missing,
                f"commands {commands}, no section for {missing}")
    # The check sees a change: one help line edited in a copy is reported, with the command
    # that regenerates the file.
    tmp = tempfile.mkdtemp(prefix="jaxset-cliref-")
    try:
        copy = os.path.join(tmp, "cli.md")
        shutil.copy(DOC, copy)
        with open(copy, "a", encoding="utf-8") as f:
            f.write("an edit by hand\n")
        p = gen("--check", "--doc", copy)
        suite.check("a hand edit of the generated part fails the check",
                    p.returncode == 1 and "an edit by hand" in p.stderr
                    and "scripts/gen_cli_ref.py" in p.stderr, f"rc={p.returncode}\n{p.stderr}")
        p = gen("--doc", copy)
        with open(copy, encoding="utf-8") as f:
            suite.check("regenerating restores it", p.returncode == 0 and f.read() == doc,
                        p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main())
