"""The storage of the test API server: a small multi-version store in the manner of etcd.

One global revision counter; every write makes one event and advances it by one. Objects are
kept as their JSON bytes with a few parsed fields for selectors and garbage collection. The
event log since the last compaction answers watches from any later resourceVersion and lists
at an older resourceVersion (continue tokens, resourceVersionMatch=Exact) by undoing the newer
events. A revision older than the compaction is gone: 410 Expired."""
import json
import threading

from . import errors
from .util import dumpb


class Entry:
    """One stored version of one object."""
    __slots__ = ("data", "rv", "ns", "name", "uid", "labels", "owners", "finalizers",
                 "deleting", "fields")

    def __init__(self, obj, rv, fields):
        meta = obj.get("metadata") or {}
        self.rv = rv
        self.ns = meta.get("namespace", "")
        self.name = meta.get("name", "")
        self.uid = meta.get("uid", "")
        self.labels = meta.get("labels") or {}
        self.owners = [(r.get("uid", ""), bool(r.get("blockOwnerDeletion")),
                        r.get("kind", ""), r.get("name", ""), r.get("apiVersion", ""))
                       for r in meta.get("ownerReferences") or [] if isinstance(r, dict)]
        self.finalizers = list(meta.get("finalizers") or [])
        self.deleting = bool(meta.get("deletionTimestamp"))
        self.fields = fields
        self.data = dumpb(obj)

    def obj(self):
        return json.loads(self.data)

    def key(self):
        return (self.ns, self.name)


class Event:
    __slots__ = ("rev", "storage", "type", "entry", "prev")

    def __init__(self, rev, storage, etype, entry, prev):
        self.rev = rev
        self.storage = storage
        self.type = etype
        self.entry = entry
        self.prev = prev


class Store:
    def __init__(self, history=10000):
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self.rev = 1
        self.data = {}      # storage -> {(ns, name): Entry}
        self.uids = {}      # uid -> (storage, ns, name)
        self.deps = {}      # owner uid -> {(storage, ns, name)}
        self.log = []       # log[i].rev == self.base + i
        self.base = 2
        self.compacted = 1  # revisions <= this are no longer in the log
        self.history = history
        self.listeners = []
        self.watch_epoch = 0     # bumped to drop every open watch
        self.expire_epoch = 0    # bumped to end every open watch with a 410 ERROR event

    # ------------------------------------------------------------ reads

    def get(self, storage, ns, name):
        with self.lock:
            return self.data.get(storage, {}).get((ns, name))

    def by_uid(self, uid):
        with self.lock:
            loc = self.uids.get(uid)
            return (loc, self.get(*loc)) if loc else (None, None)

    def dependents(self, uid):
        with self.lock:
            return [(loc, self.get(*loc)) for loc in sorted(self.deps.get(uid, ()))]

    def items(self, storage, ns=None):
        """Current entries in key order; ns=None means every namespace."""
        with self.lock:
            d = self.data.get(storage, {})
            if ns:
                out = [e for k, e in d.items() if k[0] == ns]
            else:
                out = list(d.values())
        out.sort(key=Entry.key)
        return out

    def snapshot(self, storage, ns, rev):
        """Entries as they were at revision rev (rev >= compacted), in key order."""
        with self.lock:
            if rev < self.compacted:
                raise errors.expired("The resourceVersion for the provided list is too old.")
            d = dict(self.data.get(storage, {}))
            for ev in reversed(self.log):
                if ev.rev <= rev:
                    break
                if ev.storage != storage:
                    continue
                k = ev.entry.key()
                if ev.prev is None:
                    d.pop(k, None)
                else:
                    d[k] = ev.prev
        out = [e for k, e in d.items() if not ns or k[0] == ns]
        out.sort(key=Entry.key)
        return out

    def events_after(self, rev):
        """Events with a revision above rev; None when some of them were compacted away."""
        with self.lock:
            if rev < self.compacted:
                return None
            i = rev + 1 - self.base
            return self.log[max(i, 0):]

    # ------------------------------------------------------------ writes

    def put(self, storage, obj, fields, etype=None):
        """Stores obj (a dict whose metadata.resourceVersion is set here); returns the Entry."""
        with self.lock:
            rev = self.rev + 1
            obj.setdefault("metadata", {})["resourceVersion"] = str(rev)
            entry = Entry(obj, rev, fields)
            d = self.data.setdefault(storage, {})
            prev = d.get(entry.key())
            d[entry.key()] = entry
            self._index(storage, prev, entry)
            self._append(Event(rev, storage, etype or ("MODIFIED" if prev else "ADDED"),
                               entry, prev))
            return entry

    def delete(self, storage, ns, name):
        """Removes the object; the DELETED event carries its last state at the new revision."""
        with self.lock:
            d = self.data.get(storage, {})
            prev = d.pop((ns, name), None)
            if prev is None:
                return None
            rev = self.rev + 1
            obj = prev.obj()
            obj["metadata"]["resourceVersion"] = str(rev)
            last = Entry(obj, rev, prev.fields)
            self._index(storage, prev, None)
            self._append(Event(rev, storage, "DELETED", last, prev))
            return last

    def _index(self, storage, prev, entry):
        loc = None
        if prev is not None:
            loc = (storage, prev.ns, prev.name)
            self.uids.pop(prev.uid, None)
            for o in prev.owners:
                s = self.deps.get(o[0])
                if s is not None:
                    s.discard(loc)
                    if not s:
                        del self.deps[o[0]]
        if entry is not None:
            loc = (storage, entry.ns, entry.name)
            self.uids[entry.uid] = loc
            for o in entry.owners:
                self.deps.setdefault(o[0], set()).add(loc)

    def _append(self, ev):
        self.rev = ev.rev
        self.log.append(ev)
        if len(self.log) > self.history:
            self.compact(self.log[len(self.log) - self.history * 9 // 10].rev)
        for fn in self.listeners:
            try:
                fn(ev)
            except Exception as e:  # noqa: BLE001 - a listener's bug must not undo a write
                import sys
                print(f"store: listener failed on {ev.type} {ev.storage} {ev.entry.ns}/"
                      f"{ev.entry.name}: {e!r}", file=sys.stderr)
        self.cond.notify_all()

    def compact(self, rev=None):
        """Forgets history up to and including rev (default: everything but the present)."""
        with self.lock:
            rev = self.rev if rev is None else min(int(rev), self.rev)
            if rev <= self.compacted:
                return self.compacted
            drop = rev + 1 - self.base
            if drop > 0:
                del self.log[:drop]
                self.base += drop
            self.compacted = rev
            self.cond.notify_all()
            return rev

    def bump_watches(self, expire=False):
        with self.lock:
            if expire:
                self.expire_epoch += 1
            else:
                self.watch_epoch += 1
            self.cond.notify_all()
