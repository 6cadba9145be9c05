"""Pod logs: ``GET /api/v1/namespaces/{ns}/pods/{name}/log`` as kube-apiserver serves it (the
kubelet's answer relayed), with the lines a test posts through ``POST /__admin/podlogs``
standing in for what the containers print.

The log of one container of one pod (the pod's uid: a pod deleted and created again under
the same name starts with no log) is a list of lines, each stamped with the time the admin
request brought it. Query parameters (k8s.io/api core/v1 PodLogOptions): ``container``
(required when the pod has several containers), ``follow`` (a chunked stream that ends when
the log is closed, the pod is deleted, or the pod's phase is Succeeded or Failed and every
line was sent), ``tailLines``, ``sinceSeconds`` / ``sinceTime``, ``timestamps`` (each line
prefixed with its RFC3339Nano time and a space), ``previous`` (the log of the container's
previous instance: see ``restart`` below) and ``limitBytes``.

Admin body: ``{"namespace", "pod", "container" (default: the pod's first container),
"text": "line1\\nline2\\n", "restart": bool, "close": bool}``. ``restart`` first moves the
container's log to its previous instance (what ``previous=true`` reads) and starts an empty
one; ``text`` is then appended; ``close`` then ends every follow stream of that log once it
has sent the lines. A container whose status says it is waiting (and that has no previous
instance) answers 400 "is waiting to start", as the kubelet does."""
import datetime
import select
import socket
import ssl
import time

from . import errors
from .util import parse_time

LINE_WAIT = 1.0  # seconds a follow stream sleeps between checks of its client and pod


class Log:
    """One container instance's lines: [(time_ns, text)], and whether it is closed."""

    __slots__ = ("lines", "closed", "previous")

    def __init__(self):
        self.lines = []
        self.closed = False
        self.previous = None  # the Log of the instance before the last restart


def timestamp(t_ns):
    """RFC3339Nano with nine digits, as the kubelet prefixes lines (timestamps=true)."""
    secs, nanos = divmod(t_ns, 1_000_000_000)
    day = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc)
    return day.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


def _bool(q, name):
    v = q.get(name)
    if v is None or v == "":
        return False
    if v in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if v in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise errors.bad_request(f'strconv.ParseBool: parsing "{v}": invalid syntax')


def _int(q, name):
    v = q.get(name)
    if v is None or v == "":
        return None
    try:
        return int(v)
    except ValueError:
        raise errors.bad_request(f'strconv.ParseInt: parsing "{v}": invalid syntax') from None


def _containers(pod):
    spec = pod.get("spec") or {}
    names = [c.get("name") for c in spec.get("containers") or [] if isinstance(c, dict)]
    init = [c.get("name") for c in spec.get("initContainers") or [] if isinstance(c, dict)]
    eph = [c.get("name") for c in spec.get("ephemeralContainers") or [] if isinstance(c, dict)]
    return names, init, eph


def pick_container(pod, name, container):
    """The container a request means (podStrategy's LogLocation rules), or 400."""
    names, init, eph = _containers(pod)
    if not container:
        if len(names) == 1:
            return names[0]
        msg = f"a container name must be specified for pod {name}, choose one of: " \
              f"[{' '.join(names)}]"
        if init:
            msg += f" or one of the init containers: [{' '.join(init)}]"
        raise errors.bad_request(msg)
    if container not in names + init + eph:
        raise errors.bad_request(f"container {container} is not valid for pod {name}")
    return container


def _container_status(pod, container):
    st = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for cs in st.get(key) or []:
            if isinstance(cs, dict) and cs.get("name") == container:
                return cs
    return None


class PodLogs:
    """Every pod's container logs; guarded by the store's lock, woken by its condition (the
    store notifies it on every write, so a follow stream also sees pod changes)."""

    def __init__(self, store, pods_rt):
        self.store = store
        self.rt = pods_rt
        self.logs = {}  # (uid, container) -> Log
        store.listeners.append(self._on_event)

    def _on_event(self, ev):
        """A deleted pod's logs go with it."""
        if ev.type == "DELETED" and ev.storage == self.rt.storage:
            uid = ev.entry.uid
            for k in [k for k in self.logs if k[0] == uid]:
                del self.logs[k]

    def _pod(self, ns, name):
        e = self.store.get(self.rt.storage, ns, name)
        if e is None:
            raise errors.not_found("", "pods", name)
        return e

    # ------------------------------------------------------------ admin

    def post(self, req):
        """POST /__admin/podlogs."""
        if not isinstance(req, dict):
            raise errors.bad_request("podlogs takes a JSON object")
        ns, name = req.get("namespace"), req.get("pod")
        if not isinstance(ns, str) or not ns or not isinstance(name, str) or not name:
            raise errors.bad_request("podlogs needs namespace and pod")
        text = req.get("text", "")
        if not isinstance(text, str):
            raise errors.bad_request("podlogs: text is a string")
        now = time.time_ns()
        with self.store.lock:
            e = self._pod(ns, name)
            pod = e.obj()
            names, _, _ = _containers(pod)
            container = req.get("container") or (names[0] if names else "")
            container = pick_container(pod, name, container)
            log = self.logs.setdefault((e.uid, container), Log())
            if req.get("restart"):
                prev = Log()
                prev.lines, prev.closed = log.lines, True
                log.previous, log.lines, log.closed = prev, [], False
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            log.lines.extend((now, ln) for ln in lines)
            if req.get("close"):
                log.closed = True
            self.store.cond.notify_all()
            return {"container": container, "lines": len(lines), "total": len(log.lines),
                    "closed": log.closed}

    # ------------------------------------------------------------ GET .../log

    def options(self, q, name):
        opts = {"container": q.get("container") or "", "follow": _bool(q, "follow"),
                "previous": _bool(q, "previous"), "timestamps": _bool(q, "timestamps"),
                "tailLines": _int(q, "tailLines"), "sinceSeconds": _int(q, "sinceSeconds"),
                "limitBytes": _int(q, "limitBytes"), "sinceTime": None}
        errs = []
        st = q.get("sinceTime")
        if st:
            opts["sinceTime"] = parse_time(st)
            if opts["sinceTime"] is None:
                raise errors.bad_request(f'parsing time "{st}" as "2006-01-02T15:04:05Z07:00": '
                                         "cannot parse")
        if opts["tailLines"] is not None and opts["tailLines"] < 0:
            errs.append(errors.FieldError("Invalid", "tailLines", opts["tailLines"],
                                          "must be greater than or equal to 0"))
        if opts["limitBytes"] is not None and opts["limitBytes"] < 1:
            errs.append(errors.FieldError("Invalid", "limitBytes", opts["limitBytes"],
                                          "must be greater than 0"))
        if opts["sinceSeconds"] is not None and opts["sinceTime"] is not None:
            errs.append(errors.FieldError("Forbidden", "", None,
                                          "at most one of `sinceTime` or `sinceSeconds` may be "
                                          "specified"))
        elif opts["sinceSeconds"] is not None and opts["sinceSeconds"] < 1:
            errs.append(errors.FieldError("Invalid", "sinceSeconds", opts["sinceSeconds"],
                                          "must be greater than 0"))
        if errs:
            raise errors.invalid("", "PodLogOptions", name, errs)
        return opts

    def _select(self, ns, name, opts):
        """(uid, container, Log or None) for a request, or the error the kubelet gives."""
        e = self._pod(ns, name)
        pod = e.obj()
        container = pick_container(pod, name, opts["container"])
        log = self.logs.get((e.uid, container))
        cs = _container_status(pod, container)
        if opts["previous"]:
            if log is None or log.previous is None:
                raise errors.bad_request(f'previous terminated container "{container}" in pod '
                                         f'"{name}" not found')
            return e.uid, container, log.previous
        if cs is not None and "waiting" in (cs.get("state") or {}) and \
                not (cs.get("lastState") or {}).get("terminated") and log is None:
            reason = (cs["state"].get("waiting") or {}).get("reason") or "ContainerCreating"
            raise errors.bad_request(f'container "{container}" in pod "{name}" is waiting to '
                                     f"start: {reason}")
        return e.uid, container, log

    def serve(self, handler, ns, name, q):
        opts = self.options(q, name)
        with self.store.lock:
            uid, container, log = self._select(ns, name, opts)
            lines = list(log.lines) if log is not None else []
        since = None
        if opts["sinceSeconds"] is not None:
            since = time.time_ns() - opts["sinceSeconds"] * 1_000_000_000
        elif opts["sinceTime"] is not None:
            since = int(opts["sinceTime"] * 1_000_000_000)
        first = [ln for ln in lines if since is None or ln[0] >= since]
        if opts["tailLines"] is not None:
            first = first[len(first) - opts["tailLines"]:] if opts["tailLines"] else []
        budget = [opts["limitBytes"]]

        def render(batch):
            out = b"".join(((timestamp(t) + " ") if opts["timestamps"] else "").encode() +
                           text.encode() + b"\n" for t, text in batch)
            if budget[0] is not None:
                out = out[:budget[0]]
                budget[0] -= len(out)
            return out

        if not opts["follow"] or opts["previous"]:
            return handler._send(200, render(first), "text/plain")
        self._follow(handler, ns, name, uid, container, len(lines), render(first), render,
                     budget)

    def _follow(self, handler, ns, name, uid, container, sent, head, render, budget):
        h = handler
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Cache-Control", "no-cache, private")
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Audit-Id", h.audit_id)
        h.end_headers()
        h.code = 200

        def chunk(data):
            if data:
                h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            h.wfile.flush()

        try:
            chunk(head)
            while budget[0] is None or budget[0] > 0:
                with self.store.lock:
                    batch, done = self._next(ns, name, uid, container, sent)
                    if not batch and not done:
                        self.store.cond.wait(LINE_WAIT)
                        batch, done = self._next(ns, name, uid, container, sent)
                sent += len(batch)
                chunk(render(batch))
                if done or (not batch and _client_gone(h.connection)):
                    break
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except (OSError, ValueError):
            h.close_connection = True

    def _next(self, ns, name, uid, container, sent):
        """(lines after `sent`, whether the stream ends after them); under the store lock."""
        e = self.store.get(self.rt.storage, ns, name)
        log = self.logs.get((uid, container))
        batch = log.lines[sent:] if log is not None else []
        if e is None or e.uid != uid:
            return batch, True
        if log is not None and log.closed:
            return batch, True
        phase = e.fields.get("status.phase") if isinstance(e.fields, dict) else None
        if phase is None:
            phase = (e.obj().get("status") or {}).get("phase")
        return batch, phase in ("Succeeded", "Failed")


def _client_gone(sock):
    """The follower hung up (its socket reads as closed)."""
    try:
        r, _, _ = select.select([sock], [], [], 0)
        if not r:
            return False
        if isinstance(sock, ssl.SSLSocket):  # no MSG_PEEK there; a follower sends nothing
            return True
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True
