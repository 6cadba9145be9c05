#!/usr/bin/env python3
"""A training loop that reports its progress and loss to Kubeflow Trainer's status endpoint,
with the standard library only (Trainer's docs/user-guides/trainjob-progress.md, "Raw HTTP").

Reads the three variables Trainer (and `jaxset run`) give trainer containers:
KUBEFLOW_TRAINER_SERVER_URL, KUBEFLOW_TRAINER_SERVER_CA_CERT and KUBEFLOW_TRAINER_SERVER_TOKEN
(a file, read again at each report: on a cluster the token rotates).  Process 0 reports, the
others train quietly; a failed report is said and the training goes on.  Without the
variables (a run where nothing serves the endpoint) it trains without reporting.
"""
import json
import os
import ssl
import sys
import time
import urllib.request

STEPS = int(os.environ.get("PROGRESS_STEPS", "5"))


def report(step, loss, started):
    url = os.environ.get("KUBEFLOW_TRAINER_SERVER_URL")
    if not url or os.environ.get("JAX_PROCESS_ID", "0") != "0":
        return
    with open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"], encoding="utf-8") as f:
        token = f.read().strip()
    left = (time.monotonic() - started) / step * (STEPS - step)
    body = {"trainerStatus": {
        "progressPercentage": step * 100 // STEPS, "estimatedRemainingSeconds": int(left),
        "metrics": [{"name": "loss", "value": f"{loss:.4f}"}, {"name": "step", "value": str(step)}],
        "lastUpdatedTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}
    req = urllib.request.Request(url, json.dumps(body).encode(), {
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    ctx = ssl.create_default_context(cafile=os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
    try:
        urllib.request.urlopen(req, context=ctx, timeout=5).read()
    except OSError as e:  # never let reporting stop the training
        print(f"progress report failed: {e}", file=sys.stderr)


def main():
    started, loss = time.monotonic(), 2.0
    for step in range(1, STEPS + 1):
        time.sleep(0.2)  # one step of training
        loss *= 0.6
        report(step, loss, started)
    print(f"process {os.environ.get('JAX_PROCESS_ID', '0')}: trained {STEPS} steps, "
          f"loss {loss:.4f}")


if __name__ == "__main__":
    main()
