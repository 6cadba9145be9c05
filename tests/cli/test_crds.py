"""`jaxset crds [--runtimes] [-o json]`: the files of config/crd (config/runtimes) byte for
byte, though the binary holds them gzip-compressed (scripts/embed_files.cmake) and inflates
them with a zlib it loads with dlopen, not links (src/obj/base/gz.c); without that zlib it
exits 1 naming libz.so.1."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from clitest import BIN, SRC, Suite, run  # noqa: E402

ZLIB = "libz.so.1"


def files_of(folder):
    """The embedded files of config/<folder>, in the binary's order (file names)."""
    d = os.path.join(SRC, "config", folder)
    return [os.path.join(d, f) for f in sorted(os.listdir(d))
            if f.endswith(".yaml") and f != "kustomization.yaml"]


def joined(paths):
    """What `jaxset crds` prints for these files: each as it is, "---" lines between them."""
    out = b""
    for i, path in enumerate(paths):
        with open(path, "rb") as f:
            data = f.read()
        out += (b"---\n" if i else b"") + data + (b"" if data.endswith(b"\n") else b"\n")
    return out


def crds(*args, prefix=(), env=None):
    p = subprocess.run([*prefix, BIN, "crds", *args], cwd=SRC, capture_output=True, timeout=60,
                       env=env)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def zlib_path():
    """Where the dynamic loader finds libz.so.1 (ldconfig's cache), or None."""
    p = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30)
    for line in p.stdout.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.split(" ")[0] == ZLIB and os.path.exists(path):
            return path
    return None


def check_bytes(suite):
    for folder, args in (("crd", ()), ("runtimes", ("--runtimes",))):
        paths = files_of(folder)
        rc, out, err = crds(*args)
        suite.check(f"crds {' '.join(args)}: the files of config/{folder} byte for byte",
                    paths and rc == 0 and err == "" and out == joined(paths),
                    f"rc {rc}, {len(out)} bytes, want {len(joined(paths))}: {err}")
        # -o json: the same documents `jaxset decode` reads from the files themselves
        rc, out, err = crds(*args, "-o", "json")
        drc, dout, derr = run("decode", *paths)
        suite.check(f"crds {' '.join(args)} -o json: what decode reads from the files",
                    rc == 0 and drc == 0 and err == "" and out.decode() == dout
                    and len(json.loads(dout)) >= len(paths), f"{err}{derr}")


def check_not_linked(suite):
    p = subprocess.run(["ldd", BIN], capture_output=True, text=True, timeout=30)
    suite.check("the binary does not link zlib", p.returncode == 0 and "libc.so" in p.stdout
                and "libz.so" not in p.stdout, p.stdout + p.stderr)


def check_no_zlib(suite):
    # /dev/null mounted over libz.so.1 in a mount namespace of its own: dlopen fails
    path = zlib_path()
    hide = ["unshare", "--mount", "sh", "-c", 'mount --bind /dev/null "$0" && exec "$@"', path]
    can = path and os.geteuid() == 0 and subprocess.run(
        hide + ["true"], capture_output=True, timeout=30).returncode == 0
    if not can:
        print(f"skipped: no zlib hidden (root and unshare --mount needed; {ZLIB} at {path})")
        return
    # under LeakSanitizer, the loader's own leak on a failed dlopen is suppressed
    supp = os.path.join(SRC, "tests", "cli", "lsan_dlopen.supp")
    env = dict(os.environ, LSAN_OPTIONS=":".join(
        x for x in (os.environ.get("LSAN_OPTIONS"), f"suppressions={supp}") if x))
    for args in ((), ("-o", "json"), ("--runtimes", "-o", "json")):
        rc, out, err = crds(*args, prefix=hide, env=env)
        suite.check(f"crds {' '.join(args)} without zlib: exit 1 naming {ZLIB}",
                    rc == 1 and out == b"" and ZLIB in err and "cannot be loaded" in err, err)


def main():
    suite = Suite()
    check_bytes(suite)
    check_not_linked(suite)
    check_no_zlib(suite)
    suite.finish()


if __name__ == "__main__":
    main()
