"""The layer rules of docs/design.md, checked on the sources and on the build's link graph.

    check_layers.py includes        every #include "..." in src/, tests/unit/ and fuzz/
    check_layers.py links FILE      FILE: the link graph CMake wrote (build/layers/links.txt)
    check_layers.py docs            docs/design.md names every folder of src/ ("src/x/y/")
    check_layers.py callers         every function a header of src/ declares has a caller (in
                                    src/, a unit test, a fuzz target or a benchmark)

includes: a file of src/<layer>/ includes headers of its own layer and of the layers above it
only (obj <- api <- core <- {local, kube} <- cli: local and kube never include each other);
src/kube is itself a stack of rooms, each using only the rooms below it (kube/client <-
kube/cache <- kube/serve <- kube/webhook <- kube/ctl); a private header (*_int.h) is included
only from its own folder, or by a unit test or fuzz target of that layer (tests/unit/test_*.c,
fuzz/fuzz_*.c whose lowest included layer, the one it links, is that layer); libyaml's header
only in obj, libcurl's only in kube/client, libmicrohttpd's only in kube/serve, OpenSSL's only in kube/webhook; src/ and
src/kube hold no folder that is not a layer or a room.
links: each layer's (and room's) library links only layers above it, libyaml only in obj,
libcurl only in kube/client, libmicrohttpd only in kube/serve, libcrypto only in kube/webhook.
(That a layer calls nothing below it is checked by the link checks of CMakeLists.txt.)
"""
import os
import re
import sys

ROOT = os.environ.get("JAXSET_SRC") or os.path.join(os.path.dirname(__file__), "..", "..")
SRC = os.path.join(ROOT, "src")

# The layers, and the rooms of src/kube, from the ground floor up: a layer uses itself and
# those it is above (local and the kube rooms never use each other).
ROOMS = ["kube/client", "kube/cache", "kube/serve", "kube/webhook", "kube/ctl"]
BELOW = {"obj": [], "api": ["obj"], "core": ["obj", "api"], "local": ["obj", "api", "core"]}
for _i, _room in enumerate(ROOMS):
    BELOW[_room] = ["obj", "api", "core"] + ROOMS[:_i]
BELOW["cli"] = ["obj", "api", "core", "local"] + ROOMS
# Depth in the order: what a unit test links is its deepest included layer.
DEPTH = {layer: len(below) for layer, below in BELOW.items()}
# External headers that only some layers may include (the library is linked there only).
EXTERNAL = [(re.compile(r"yaml\.h$"), {"obj"}),
            (re.compile(r"^re2/"), {"obj"}),
            (re.compile(r"curl/"), {"kube/client"}),
            (re.compile(r"microhttpd\.h$"), {"kube/serve"}),
            (re.compile(r"^openssl/"), {"kube/webhook"})]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# External libraries that only some layers may link.
EXTERNAL_LIBS = [(re.compile(r"yaml", re.I), {"obj"}),
                 (re.compile(r"re2", re.I), {"obj"}),
                 (re.compile(r"curl", re.I), {"kube/client"}),
                 (re.compile(r"microhttpd|mhd", re.I), {"kube/serve"}),
                 (re.compile(r"crypto|ssl", re.I), {"kube/webhook"})]


def may_use(layer, other):
    """Whether `layer` may include or link `other`."""
    return layer == other or other in BELOW[layer]


def layer_of(rel):
    """The layer (or kube room) of a path relative to src/."""
    parts = rel.split(os.sep)
    if parts[0] == "kube" and len(parts) > 2:
        return "kube/" + parts[1]
    return parts[0]


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
            return layer_of(rel), rel
    top = layer_of(name.replace("/", os.sep))
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
        if os.path.isdir(os.path.join(SRC, entry)) and entry not in DEPTH and entry != "kube":
            errors.append(f"src/{entry}: not a layer (docs/design.md lists the layers)")
    for entry in sorted(os.listdir(os.path.join(SRC, "kube"))):
        if "kube/" + entry not in DEPTH:
            errors.append(f"src/kube/{entry}: not a room of src/kube (docs/design.md lists them)")
    for layer in DEPTH:
        for path in c_files(os.path.join("src", layer)):
            check_file(path, layer, errors)
            n += 1
    for path in c_files(os.path.join("tests", "unit"), "fuzz"):
        check_file(path, None, errors)
        n += 1
    return errors, f"{n} files checked"


def lib_layer(name):
    """The layer of a library's name: kube_client -> kube/client; the interface library
    jaxset_kube, the whole of src/kube, stands for its top room."""
    if name == "kube":
        return ROOMS[-1]
    if name.startswith("kube_"):
        return "kube/" + name[len("kube_"):]
    return name


def check_links(graph_file):
    errors, n = [], 0
    with open(graph_file, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            layer, _, libs = line.partition(":")
            layer = lib_layer(layer.strip())
            n += 1
            for lib in filter(None, (x.strip() for x in libs.split(";"))):
                if lib.startswith("jaxset_"):
                    other = lib_layer(lib[len("jaxset_"):])
                    if other not in DEPTH or other == layer or not may_use(layer, other):
                        errors.append(f"{layer} links {lib}: only layers above "
                                      f"{layer} may be linked")
                    continue
                for pat, allowed in EXTERNAL_LIBS:
                    if pat.search(lib) and layer not in allowed:
                        errors.append(f"{layer} links {lib}: only "
                                      f"{'/'.join(sorted(allowed))} may link it")
    if n == 0:
        errors.append(f"{graph_file}: no layers")
    return errors, f"{n} layers checked"


def check_docs():
    with open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8") as f:
        text = f.read()
    errors, n = [], 0
    for dirpath, dirs, _ in os.walk(SRC):
        dirs.sort()
        for d in dirs:
            rel = os.path.relpath(os.path.join(dirpath, d), ROOT).replace(os.sep, "/") + "/"
            n += 1
            if rel not in text:
                errors.append(f"{rel}: docs/design.md does not name this folder")
    return errors, f"{n} folders checked"


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DECL = re.compile(r"^[a-z][\w \*]*?[ \*](\w+)\s*\(", re.M)


def check_callers():
    """A declared function named only by its declaration and its definition has no caller."""
    text = {}
    for path in c_files("src", os.path.join("tests", "unit"), "fuzz", "bench"):
        with open(path, encoding="utf-8") as f:
            text[path] = COMMENT.sub("", f.read())
    declared = set()
    for path, t in text.items():
        if path.startswith(SRC) and path.endswith(".h"):
            declared.update(m.group(1) for m in DECL.finditer(t))
    words = {}
    for t in text.values():
        for w in re.findall(r"\b[a-z_][a-z0-9_]*\b", t):
            words[w] = words.get(w, 0) + 1
    errors = [f"{name}: declared and defined, never called"
              for name in sorted(declared) if words.get(name, 0) <= 2]
    return errors, f"{len(declared)} functions checked"


def main(argv):
    if len(argv) == 2 and argv[1] == "includes":
        errors, summary = check_includes()
    elif len(argv) == 2 and argv[1] == "callers":
        errors, summary = check_callers()
    elif len(argv) == 2 and argv[1] == "docs":
        errors, summary = check_docs()
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
