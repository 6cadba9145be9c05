"""Banned C APIs (docs/design.md, "Conventions") never appear in src/."""
import os
import re
import sys

BANNED = ["strcpy", "strcat", "sprintf", "vsprintf", "strtok", "atoi", "atol", "gets",
          "system", "popen", "mktemp", "tmpnam"]
PATTERN = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(BANNED) + r")\s*\(")


def main():
    root = os.path.join(os.environ.get("JAXSET_SRC", "."), "src")
    bad, checked = [], 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if not name.endswith((".c", ".h")):
                continue
            checked += 1
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                for no, line in enumerate(f, 1):
                    code = line.split("//")[0]
                    if PATTERN.search(code) and not code.lstrip().startswith(("*", "/*")):
                        bad.append(f"{path}:{no}: {line.strip()}")
    for b in bad:
        print("banned API:", b)
    print(f"{checked} files checked")
    print(f"{0 if bad else 1} passed, {1 if bad else 0} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
