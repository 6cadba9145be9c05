"""metadata.managedFields, approximately as sigs.k8s.io/structured-merge-diff records them.

A write by manager M (the fieldManager parameter, else the User-Agent's program name) with
operation Update makes M own the fields it set or changed, takes them from the other managers,
and drops fields that are gone; an Apply makes M own exactly the fields it applied. Lists with
merge keys name their elements `k:{"key":"value"}`; other lists are owned whole. The result has
the shape and size of a real server's managedFields, but no conflict detection relies on it."""
import json

from . import patch as pm
from .util import equal, rfc3339

META_TRACKED = ("labels", "annotations", "ownerReferences", "finalizers")


def _paths(value, meta, prefix, out, values):
    """Leaf paths of value (tuples of f:/k: steps) into out, with their values."""
    if isinstance(value, dict):
        if not value:
            out.add(prefix)
            values[prefix] = value
            return
        for k, v in value.items():
            _paths(v, meta.child(k), prefix + (f"f:{k}",), out, values)
        return
    if isinstance(value, list):
        keys = meta.keys()
        if keys and value and all(isinstance(x, dict) for x in value):
            for el in value:
                ident = "k:" + json.dumps({k: el.get(k) for k in keys}, separators=(",", ":"),
                                          sort_keys=True)
                p = prefix + (ident,)
                out.add(p + (".",))
                values[p + (".",)] = None
                for k, v in el.items():
                    _paths(v, meta.item().child(k), p + (f"f:{k}",), out, values)
            return
        if meta.is_set() and value:
            for el in value:
                p = prefix + ("v:" + json.dumps(el, separators=(",", ":")),)
                out.add(p)
                values[p] = el
            return
    out.add(prefix)
    values[prefix] = value


def field_set(obj, meta, sub):
    """The tracked fields of obj: metadata's labels/annotations/ownerReferences/finalizers and
    either status (for /status) or everything else."""
    out, values = set(), {}
    m = obj.get("metadata") or {}
    if sub is None:
        for k in META_TRACKED:
            if k in m:
                if k in ("labels", "annotations") and isinstance(m[k], dict):
                    out.add(("f:metadata", f"f:{k}", "."))
                    values[("f:metadata", f"f:{k}", ".")] = None
                _paths(m[k], meta.child("metadata").child(k), ("f:metadata", f"f:{k}"), out,
                       values)
    for k, v in obj.items():
        if k in ("apiVersion", "kind", "metadata"):
            continue
        if (sub == "status") != (k == "status"):
            continue
        _paths(v, meta.child(k), (f"f:{k}",), out, values)
    return out, values


def to_fields_v1(paths):
    root = {}
    for p in sorted(paths):
        cur = root
        for step in p:
            cur = cur.setdefault(step, {})
    return root


def from_fields_v1(tree, prefix=()):
    out = set()
    for k, v in tree.items():
        p = prefix + (k,)
        if v:
            out |= from_fields_v1(v, p)
        else:
            out.add(p)
    return out


def meta_for(rt):
    return pm.SmpMeta(rt.smp) if rt.smp is not None else pm.SchemaMeta(getattr(rt, "schema",
                                                                              None))


def record(rt, new, old, manager, operation, sub, applied=None):
    """Sets new's metadata.managedFields after a write of new over old (None: a create)."""
    meta = meta_for(rt)
    entries = [] if old is None else list((old.get("metadata") or {}).get("managedFields")
                                          or [])
    new_paths, new_vals = field_set(new, meta, sub)
    if old is None:
        changed, removed = new_paths, set()
    else:
        old_paths, old_vals = field_set(old, meta, sub)
        changed = {p for p in new_paths if p not in old_paths or
                   not equal(new_vals[p], old_vals[p])}
        removed = old_paths - new_paths
    if operation == "Apply" and applied is not None:
        mine, _ = field_set(applied, meta, sub)
    else:
        mine = None
    out, found = [], False
    for e in entries:
        if not isinstance(e, dict):
            continue
        owned = from_fields_v1(e.get("fieldsV1") or {})
        same = e.get("manager") == manager and e.get("operation") == operation and \
            (e.get("subresource") or None) == (sub or None)
        if same:
            found = True
            owned = mine if mine is not None else (owned - removed) | changed
        else:
            owned = owned - removed - changed
        if owned:
            out.append(_entry(rt, e.get("manager"), e.get("operation"), e.get("subresource"),
                              owned, rfc3339() if same else e.get("time")))
    if not found:
        owned = mine if mine is not None else changed
        if owned:
            out.append(_entry(rt, manager, operation, sub, owned, rfc3339()))
    new.setdefault("metadata", {})["managedFields"] = out


def _entry(rt, manager, operation, sub, owned, time):
    e = {"manager": manager, "operation": operation, "apiVersion": rt.api_version,
         "time": time, "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(owned)}
    if sub:
        e["subresource"] = sub
    return e


def manager_from(q, user_agent):
    """The fieldManager parameter, else the program name of the User-Agent."""
    m = q.get("fieldManager")
    if m:
        return m
    ua = (user_agent or "").split("/")[0].strip()
    return ua or "unknown"
