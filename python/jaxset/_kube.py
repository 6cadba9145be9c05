"""A small Kubernetes REST client over http.client and ssl: JSON requests with the
configuration's credentials, Status errors decoded into ApiError, line streams (pod logs) and
watches (``?watch=1&resourceVersion=...``: JSON lines, BOOKMARK events, 410 Expired answered
by a fresh list).

    cfg = _kubeconfig.load()                      # as kubectl finds it
    kc = KubeClient(cfg)
    pods = kc.list(PODS, namespace="default", label_selector="app=x")
    for ev in kc.watch(PODS, "default", stop=threading.Event()):
        print(ev.type, ev.object["metadata"]["name"])
"""
from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from ._kubeconfig import ClusterConfig
from .errors import ApiConnectionError, ApiError, ApiNotFoundError, KubeConfigError

USER_AGENT = "jaxset-sdk (python)"
WATCH_SECONDS = 290  # each watch request asks for at most this long (then is renewed)
RETRIES = 3          # a 429 / 503 / 504 with Retry-After is sent again this many times
RETRY_CAP = 5.0      # seconds waited at most before one of those retries


@dataclass(frozen=True)
class Resource:
    """A resource's REST coordinates."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: Optional[str] = None, name: Optional[str] = None,
             sub: Optional[str] = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{urllib.parse.quote(namespace, safe='')}"
        base += f"/{self.plural}"
        if name:
            base += f"/{urllib.parse.quote(name, safe='')}"
        if sub:
            base += f"/{sub}"
        return base

    def describe(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


PODS = Resource("", "v1", "pods", "Pod")
EVENTS = Resource("", "v1", "events", "Event")
JOBS = Resource("batch", "v1", "jobs", "Job")
JOBSETS = Resource("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet")


@dataclass
class WatchEvent:
    """One watch event: ADDED, MODIFIED, DELETED, or RELISTED (the watch fell behind and the
    state was listed again: `object` is the list)."""

    type: str
    object: Dict[str, Any]


def status_error(code: int, body: bytes, what: str = "") -> ApiError:
    """An ApiError from an error answer (a Status object, or plain text)."""
    try:
        st = json.loads(body) if body else None
    except ValueError:
        st = None
    if isinstance(st, dict) and st.get("kind") == "Status":
        reason = str(st.get("reason") or "")
        msg = str(st.get("message") or "") or f"HTTP {code}"
        details = st.get("details") if isinstance(st.get("details"), dict) else {}
        code = int(st.get("code") or code)
    else:
        reason = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
                  405: "MethodNotAllowed", 409: "Conflict", 410: "Gone", 422: "Invalid",
                  429: "TooManyRequests", 500: "InternalError",
                  503: "ServiceUnavailable"}.get(code, "")
        text = body.decode("utf-8", "replace").strip()[:300] if body else ""
        msg = text or (f"{what}: HTTP {code}" if what else f"HTTP {code}")
        details = {}
    cls = ApiNotFoundError if code == 404 else ApiError
    return cls(code, reason, msg, details)


class _HTTPSConnection(http.client.HTTPSConnection):
    """HTTPS with a server name other than the host's (kubeconfig tls-server-name)."""

    def __init__(self, host: str, port: Optional[int], server_name: Optional[str],
                 **kw: Any):
        super().__init__(host, port, **kw)
        self._server_name = server_name

    def connect(self) -> None:
        if not self._server_name:
            return super().connect()
        sock = socket.create_connection((self.host, self.port), self.timeout,
                                        self.source_address)
        self.sock = self._context.wrap_socket(sock,  # type: ignore[attr-defined]
                                              server_hostname=self._server_name)


def _load_chain_from_memory(ctx: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """ssl wants a path: the certificate and key go through an anonymous memory file
    (memfd), never to disk."""
    if not hasattr(os, "memfd_create"):
        raise KubeConfigError("client certificates need os.memfd_create (Linux): this platform "
                              "has no way to hand them to ssl without writing them to disk")
    fd = os.memfd_create("jaxset-client-cert", os.MFD_CLOEXEC)
    try:
        data = cert.rstrip(b"\n") + b"\n" + key
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        try:
            ctx.load_cert_chain(f"/proc/self/fd/{fd}")
        except ssl.SSLError as e:
            raise KubeConfigError(f"the client certificate or key is not usable: {e}") from None
    finally:
        os.close(fd)


class KubeClient:
    """REST calls to one API server.  `timeout`: seconds to connect and for each answer."""

    def __init__(self, cfg: ClusterConfig, timeout: float = 30.0):
        self.cfg = cfg
        self.timeout = timeout
        u = urllib.parse.urlsplit(cfg.server)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise KubeConfigError(f"server {cfg.server!r} ({cfg.source}) is not an http(s) URL")
        self.scheme = u.scheme
        self.host = u.hostname
        self.port = u.port or (443 if u.scheme == "https" else 80)
        self.prefix = u.path.rstrip("/")
        self._ctx_lock = threading.Lock()
        self._ctx: Optional[ssl.SSLContext] = None
        self._ctx_cert: Optional[Tuple[Optional[bytes], Optional[bytes]]] = None

    # -- transport ------------------------------------------------------------------------

    def _context(self, cert: Optional[bytes], key: Optional[bytes]) -> ssl.SSLContext:
        with self._ctx_lock:
            if self._ctx is not None and self._ctx_cert == (cert, key):
                return self._ctx
            cfg = self.cfg
            if cfg.ca_data:
                try:
                    ctx = ssl.create_default_context(cadata=cfg.ca_data.decode("ascii"))
                except (ssl.SSLError, ValueError, UnicodeDecodeError) as e:
                    raise KubeConfigError(f"the certificate authority of {cfg.source} is not "
                                          f"usable: {e}") from None
            else:
                ctx = ssl.create_default_context()
            if cfg.insecure:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            if cert and key:
                _load_chain_from_memory(ctx, cert, key)
            self._ctx, self._ctx_cert = ctx, (cert, key)
            return ctx

    def _connection(self, timeout: Optional[float], cert: Optional[bytes],
                    key: Optional[bytes]) -> http.client.HTTPConnection:
        if self.scheme == "http":
            return http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        return _HTTPSConnection(self.host, self.port, self.cfg.tls_server_name,
                                timeout=timeout, context=self._context(cert, key))

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        q = {k: ("true" if v is True else "false" if v is False else str(v))
             for k, v in (query or {}).items() if v is not None}
        return self.prefix + path + ("?" + urllib.parse.urlencode(q) if q else "")

    def _open(self, method: str, path: str, query: Optional[Mapping[str, Any]],
              body: Optional[Any], content_type: str, accept: str,
              timeout: Optional[float]) -> Tuple[http.client.HTTPConnection,
                                                 http.client.HTTPResponse]:
        """Sends the request (again once, with fresh credentials, after a 401)."""
        data = None if body is None else (body if isinstance(body, bytes)
                                          else json.dumps(body).encode())
        for attempt in (0, 1):
            token, cert, key = self.cfg.credentials.get()
            headers = {"Accept": accept, "User-Agent": USER_AGENT}
            if data is not None:
                headers["Content-Type"] = content_type
            if token:
                headers["Authorization"] = f"Bearer {token}"
            elif self.cfg.username:
                pair = f"{self.cfg.username}:{self.cfg.password or ''}".encode()
                headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
            conn = self._connection(timeout, cert, key)
            try:
                conn.request(method, self.url(path, query), body=data, headers=headers)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                raise ApiConnectionError(self._unreachable(e)) from None
            if resp.status == 401 and attempt == 0 and \
                    (self.cfg.exec_plugin is not None or self.cfg.token_file):
                resp.read()
                conn.close()
                self.cfg.credentials.invalidate()
                continue
            return conn, resp
        raise AssertionError("unreachable")

    def _unreachable(self, e: BaseException) -> str:
        if isinstance(e, socket.timeout):
            why = f"no answer within {self.timeout:g}s"
        elif isinstance(e, ssl.SSLError):
            why = f"TLS failed: {getattr(e, 'reason', None) or e}"
        elif isinstance(e, OSError) and e.strerror:
            why = e.strerror
        else:
            why = str(e) or type(e).__name__
        return f"cannot reach the Kubernetes API server {self.cfg.server} " \
               f"({self.cfg.source}): {why}"

    def request(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None,
                body: Optional[Any] = None, content_type: str = "application/json",
                what: str = "") -> Any:
        """One JSON request; the decoded answer, or ApiError / ApiConnectionError.  An answer
        429, 503 or 504 carrying Retry-After is retried (as client-go does) up to RETRIES
        times, waiting what it asks (at most RETRY_CAP seconds)."""
        for attempt in range(RETRIES + 1):
            resp, raw = self._read(method, path, query, body, content_type, "application/json")
            wait = _retry_after(resp) if resp.status in (429, 503, 504) else None
            if wait is None or attempt == RETRIES:
                break
            time.sleep(min(wait, RETRY_CAP))
        if resp.status >= 300:
            raise status_error(resp.status, raw, what)
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise ApiError(resp.status, "", f"{what or path}: the answer is not JSON") from None

    def _read(self, method: str, path: str, query: Optional[Mapping[str, Any]], body: Any,
              content_type: str, accept: str) -> Tuple[Any, bytes]:
        """One whole answer: (response, body); ApiConnectionError when it breaks off."""
        conn, resp = self._open(method, path, query, body, content_type, accept, self.timeout)
        try:
            return resp, resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise ApiConnectionError(self._unreachable(e)) from None
        finally:
            conn.close()

    def text(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        """A plain-text GET (a pod's log)."""
        resp, raw = self._read("GET", path, query, None, "", "*/*")
        if resp.status >= 300:
            raise status_error(resp.status, raw)
        return raw.decode("utf-8", "replace")

    def lines(self, path: str, query: Optional[Mapping[str, Any]] = None,
              read_timeout: Optional[float] = None,
              stop: Optional[threading.Event] = None) -> Iterator[bytes]:
        """A streamed GET, line by line (a followed log, a watch), until the server ends it.
        `read_timeout`: longest silence accepted (None: wait as long as it takes)."""
        conn, resp = self._open("GET", path, query, None, "", "*/*", self.timeout)
        try:
            if resp.status >= 300:
                raise status_error(resp.status, resp.read())
            if conn.sock is not None:
                conn.sock.settimeout(read_timeout)
            closer = None
            if stop is not None:
                closer = threading.Thread(target=_close_on, args=(stop, conn), daemon=True)
                closer.start()
            while True:
                try:
                    line = resp.readline()
                except (OSError, ValueError, http.client.HTTPException, AttributeError) as e:
                    if stop is not None and stop.is_set():
                        return
                    raise ApiConnectionError(self._unreachable(e)) from None
                if not line:
                    return
                yield line
        finally:
            conn.close()

    # -- verbs ----------------------------------------------------------------------------

    def get(self, res: Resource, name: str, namespace: Optional[str] = None) -> Dict[str, Any]:
        return self.request("GET", res.path(namespace, name),
                            what=f"{res.describe()} {name}")

    def list(self, res: Resource, namespace: Optional[str] = None,
             label_selector: Optional[str] = None,
             field_selector: Optional[str] = None) -> Dict[str, Any]:
        """The whole list (every page), with the list's resourceVersion."""
        items: List[Dict[str, Any]] = []
        cont = None
        while True:
            out = self.request("GET", res.path(namespace),
                               {"labelSelector": label_selector,
                                "fieldSelector": field_selector, "limit": 500,
                                "continue": cont}, what=res.describe())
            for it in out.get("items") or []:
                it.setdefault("apiVersion", res.api_version)
                it.setdefault("kind", res.kind)
                items.append(it)
            cont = (out.get("metadata") or {}).get("continue")
            if not cont:
                out["items"] = items
                return out

    def create(self, res: Resource, obj: Mapping[str, Any],
               namespace: Optional[str] = None) -> Dict[str, Any]:
        """POST as ``kubectl create`` sends it: unknown fields refused (fieldValidation
        Strict)."""
        return self.request("POST", res.path(namespace), {"fieldValidation": "Strict",
                                                          "fieldManager": "jaxset-sdk"},
                            body=obj, what=res.describe())

    def delete(self, res: Resource, name: str, namespace: Optional[str] = None,
               propagation: Optional[str] = "Foreground") -> Any:
        body = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            body["propagationPolicy"] = propagation
        return self.request("DELETE", res.path(namespace, name), body=body,
                            what=f"{res.describe()} {name}")

    # -- watches --------------------------------------------------------------------------

    def watch(self, res: Resource, namespace: Optional[str] = None,
              label_selector: Optional[str] = None, field_selector: Optional[str] = None,
              resource_version: Optional[str] = None,
              stop: Optional[threading.Event] = None) -> Iterator[WatchEvent]:
        """Changes after `resource_version` (after a fresh list when None: that list comes
        first as a RELISTED event), for as long as the caller reads and `stop` is not set.
        A dropped connection is watched again from the last version seen; a 410 Expired
        (history compacted) lists again and yields RELISTED."""
        stop = stop or threading.Event()
        rv = resource_version
        failures = 0
        while not stop.is_set():
            if rv is None:
                lst = self.list(res, namespace, label_selector, field_selector)
                rv = str((lst.get("metadata") or {}).get("resourceVersion") or "")
                yield WatchEvent("RELISTED", lst)
            query = {"watch": "1", "resourceVersion": rv, "allowWatchBookmarks": "true",
                     "timeoutSeconds": WATCH_SECONDS, "labelSelector": label_selector,
                     "fieldSelector": field_selector}
            expired = False
            try:
                for raw in self.lines(res.path(namespace), query,
                                      read_timeout=WATCH_SECONDS + 30, stop=stop):
                    try:
                        ev = json.loads(raw)
                    except ValueError:
                        continue
                    etype, obj = ev.get("type"), ev.get("object") or {}
                    if etype == "ERROR":
                        if obj.get("code") == 410:
                            expired = True
                            break
                        raise status_error(int(obj.get("code") or 500), json.dumps(obj).encode())
                    failures = 0
                    new_rv = (obj.get("metadata") or {}).get("resourceVersion")
                    if new_rv:
                        rv = str(new_rv)
                    if etype == "BOOKMARK":
                        continue
                    yield WatchEvent(str(etype), obj)
            except ApiError as e:
                if e.code in (429, 500, 503, 504):  # transient: watch again after a pause
                    failures += 1
                    if failures > RETRIES:
                        raise
                    stop.wait(min(0.2 * 2 ** failures, 2.0))
                elif e.code != 410:
                    raise
                expired = e.code == 410
            except ApiConnectionError:
                if stop.is_set():
                    return
                failures += 1
                if failures > RETRIES:
                    raise
                stop.wait(min(0.2 * 2 ** failures, 2.0))
            if expired:
                rv = None


def _retry_after(resp: http.client.HTTPResponse) -> Optional[float]:
    """Seconds a Retry-After header asks for (None: absent or not a number)."""
    v = resp.getheader("Retry-After")
    try:
        return max(0.0, float(v)) if v is not None else None
    except ValueError:
        return None


def _close_on(stop: threading.Event, conn: http.client.HTTPConnection) -> None:
    """Unblocks a streamed read when `stop` is set, by shutting the socket down."""
    while not stop.wait(0.5):
        if conn.sock is None:
            return
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def parse_time(s: Any) -> Optional[float]:
    """Seconds since the epoch of a Kubernetes timestamp, or None."""
    if not isinstance(s, str) or not s:
        return None
    from ._kubeconfig import _parse_time
    return _parse_time(s)

