#!/usr/bin/env python3
"""Writes jaxset(1) from the binary's own help (`jaxset --help`, `jaxset help CMD`), so the
manual page cannot drift from the program.  Usage: gen_man.py JAXSET OUT."""
import os
import re
import subprocess
import sys


def helps(binary):
    """(top-level help, [(command, its help)]) as the binary prints them, in the order of
    `jaxset --help`; `help` itself left out.  scripts/gen_cli_ref.py reads the same."""
    def out(*args):
        return subprocess.run([binary, *args], capture_output=True, text=True, check=True,
                              env=dict(os.environ, NO_COLOR="1")).stdout
    top = out("--help")
    commands = [c for c in re.findall(r"^  ([a-z]+) ", top, re.M) if c != "help"]
    return top, [(cmd, out("help", cmd)) for cmd in commands]


def roff(text):
    """Plain help text as roff: escapes, and every line kept as it is (.nf)."""
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, out = argv[1], argv[2]
    top, commands = helps(binary)
    version = subprocess.run([binary, "version"], capture_output=True, text=True,
                             check=True).stdout.split()[-1]
    page = [f'.TH JAXSET 1 "" "jaxset {version}" "User Commands"',
            ".SH NAME", "jaxset \\- run distributed JAX jobs (JobSet, JAXJob, TrainJob, AIchor) "
            "on this machine or on a Kubernetes cluster",
            ".SH SYNOPSIS", ".nf", roff(top), ".fi"]
    for cmd, text in commands:
        page += [f".SH {cmd.upper()}", ".nf", roff(text), ".fi"]
    page += [".SH SEE ALSO", "kubectl(1); docs/cli.md, docs/local.md, docs/cluster.md, "
             "docs/sdk.md and docs/design.md in jaxset's source"]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
