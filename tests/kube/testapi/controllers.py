"""What runs beside the API server in a cluster, in one thread, fed by the store's events:

- the CRD controllers of apiextensions-apiserver (always on, they are part of the API server):
  serve/unserve a CRD's versions, write its Established condition, clean up its objects when
  it is deleted;
- with controllers enabled (the default; --no-controllers gives an envtest-like server with
  none): the garbage collector of kube-controller-manager (owner references, orphan and
  foregroundDeletion finalizers, Background propagation), the namespace controller (empties a
  Terminating namespace then finalizes it) and the PVC protection controller.

Work is keyed by object location; each item is re-evaluated from the current state, so the
order of events does not matter, as with the upstream controllers' work queues."""
import collections
import threading

from . import crd as crdmod
from .ops import NAMESPACES
from .validation import FOREGROUND, ORPHAN

PVC = "/persistentvolumeclaims"
PODS = "/pods"


class Controllers:
    def __init__(self, api, registry, enabled=True):
        self.api = api
        self.store = api.store
        self.registry = registry
        self.enabled = enabled
        self.queue = collections.OrderedDict()
        self.cv = threading.Condition()
        self.busy = False
        self.stopped = False
        self.store.listeners.append(self._on_event)
        self.thread = threading.Thread(target=self._run, name="controllers", daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        with self.cv:
            self.stopped = True
            self.cv.notify_all()

    # ------------------------------------------------------------ event intake (store lock held)

    def _on_event(self, ev):
        items = []
        if ev.storage == crdmod.CRDS:
            self._sync_registry(ev)
            items.append(("crd", ev.entry.name))
        if self.enabled:
            e = ev.entry
            loc = (ev.storage, e.ns, e.name)
            if ev.type != "DELETED":
                if e.deleting or e.owners:
                    items.append(("gc", loc))
                if ev.storage == NAMESPACES and e.deleting:
                    items.append(("ns", e.name))
                if ev.storage == PVC and e.deleting:
                    items.append(("pvc", loc))
            else:
                for dep in self.store.deps.get(e.uid, ()):
                    items.append(("gc", dep))
                for o in e.owners:
                    owner = self.store.uids.get(o[0])
                    if owner is not None:
                        items.append(("gc", owner))
                if e.ns:
                    nse = self.store.get(NAMESPACES, "", e.ns)
                    if nse is not None and nse.deleting:
                        items.append(("ns", e.ns))
                if ev.storage == PODS:
                    for v in self._pod_claims(e):
                        items.append(("pvc", (PVC, e.ns, v)))
            if ev.type == "MODIFIED" and ev.prev is not None and ev.prev.owners != e.owners:
                items.append(("gc", loc))
                for o in ev.prev.owners:
                    owner = self.store.uids.get(o[0])
                    if owner is not None:
                        items.append(("gc", owner))
            # A dependent whose owner starts foreground deletion must be looked at again.
            if ev.type == "MODIFIED" and e.deleting and FOREGROUND in e.finalizers:
                for dep in self.store.deps.get(e.uid, ()):
                    items.append(("gc", dep))
        if items:
            with self.cv:
                for it in items:
                    self.queue[it] = True
                self.cv.notify()

    def _enqueue(self, item):
        with self.cv:
            self.queue[item] = True
            self.cv.notify()

    def _sync_registry(self, ev):
        """Serves a CRD's versions; a change of its spec rebuilds them (which ends the
        watches on them, as the apiextensions-apiserver does), a status write does not."""
        old = ev.prev.obj() if ev.prev is not None else None
        if old is not None and ev.type != "DELETED":
            from .util import equal
            if equal(old.get("spec"), ev.entry.obj().get("spec")):
                return
        if old is not None:
            for t in crdmod.served_types(old):
                self.registry.remove(t.group, t.version, t.plural)
        if ev.type != "DELETED":
            for t in crdmod.served_types(ev.entry.obj()):
                self.registry.add(t)

    # ------------------------------------------------------------ worker

    def idle(self):
        with self.cv:
            return not self.queue and not self.busy

    def wait_idle(self, timeout=5.0):
        import time
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.idle():
                return True
            time.sleep(0.005)
        return False

    def _run(self):
        while True:
            with self.cv:
                while not self.queue and not self.stopped:
                    self.cv.wait()
                if self.stopped:
                    return
                item, _ = self.queue.popitem(last=False)
                self.busy = True
            try:
                self._handle(item)
            except Exception as e:  # noqa: BLE001 - a controller logs and goes on
                import sys
                print(f"controllers: {item}: {e!r}", file=sys.stderr)
            finally:
                with self.cv:
                    self.busy = False

    def _handle(self, item):
        kind, arg = item
        with self.store.lock:
            if kind == "crd":
                self._crd(arg)
            elif not self.enabled:
                return
            elif kind == "gc":
                self._gc(arg)
            elif kind == "ns":
                self._namespace(arg)
            elif kind == "pvc":
                self._pvc(arg)

    def kick(self):
        """Re-examines everything (after controllers are switched on)."""
        with self.store.lock:
            for storage, objs in self.store.data.items():
                for (ns, name), e in objs.items():
                    if e.deleting or e.owners:
                        self._enqueue(("gc", (storage, ns, name)))
                    if storage == NAMESPACES and e.deleting:
                        self._enqueue(("ns", name))
                    if storage == PVC and e.deleting:
                        self._enqueue(("pvc", (storage, ns, name)))

    # ------------------------------------------------------------ CRDs

    def _crd_type(self):
        return self.registry.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")

    def _crd(self, name):
        e = self.store.get(crdmod.CRDS, "", name)
        if e is None:
            return
        obj = e.obj()
        rt = self._crd_type()
        if e.deleting:
            if crdmod.CLEANUP not in e.finalizers:
                return
            self._set_crd_terminating(rt, name)
            types = crdmod.served_types(obj)
            if types:
                t = types[0]
                for item in self.store.items(t.storage):
                    self.store.delete(t.storage, item.ns, item.name)

            def drop_finalizer(o):
                o["metadata"]["finalizers"] = [f for f in o["metadata"].get("finalizers", [])
                                               if f != crdmod.CLEANUP]
            self.api.write_internal(rt, "", name, drop_finalizer, "kube-apiserver")
            return
        want = crdmod.established_status(obj)
        from .util import equal
        if equal(want, obj.get("status")):
            return

        def establish(o):
            o["status"] = want
        self.api.write_internal(rt, "", name, establish, "kube-apiserver", "status")

    def _set_crd_terminating(self, rt, name):
        def mark(o):
            conds = [c for c in o.get("status", {}).get("conditions", [])
                     if c.get("type") != "Terminating"]
            from .util import rfc3339
            conds.append({"type": "Terminating", "status": "True",
                          "lastTransitionTime": rfc3339(), "reason": "InstanceDeletionInProgress",
                          "message": "CustomResource deletion is in progress"})
            if any(c.get("type") == "Terminating" for c in o.get("status", {}).get(
                    "conditions", [])):
                return False
            o.setdefault("status", {})["conditions"] = conds
        self.api.write_internal(rt, "", name, mark, "kube-apiserver", "status")

    # ------------------------------------------------------------ garbage collector

    def _type_of(self, storage):
        types = self.registry.storage_types(storage)
        # Prefer the type whose storage form is its own view (core events over events.k8s.io).
        for t in types:
            if t.encode({"apiVersion": t.api_version, "kind": t.kind}).get("apiVersion") == \
                    t.api_version:
                return t
        return types[0] if types else None

    def _owner_state(self, dep_ns, ref_uid):
        """'absent', 'waiting' (foreground deletion of the owner) or 'solid'."""
        loc, e = self.store.by_uid(ref_uid)
        if e is None:
            return "absent"
        if e.ns and e.ns != dep_ns:
            return "absent"
        if e.deleting and FOREGROUND in e.finalizers:
            return "waiting"
        return "solid"

    def _gc(self, loc):
        storage, ns, name = loc
        e = self.store.get(storage, ns, name)
        if e is None:
            return
        rt = self._type_of(storage)
        if rt is None:
            return
        if e.deleting and ORPHAN in e.finalizers:
            self._orphan_dependents(e)
            self._remove_finalizer(rt, e, ORPHAN)
            return
        if e.deleting and FOREGROUND in e.finalizers:
            self._foreground(rt, e)
            return
        if not e.owners or e.deleting:
            return
        states = [(o, self._owner_state(e.ns, o[0])) for o in e.owners]
        solid = [o for o, s in states if s == "solid"]
        if solid:
            gone = [o for o, s in states if s != "solid"]
            if gone:
                uids = {o[0] for o in gone}

                def drop_refs(obj):
                    obj["metadata"]["ownerReferences"] = [
                        r for r in obj["metadata"].get("ownerReferences", [])
                        if r.get("uid") not in uids]
                self.api.write_internal(rt, ns, name, drop_refs)
            return
        waiting = any(s == "waiting" for _, s in states)
        if waiting and self.store.deps.get(e.uid):
            policy = "Foreground"
        elif ORPHAN in e.finalizers:
            policy = "Orphan"
        elif FOREGROUND in e.finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        self.api.delete(rt, ns, name, {"propagationPolicy": policy})

    def _foreground(self, rt, e):
        """processDeletingDependentsItem: delete the dependents; the owner goes once no
        dependent with blockOwnerDeletion is left."""
        blocking = False
        for (dstorage, dns, dname), d in self.store.dependents(e.uid):
            if d is None:
                continue
            ref = next((o for o in d.owners if o[0] == e.uid), None)
            if ref is not None and ref[1]:
                blocking = True
            if not d.deleting:
                self._enqueue(("gc", (dstorage, dns, dname)))
        if not blocking:
            self._remove_finalizer(rt, e, FOREGROUND)

    def _orphan_dependents(self, e):
        for (dstorage, dns, dname), d in self.store.dependents(e.uid):
            drt = self._type_of(dstorage)
            if d is None or drt is None:
                continue

            def drop_ref(obj, uid=e.uid):
                obj["metadata"]["ownerReferences"] = [
                    r for r in obj["metadata"].get("ownerReferences", []) if r.get("uid") != uid]
            self.api.write_internal(drt, dns, dname, drop_ref)

    def _remove_finalizer(self, rt, e, fin):
        def drop(obj):
            fins = obj["metadata"].get("finalizers", [])
            if fin not in fins:
                return False
            obj["metadata"]["finalizers"] = [f for f in fins if f != fin]
        self.api.write_internal(rt, e.ns, e.name, drop)

    # ------------------------------------------------------------ namespaces

    def _namespace(self, name):
        nse = self.store.get(NAMESPACES, "", name)
        if nse is None or not nse.deleting:
            return
        remaining = 0
        seen = set()
        for t in self.registry.all():
            if not t.namespaced or t.storage in seen:
                continue
            seen.add(t.storage)
            st = self._type_of(t.storage)
            for item in self.store.items(t.storage, name):
                remaining += 1
                if not item.deleting:
                    self.api.delete(st, name, item.name, {"propagationPolicy": "Background"})
        if remaining:
            return
        rt = self.registry.get("", "v1", "namespaces")

        def finalize(obj):
            spec = obj.setdefault("spec", {})
            if not spec.get("finalizers"):
                return False
            spec["finalizers"] = []
        self.api.write_internal(rt, "", name, finalize)
        e = self.store.get(NAMESPACES, "", name)
        if e is not None and not e.finalizers and not (e.obj().get("spec") or {}).get(
                "finalizers"):
            self.store.delete(NAMESPACES, "", name)

    # ------------------------------------------------------------ PVC protection

    def _pod_claims(self, pod_entry):
        out = []
        for v in (pod_entry.obj().get("spec") or {}).get("volumes") or []:
            c = (v.get("persistentVolumeClaim") or {}).get("claimName") if isinstance(v, dict) \
                else None
            if c:
                out.append(c)
        return out

    def _pvc(self, loc):
        storage, ns, name = loc
        e = self.store.get(storage, ns, name)
        if e is None or not e.deleting:
            return
        from .builtin import PersistentVolumeClaims
        if PersistentVolumeClaims.PROTECTION not in e.finalizers:
            return
        for pod in self.store.items(PODS, ns):
            phase = (pod.obj().get("status") or {}).get("phase")
            if phase not in ("Succeeded", "Failed") and name in self._pod_claims(pod):
                return
        rt = self._type_of(storage)
        self._remove_finalizer(rt, e, PersistentVolumeClaims.PROTECTION)
