"""Command line of the test API server: listen on loopback, print the port and/or write a
kubeconfig, optionally serve HTTPS with a self-signed certificate made by the openssl CLI."""
import argparse
import base64
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading

from .server import ApiServer, HTTPServer


def parse_args(argv):
    p = argparse.ArgumentParser(prog="apiserver.py", description=(
        "A Kubernetes API server for tests: in memory, on loopback, standard library only."))
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (0: any free port)")
    p.add_argument("--print-port", action="store_true",
                   help="print the port on stdout once listening")
    p.add_argument("--kubeconfig", metavar="PATH", help="write a kubeconfig for this server")
    p.add_argument("--token", help="require this bearer token (also put in the kubeconfig)")
    p.add_argument("--tls", action="store_true",
                   help="serve HTTPS with a self-signed certificate (needs the openssl CLI)")
    p.add_argument("--cert-dir", help="where to keep the TLS certificate (default: a temp dir)")
    p.add_argument("--client-certs", action="store_true",
                   help="with --tls: make a client CA and a client certificate signed by it "
                        "(client.crt, client.key, client-ca.crt in the cert dir; the "
                        "kubeconfig carries the certificate), and require a certificate of "
                        "that CA (or the --token) on every request but the health endpoints")
    p.add_argument("--history", type=int, default=10000,
                   help="events kept before the oldest are compacted (default 10000)")
    p.add_argument("--compact-interval", type=float, default=0,
                   help="every this many seconds, compact history up to the revision of the "
                        "previous tick, as kube-apiserver compacts etcd (default 0: never)")
    p.add_argument("--bookmark-interval", type=float, default=1.0,
                   help="seconds between watch BOOKMARK events (default 1)")
    p.add_argument("--no-controllers", action="store_true",
                   help="no garbage collector, namespace or PVC-protection controller "
                        "(like envtest: an API server alone)")
    p.add_argument("--no-managed-fields", action="store_true",
                   help="do not record metadata.managedFields")
    p.add_argument("--version-string", default="v1.32.0", help="gitVersion served on /version")
    p.add_argument("--verbose", action="store_true", help="log every request on stderr")
    return p.parse_args(argv)


def make_certificate(cert_dir, host):
    """A self-signed certificate for host and localhost; returns (cert, key) paths."""
    if shutil.which("openssl") is None:
        sys.exit("apiserver.py: --tls needs the openssl command")
    cert, key = os.path.join(cert_dir, "server.crt"), os.path.join(cert_dir, "server.key")
    san = f"IP:{host},DNS:localhost" if host.replace(".", "").isdigit() else \
        f"DNS:{host},DNS:localhost"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", f"/CN={host}", "-addext",
                    f"subjectAltName={san}"], check=True, capture_output=True)
    return cert, key


def make_client_certificate(cert_dir):
    """A client CA and a certificate it signs (CN=jaxset-test, O=system:masters); returns
    (ca, cert, key) paths."""
    ca, ca_key = os.path.join(cert_dir, "client-ca.crt"), os.path.join(cert_dir, "client-ca.key")
    cert, key = os.path.join(cert_dir, "client.crt"), os.path.join(cert_dir, "client.key")
    csr = os.path.join(cert_dir, "client.csr")
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)  # noqa
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
        "-days", "2", "-subj", "/CN=jaxset-test-client-ca")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj",
        "/O=system:masters/CN=jaxset-test")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out",
        cert, "-days", "2")
    return ca, cert, key


def write_kubeconfig(path, server, token=None, ca_file=None, client=None):
    lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: test", "  cluster:",
             f"    server: {server}"]
    if ca_file:
        with open(ca_file, "rb") as f:
            lines.append(f"    certificate-authority-data: {base64.b64encode(f.read()).decode()}")
    lines += ["users:", "- name: test", "  user:"]
    user = []
    if token:
        user.append(f"    token: {token}")
    if client:
        for k, f in (("client-certificate-data", client[0]), ("client-key-data", client[1])):
            with open(f, "rb") as fh:
                user.append(f"    {k}: {base64.b64encode(fh.read()).decode()}")
    if user:
        lines += user
    else:
        lines[-1] = "  user: {}"
    lines += ["contexts:", "- name: test", "  context:", "    cluster: test", "    user: test",
              "    namespace: default", "current-context: test", ""]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def compactor(store, interval):
    """Compacts to the revision seen one interval ago (kube-apiserver's etcd compactor)."""
    import time
    last = None
    while True:
        time.sleep(interval)
        if last is not None:
            store.compact(last)
        last = store.rev


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    app = ApiServer(token=args.token, history=args.history,
                    bookmark_interval=args.bookmark_interval,
                    controllers=not args.no_controllers, version=args.version_string,
                    verbose=args.verbose, managed_fields=not args.no_managed_fields)
    ctx, ca, client = None, None, None
    if args.client_certs and not args.tls:
        sys.exit("apiserver.py: --client-certs needs --tls")
    if args.tls:
        cert_dir = args.cert_dir or tempfile.mkdtemp(prefix="jaxset-apiserver-")
        ca, key = make_certificate(cert_dir, args.host)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ca, key)
        if args.client_certs:
            client_ca, ccert, ckey = make_client_certificate(cert_dir)
            ctx.load_verify_locations(client_ca)
            ctx.verify_mode = ssl.CERT_OPTIONAL
            client = (ccert, ckey)
            app.client_certs = True
    httpd = HTTPServer((args.host, args.port), app, ctx)
    port = httpd.server_address[1]
    scheme = "https" if ctx else "http"
    if args.kubeconfig:
        write_kubeconfig(args.kubeconfig, f"{scheme}://{args.host}:{port}", args.token, ca,
                         client)
    if args.print_port:
        print(port, flush=True)

    def stop(signum, frame):
        threading.Thread(target=httpd.shutdown, daemon=True).start()
    if args.compact_interval > 0:
        threading.Thread(target=compactor, args=(app.store, args.compact_interval),
                         name="compactor", daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        app.controllers.stop()
        httpd.server_close()
    return 0
