"""apiextensions.k8s.io/v1 CustomResourceDefinitions and the custom resources they serve
(k8s.io/apiextensions-apiserver pkg/registry/customresourcedefinition and customresource).

Installing a CRD serves each of its served versions at once; the CRD's NamesAccepted and
Established conditions follow a moment later (written by the controllers thread). Deleting a
CRD deletes every custom object of it first (the customresourcecleanup finalizer)."""
import re

from . import schema
from .errors import FieldError
from .resources import ResourceType
from .util import get_path, human_duration, parse_time, rfc3339
from .validation import dns_label, dns_subdomain

CRDS = "apiextensions.k8s.io/customresourcedefinitions"
CLEANUP = "customresourcecleanup.apiextensions.k8s.io"


class CustomResourceDefinitions(ResourceType):
    def __init__(self):
        super().__init__("apiextensions.k8s.io", "v1", "customresourcedefinitions",
                         "CustomResourceDefinition", namespaced=False, short_names=["crd", "crds"],
                         categories=["api-extensions"], status=True, generation=True,
                         unconditional_update=False)

    def defaults(self, obj):
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        names = spec.get("names")
        if isinstance(names, dict) and isinstance(names.get("kind"), str) and names["kind"]:
            if not names.get("singular"):
                names["singular"] = names["kind"].lower()
            if not names.get("listKind"):
                names["listKind"] = names["kind"] + "List"
        if not spec.get("conversion"):
            spec["conversion"] = {"strategy": "None"}
        for v in spec.get("versions") or []:
            if isinstance(v, dict):
                for c in v.get("additionalPrinterColumns") or []:
                    if isinstance(c, dict) and not c.get("priority"):
                        c.pop("priority", None)

    def prepare_create(self, obj):
        obj["status"] = {"conditions": [], "acceptedNames": {"kind": "", "plural": ""},
                         "storedVersions": []}
        fins = obj["metadata"].setdefault("finalizers", [])
        if CLEANUP not in fins:
            fins.append(CLEANUP)

    def validate(self, obj):
        errs = []
        spec = obj.get("spec") or {}
        group = spec.get("group") or ""
        names = spec.get("names") or {}
        plural = names.get("plural") or ""
        if not spec:
            return [FieldError("Required", "spec", None, "")]
        name = get_path(obj, "metadata", "name", default="")
        if name != f"{plural}.{group}":
            errs.append(FieldError("Invalid", "metadata.name", name,
                                   'must be spec.names.plural+"."+spec.group'))
        if not group:
            errs.append(FieldError("Required", "spec.group", None, ""))
        elif "." not in group:
            errs.append(FieldError("Invalid", "spec.group", group,
                                   "should be a domain with at least one dot"))
        else:
            errs += [FieldError("Invalid", "spec.group", group, e) for e in dns_subdomain(group)]
        for f in ("plural", "singular", "kind", "listKind"):
            if not names.get(f):
                errs.append(FieldError("Required", f"spec.names.{f}", None, ""))
        for f in ("plural", "singular"):
            if names.get(f):
                errs += [FieldError("Invalid", f"spec.names.{f}", names[f], e)
                         for e in dns_label(names[f])]
        if spec.get("scope") not in ("Namespaced", "Cluster"):
            errs.append(FieldError("NotSupported", "spec.scope", spec.get("scope"),
                                   'supported values: "Cluster", "Namespaced"'))
        versions = spec.get("versions") or []
        if not versions:
            errs.append(FieldError("Invalid", "spec.versions", versions,
                                   "must have exactly one version marked as storage version"))
        storage = [v for v in versions if isinstance(v, dict) and v.get("storage")]
        if versions and len(storage) != 1:
            errs.append(FieldError("Invalid", "spec.versions", "array",
                                   "must have exactly one version marked as storage version"))
        seen = set()
        for i, v in enumerate(versions):
            p = f"spec.versions[{i}]"
            if not isinstance(v, dict):
                errs.append(FieldError("Invalid", p, v, "must be an object"))
                continue
            vn = v.get("name") or ""
            errs += [FieldError("Invalid", f"{p}.name", vn, e) for e in dns_label(vn)]
            if vn in seen:
                errs.append(FieldError("Duplicate", f"{p}.name", vn))
            seen.add(vn)
            s = get_path(v, "schema", "openAPIV3Schema")
            if s is None:
                errs.append(FieldError("Required", f"{p}.schema.openAPIV3Schema", None,
                                       "schemas are required"))
            else:
                errs += schema.structural_errors(s, f"{p}.schema.openAPIV3Schema")
        return errs

    def validate_update(self, new, old):
        errs = self.validate(new)
        for f in ("group", "scope"):
            if get_path(new, "spec", f) != get_path(old, "spec", f):
                errs.append(FieldError("Invalid", f"spec.{f}", get_path(new, "spec", f),
                                       "field is immutable"))
        return errs

    def table(self, obj, now):
        return [("Name", "string", "name"), ("Created At", "date", "")], \
            [obj["metadata"]["name"], get_path(obj, "metadata", "creationTimestamp", default="")], \
            None


class CustomResourceType(ResourceType):
    """The resource of one served version of a CRD."""

    def __init__(self, crd, version):
        spec = crd["spec"]
        names = spec["names"]
        super().__init__(spec["group"], version["name"], names["plural"], names["kind"],
                         namespaced=spec.get("scope") == "Namespaced",
                         singular=names.get("singular"), short_names=names.get("shortNames") or (),
                         categories=names.get("categories") or (),
                         status="status" in (version.get("subresources") or {}),
                         generation=True, unconditional_update=False, smp=None)
        self.list_kind = names.get("listKind") or names["kind"] + "List"
        self.crd_name = crd["metadata"]["name"]
        self.schema = get_path(version, "schema", "openAPIV3Schema") or {"type": "object"}
        self.columns = version.get("additionalPrinterColumns")
        storage = [v["name"] for v in spec["versions"] if v.get("storage")]
        self.storage_version = storage[0] if storage else version["name"]
        self.status_resets_meta = True

    def prepare_create(self, obj):
        if self.status:
            obj.pop("status", None)

    def defaults(self, obj):
        schema.apply_defaults(obj, self.schema)

    def unknown_fields(self, obj):
        return schema.prune(obj, self.schema)

    def _body(self, obj):
        return {k: v for k, v in obj.items() if k != "metadata"}

    def validate(self, obj):
        return schema.validate(self._body(obj), self.schema, "")

    def validate_update(self, new, old):
        return schema.validate(self._body(new), self.schema, "", self._body(old), True)

    def validate_status_update(self, new, old):
        return self.validate_update(new, old)

    def encode(self, obj):
        out = dict(obj)
        out["apiVersion"] = f"{self.group}/{self.storage_version}"
        return out

    def decode(self, obj):
        out = dict(obj)
        out["apiVersion"] = self.api_version
        return out

    def table(self, obj, now):
        cols = [("Name", "string", "name")]
        cells = [get_path(obj, "metadata", "name", default="")]
        columns = self.columns
        if columns is None:
            columns = [{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]
        for c in columns:
            if c.get("priority"):
                continue
            cols.append((c.get("name", ""), c.get("type", "string"), c.get("format", "")))
            cells.append(_cell(c.get("type", "string"), jsonpath_first(obj, c.get("jsonPath", "")),
                               now))
        return cols, cells, None


def _cell(ctype, value, now):
    """cellForJSONValue of the apiextensions table convertor."""
    if value is None:
        return None
    if ctype == "string":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (dict, list)):
            import json
            return json.dumps(value, separators=(",", ":"))
        return str(value)
    if ctype == "integer":
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else None
    if ctype == "number":
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if ctype == "boolean":
        return value if isinstance(value, bool) else None
    if ctype == "date":
        t = parse_time(value) if isinstance(value, str) else None
        return "<invalid>" if t is None else human_duration(now - t)
    return None


_STEP = re.compile(r"\.([A-Za-z0-9_\-]+)|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_\-]+)\s*==\s*"
                   r"[\"']([^\"']*)[\"']\)\]|\[(-?\d+):\]")


def jsonpath_first(obj, path):
    """The first result of the simple JSONPath of a printer column."""
    path = path.strip()
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1]
    if path.startswith("$"):
        path = path[1:]
    cur = [obj]
    pos = 0
    while pos < len(path):
        m = _STEP.match(path, pos)
        if not m:
            return None
        pos = m.end()
        nxt = []
        for c in cur:
            if m.group(1) is not None:
                if isinstance(c, dict) and m.group(1) in c:
                    nxt.append(c[m.group(1)])
            elif m.group(2) is not None:
                i = int(m.group(2))
                if isinstance(c, list) and i < len(c):
                    nxt.append(c[i])
            elif m.group(5) is not None:  # a slice to the end: [-1:] is the last item
                if isinstance(c, list):
                    nxt += c[int(m.group(5)):]
            else:
                if isinstance(c, list):
                    nxt += [x for x in c if isinstance(x, dict) and
                            str(x.get(m.group(3))) == m.group(4)]
        cur = nxt
        if not cur:
            return None
    return cur[0] if cur else None


def served_types(crd):
    """One CustomResourceType per served version of a CRD object."""
    out = []
    for v in get_path(crd, "spec", "versions", default=[]) or []:
        if isinstance(v, dict) and v.get("served", True):
            out.append(CustomResourceType(crd, v))
    return out


def established_status(crd):
    """The status the CRD controllers write once its names are accepted."""
    spec = crd["spec"]
    now = rfc3339()
    names = dict(spec["names"])
    storage = [v["name"] for v in spec["versions"] if v.get("storage")]
    stored = list(get_path(crd, "status", "storedVersions", default=[]) or [])
    for s in storage:
        if s not in stored:
            stored.append(s)
    conds = [{"type": "NamesAccepted", "status": "True", "lastTransitionTime": now,
              "reason": "NoConflicts", "message": "no conflicts found"},
             {"type": "Established", "status": "True", "lastTransitionTime": now,
              "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}]
    old = {c.get("type"): c for c in get_path(crd, "status", "conditions", default=[]) or []}
    for c in conds:
        o = old.get(c["type"])
        if o and o.get("status") == c["status"]:
            c["lastTransitionTime"] = o.get("lastTransitionTime", now)
    return {"conditions": conds, "acceptedNames": names, "storedVersions": stored}
