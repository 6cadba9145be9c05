#!/usr/bin/env python3
"""jaxset's test Kubernetes API server: `python3 tests/kube/apiserver.py --port 0 --print-port`
(or `--kubeconfig PATH`). See tests/kube/testapi/__init__.py and `--help`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from testapi.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
