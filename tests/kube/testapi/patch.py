"""The three PATCH formats the API server takes:

- application/merge-patch+json (RFC 7386),
- application/json-patch+json (RFC 6902),
- application/strategic-merge-patch+json: k8s.io/apimachinery pkg/util/strategicpatch for
  built-in kinds, driven by a small table of list merge keys (the `patchMergeKey` and
  `patchStrategy` tags of k8s.io/api) instead of Go struct tags. It covers what kubectl sends:
  lists of containers/env/ports/volumes merged by key, `$patch: delete|replace|merge`,
  `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>` and `$retainKeys`."""
from . import errors
from .util import copy, equal


# ---------------------------------------------------------------- JSON merge patch


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy(patch)
    out = copy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


# ---------------------------------------------------------------- JSON patch


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise _patch_error(f'invalid JSON pointer "{path}"')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _patch_error(msg):
    return errors.ApiError(422, "Invalid", msg)


def _parent(doc, parts, op):
    cur = doc
    for p in parts[:-1]:
        if isinstance(cur, dict) and p in cur:
            cur = cur[p]
        elif isinstance(cur, list) and p.isdigit() and int(p) < len(cur):
            cur = cur[int(p)]
        else:
            raise _patch_error(f"{op} operation does not apply: doc is missing path: "
                               f"\"/{'/'.join(parts)}\": missing value")
    return cur


def _get(doc, parts, op):
    if not parts:
        return doc
    parent = _parent(doc, parts, op)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent[int(last)]
    raise _patch_error(f"{op} operation does not apply: doc is missing path: "
                       f"\"/{'/'.join(parts)}\": missing value")


def _remove(doc, parts, op):
    parent = _parent(doc, parts, op)
    last = parts[-1]
    if isinstance(parent, dict) and last in parent:
        return parent.pop(last)
    if isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        return parent.pop(int(last))
    raise _patch_error(f"{op} operation does not apply: doc is missing path: "
                       f"\"/{'/'.join(parts)}\": missing value")


def _add(doc, parts, value, op):
    if not parts:
        return value
    parent = _parent(doc, parts, op)
    last = parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            parent.insert(int(last), value)
        else:
            raise _patch_error(f"{op} operation does not apply: doc is missing path: "
                               f"\"/{'/'.join(parts)}\": missing value")
    else:
        raise _patch_error(f"{op} operation does not apply: doc is missing path: "
                           f"\"/{'/'.join(parts)}\": missing value")
    return doc


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise errors.bad_request("json: cannot unmarshal object into Go value of type "
                                 "jsonpatch.Patch")
    doc = copy(doc)
    for o in ops:
        if not isinstance(o, dict) or "op" not in o:
            raise _patch_error("Unexpected kind: <nil>")
        kind = o["op"]
        path = _pointer(o.get("path", ""))
        if kind == "add":
            doc = _add(doc, path, copy(o.get("value")), kind)
        elif kind == "remove":
            _remove(doc, path, kind)
        elif kind == "replace":
            if not path:
                doc = copy(o.get("value"))
                continue
            _get(doc, path, kind)
            parent = _parent(doc, path, kind)
            key = path[-1]
            parent[int(key) if isinstance(parent, list) else key] = copy(o.get("value"))
        elif kind in ("move", "copy"):
            src = _pointer(o.get("from", ""))
            value = copy(_get(doc, src, kind))
            if kind == "move":
                _remove(doc, src, kind)
            doc = _add(doc, path, value, kind)
        elif kind == "test":
            if not equal(_get(doc, path, kind), o.get("value")):
                raise _patch_error(f"testing value /{'/'.join(path)} failed: test failed")
        else:
            raise _patch_error(f"Unexpected kind: {kind}")
    return doc


# ---------------------------------------------------------------- strategic merge patch


def field(fields=None, key=None, primitive_merge=False, retain_keys=False, items=None):
    """Patch metadata for one field: its sub-fields, or for a list the merge key / strategy."""
    return {"fields": fields or {}, "key": key, "prim": primitive_merge, "retain": retain_keys,
            "items": items}


OBJECT_META = field({"finalizers": field(primitive_merge=True),
                     "ownerReferences": field(key="uid")})
CONDITIONS = field(key="type")
CONTAINER = field({
    "env": field(key="name"),
    "ports": field(key="containerPort"),
    "volumeMounts": field(key="mountPath"),
    "volumeDevices": field(key="devicePath"),
})
POD_SPEC = field({
    "containers": field(key="name", items=CONTAINER),
    "initContainers": field(key="name", items=CONTAINER),
    "ephemeralContainers": field(key="name", items=CONTAINER),
    "volumes": field(key="name", retain_keys=True),
    "imagePullSecrets": field(key="name"),
    "hostAliases": field(key="ip"),
    "topologySpreadConstraints": field(key="topologyKey"),
    "schedulingGates": field(key="name"),
    "resourceClaims": field(key="name", retain_keys=True),
})
POD_TEMPLATE = field({"metadata": OBJECT_META, "spec": POD_SPEC})
POD = field({"metadata": OBJECT_META, "spec": POD_SPEC,
             "status": field({"conditions": CONDITIONS})})
JOB = field({"metadata": OBJECT_META, "spec": field({"template": POD_TEMPLATE}),
             "status": field({"conditions": CONDITIONS})})
SERVICE = field({"metadata": OBJECT_META, "spec": field({"ports": field(key="port")}),
                 "status": field({"conditions": CONDITIONS})})
WITH_CONDITIONS = field({"metadata": OBJECT_META, "status": field({"conditions": CONDITIONS})})
PLAIN = field({"metadata": OBJECT_META})

ORDER = "$setElementOrder/"
DELETE_PRIM = "$deleteFromPrimitiveList/"


def strategic_merge_patch(original, patch, meta):
    if not isinstance(patch, dict):
        raise errors.bad_request("the patch must be a JSON object")
    return _merge_map(copy(original) if isinstance(original, dict) else {}, patch, meta)


def _sub(meta, name):
    return (meta or {}).get("fields", {}).get(name)


def _merge_map(orig, patch, meta):
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: copy(v) for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return None
    if directive not in (None, "merge"):
        raise errors.bad_request(f"Unknown patch type: {directive}")
    retain = patch.get("$retainKeys")
    if isinstance(retain, list):
        for k in list(orig):
            if k not in retain:
                del orig[k]
    orders = {}
    for k, v in patch.items():
        if k in ("$patch", "$retainKeys"):
            continue
        if k.startswith(ORDER):
            orders[k[len(ORDER):]] = v
            continue
        if k.startswith(DELETE_PRIM):
            name = k[len(DELETE_PRIM):]
            if isinstance(orig.get(name), list) and isinstance(v, list):
                orig[name] = [x for x in orig[name] if not any(equal(x, d) for d in v)]
            continue
        sub = _sub(meta, k)
        if v is None:
            orig.pop(k, None)
        elif isinstance(v, dict):
            merged = _merge_map(orig[k] if isinstance(orig.get(k), dict) else {}, v, sub)
            if merged is None:
                orig.pop(k, None)
            else:
                orig[k] = merged
        elif isinstance(v, list):
            orig[k] = _merge_list(orig.get(k), v, sub)
        else:
            orig[k] = copy(v)
    for name, order in orders.items():
        if isinstance(orig.get(name), list) and isinstance(order, list):
            orig[name] = _apply_order(orig[name], order, _sub(meta, name))
    return orig


def _merge_list(orig, patch, meta):
    orig = copy(orig) if isinstance(orig, list) else []
    if meta is None or (meta["key"] is None and not meta["prim"]):
        # No strategy: the list is replaced, $patch markers dropped.
        return [copy(x) for x in patch if not (isinstance(x, dict) and "$patch" in x)]
    if meta["prim"]:
        out = orig + [copy(x) for x in patch if not any(equal(x, o) for o in orig)]
        return out
    key = meta["key"]
    for el in patch:
        if isinstance(el, dict) and el.get("$patch") == "replace":
            return [copy(x) for x in patch if not (isinstance(x, dict) and "$patch" in x)]
    for el in patch:
        if not isinstance(el, dict):
            raise errors.bad_request(f"unable to find api field in struct for the list element "
                                     f"of {key}")
        if el.get("$patch") == "delete":
            orig = [o for o in orig if not (isinstance(o, dict) and equal(o.get(key),
                                                                           el.get(key)))]
            continue
        if key not in el:
            raise errors.bad_request(f"map: {el} does not contain declared merge key: {key}")
        for i, o in enumerate(orig):
            if isinstance(o, dict) and equal(o.get(key), el[key]):
                merged = _merge_map(o, el, meta.get("items") or field())
                if merged is None:
                    orig.pop(i)
                else:
                    orig[i] = merged
                break
        else:
            orig.append(_merge_map({}, el, meta.get("items") or field()))
    return orig


def _apply_order(items, order, meta):
    """$setElementOrder: listed elements in that order, the others (server-only) after them in
    their present order."""
    key = meta["key"] if meta else None

    def ident(x):
        return x.get(key) if key and isinstance(x, dict) else x

    ranks = []
    for o in order:
        ranks.append(ident(o) if key and isinstance(o, dict) else o)
    listed, rest = [], []
    for x in items:
        ix = ident(x)
        pos = next((i for i, r in enumerate(ranks) if equal(r, ix)), None)
        (listed if pos is not None else rest).append((pos, x))
    listed.sort(key=lambda p: p[0])
    return [x for _, x in listed] + [x for _, x in rest]


# ---------------------------------------------------------------- server-side apply


class SmpMeta:
    """List semantics for apply taken from the strategic-merge table (built-in kinds)."""

    def __init__(self, node):
        self.node = node or field()

    def child(self, key):
        return SmpMeta(self.node["fields"].get(key))

    def keys(self):
        return [self.node["key"]] if self.node["key"] else None

    def is_set(self):
        return self.node["prim"]

    def item(self):
        return SmpMeta(self.node.get("items"))


class SchemaMeta:
    """List semantics for apply from a structural schema (x-kubernetes-list-type)."""

    def __init__(self, schema):
        self.s = schema if isinstance(schema, dict) else {}

    def child(self, key):
        props = self.s.get("properties") or {}
        if key in props:
            return SchemaMeta(props[key])
        addl = self.s.get("additionalProperties")
        return SchemaMeta(addl if isinstance(addl, dict) else None)

    def keys(self):
        if self.s.get("x-kubernetes-list-type") == "map":
            return list(self.s.get("x-kubernetes-list-map-keys") or []) or None
        return None

    def is_set(self):
        return self.s.get("x-kubernetes-list-type") == "set"

    def item(self):
        return SchemaMeta(self.s.get("items"))


def apply_merge(live, applied, prev, meta):
    """Merges an applied configuration into the live object: maps merge, lists with keys
    merge by key, sets merge, other lists and scalars are replaced; what this manager applied
    before (prev) and no longer applies is removed. No field ownership between managers: a
    simplification of sigs.k8s.io/structured-merge-diff (every apply acts as force=true)."""
    if isinstance(applied, dict):
        out = dict(live) if isinstance(live, dict) else {}
        if isinstance(prev, dict):
            for k in prev:
                if k not in applied:
                    out.pop(k, None)
        for k, v in applied.items():
            pv = prev.get(k) if isinstance(prev, dict) else None
            out[k] = apply_merge(out.get(k), v, pv, meta.child(k))
        return out
    if isinstance(applied, list):
        keys = meta.keys()
        cur = list(live) if isinstance(live, list) else []
        if keys and all(isinstance(x, dict) for x in applied):
            def kf(x):
                return tuple(str(x.get(k)) for k in keys) if isinstance(x, dict) else None
            mine = {kf(x) for x in prev} if isinstance(prev, list) else set()
            wanted = [kf(x) for x in applied]
            out = [x for x in cur if not (kf(x) in mine and kf(x) not in wanted)]
            for a in applied:
                ka = kf(a)
                idx = next((i for i, x in enumerate(out) if kf(x) == ka), None)
                pv = next((x for x in prev if kf(x) == ka), None) if isinstance(prev, list) \
                    else None
                merged = apply_merge(out[idx] if idx is not None else None, a, pv, meta.item())
                if idx is None:
                    out.append(merged)
                else:
                    out[idx] = merged
            return out
        if meta.is_set():
            out = [x for x in cur if not (isinstance(prev, list) and
                                          any(equal(x, p) for p in prev) and
                                          not any(equal(x, a) for a in applied))]
            for a in applied:
                if not any(equal(a, x) for x in out):
                    out.append(copy(a))
            return out
        return copy(applied)
    return copy(applied)
