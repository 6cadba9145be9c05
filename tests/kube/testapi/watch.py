"""Watch streams: chunked HTTP, one JSON event per line ({"type": ..., "object": ...}).

Semantics of the watch cache (k8s.io/apiserver pkg/storage/cacher):
- no resourceVersion or "0": synthetic ADDED events for the current state, then changes;
- resourceVersion N: every change after N; N older than the compaction gives one ERROR event
  with a 410 Expired Status (HTTP 200), as the cacher's errWatcher does;
- label/field selectors: an object that starts matching arrives as ADDED, one that stops
  matching as DELETED;
- allowWatchBookmarks: BOOKMARK events carrying only metadata.resourceVersion, every
  bookmark interval and before the watch times out;
- sendInitialEvents=true (WatchList): the initial state, then a BOOKMARK annotated
  k8s.io/initial-events-end;
- timeoutSeconds ends the stream cleanly.
A watcher that falls behind a compaction is closed; /__admin/watches can drop every open watch
(the connection is reset, without the final chunk) or end them with a 410 ERROR event."""
import random
import socket
import struct
import time

from . import errors, tables
from .selectors import fields_match, parse_field_selector, parse_label_selector
from .util import dumpb, truthy_param

MIN_REQUEST_TIMEOUT = 1800


class Dropped(Exception):
    """The client went away, or the watch was dropped on purpose."""


class WatchStream:
    def __init__(self, handler, api, rt, ns, q, table_version, include, bookmark_interval):
        self.h = handler
        self.api = api
        self.store = api.store
        self.rt = rt
        self.ns = ns if rt.namespaced else None
        self.q = q
        self.table_version = table_version
        self.include = include
        self.bookmark_interval = bookmark_interval
        self.labels = parse_label_selector(q.get("labelSelector"))
        self.fields = parse_field_selector(q.get("fieldSelector"), rt.field_labels)
        self.bookmarks = truthy_param(q.get("allowWatchBookmarks"))
        self.initial_events = truthy_param(q.get("sendInitialEvents"))
        ts = q.get("timeoutSeconds")
        try:
            timeout = int(ts) if ts not in (None, "") else 0
        except ValueError:
            raise errors.bad_request(f"invalid timeoutSeconds: {ts}") from None
        if timeout <= 0:
            timeout = MIN_REQUEST_TIMEOUT * (1 + random.random())
        self.deadline = time.monotonic() + timeout
        if self.initial_events:
            if q.get("resourceVersionMatch") != "NotOlderThan" or not self.bookmarks:
                raise errors.invalid("meta.k8s.io", "ListOptions", "", [errors.FieldError(
                    "Forbidden", "sendInitialEvents", None, "sendInitialEvents is forbidden "
                    "for watch unless resourceVersionMatch is NotOlderThan and "
                    "allowWatchBookmarks is true")])
        self.started = False
        self.plain = _plain(rt)

    # ------------------------------------------------------------ framing

    def _start(self):
        h = self.h
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Cache-Control", "no-cache, private")
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Audit-Id", h.audit_id)
        h.end_headers()
        h.wfile.flush()
        self.started = True

    def _chunk(self, data):
        try:
            self.h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.h.wfile.flush()
        except (OSError, ValueError):
            raise Dropped() from None

    def _event(self, etype, obj_bytes):
        self._chunk(b'{"type":"' + etype.encode() + b'","object":' + obj_bytes + b"}\n")

    def _end(self):
        try:
            self.h.wfile.write(b"0\r\n\r\n")
            self.h.wfile.flush()
        except (OSError, ValueError):
            pass

    def _abort(self):
        """Resets the connection: the client sees a broken stream, not a clean end."""
        sock = self.h.connection
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.h.close_connection = True

    # ------------------------------------------------------------ objects

    def _matches(self, entry):
        return entry is not None and self.labels.matches(entry.labels) and \
            fields_match(self.fields, entry.fields) and (not self.ns or entry.ns == self.ns)

    def _render(self, entry):
        rt = self.rt
        if self.table_version:
            obj = self.api.view(rt, entry.obj())
            return dumpb(tables.table(rt, [obj], self.include, version=self.table_version))
        if self.plain:
            return entry.data
        return dumpb(self.api.view(rt, entry.obj()))

    def _bookmark(self, rev, annotations=None):
        meta = {"resourceVersion": str(rev), "creationTimestamp": None}
        if annotations:
            meta["annotations"] = annotations
        self._event("BOOKMARK", dumpb({"kind": self.rt.kind, "apiVersion": self.rt.api_version,
                                       "metadata": meta}))

    def _error(self, err):
        self._event("ERROR", dumpb(err.status()))

    # ------------------------------------------------------------ the stream

    def serve(self):
        try:
            self._serve()
        except Dropped:
            self.h.close_connection = True

    def _serve(self):
        store = self.store
        rv = self.q.get("resourceVersion") or ""
        initial = []
        err = None
        with store.lock:
            epoch, expire = store.watch_epoch, store.expire_epoch
            if rv in ("", "0") or self.initial_events:
                start = store.rev
                if rv not in ("", "0") and self.initial_events:
                    try:
                        want = int(rv)
                    except ValueError:
                        raise errors.bad_request(f"invalid resource version: {rv}") from None
                    if want > store.rev:
                        self.api._wait_for(want)
                    start = store.rev
                initial = [e for e in store.items(self.rt.storage, self.ns) if self._matches(e)]
            else:
                try:
                    start = int(rv)
                except ValueError:
                    raise errors.bad_request(f"invalid resource version: {rv}") from None
                if start < store.compacted:
                    err = errors.expired(f"too old resource version: {start} "
                                         f"({store.compacted})")
                elif start > store.rev:
                    try:
                        self.api._wait_for(start)
                    except errors.ApiError as e:
                        err = e
        self._start()
        if err is not None:
            self._error(err)
            self._end()
            return
        for e in initial:
            self._event("ADDED", self._render(e))
        if self.initial_events:
            self._bookmark(start, {"k8s.io/initial-events-end": "true"})
        last = start
        next_bookmark = time.monotonic() + self.bookmark_interval
        final_bookmark_sent = False
        while True:
            with store.lock:
                while True:
                    if store.watch_epoch != epoch:
                        self._abort()
                        raise Dropped()
                    if store.expire_epoch != expire:
                        pending = "expire"
                        break
                    events = store.events_after(last)
                    if events is None:
                        pending = "behind"
                        break
                    if events:
                        pending = events
                        break
                    if self.rt.crd_name and self.api.registry.get(
                            self.rt.group, self.rt.version, self.rt.plural) is not self.rt:
                        pending = "behind"  # the CRD changed or went: storage is rebuilt
                        break
                    now = time.monotonic()
                    wake = min(self.deadline, next_bookmark if self.bookmarks else self.deadline)
                    if self.bookmarks and not final_bookmark_sent:
                        wake = min(wake, self.deadline - 1.0)
                    if now >= wake:
                        pending = "tick"
                        break
                    store.cond.wait(min(wake - now, 1.0))
                current = store.rev
            if pending == "expire":
                self._error(errors.expired(f"too old resource version: {last} ({current})"))
                self._end()
                return
            if pending == "behind":
                self._end()
                return
            if pending != "tick":
                for ev in pending:
                    last = ev.rev
                    self._send(ev)
                continue
            now = time.monotonic()
            if now >= self.deadline:
                self._end()
                return
            if self.bookmarks and (now >= next_bookmark or
                                   (not final_bookmark_sent and now >= self.deadline - 1.0)):
                if now >= self.deadline - 1.0:
                    final_bookmark_sent = True
                self._bookmark(max(last, current))
                last = max(last, current)
                next_bookmark = now + self.bookmark_interval

    def _send(self, ev):
        if ev.storage != self.rt.storage:
            return
        now_match = ev.type != "DELETED" and self._matches(ev.entry)
        was_match = ev.prev is not None and self._matches(ev.prev)
        if ev.type == "DELETED":
            if was_match:
                self._event("DELETED", self._render(ev.entry))
            return
        if now_match and was_match:
            self._event("MODIFIED", self._render(ev.entry))
        elif now_match:
            self._event("ADDED", self._render(ev.entry))
        elif was_match:
            # Stopped matching the selector: the cacher sends DELETED with the new state.
            self._event("DELETED", self._render(ev.entry))


def _plain(rt):
    """Whether the stored bytes are already this resource's view."""
    sample = {"apiVersion": rt.api_version, "kind": rt.kind}
    return rt.decode(rt.encode(dict(sample))) == sample and \
        rt.encode(dict(sample)).get("apiVersion") == rt.api_version
