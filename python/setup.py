"""The package's version is the repository's one VERSION file (pyproject.toml has the rest)."""
import os

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "VERSION"), encoding="utf-8") as f:
    setup(version=f.read().strip())
