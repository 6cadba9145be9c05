"""The layer rules of docs/design.md, checked on the sources, the build's link graph and its objects.

The graph is src/layers.txt, read here and by CMakeLists.txt: each room (a folder of src/, one
static library) stands on the rooms it names, and may use those and what they stand on.

    check_layers.py includes        every #include "..." in src/, tests/unit/ and fuzz/
    check_layers.py links FILE      FILE: the link graph CMake wrote (build/layers/links.txt)
    check_layers.py docs            docs/design.md names every folder of src/ and lists exactly
                                    the rooms of src/layers.txt
    check_layers.py callers         every function a header of src/ declares has a caller (in
                                    src/, a unit test, a fuzz target or a benchmark)
    check_layers.py files BUILD     from the objects of BUILD (nm): the arrows between files
                                    (a file uses a symbol another defines) and between rooms,
                                    printed; fails on a circle between files, on an exported
                                    name that names neither its file nor its room, and on a
                                    pure room (core, local/jobctl) calling outside its allowlist

includes: a file of a room includes headers of its own room and of the rooms below it only;
the programs in src/cli/ (main.c, dispatch.c) stand on every room of cli; a private header
(*_int.h) is included only from its own room, or by a unit test of that room
(tests/unit/<room>/) or a fuzz target that links it; libyaml's header only in obj/tree, RE2's
only in obj/base, libcurl's only in kube/client, libmicrohttpd's only in kube/serve, GnuTLS's
only in kube/webhook; src/ holds no folder that is not a layer or a room.
links: each room's library links only rooms below it, and each external library only where its
header may be included.  (That a room calls nothing above it is checked by the link checks of
CMakeLists.txt.)
"""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("JAXSET_SRC") or os.path.join(os.path.dirname(__file__), "..", "..")
SRC = os.path.join(ROOT, "src")
GRAPH = os.path.join(SRC, "layers.txt")


def read_graph(path=GRAPH):
    """[(room, [rooms it stands on])] from src/layers.txt, in its order, and {room: [stems]}:
    the prefixes a room's names may start with besides its name ("core (rec): ...")."""
    rooms, stems = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                head, _, on = line.partition(":")
                m = re.match(r"^([a-z/]+)\s*(?:\(([^)]*)\))?\s*$", head)
                if not m:
                    raise SystemExit(f"{path}: cannot read the line {line!r}")
                rooms.append((m.group(1), on.split()))
                stems[m.group(1)] = (m.group(2) or "").split()
    return rooms, stems


GRAPH_ROOMS, STEMS = read_graph()
ROOMS = [r for r, _ in GRAPH_ROOMS]
BELOW = {}
for _room, _on in GRAPH_ROOMS:
    below = set()
    for o in _on:
        below |= {o} | BELOW[o]
    BELOW[_room] = below
# The programs directly in a layer's folder stand on all its rooms.
PROGRAMS = {"cli": {r for r in ROOMS if r.startswith("cli/")}}
BELOW["cli"] = set().union(*({r} | BELOW[r] for r in PROGRAMS["cli"]))
ORDER = {r: i for i, r in enumerate(ROOMS)}
ORDER["cli"] = len(ROOMS)
LIBS = {r.replace("/", "_"): r for r in ROOMS}
# A whole layer's interface library stands for its top room.
for _layer in ("api", "local", "kube", "cli", "obj"):
    _top = [r for r in ROOMS if r.split("/")[0] == _layer]
    if _top and _layer not in LIBS:
        LIBS[_layer] = _top[-1]
# External headers that only some rooms may include (the library is linked, or loaded, there
# only).
EXTERNAL = [(re.compile(r"yaml\.h$"), {"obj/tree"}),
            (re.compile(r"^re2/"), {"obj/base"}),
            (re.compile(r"^zlib\.h$"), {"obj/base"}),
            (re.compile(r"curl/"), {"kube/client"}),
            (re.compile(r"microhttpd\.h$"), {"kube/serve"}),
            (re.compile(r"^(gnutls|openssl)/"), {"kube/webhook"})]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# External libraries that only some rooms may link.
EXTERNAL_LIBS = [(re.compile(r"yaml", re.I), {"obj/tree"}),
                 (re.compile(r"re2", re.I), {"obj/base"}),
                 (re.compile(r"curl", re.I), {"kube/client"}),
                 (re.compile(r"microhttpd|mhd", re.I), {"kube/serve"}),
                 (re.compile(r"crypto|ssl|gnutls|tls", re.I), {"kube/webhook"})]


def may_use(room, other):
    """Whether `room` may include or link `other`."""
    return room == other or other in BELOW[room]


def room_of(rel):
    """The room of a path relative to src/ (a file directly in src/cli/: "cli"), or None."""
    d = os.path.dirname(rel).replace(os.sep, "/")
    if d in ORDER:
        return d
    return None


def includes(path):
    """(line number, '<' or '"', name) of every #include of `path`."""
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield no, m.group(1), m.group(2)


def header_room(path, name):
    """(room, header path relative to src/) of a quoted include, or None outside src/."""
    for base in (os.path.dirname(path), SRC):
        full = os.path.normpath(os.path.join(base, name))
        if os.path.exists(full):
            rel = os.path.relpath(full, os.path.normpath(SRC))
            if rel.startswith(".."):
                return None
            room = room_of(rel)
            return (room, rel) if room else None
    return None


def c_files(*dirs):
    for d in dirs:
        for dirpath, dirnames, names in os.walk(os.path.join(ROOT, d)):
            dirnames.sort()
            for name in sorted(names):
                if name.endswith((".c", ".cc", ".h")):
                    yield os.path.join(dirpath, name)


def test_rooms(path, rel):
    """The rooms a unit test (its folder) or a fuzz target (every room it includes) links."""
    unit = os.path.join("tests", "unit") + os.sep
    if rel.startswith(unit):
        return {os.path.dirname(rel[len(unit):]).replace(os.sep, "/")}
    return {h[0] for _, q, n in includes(path) if q == '"'
            for h in [header_room(path, n)] if h}


def check_file(path, room, errors):
    """`room`: the file's room in src/, or None for tests and fuzz targets."""
    rel = os.path.relpath(path, ROOT)
    tests = None if room else test_rooms(path, rel)
    for no, quote, name in includes(path):
        where = f"{rel}:{no}: #include {quote}{name}{'>' if quote == '<' else quote}"
        if quote == "<":
            for pat, allowed in EXTERNAL:
                if room and pat.search(name) and room not in allowed:
                    errors.append(f"{where}: only {'/'.join(sorted(allowed))} may use it")
            continue
        h = header_room(path, name)
        if not h:
            continue
        other, hrel = h
        if room and not may_use(room, other):
            errors.append(f"{where}: {room} may not include {other} (it is not below {room})")
        if hrel.endswith("_int.h") and not (room == other or (tests and other in tests)):
            errors.append(f"{where}: {hrel} is private to src/{other}")


def check_tree(errors):
    """Every folder of src/ is a room or a layer holding rooms; .c files live in rooms only."""
    for dirpath, dirs, names in os.walk(SRC):
        dirs.sort()
        rel = os.path.relpath(dirpath, SRC).replace(os.sep, "/")
        if rel == ".":
            continue
        holds_rooms = any(r.startswith(rel + "/") for r in ROOMS)
        if rel not in ORDER and not holds_rooms:
            errors.append(f"src/{rel}: not a room of src/layers.txt (docs/design.md lists them)")
        n_c = sum(1 for n in names if n.endswith((".c", ".cc")))
        if n_c > 15:
            errors.append(f"src/{rel}: {n_c} .c files, more than 15: split it into rooms")


def check_includes():
    errors, n = [], 0
    check_tree(errors)
    for room in list(ROOMS) + ["cli"]:
        for path in c_files(os.path.join("src", room)):
            if room_of(os.path.relpath(path, SRC)) == room:
                check_file(path, room, errors)
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
            lib, _, libs = line.partition(":")
            room = LIBS.get(lib.strip())
            if room is None:
                errors.append(f"{lib.strip()}: not a room of src/layers.txt")
                continue
            n += 1
            for dep in filter(None, (x.strip() for x in libs.split(";"))):
                if dep.startswith("jaxset_"):
                    other = LIBS.get(dep[len("jaxset_"):])
                    if other is None or other == room or not may_use(room, other):
                        errors.append(f"{room} links {dep}: only rooms below {room} may be "
                                      f"linked")
                    continue
                for pat, allowed in EXTERNAL_LIBS:
                    if pat.search(dep) and room not in allowed:
                        errors.append(f"{room} links {dep}: only "
                                      f"{'/'.join(sorted(allowed))} may link it")
    if n == 0:
        errors.append(f"{graph_file}: no layers")
    return errors, f"{n} rooms checked"


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
    # The list of rooms, one "- `src/<room>/`" line each, is src/layers.txt's, in its order.
    listed = re.findall(r"^- `src/([a-z/]+)/`", text, re.M)
    if listed != ROOMS:
        errors.append(f"docs/design.md's list of rooms {listed} is not src/layers.txt's {ROOMS}")
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


# ---- files: the objects' symbols ------------------------------------------------------------

# What the pure rooms may call outside the project: jansson, memory and strings, and math;
# no clock, no file, no process, no network (docs/design.md, "The one idea").
PURE = {"core", "local/jobctl"}
PURE_ALLOWED = re.compile(
    r"^(json_\w+|jansson_\w+|malloc|calloc|realloc|free|strdup|strndup|memcpy|memmove|memset|"
    r"memcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|strstr|strspn|strcspn|"
    r"strtol|strtoll|strtoul|strtoull|strtod|snprintf|vsnprintf|asprintf|vasprintf|qsort|"
    r"bsearch|abort|__assert_fail|__stack_chk_fail|__errno_location|__ctype_\w+|"
    r"__snprintf_chk|__vsnprintf_chk|__memcpy_chk|__memmove_chk|__memset_chk|__asprintf_chk|"
    r"__vasprintf_chk|__isoc23_\w+|__isoc99_sscanf|sscanf|llabs|labs|ceil|floor|"
    r"_GLOBAL_OFFSET_TABLE_|__asan_\w+|__ubsan_\w+|__sanitizer_\w+|__tsan_\w+)$")


def objects(build):
    """{source path relative to src/: object path} of the rooms' libraries in `build`."""
    out = {}
    base = os.path.join(build, "CMakeFiles")
    for lib, room in LIBS.items():
        if lib != room.replace("/", "_"):
            continue
        top = os.path.join(base, f"jaxset_{lib}.dir")
        for dirpath, _, names in os.walk(top):
            for name in names:
                if name.endswith(".o"):
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, top)
                    marker = "src" + os.sep
                    if rel.startswith(marker):
                        name = rel[len(marker):-2]
                        if os.path.exists(os.path.join(SRC, name)):  # not a stale object
                            out[re.sub(r"\.(c|cc)$", "", name)] = full
    return out


def symbols(obj):
    """(defined global names, undefined names) of an object file."""
    p = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True)
    defined, undefined = set(), set()
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVWCGS" and not name.startswith(("__odr_asan", ".")):
            defined.add(name)
    return defined, undefined


def circles(nodes, edges):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def names_file(sym, stem, room):
    """Whether exported `sym` of src/<room>/<stem>.c names its file or its room: it starts with
    a leading part of the file's stem cut at an underscore (kc_cfg_exec.c: kc_, kc_cfg_,
    kc_cfg_exec_), or is that stem; a private name's double underscore counts as one."""
    s = sym.replace("__", "_")
    parts = stem.split("_")
    for i in range(1, len(parts) + 1):
        p = "_".join(parts[:i])
        if s == p or s.startswith(p + "_"):
            return True
    for p in [room.split("/")[-1]] + STEMS.get(room, []):
        if s == p or s.startswith(p + "_"):
            return True
    return False


def check_files(build):
    objs = objects(build)
    if not objs:
        return [f"{build}: no objects of the rooms' libraries (build it first)"], ""
    defs, undefs = {}, {}
    for src, obj in objs.items():
        defs[src], undefs[src] = symbols(obj)
    owner = {}
    for src, names in defs.items():
        for name in names:
            owner.setdefault(name, src)
    edges, why = {}, {}
    for src, names in undefs.items():
        for name in names:
            other = owner.get(name)
            if other and other != src:
                edges.setdefault(src, set()).add(other)
                why.setdefault((src, other), set()).add(name)
    errors = []
    for comp in circles(objs, edges):
        ties = "; ".join(f"{a} -> {b}: {', '.join(sorted(why[(a, b)])[:4])}"
                         for a in comp for b in sorted(edges.get(a, ())) if b in comp)
        errors.append(f"circle between files {', '.join(comp)} ({ties})")
    rooms = {}
    for (a, b) in why:
        ra, rb = room_of(a + ".c"), room_of(b + ".c")
        if ra != rb:
            rooms[(ra, rb)] = rooms.get((ra, rb), 0) + 1
    bad_names = []
    for src, names in sorted(defs.items()):
        room, stem = os.path.dirname(src), os.path.basename(src)
        for name in sorted(names):
            if not names_file(name, stem, room):
                bad_names.append(f"src/{src}.c exports {name}: the name has neither the file's "
                                 f"prefix nor its room's")
    errors += bad_names
    for src, names in sorted(undefs.items()):
        if os.path.dirname(src) in PURE:
            for name in sorted(names):
                if name not in owner and not PURE_ALLOWED.match(name):
                    errors.append(f"src/{src}.c is pure and calls {name}")
    print(f"arrows between files: {sum(len(v) for v in edges.values())}")
    print(f"arrows between rooms: {len(rooms)}")
    for (ra, rb), k in sorted(rooms.items(), key=lambda x: (ORDER.get(x[0][0], 99), x[0][1])):
        print(f"  {ra} -> {rb}: {k} file arrows")
    n_circles = len(circles(objs, edges))
    print(f"circles between files: {n_circles}")
    counts = {}
    for src in objs:
        d = os.path.dirname(src)
        counts[d] = counts.get(d, 0) + 1
    print("files (.c) per room: " + ", ".join(f"{d} {counts[d]}" for d in sorted(counts)))
    return errors, f"{len(objs)} files checked"


def main(argv):
    if len(argv) == 2 and argv[1] == "includes":
        errors, summary = check_includes()
    elif len(argv) == 2 and argv[1] == "callers":
        errors, summary = check_callers()
    elif len(argv) == 2 and argv[1] == "docs":
        errors, summary = check_docs()
    elif len(argv) == 3 and argv[1] == "links":
        errors, summary = check_links(argv[2])
    elif len(argv) == 3 and argv[1] == "files":
        errors, summary = check_files(argv[2])
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
