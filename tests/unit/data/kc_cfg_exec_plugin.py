#!/usr/bin/env python3
"""A fake exec credential plugin for tests/unit/test_kubeconfig_exec.c.

What it does comes from its environment, which the test's kubeconfig sets through exec.env (so
passing env is tested too):
  PLUGIN_COUNT   a file that gets one line per run (the test counts runs); the run number n
                 is in the token ("tok-n")
  PLUGIN_DUMP    a file to write what it received: args, KUBERNETES_EXEC_INFO, PLUGIN_EXTRA,
                 stdin
  PLUGIN_MODE    token (default), cert, fail, badjson, kind, wrongversion, nostatus, sleep
  PLUGIN_EXPIRY  status.expirationTimestamp, when set
"""
import json
import os
import sys
import time

count_file = os.environ.get("PLUGIN_COUNT")
n = 1
if count_file:
    try:
        with open(count_file, encoding="utf-8") as f:
            n = len(f.read().splitlines()) + 1
    except FileNotFoundError:
        pass
    with open(count_file, "a", encoding="utf-8") as f:
        f.write("run\n")

info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
dump = os.environ.get("PLUGIN_DUMP")
if dump:
    with open(dump, "w", encoding="utf-8") as f:
        json.dump({"args": sys.argv[1:], "info": info, "extra": os.environ.get("PLUGIN_EXTRA"),
                   "stdin": sys.stdin.read()}, f)

mode = os.environ.get("PLUGIN_MODE", "token")
api = info["apiVersion"]
kind = "ExecCredential"
if mode == "fail":
    sys.stderr.write("error: login required\n\n  run `plugin login` first  \nthird\nfourth\n")
    sys.exit(3)
if mode == "badjson":
    print('{"kind": "ExecCredential", ')
    sys.exit(0)
if mode == "sleep":
    sys.stderr.write("waiting for a browser\n")
    sys.stderr.flush()
    time.sleep(60)
if mode == "wrongversion":
    api = "client.authentication.k8s.io/v1alpha1"
if mode == "kind":
    kind = "Status"

status = {"token": f"tok-{n}"}
if mode == "cert":
    status = {"clientCertificateData": f"CERT-{n}\n", "clientKeyData": f"KEY-{n}\n"}
if os.environ.get("PLUGIN_EXPIRY"):
    status["expirationTimestamp"] = os.environ["PLUGIN_EXPIRY"]
out = {"kind": kind, "apiVersion": api}
if mode != "nostatus":
    out["status"] = status
print(json.dumps(out))
