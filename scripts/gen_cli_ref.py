#!/usr/bin/env python3
"""Writes the reference part of docs/cli.md from the binary's own help (`jaxset --help`, then
`jaxset help CMD` for every command), so that it cannot drift from the program: everything
after the marker line below is replaced.  With --check, writes nothing and exits 1 with a diff
when the file differs from what the binary prints (tests/lint/test_cli_ref.py).

Usage: gen_cli_ref.py JAXSET [--check] [--doc FILE]   (FILE: docs/cli.md)"""
import argparse
import difflib
import os
import sys

from gen_man import helps

MARKER = ("<!-- Generated from the binary's help by scripts/gen_cli_ref.py: do not edit below "
          "this line; regenerate with `python3 scripts/gen_cli_ref.py build/jaxset`. -->")
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "cli.md")


def reference(binary):
    """The generated text: the command list, then one section per command."""
    top, commands = helps(binary)
    out = [MARKER, "", "### jaxset", "", "```text", top.rstrip("\n"), "```"]
    for cmd, text in commands:
        out += ["", f"### jaxset {cmd}", "", "```text", text.rstrip("\n"), "```"]
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("binary")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--doc", default=DOC)
    args = ap.parse_args(argv[1:])
    with open(args.doc, encoding="utf-8") as f:
        old = f.read()
    at = old.find(MARKER)
    if at < 0:
        print(f"{args.doc}: no marker line: {MARKER}", file=sys.stderr)
        return 2
    new = old[:at] + reference(args.binary)
    if new == old:
        return 0
    if args.check:
        diff = difflib.unified_diff(old.splitlines(), new.splitlines(), args.doc,
                                    f"{args.doc} as `{args.binary} help` prints it", lineterm="")
        print("\n".join(list(diff)[:80]), file=sys.stderr)
        print(f"{args.doc} differs from the binary's help; regenerate it with "
              f"`python3 scripts/gen_cli_ref.py {args.binary}` and commit it", file=sys.stderr)
        return 1
    with open(args.doc, "w", encoding="utf-8") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
