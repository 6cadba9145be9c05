"""Structural schemas of CustomResourceDefinitions (k8s.io/apiextensions-apiserver
pkg/apiserver/schema): pruning of unknown fields, defaulting, and validation of types, enums,
required fields, bounds, patterns, list types, and the CEL transition rule `self == oldSelf`.

Other CEL rules (x-kubernetes-validations) are not evaluated: that is a documented gap."""
import re

from .errors import FieldError
from .util import equal

ROOT_META_KEYS = {"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                  "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                  "labels", "annotations", "ownerReferences", "finalizers", "managedFields",
                  "selfLink"}
EMBEDDED_META_KEYS = {"name", "namespace", "labels", "annotations", "finalizers", "generateName"}


def _join(path, key):
    return f"{path}.{key}" if path else key


# ---------------------------------------------------------------- pruning


def prune(obj, schema, root=True):
    """Drops fields the schema does not declare; returns their paths ('.spec.foo') in order."""
    pruned = []
    if not isinstance(obj, dict):
        return pruned
    for k in list(obj):
        if root and k in ("apiVersion", "kind"):
            continue
        if root and k == "metadata":
            if isinstance(obj[k], dict):
                for mk in list(obj[k]):
                    if mk not in ROOT_META_KEYS:
                        del obj[k][mk]
                        pruned.append(f".metadata.{mk}")
            continue
        _prune_field(obj, k, schema, "", pruned)
    return pruned


def _prune_field(parent, key, schema, path, pruned):
    props = schema.get("properties") or {}
    addl = schema.get("additionalProperties")
    sub = props.get(key)
    p = f"{path}.{key}"
    if sub is None:
        if isinstance(addl, dict):
            sub = addl
        elif addl is True or schema.get("x-kubernetes-preserve-unknown-fields"):
            return
        else:
            del parent[key]
            pruned.append(p)
            return
    if parent[key] is None and not sub.get("nullable"):
        # A null for a non-nullable field is dropped, or defaulted when it has a default
        # (PruneNonNullableNullsWithoutDefaults and structural defaulting).
        if "default" in sub:
            from .util import copy
            parent[key] = copy(sub["default"])
        else:
            del parent[key]
        return
    _prune_value(parent[key], sub, p, pruned)


def _prune_value(value, schema, path, pruned):
    if isinstance(value, dict):
        if schema.get("x-kubernetes-embedded-resource"):
            meta = value.get("metadata")
            if isinstance(meta, dict):
                for mk in list(meta):
                    if mk not in EMBEDDED_META_KEYS:
                        del meta[mk]
                        pruned.append(f"{path}.metadata.{mk}")
        if not schema.get("properties") and not isinstance(schema.get("additionalProperties"),
                                                           dict):
            if schema.get("x-kubernetes-preserve-unknown-fields") or \
                    schema.get("additionalProperties") is True:
                return
        for k in list(value):
            if schema.get("x-kubernetes-embedded-resource") and k in ("apiVersion", "kind",
                                                                        "metadata"):
                continue
            _prune_field(value, k, schema, path, pruned)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, el in enumerate(value):
                _prune_value(el, items, f"{path}[{i}]", pruned)


# ---------------------------------------------------------------- defaulting


def apply_defaults(value, schema):
    """Structural defaulting: a missing property gets its `default`, recursively."""
    if isinstance(value, dict):
        for k, sub in (schema.get("properties") or {}).items():
            if k not in value and "default" in sub:
                from .util import copy
                value[k] = copy(sub["default"])
            if k in value:
                apply_defaults(value[k], sub)
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            for k in value:
                if k not in (schema.get("properties") or {}):
                    apply_defaults(value[k], addl)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for el in value:
            apply_defaults(el, schema["items"])


# ---------------------------------------------------------------- validation

_TYPE_OK = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or
    (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
}


def _json_type(v):
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number" if isinstance(v, float) and not v.is_integer() else "integer"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


def validate(value, schema, path, old=None, has_old=False):
    """Errors of value against schema; old is the stored value for transition rules."""
    errs = []
    _validate(value, schema, path, old, has_old, errs)
    return errs


def _validate(v, s, path, old, has_old, errs):
    if v is None:
        if not s.get("nullable"):
            errs.append(FieldError("Invalid", path, None, f"{path} in body must be of type "
                                   f"{s.get('type', 'object')}: \"null\""))
        return
    if s.get("x-kubernetes-int-or-string"):
        if not (isinstance(v, str) or _TYPE_OK["integer"](v)):
            errs.append(FieldError("Invalid", path, _json_type(v),
                                   f"{path} in body must be of type integer,string: "
                                   f"\"{_json_type(v)}\""))
            return
    elif "type" in s:
        t = s["type"]
        if t in _TYPE_OK and not _TYPE_OK[t](v):
            errs.append(FieldError("Invalid", path, _json_type(v),
                                   f"{path} in body must be of type {t}: \"{_json_type(v)}\""))
            return
    if "enum" in s and not any(equal(v, e) for e in s["enum"]):
        errs.append(FieldError("NotSupported", path, v, "supported values: " +
                               ", ".join(_quote(e) for e in s["enum"])))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and (v < s["minimum"] or (s.get("exclusiveMinimum") and
                                                     v == s["minimum"])):
            errs.append(FieldError("Invalid", path, v, "should be greater than or equal to "
                                   f"{s['minimum']}"))
        if "maximum" in s and (v > s["maximum"] or (s.get("exclusiveMaximum") and
                                                     v == s["maximum"])):
            errs.append(FieldError("Invalid", path, v, "should be less than or equal to "
                                   f"{s['maximum']}"))
    if isinstance(v, str):
        if "maxLength" in s and len(v) > s["maxLength"]:
            errs.append(FieldError("TooLong", path, v, f"may not be more than {s['maxLength']} "
                                   "bytes"))
        if "minLength" in s and len(v) < s["minLength"]:
            errs.append(FieldError("Invalid", path, v, f"should be at least {s['minLength']} "
                                   "chars long"))
        if "pattern" in s and not _pattern(s["pattern"]).search(v):
            errs.append(FieldError("Invalid", path, v, f"should match '{s['pattern']}'"))
    if isinstance(v, list):
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append(FieldError("TooMany", path, len(v), f"must have at most {s['maxItems']} "
                                   "items"))
        if "minItems" in s and len(v) < s["minItems"]:
            errs.append(FieldError("Invalid", path, len(v), f"should have at least "
                                   f"{s['minItems']} items"))
        _list_type(v, s, path, errs)
        items = s.get("items")
        if isinstance(items, dict):
            old_by_key = _old_items(old, s) if has_old else {}
            for i, el in enumerate(v):
                o, ho = old_by_key.get(_item_key(el, s, i), (None, False))
                _validate(el, items, f"{path}[{i}]", o, ho, errs)
    if isinstance(v, dict):
        for r in s.get("required") or []:
            if r not in v:
                errs.append(FieldError("Required", _join(path, r), None, ""))
        props = s.get("properties") or {}
        addl = s.get("additionalProperties")
        for k, sub in props.items():
            if k in v:
                ho = has_old and isinstance(old, dict) and k in old
                _validate(v[k], sub, _join(path, k), old.get(k) if ho else None, ho, errs)
        if isinstance(addl, dict):
            # A map value's path is path.key, as kube-openapi's object validator writes it
            # (kube-apiserver: "spec.jaxReplicaSpecs.Worker.template...: must be of type").
            for k in v:
                if k not in props:
                    ho = has_old and isinstance(old, dict) and k in old
                    _validate(v[k], addl, _join(path, k), old.get(k) if ho else None, ho, errs)
        if "maxProperties" in s and len(v) > s["maxProperties"]:
            errs.append(FieldError("TooMany", path, len(v), f"must have at most "
                                   f"{s['maxProperties']} items"))
    for rule in s.get("x-kubernetes-validations") or []:
        _cel(v, rule, path, old, has_old, errs)


def _quote(e):
    import json
    return json.dumps(e)


_pattern_cache = {}


def _pattern(p):
    r = _pattern_cache.get(p)
    if r is None:
        try:
            r = re.compile(p)
        except re.error:
            r = re.compile("")
        _pattern_cache[p] = r
    return r


def _list_type(v, s, path, errs):
    lt = s.get("x-kubernetes-list-type")
    if lt == "set":
        seen = []
        for i, el in enumerate(v):
            if any(equal(el, x) for x in seen):
                errs.append(FieldError("Duplicate", f"{path}[{i}]", el))
            seen.append(el)
    elif lt == "map":
        keys = s.get("x-kubernetes-list-map-keys") or []
        seen = []
        for i, el in enumerate(v):
            if not isinstance(el, dict):
                continue
            k = _key(el, keys)
            if k in seen:
                shown = "{" + ", ".join(f"{x}: {_quote(el.get(x))}" for x in keys) + "}"
                errs.append(FieldError("Duplicate", f"{path}[{i}]", None))
                errs[-1].value = shown
            seen.append(k)


def _key(el, keys):
    import json
    return json.dumps([el.get(x) for x in keys], sort_keys=True)


def _item_key(el, s, i):
    if s.get("x-kubernetes-list-type") == "map" and isinstance(el, dict):
        return _key(el, s.get("x-kubernetes-list-map-keys") or [])
    return None


def _old_items(old, s):
    """Old list elements that a transition rule may compare to: by map key for map lists."""
    out = {}
    if isinstance(old, list) and s.get("x-kubernetes-list-type") == "map":
        for el in old:
            out[_item_key(el, s, 0)] = (el, True)
    return out


def _cel(v, rule, path, old, has_old, errs):
    text = (rule.get("rule") or "").replace(" ", "")
    if text == "self==oldSelf":
        if has_old and not equal(v, old):
            errs.append(FieldError("Invalid", path, "object" if isinstance(v, dict) else v,
                                   rule.get("message") or "failed rule: self == oldSelf"))
    # Any other rule is not evaluated (no CEL interpreter in the test server).


# ---------------------------------------------------------------- structural checks


def structural_errors(schema, path):
    """A few of the structural-schema rules the API server enforces on a CRD's schema."""
    errs = []
    if not isinstance(schema, dict):
        return [FieldError("Required", path, None, "")]
    _structural(schema, path, errs, root=True)
    return errs


def _structural(s, path, errs, root=False):
    t = s.get("type")
    if not t and not s.get("x-kubernetes-int-or-string") and \
            not s.get("x-kubernetes-preserve-unknown-fields"):
        errs.append(FieldError("Required", f"{path}.type", None, "must not be empty for "
                               "specified object fields"))
    if root and t not in (None, "object"):
        errs.append(FieldError("Invalid", f"{path}.type", t, "must be object at the root"))
    for k, sub in (s.get("properties") or {}).items():
        if isinstance(sub, dict):
            _structural(sub, f"{path}.properties[{k}]", errs)
    if isinstance(s.get("items"), dict):
        _structural(s["items"], f"{path}.items", errs)
    if isinstance(s.get("additionalProperties"), dict):
        _structural(s["additionalProperties"], f"{path}.additionalProperties", errs)
