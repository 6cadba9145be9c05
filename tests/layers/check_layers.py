"""The layer rules of docs/design.md, checked on the sources and on the build's link graph.

    check_layers.py includes        every #include "..." in src/, tests/unit/ and fuzz/
    check_layers.py links FILE      FILE: the link graph CMake wrote (build/layers/links.txt)

includes: a file of src/<layer>/ includes headers of its own layer and of the layers above it
only (obj <- api <- core <- {local, kube} <- cli: local and kube never include each other); a
private header (*_int.h) is included only from its own folder, or by a unit test or fuzz target
of that layer (tests/unit/test_*.c, fuzz/fuzz_*.c whose lowest included layer, the one it
links, is that layer); libyaml's
header only in obj, libcurl's and libmicrohttpd's only in kube; src/ holds no folder that is not
a layer.
links: each layer's library links only layers above it, libyaml only in obj, libcurl and
libmicrohttpd only in kube.
(That a layer calls nothing below it is checked by the link checks of CMakeLists.txt.)
"""
import os
import re
import sys

ROOT = os.environ.get("JAXSET_SRC") or os.path.join(os.path.dirname(__file__), "..", "..")
SRC = os.path.join(ROOT, "src")

# Depth in the order: a layer may use the layers of smaller depth, and its own.
DEPTH = {"obj": 0, "api": 1, "core": 2, "local": 3, "kube": 3, "cli": 4}
# External headers that only some layers may include (the library is linked there only).
EXTERNAL = [(re.compile(r"yaml\.h$"), {"obj"}),
            (re.compile(r"^re2/"), {"obj"}),
            (re.compile(r"curl/"), {"kube"}),
            (re.compile(r"microhttpd\.h$"), {"kube"})]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# External libraries that only some layers may link.
EXTERNAL_LIBS = [(re.compile(r"yaml", re.I), {"obj"}),
                 (re.compile(r"re2", re.I), {"obj"}),
                 (re.compile(r"curl|microhttpd|mhd", re.I), {"kube"})]


def may_use(layer, other):
    """Whether `layer` may include or link `other`."""
    if layer == other:
        return True
    return DEPTH[other] < DEPTH[layer]


def includes(path):
    """(line number, '<' or '"', name) of every #include of `path`."""
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield no, m.group(1), m.group(2)


def header_layer(path, name):
    """(layer, header path relative to src/) of a quoted include, or None outside src/."""
    for base in (os.path.dirname(path), SRC):
        full = os.path.normpath(os.path.join(base, name))
        if os.path.exists(full):
            rel = os.path.relpath(full, os.path.normpath(SRC))
            if rel.startswith(".."):
                return None
            return rel.split(os.sep)[0], rel
    top = name.split("/")[0]
    return (top, name) if top in DEPTH else None


def c_files(*dirs):
    for d in dirs:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            for name in sorted(names):
                if name.endswith((".c", ".cc", ".h")):
                    yield os.path.join(dirpath, name)


def tested_layers(path):
    """The layers a unit test or fuzz target links: its lowest included layers."""
    used = [h[0] for _, q, n in includes(path) if q == '"'
            for h in [header_layer(path, n)] if h and h[0] in DEPTH]
    if not used:
        return set()
    deepest = max(DEPTH[u] for u in used)
    return {u for u in used if DEPTH[u] == deepest}


def check_file(path, layer, errors):
    """`layer`: the file's layer in src/, or None for tests and fuzz targets."""
    rel = os.path.relpath(path, ROOT)
    tests = None if layer else tested_layers(path)
    for no, quote, name in includes(path):
        where = f"{rel}:{no}: #include {quote}{name}{'>' if quote == '<' else quote}"
        if quote == "<":
            for pat, allowed in EXTERNAL:
                if layer and pat.search(name) and layer not in allowed:
                    errors.append(f"{where}: only {'/'.join(sorted(allowed))} may use it")
            continue
        h = header_layer(path, name)
        if not h or h[0] not in DEPTH:
            continue
        other, hrel = h
        if layer and not may_use(layer, other):
            errors.append(f"{where}: {layer} may not include {other} (it is not above {layer})")
        if hrel.endswith("_int.h"):
            own = layer == other
            unit_test = (rel.startswith((os.path.join("tests", "unit", "test_"),
                                         os.path.join("fuzz", "fuzz_")))
                         and tests == {other})
            if not (own or unit_test):
                errors.append(f"{where}: {hrel} is private to src/{other}")


def check_includes():
    errors, n = [], 0
    for entry in sorted(os.listdir(SRC)):
        if os.path.isdir(os.path.join(SRC, entry)) and entry not in DEPTH:
            errors.append(f"src/{entry}: not a layer (docs/design.md lists the layers)")
    for layer in DEPTH:
        for path in c_files(os.path.join("src", layer)):
            check_file(path, layer, errors)
            n += 1
    for path in c_files(os.path.join("tests", "unit"), "fuzz"):
        check_file(path, None, errors)
        n += 1
    return errors, f"{n} files checked"


def check_links(graph_file):
    errors, n = [], 0
    with open(graph_file, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            layer, _, libs = line.partition(":")
            layer = layer.strip()
            n += 1
            for lib in filter(None, (x.strip() for x in libs.split(";"))):
                if lib.startswith("jaxset_"):
                    other = lib[len("jaxset_"):]
                    if other not in DEPTH or other == layer or not may_use(layer, other):
                        errors.append(f"jaxset_{layer} links {lib}: only layers above "
                                      f"{layer} may be linked")
                    continue
                for pat, allowed in EXTERNAL_LIBS:
                    if pat.search(lib) and layer not in allowed:
                        errors.append(f"jaxset_{layer} links {lib}: only "
                                      f"{'/'.join(sorted(allowed))} may link it")
    if n == 0:
        errors.append(f"{graph_file}: no layers")
    return errors, f"{n} layers checked"


def main(argv):
    if len(argv) == 2 and argv[1] == "includes":
        errors, summary = check_includes()
    elif len(argv) == 3 and argv[1] == "links":
        errors, summary = check_links(argv[2])
    else:
        print(__doc__)
        return 2
    for e in errors:
        print("layer rule broken:", e)
    print(summary)
    print(f"{0 if errors else 1} passed, {1 if errors else 0} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
