"""HTTP front end: routing of Kubernetes API paths (as k8s.io/apiserver's RequestInfoFactory
reads them), content negotiation, bearer-token authentication, fault injection, the admin
endpoints under /__admin, and JSON/Table/Status responses."""
import http.server
import json
import socket
import ssl
import sys
import threading
import time
import urllib.parse
import uuid

from . import admission, authn, builtin, errors, install, managed, openapi, protobuf, tables
from .logs import PodLogs
from .controllers import Controllers
from .crd import CustomResourceDefinitions
from .faults import Faults
from .ops import Api
from .resources import Registry
from .store import Store
from .util import dumpb, truthy_param
from .watch import WatchStream

PUBLIC_PATHS = ("/healthz", "/livez", "/readyz", "/version")
NAMESPACE_SUBRESOURCES = ("status", "finalize")
JSON = "application/json"
MAX_BODY = 3 * 1024 * 1024  # the API server's request body limit


class RequestInfo:
    def __init__(self):
        self.verb = ""
        self.group = ""
        self.version = ""
        self.namespace = ""
        self.resource = ""
        self.name = ""
        self.subresource = None
        self.watch = False


class ApiServer:
    """Everything one server instance holds; the HTTP server's handlers reach it as .app."""

    def __init__(self, token=None, history=10000, bookmark_interval=1.0, controllers=True,
                 version="v1.32.0", verbose=False, managed_fields=True):
        self.token = token
        self.client_certs = False  # requests must carry a verified client certificate
        self.bookmark_interval = bookmark_interval
        self.verbose = verbose
        self.git_version = version
        self.store = Store(history=history)
        self.registry = Registry()
        for t in builtin.builtin_types() + install.install_types() + admission.types() + \
                [authn.TokenReviews(), CustomResourceDefinitions()]:
            self.registry.add(t)
        self.api = Api(self.store, self.registry)
        self.tokens = authn.Tokens(self.api, self.registry)
        self.api.admission = admission.Admission(self.api, self.registry)
        self.api.managed_fields = managed_fields
        self.controllers = Controllers(self.api, self.registry, enabled=controllers)
        self.faults = Faults()
        self.stats = {}
        self.stats_lock = threading.Lock()
        self.open_watches = 0
        self.watches_by_ns = {}  # namespace ("" cluster-wide) -> open watches; under stats_lock
        self.pod_logs = PodLogs(self.store, self.registry.get("", "v1", "pods"))
        ns_type = self.registry.get("", "v1", "namespaces")
        for name in builtin.DEFAULT_NAMESPACES:
            self.api.create(ns_type, "", builtin.namespace_object(name),
                            {"__manager": "kube-apiserver"})
        self.controllers.start()

    def count(self, verb, resource, code):
        key = f"{verb} {resource} {code}"
        with self.stats_lock:
            self.stats[key] = self.stats.get(key, 0) + 1

    def watch_opened(self, ns, delta):
        with self.stats_lock:
            self.open_watches += delta
            self.watches_by_ns[ns] = self.watches_by_ns.get(ns, 0) + delta

    def watches_count(self):
        with self.stats_lock:
            return {ns: n for ns, n in self.watches_by_ns.items() if n}


class HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512

    def __init__(self, addr, app, tls_context=None):
        super().__init__(addr, Handler)
        self.app = app
        self.tls_context = tls_context

    def handle_error(self, request, client_address):
        """A client that went away (or a dropped watch) is not an error worth a traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ValueError)):
            return
        super().handle_error(request, client_address)

    def finish_request(self, request, client_address):
        if self.tls_context is not None:
            try:
                request = self.tls_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().finish_request(request, client_address)


def parse_accept(header):
    """(json_ok, table_version) from an Accept header."""
    if not header:
        return True, None
    json_ok, table = False, None
    for part in header.split(","):
        bits = [b.strip() for b in part.split(";")]
        mt = bits[0].lower()
        params = {}
        for b in bits[1:]:
            if "=" in b:
                k, v = b.split("=", 1)
                params[k.strip().lower()] = v.strip()
        if mt in ("application/json", "*/*", "application/*", "application/json-patch+json"):
            asp = params.get("as")
            if asp is None:
                json_ok = True
            elif asp == "Table" and params.get("g") == "meta.k8s.io" and \
                    params.get("v") in ("v1", "v1beta1") and table is None:
                table = params["v"]
            elif asp in ("PartialObjectMetadata", "PartialObjectMetadataList"):
                json_ok = True
    return json_ok or table is not None, table


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def version_string(self):
        return "jaxset-test-apiserver"

    def log_message(self, fmt, *args):
        if self.server.app.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    # ------------------------------------------------------------ plumbing

    def _read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
                if len(out) > MAX_BODY:
                    self.close_connection = True
                    raise errors.ApiError(413, "RequestEntityTooLarge",
                                          f"Request entity too large: limit is {MAX_BODY}")
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_BODY:
            self.close_connection = True
            raise errors.ApiError(413, "RequestEntityTooLarge",
                                  f"Request entity too large: limit is {MAX_BODY}")
        return self.rfile.read(n) if n else b""

    def _send(self, code, body, ctype=JSON, headers=None, warnings=()):
        if isinstance(body, (dict, list)):
            body = dumpb(body)
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Audit-Id", self.audit_id)
        self.send_header("Cache-Control", "no-cache, private")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        for w in warnings:
            self.send_header("Warning", '299 - "' + w.replace('"', '\\"') + '"')
        self.end_headers()
        self.wfile.write(body)
        self.code = code

    def _error(self, err):
        self._send(err.code, err.status(), headers=err.headers)

    def dispatch(self, method):
        app = self.server.app
        self.audit_id = str(uuid.uuid4())
        self.code = 0
        self.info = None
        t0 = time.monotonic()
        url = urllib.parse.urlsplit(self.path)
        q = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        try:
            body = self._read_body()
            self.route(app, method, url.path, q, body)
        except errors.ApiError as e:
            self._error(e)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # noqa: BLE001 - any bug is a 500 for the client, logged here
            import traceback
            traceback.print_exc()
            try:
                self._error(errors.internal(repr(e)))
            except OSError:
                self.close_connection = True
        finally:
            info = self.info
            if info is not None:
                app.count(info.verb, info.resource + (f"/{info.subresource}"
                                                      if info.subresource else ""), self.code)
            if app.verbose:
                sys.stderr.write(f"{method} {self.path} {self.code} "
                                 f"{(time.monotonic() - t0) * 1000:.1f}ms\n")

    # ------------------------------------------------------------ routing

    def route(self, app, method, path, q, body):
        path = path.rstrip("/") or "/"
        if path.startswith("/__admin"):
            return self.admin(app, method, path, q, body)
        if path in ("/healthz", "/livez", "/readyz") or path.startswith(
                ("/healthz/", "/livez/", "/readyz/")):
            return self._send(200, "ok", "text/plain; charset=utf-8")
        if path not in PUBLIC_PATHS and not self.authenticated(app):
            raise errors.unauthorized()
        if path == "/version":
            return self._send(200, self.version_info(app))
        if path.startswith("/openapi"):
            return self.openapi(app, path)
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")] if path != "/" \
            else []
        if not parts:
            return self._send(200, {"paths": ["/api", "/api/v1", "/apis", "/healthz",
                                              "/livez", "/openapi/v2", "/openapi/v3",
                                              "/readyz", "/version"]})
        if parts[0] == "api":
            if len(parts) == 1:
                return self._send(200, app.registry.api_versions(self.headers.get("Host", "")))
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis":
            if len(parts) == 1:
                return self._send(200, app.registry.api_group_list())
            if len(parts) == 2:
                doc = app.registry.api_group(parts[1])
                if doc is None:
                    raise errors.not_found_path()
                return self._send(200, doc)
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return self._send(404, "404 page not found\n", "text/plain; charset=utf-8")
        if not rest:
            doc = app.registry.resource_list(group, version)
            if doc is None:
                raise errors.not_found_path()
            return self._send(200, doc)
        info = self.request_info(method, group, version, rest, q)
        self.info = info
        rt = app.registry.get(group, version, info.resource)
        if rt is None:
            raise errors.not_found_path()
        latency, fault = app.faults.check(info)
        if latency:
            time.sleep(latency)
        if fault is not None:
            raise fault
        self.resource_request(app, rt, info, q, body)

    def authenticated(self, app):
        """The bearer token (--token) or a client certificate the client CA verified
        (--client-certs); anyone when neither is required."""
        if app.token is None and not app.client_certs:
            return True
        if app.token is not None and \
                self.headers.get("Authorization", "") == f"Bearer {app.token}":
            return True
        if app.client_certs:
            try:
                return bool(self.connection.getpeercert())
            except (AttributeError, ValueError, OSError):
                return False
        return False

    def request_info(self, method, group, version, parts, q):
        info = RequestInfo()
        info.group, info.version = group, version
        if parts[0] == "watch":
            info.watch = True
            parts = parts[1:]
        if parts and parts[0] == "namespaces":
            if len(parts) > 1:
                info.namespace = parts[1]
                if len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
                    parts = parts[2:]
                else:
                    info.resource, info.name = "namespaces", parts[1]
                    info.namespace = ""
                    info.subresource = parts[2] if len(parts) > 2 else None
                    parts = []
            else:
                info.resource = "namespaces"
                parts = []
        if parts:
            info.resource = parts[0]
            info.name = parts[1] if len(parts) > 1 else ""
            info.subresource = parts[2] if len(parts) > 2 else None
            if len(parts) > 3:
                raise errors.not_found_path()
        if method == "GET":
            if info.watch or truthy_param(q.get("watch")):
                info.verb, info.watch = "watch", True
            else:
                info.verb = "get" if info.name else "list"
        elif method == "POST":
            info.verb = "create"
        elif method == "PUT":
            info.verb = "update"
        elif method == "PATCH":
            info.verb = "patch"
        elif method == "DELETE":
            info.verb = "delete" if info.name else "deletecollection"
        return info

    def resource_request(self, app, rt, info, q, body):
        api = app.api
        if rt.namespaced:
            if not info.namespace and info.verb not in ("list", "watch"):
                raise errors.not_found_path()
        elif info.namespace:
            raise errors.not_found_path()
        sub = info.subresource
        if sub == "log" and rt.plural == "pods" and rt.group == "" and info.verb == "get":
            return app.pod_logs.serve(self, info.namespace, info.name, q)
        if sub == "token" and rt.plural == "serviceaccounts" and rt.group == "":
            return self.create_only(info, body, lambda obj: app.tokens.request(
                info.namespace, info.name, obj))
        if isinstance(rt, authn.TokenReviews) and sub is None:
            return self.create_only(info, body, app.tokens.review)
        if sub is not None and not ((sub == "status" and rt.status) or
                                    (sub == "finalize" and rt.plural == "namespaces" and
                                     info.verb == "update")):
            raise errors.not_found_path()
        dry = q.get("dryRun")
        if dry not in (None, "", "All"):
            raise errors.bad_request(f"Invalid dry run value: {dry}")
        dry_run = dry == "All"
        json_ok, table_version = parse_accept(self.headers.get("Accept"))
        if not json_ok:
            raise errors.not_acceptable(["application/json", "application/yaml",
                                         "application/vnd.kubernetes.protobuf"])
        include = q.get("includeObject") or "Metadata"
        verb, ns, name = info.verb, info.namespace, info.name
        q = {k: v for k, v in q.items() if not k.startswith("__")}
        q["__manager"] = managed.manager_from(q, self.headers.get("User-Agent"))
        if verb == "watch":
            if info.name:
                q = dict(q)
                q["fieldSelector"] = ",".join(x for x in (q.get("fieldSelector"),
                                                          f"metadata.name={name}") if x)
            if info.name and not info.watch:
                raise errors.method_not_allowed()
            app.watch_opened(ns or "", 1)
            try:
                WatchStream(self, api, rt, ns, q, table_version, include,
                            app.bookmark_interval).serve()
            finally:
                app.watch_opened(ns or "", -1)
            self.code = 200
            return
        if verb == "get":
            obj = api.get(rt, ns, name)
            if table_version:
                return self._send(200, tables.table(rt, [obj], include, {"resourceVersion":
                                                                         obj["metadata"].get(
                                                                             "resourceVersion")},
                                                    version=table_version))
            return self._send(200, obj)
        if verb == "list":
            return self.list(app, rt, ns, q, table_version, include)
        if verb in ("create", "update"):
            obj = self._decode(body)
        if verb == "create":
            if name:
                raise errors.method_not_allowed()
            code, obj, warnings = api.create(rt, ns, obj, q, dry_run)
            return self._send(code, obj, warnings=warnings)
        if verb == "update":
            code, obj, warnings = api.update(rt, ns, name, obj, sub, q, dry_run)
            return self._send(code, obj, warnings=warnings)
        if verb == "patch":
            ctype = self.headers.get("Content-Type", "")
            code, obj, warnings = api.patch(rt, ns, name, ctype, body, sub, q, dry_run)
            return self._send(code, obj, warnings=warnings)
        if verb == "delete":
            opts = api.delete_options(body, q)
            code, obj, warnings = api.delete(rt, ns, name, opts, dry_run)
            return self._send(code, obj, warnings=warnings)
        if verb == "deletecollection":
            opts = api.delete_options(body, q)
            code, obj, warnings = api.delete_collection(rt, ns, opts, q, dry_run)
            return self._send(code, obj, warnings=warnings)
        raise errors.method_not_allowed()

    def create_only(self, info, body, answer):
        """A resource that stores nothing and only creates (authn.py's TokenRequest and
        TokenReview): 201 with answer(body); kube-apiserver registers no other verb (405)."""
        if info.verb != "create" or (info.name and not info.subresource):
            raise errors.method_not_allowed()
        return self._send(201, answer(self._decode(body)))

    def _decode(self, body):
        ctype = (self.headers.get("Content-Type") or JSON).split(";")[0].strip().lower()
        if ctype == "application/vnd.kubernetes.protobuf":
            return protobuf.decode(body)
        if ctype not in (JSON, "application/yaml", "*/*", "text/plain", ""):
            raise errors.unsupported_media_type(ctype, ["application/json", "application/yaml"])
        try:
            return json.loads(body or b"null")
        except (ValueError, UnicodeDecodeError) as e:
            if ctype == "application/yaml":
                raise errors.unsupported_media_type(ctype, ["application/json"]) from None
            raise errors.bad_request(f"couldn't get version/kind; json parse error: {e}") \
                from None

    def list(self, app, rt, ns, q, table_version, include):
        api = app.api
        entries, rev, token, remaining = api.list_entries(rt, ns, q)
        meta = {"resourceVersion": str(rev)}
        if token:
            meta["continue"] = token
        if remaining is not None:
            meta["remainingItemCount"] = remaining
        if table_version:
            objs = [api.view(rt, e.obj()) for e in entries]
            return self._send(200, tables.table(rt, objs, include, meta, version=table_version))
        head = dumpb({"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": meta})
        items = [self._list_item(api, rt, e) for e in entries]
        self._send(200, head[:-1] + b',"items":[' + b",".join(items) + b"]}")

    def _list_item(self, api, rt, e):
        """Built-in list items carry no kind/apiVersion (typed lists); custom ones do."""
        if rt.crd_name is None:
            prefix = dumpb({"kind": rt.kind, "apiVersion": rt.api_version})[:-1] + b","
            if e.data.startswith(prefix):
                return b"{" + e.data[len(prefix):]
            obj = api.view(rt, e.obj())
            obj.pop("kind", None)
            obj.pop("apiVersion", None)
            return dumpb(obj)
        sample = rt.encode({"apiVersion": rt.api_version})
        if sample.get("apiVersion") == rt.api_version:
            return e.data
        return dumpb(api.view(rt, e.obj()))

    # ------------------------------------------------------------ non-resource endpoints

    def version_info(self, app):
        v = app.git_version.lstrip("v").split(".")
        return {"major": v[0], "minor": v[1] if len(v) > 1 else "0",
                "emulationMajor": v[0], "emulationMinor": v[1] if len(v) > 1 else "0",
                "gitVersion": app.git_version, "gitCommit": "0" * 40,
                "gitTreeState": "clean", "buildDate": "2024-01-01T00:00:00Z",
                "goVersion": "go1.23", "compiler": "gc", "platform": "linux/amd64"}

    def openapi(self, app, path):
        accept = self.headers.get("Accept", "")
        if path == "/openapi/v2":
            if "protobuf" in accept and "json" not in accept.split("protobuf")[0]:
                return self._send(200, openapi.v2_protobuf(app.git_version),
                                  "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
            return self._send(200, openapi.v2_json(app.git_version))
        if path == "/openapi/v3":
            return self._send(200, openapi.v3_root(app.registry))
        if path.startswith("/openapi/v3/"):
            rel = path[len("/openapi/v3/"):].split("/")
            if rel[0] == "api" and len(rel) == 2:
                doc = openapi.v3_doc(app.registry, "", rel[1])
            elif rel[0] == "apis" and len(rel) == 3:
                doc = openapi.v3_doc(app.registry, rel[1], rel[2])
            else:
                doc = None
            if doc is not None:
                return self._send(200, doc)
        return self._send(404, "404 page not found\n", "text/plain; charset=utf-8")

    def admin(self, app, method, path, q, body):
        """Test controls; see the module docs of faults.py and watch.py."""
        req = {}
        if body:
            try:
                req = json.loads(body)
            except ValueError:
                raise errors.bad_request("admin requests take JSON") from None
        what = path[len("/__admin"):].strip("/")
        if what == "faults":
            if method == "POST":
                return self._send(200, {"added": app.faults.add(req)})
            if method == "DELETE":
                return self._send(200, {"cleared": app.faults.clear()})
            return self._send(200, {"rules": app.faults.describe()})
        if what == "compact" and method == "POST":
            rev = app.store.compact(req.get("revision") if isinstance(req, dict) else None)
            return self._send(200, {"compacted": rev, "revision": app.store.rev})
        if what == "watches" and method == "POST":
            action = req.get("action", "drop")
            if action not in ("drop", "expire"):
                raise errors.bad_request("action is drop or expire")
            n = app.open_watches
            app.store.bump_watches(expire=action == "expire")
            return self._send(200, {action: n})
        if what == "controllers" and method == "POST":
            app.controllers.enabled = bool(req.get("enabled", True))
            if app.controllers.enabled:
                app.controllers.kick()
            return self._send(200, {"enabled": app.controllers.enabled})
        if what == "settle":
            ok = app.controllers.wait_idle(float(q.get("timeout") or 5))
            return self._send(200 if ok else 504, {"idle": ok})
        if what == "stats":
            if method == "DELETE":
                with app.stats_lock:
                    app.stats.clear()
            with app.stats_lock:
                return self._send(200, dict(app.stats))
        if what == "state":
            with app.store.lock:
                counts = {k: len(v) for k, v in app.store.data.items()}
                st = {"revision": app.store.rev, "compacted": app.store.compacted,
                      "history": len(app.store.log), "objects": counts,
                      "openWatches": app.open_watches,
                      "openWatchesByNamespace": app.watches_count(),
                      "controllers": app.controllers.enabled}
            return self._send(200, st)
        if what == "podlogs" and method == "POST":
            return self._send(200, app.pod_logs.post(req))
        if what == "load" and method == "POST":
            return self._send(200, self.bulk_load(app, req))
        raise errors.not_found_path()

    def bulk_load(self, app, req):
        """Creates many objects in one request: {"items": [obj, ...]} (benchmark seeding)."""
        created, failed = 0, []
        for obj in req.get("items") or []:
            av = obj.get("apiVersion", "")
            group, _, version = av.rpartition("/")
            rt = app.registry.kind(group, version, obj.get("kind", ""))
            if rt is None:
                failed.append(f"unknown kind {av} {obj.get('kind')}")
                continue
            ns = (obj.get("metadata") or {}).get("namespace", "") if rt.namespaced else ""
            try:
                app.api.create(rt, ns, obj, {})
                created += 1
            except errors.ApiError as e:
                failed.append(e.message)
        return {"created": created, "failed": failed[:20], "failures": len(failed)}

