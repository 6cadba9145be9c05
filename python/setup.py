"""The package's version is the repository's one VERSION file (pyproject.toml has the rest),
and the build puts the jaxset binary in the package (jaxset/bin/jaxset, with the modules it loads
from beside itself: libjaxset_cluster.so, libjaxset_rx.so), where the SDK looks
for it before PATH (_binary.find_binary): the one named by $JAXSET_BIN when set, else the
source tree's build/jaxset when there is one; without either, the package is built without it
and finds the binary through $JAXSET_BIN or PATH at run time."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
# What the binary loads from beside itself (src/obj/base/module.h).
MODULES = ("libjaxset_cluster.so", "libjaxset_rx.so")


def _version():
    with open(os.path.join(HERE, "..", "VERSION"), encoding="utf-8") as f:
        return f.read().strip()


def _binary():
    for path in (os.environ.get("JAXSET_BIN"), os.path.join(HERE, "..", "build", "jaxset")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


class BuildWithBinary(build_py):
    def run(self):
        super().run()
        src = _binary()
        if src is None:
            return
        dst = os.path.join(self.build_lib, "jaxset", "bin", "jaxset")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o755)
        for module in MODULES:
            path = os.path.join(os.path.dirname(src), module)
            if os.path.isfile(path):
                shutil.copyfile(path, os.path.join(os.path.dirname(dst), module))


setup(version=_version(), cmdclass={"build_py": BuildWithBinary})
