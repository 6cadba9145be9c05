"""Where and how to reach a Kubernetes API server, found as kubectl finds it (client-go
tools/clientcmd loading rules, rest.InClusterConfig, plugin/pkg/client/auth/exec), the same
rules as the jaxset CLI's.

- ``config_file`` given: that file only (a missing file is an error), never in-cluster.
- else ``$KUBECONFIG`` (``:``-separated; empty items and repeats dropped, missing files
  skipped), else ``~/.kube/config``.  Files merge as clientcmd merges them: a cluster, user or
  context comes whole from the first file that names it; current-context from the first file
  that sets it.  Relative paths in a file are relative to its folder.
- When no file exists, or the files choose no context, the in-cluster configuration is used if
  ``KUBERNETES_SERVICE_HOST`` and ``KUBERNETES_SERVICE_PORT`` are set.
- Namespace: the one given > the context's > in-cluster (``$POD_NAMESPACE``, the service
  account's namespace file) > ``default``.

Secrets (inline data, tokens, keys, plugin output) stay in memory: nothing is written to disk.
YAML files are decoded by the jaxset binary (``jaxset decode``); JSON files need no binary."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _binary
from .errors import BinaryNotFoundError, KubeConfigError

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
EXEC_APIS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
EXEC_TIMEOUT = 30.0
EXEC_LEEWAY = 10.0  # a plugin's credential is renewed this long before it expires
TOKEN_REREAD = 60.0  # a token file is read again at least this often


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=False)
    except (ValueError, TypeError) as e:
        raise KubeConfigError(f"{what}: not base64 ({e})") from None


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise KubeConfigError(f"{what}: cannot read {path}: {e.strerror}") from None


def _parse_time(s: str) -> Optional[float]:
    txt = s.strip().replace("Z", "+00:00")
    if "." in txt:  # Python 3.9's fromisoformat takes at most 6 fraction digits
        head, rest = txt.split(".", 1)
        frac = "".join(ch for ch in rest if ch.isdigit())
        tz = rest[len(frac):]
        txt = f"{head}.{frac[:6].ljust(6, '0')}{tz}"
    try:
        return datetime.fromisoformat(txt).timestamp()
    except ValueError:
        return None


@dataclass
class _File:
    path: str
    doc: Dict[str, Any]

    @property
    def dir(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def resolve(self, p: str) -> str:
        return p if os.path.isabs(p) else os.path.join(self.dir, p)


def _decode(path: str, binary: Optional[str]) -> Dict[str, Any]:
    raw = _read(path, "kubeconfig")
    try:
        doc = json.loads(raw)
    except ValueError:
        try:
            exe = _binary.find_binary(binary)
        except BinaryNotFoundError as e:
            raise KubeConfigError(f"kubeconfig {path} is YAML, which the SDK reads with the "
                                  f"jaxset binary: {e}") from None
        p = _binary.call(exe, ["decode", path], timeout=30)
        if p.returncode != 0:
            raise KubeConfigError(f"kubeconfig {path}: {p.stderr.strip()}") from None
        docs = json.loads(p.stdout)
        doc = docs[0] if docs else {}
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise KubeConfigError(f"kubeconfig {path}: not a kubeconfig (a mapping)")
    return doc


def _named(f: _File, key: str, inner: str) -> Dict[str, Tuple[_File, Dict[str, Any]]]:
    out: Dict[str, Tuple[_File, Dict[str, Any]]] = {}
    items = f.doc.get(key) or []
    if not isinstance(items, list):
        raise KubeConfigError(f"kubeconfig {f.path}: {key} must be a list")
    for i, it in enumerate(items):
        if not isinstance(it, dict) or not isinstance(it.get("name"), str):
            raise KubeConfigError(f"kubeconfig {f.path}: {key}[{i}] needs a name")
        body = it.get(inner) or {}
        if not isinstance(body, dict):
            raise KubeConfigError(f"kubeconfig {f.path}: {key}[{i}].{inner} must be a mapping")
        out.setdefault(it["name"], (f, body))
    return out


@dataclass
class ExecPlugin:
    """An exec credential plugin (client.authentication.k8s.io v1 / v1beta1)."""

    api_version: str
    argv: List[str]
    env: Dict[str, str]
    install_hint: str = ""
    cluster: Optional[Dict[str, Any]] = None  # spec.cluster when provideClusterInfo


@dataclass
class ClusterConfig:
    """The configuration chosen: the server, TLS, the namespace and the credentials."""

    server: str
    namespace: str
    source: str
    context: Optional[str] = None
    in_cluster: bool = False
    insecure: bool = False
    tls_server_name: Optional[str] = None
    ca_data: Optional[bytes] = field(default=None, repr=False)
    cert_data: Optional[bytes] = field(default=None, repr=False)
    key_data: Optional[bytes] = field(default=None, repr=False)
    token: Optional[str] = field(default=None, repr=False)
    token_file: Optional[str] = None
    username: Optional[str] = None
    password: Optional[str] = field(default=None, repr=False)
    exec_plugin: Optional[ExecPlugin] = None

    def __post_init__(self) -> None:
        self.credentials = Credentials(self)


class Credentials:
    """The credentials to put on a request now: a static token, a token file re-read when it
    changes (and every minute), a client certificate, or an exec plugin's output kept until
    shortly before its expirationTimestamp.  invalidate() after a 401."""

    def __init__(self, cfg: ClusterConfig):
        self.cfg = cfg
        self.lock = threading.Lock()
        self._file_token: Optional[str] = None
        self._file_stamp: Optional[Tuple[int, int, int]] = None
        self._file_read = 0.0
        self._exec: Optional[Tuple[Optional[str], Optional[bytes], Optional[bytes]]] = None
        self._exec_until: Optional[float] = None

    def invalidate(self) -> None:
        with self.lock:
            self._exec = None
            self._file_stamp = None

    def get(self) -> Tuple[Optional[str], Optional[bytes], Optional[bytes]]:
        """(bearer token, client certificate PEM, client key PEM), each possibly None."""
        cfg = self.cfg
        with self.lock:
            if cfg.token:
                return cfg.token, cfg.cert_data, cfg.key_data
            if cfg.token_file:
                return self._token_from_file(), cfg.cert_data, cfg.key_data
            if cfg.cert_data or cfg.username:
                return None, cfg.cert_data, cfg.key_data
            if cfg.exec_plugin is not None:
                return self._from_exec()
            return None, None, None

    def _token_from_file(self) -> Optional[str]:
        path = self.cfg.token_file or ""
        try:
            st = os.stat(path)
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        now = time.monotonic()
        if self._file_token is None or stamp != self._file_stamp or \
                now - self._file_read >= TOKEN_REREAD:
            try:
                with open(path, encoding="utf-8") as f:
                    tok = f.read().strip()
                self._file_token, self._file_stamp, self._file_read = tok, stamp, now
            except OSError as e:
                if self._file_token is None:  # a failed re-read keeps the last good token
                    raise KubeConfigError(f"token file {path}: {e.strerror}") from None
        return self._file_token

    def _from_exec(self) -> Tuple[Optional[str], Optional[bytes], Optional[bytes]]:
        if self._exec is not None and (self._exec_until is None or
                                       time.time() < self._exec_until):
            return self._exec
        plugin = self.cfg.exec_plugin
        assert plugin is not None
        info: Dict[str, Any] = {"apiVersion": plugin.api_version, "kind": "ExecCredential",
                                "spec": {"interactive": False}}
        if plugin.cluster is not None:
            info["spec"]["cluster"] = plugin.cluster
        env = dict(os.environ)
        env.update(plugin.env)
        env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
        what = f"exec plugin {plugin.argv[0]}"
        try:
            p = subprocess.run(plugin.argv, env=env, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=EXEC_TIMEOUT)
        except FileNotFoundError:
            hint = f": {plugin.install_hint.strip()}" if plugin.install_hint else ""
            raise KubeConfigError(f"{what}: executable not found{hint}") from None
        except subprocess.TimeoutExpired:
            raise KubeConfigError(f"{what}: no answer within {EXEC_TIMEOUT:g}s") from None
        except OSError as e:
            raise KubeConfigError(f"{what}: {e.strerror}") from None
        if p.returncode != 0:
            err = "\n".join(p.stderr.strip().splitlines()[:5])
            raise KubeConfigError(f"{what} exited with status {p.returncode}: {err}")
        try:
            cred = json.loads(p.stdout)
        except ValueError:
            raise KubeConfigError(f"{what}: its output is not an ExecCredential JSON "
                                  "object") from None
        if not isinstance(cred, dict) or cred.get("kind") != "ExecCredential":
            raise KubeConfigError(f"{what}: its output is not an ExecCredential")
        if cred.get("apiVersion") != plugin.api_version:
            raise KubeConfigError(f"{what}: ExecCredential apiVersion "
                                  f"{cred.get('apiVersion')!r}, expected {plugin.api_version}")
        st = cred.get("status") or {}
        token = st.get("token") or None
        cert, key = st.get("clientCertificateData"), st.get("clientKeyData")
        if bool(cert) != bool(key):
            raise KubeConfigError(f"{what}: clientCertificateData and clientKeyData come "
                                  "together")
        if not token and not cert:
            raise KubeConfigError(f"{what}: the ExecCredential has no token and no client "
                                  "certificate")
        until = None
        if st.get("expirationTimestamp"):
            exp = _parse_time(str(st["expirationTimestamp"]))
            if exp is None:
                raise KubeConfigError(f"{what}: expirationTimestamp "
                                      f"{st['expirationTimestamp']!r} is not an RFC 3339 time")
            life = exp - time.time()
            until = exp - min(EXEC_LEEWAY, max(life, 0) / 2)
        self._exec = (token, cert.encode() if cert else None, key.encode() if key else None)
        self._exec_until = until
        return self._exec


def _kubeconfig_paths(config_file: Optional[str]) -> Tuple[List[str], bool]:
    """(paths to read, whether they were named explicitly)."""
    if config_file:
        return [os.path.expanduser(os.fspath(config_file))], True
    env = os.environ.get("KUBECONFIG")
    if env:
        seen: List[str] = []
        for p in env.split(os.pathsep):
            if p and p not in seen:
                seen.append(p)
        return seen, False
    return [os.path.join(os.path.expanduser("~"), ".kube", "config")], False


def _in_cluster_available() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST")) and \
        bool(os.environ.get("KUBERNETES_SERVICE_PORT"))


def in_cluster(namespace: Optional[str] = None) -> ClusterConfig:
    """rest.InClusterConfig: the service's address from the environment, the service
    account's token (re-read when it changes), CA and namespace."""
    host = os.environ.get("KUBERNETES_SERVICE_HOST", "")
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise KubeConfigError("not in a cluster: KUBERNETES_SERVICE_HOST and "
                              "KUBERNETES_SERVICE_PORT are not set")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    sa = SERVICE_ACCOUNT_DIR
    token_file = os.path.join(sa, "token")
    if not os.path.isfile(token_file):
        raise KubeConfigError(f"in-cluster configuration: no service account token at "
                              f"{token_file}")
    ca_path = os.path.join(sa, "ca.crt")
    ca = _read(ca_path, "in-cluster CA") if os.path.exists(ca_path) else None
    ns = namespace or os.environ.get("POD_NAMESPACE") or ""
    if not ns:
        try:
            with open(os.path.join(sa, "namespace"), encoding="utf-8") as f:
                ns = f.read().strip()
        except OSError:
            ns = ""
    cfg = ClusterConfig(server=f"https://{host}:{port}", namespace=ns or "default",
                        source="in-cluster", in_cluster=True, ca_data=ca,
                        token_file=token_file)
    cfg.credentials.get()  # a token file that cannot be read fails now, not at a request
    return cfg


def _str(body: Mapping[str, Any], key: str, where: str) -> Optional[str]:
    v = body.get(key)
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise KubeConfigError(f"{where}: {key} must be a string")
    return v


def _pem(f: _File, body: Mapping[str, Any], file_key: str, data_key: str,
         where: str) -> Optional[bytes]:
    path, data = _str(body, file_key, where), _str(body, data_key, where)
    if path and data:
        raise KubeConfigError(f"{where}: {file_key} and {data_key} are both given: use one")
    if data:
        return _b64(data, f"{where}: {data_key}")
    if path:
        return _read(f.resolve(path), f"{where}: {file_key}")
    return None


def _exec_plugin(f: _File, ex: Mapping[str, Any], cluster: Mapping[str, Any],
                 server: str, ca: Optional[bytes], where: str) -> ExecPlugin:
    api = ex.get("apiVersion")
    if api not in EXEC_APIS:
        raise KubeConfigError(f"{where}: exec apiVersion {api!r} is not supported: use one of "
                              f"{', '.join(EXEC_APIS)}")
    cmd = _str(ex, "command", where + ": exec")
    if not cmd:
        raise KubeConfigError(f"{where}: exec: command must be given")
    args = ex.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise KubeConfigError(f"{where}: exec: args must be a list of strings")
    env: Dict[str, str] = {}
    for i, e in enumerate(ex.get("env") or []):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not e["name"]:
            raise KubeConfigError(f"{where}: exec: env[{i}] needs a name")
        env[e["name"]] = str(e.get("value", ""))
    if ex.get("interactiveMode") == "Always":
        raise KubeConfigError(f"{where}: exec plugin {cmd} needs an interactive terminal "
                              "(interactiveMode Always), which the SDK does not give it")
    argv = [f.resolve(cmd) if "/" in cmd else cmd, *args]
    info = None
    if ex.get("provideClusterInfo"):  # client.authentication.k8s.io Cluster
        info = {"server": server}
        for k in ("tls-server-name", "insecure-skip-tls-verify", "proxy-url",
                  "disable-compression"):
            if k in cluster:
                info[k] = cluster[k]
        if ca:
            info["certificate-authority-data"] = base64.b64encode(ca).decode()
        ext = [e for e in cluster.get("extensions") or []
               if isinstance(e, dict) and e.get("name") == "client.authentication.k8s.io/exec"]
        if ext:
            info["config"] = ext[0].get("extension")
    return ExecPlugin(api_version=str(api), argv=argv, env=env,
                      install_hint=str(ex.get("installHint") or ""), cluster=info)


def load(config_file: Optional[str] = None, context: Optional[str] = None,
         namespace: Optional[str] = None, binary: Optional[str] = None) -> ClusterConfig:
    """The configuration kubectl would use (see the module's doc).  KubeConfigError names the
    file(s) and the entry at fault."""
    paths, explicit = _kubeconfig_paths(config_file)
    files: List[_File] = []
    for p in paths:
        if not os.path.exists(p):
            if explicit:
                raise KubeConfigError(f"kubeconfig {p}: no such file")
            continue
        files.append(_File(p, _decode(p, binary)))
    source = ":".join(f.path for f in files)
    current = next((f.doc.get("current-context") for f in files
                    if f.doc.get("current-context")), None)
    name = context or current
    if not name:
        if not explicit and _in_cluster_available():
            return in_cluster(namespace)
        if not files:
            raise KubeConfigError(
                "no Kubernetes configuration: no kubeconfig at " + ", ".join(paths) +
                " and not in a cluster (KUBERNETES_SERVICE_HOST unset); set KUBECONFIG or "
                "pass config_file")
        raise KubeConfigError(f"kubeconfig {source}: no current-context; pass context=...")
    contexts: Dict[str, Tuple[_File, Dict[str, Any]]] = {}
    clusters: Dict[str, Tuple[_File, Dict[str, Any]]] = {}
    users: Dict[str, Tuple[_File, Dict[str, Any]]] = {}
    for f in files:
        for k, v in _named(f, "contexts", "context").items():
            contexts.setdefault(k, v)
        for k, v in _named(f, "clusters", "cluster").items():
            clusters.setdefault(k, v)
        for k, v in _named(f, "users", "user").items():
            users.setdefault(k, v)
    if name not in contexts:
        raise KubeConfigError(f"kubeconfig {source}: context {name!r} not found")
    _, ctx = contexts[name]
    cname, uname = ctx.get("cluster"), ctx.get("user")
    if not cname or cname not in clusters:
        raise KubeConfigError(f"kubeconfig {source}: context {name!r}: cluster {cname!r} not "
                              "found")
    cf, cl = clusters[cname]
    where = f"kubeconfig {cf.path}: cluster {cname!r}"
    server = _str(cl, "server", where)
    if not server:
        raise KubeConfigError(f"{where}: no server")
    server = server.rstrip("/")
    if "://" not in server:
        server = "https://" + server
    if cl.get("proxy-url"):
        raise KubeConfigError(f"{where}: proxy-url is not supported by jaxset's SDK (it "
                              "connects to the server directly)")
    insecure = cl.get("insecure-skip-tls-verify") is True
    ca = _pem(cf, cl, "certificate-authority", "certificate-authority-data", where)
    if insecure and ca:
        raise KubeConfigError(f"{where}: specifying a root certificates file with the insecure "
                              "flag is not allowed")
    cfg = ClusterConfig(server=server, namespace=namespace or ctx.get("namespace") or "default",
                        source=source, context=name, insecure=insecure,
                        tls_server_name=_str(cl, "tls-server-name", where), ca_data=ca)
    if uname:
        if uname not in users:
            raise KubeConfigError(f"kubeconfig {source}: context {name!r}: user {uname!r} not "
                                  "found")
        uf, us = users[uname]
        uw = f"kubeconfig {uf.path}: user {uname!r}"
        cfg.cert_data = _pem(uf, us, "client-certificate", "client-certificate-data", uw)
        cfg.key_data = _pem(uf, us, "client-key", "client-key-data", uw)
        if bool(cfg.cert_data) != bool(cfg.key_data):
            raise KubeConfigError(f"{uw}: a client certificate needs its key (and a key its "
                                  "certificate)")
        cfg.token = _str(us, "token", uw)
        tf = _str(us, "tokenFile", uw)
        cfg.token_file = uf.resolve(tf) if tf else None
        cfg.username, cfg.password = _str(us, "username", uw), _str(us, "password", uw)
        if (cfg.token or cfg.token_file) and cfg.username:
            raise KubeConfigError(f"{uw}: a token and a username/password are both given")
        for legacy in ("auth-provider", "as", "as-groups", "as-uid", "as-user-extra"):
            if us.get(legacy):
                raise KubeConfigError(f"{uw}: {legacy} is not supported by jaxset")
        if us.get("exec"):
            ex = us["exec"]
            if not isinstance(ex, dict):
                raise KubeConfigError(f"{uw}: exec must be a mapping")
            cfg.exec_plugin = _exec_plugin(uf, ex, cl, server, ca, uw)
        if cfg.token_file:
            cfg.credentials.get()
    return cfg
