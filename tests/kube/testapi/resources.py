"""Resource types and the registry that serves them (the part of k8s.io/apiserver's generic
registry a type customises: its strategy) and the discovery documents built from it."""
import threading

from . import patch as patchmeta

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


class ResourceType:
    """One served resource: names, scope, and the strategy hooks of its registry.

    Hooks work on decoded JSON dicts; validation hooks return lists of errors.FieldError.
    `verbs` are those discovery lists (a create-only type serves nothing else)."""

    verbs = VERBS

    def __init__(self, group, version, plural, kind, namespaced=True, singular=None,
                 short_names=(), categories=(), status=False, generation=False,
                 unconditional_update=True, returns_deleted=False, default_gc="Background",
                 name_kind="subdomain", smp=patchmeta.PLAIN, field_labels=(), storage=None):
        self.group = group
        self.version = version
        self.plural = plural
        self.kind = kind
        self.list_kind = kind + "List"
        self.namespaced = namespaced
        self.singular = singular or kind.lower()
        self.short_names = list(short_names)
        self.categories = list(categories)
        self.status = status
        self.generation = generation
        self.unconditional_update = unconditional_update
        self.returns_deleted = returns_deleted
        self.default_gc = default_gc
        self.name_kind = name_kind
        self.smp = smp  # strategic-merge patch metadata; None: SMP unsupported (415)
        self.field_labels = {"metadata.name", "metadata.namespace"} | set(field_labels)
        # Resources that share one storage (core/v1 events and events.k8s.io/v1 events).
        self.storage = storage or f"{group}/{plural}"
        self.crd_name = None  # set for custom resources
        self.status_resets_meta = False
        self.status_keeps = ("generation", "deletionTimestamp")

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    def __repr__(self):
        return f"<{self.api_version} {self.plural}>"

    # ------------------------------------------------------------ strategy hooks

    def defaults(self, obj):
        """Defaulting applied to every object written (SetDefaults_*)."""

    def prepare_create(self, obj):
        """PrepareForCreate: drop status the client may not set, generate derived fields."""
        if self.status:
            obj.pop("status", None)

    def prepare_update(self, new, old):
        """PrepareForUpdate of the main resource: status comes from the stored object."""
        if self.status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)

    def prepare_status_update(self, new, old):
        """PrepareForUpdate of /status: everything but status comes from the stored object."""
        status = new.get("status")
        for k in list(new):
            if k != "metadata":
                del new[k]
        for k, v in old.items():
            if k not in ("metadata", "status"):
                new[k] = v
        if status is not None:
            new["status"] = status
        meta, old_meta = new.setdefault("metadata", {}), old.get("metadata", {})
        # Custom resources reset all of metadata (metav1.ResetObjectMetaForStatus); built-in
        # status strategies keep the client's metadata except what they name.
        kept = ("labels", "annotations", "finalizers", "ownerReferences", "generation",
                "deletionTimestamp") if self.status_resets_meta else self.status_keeps
        for f in kept:
            if f in old_meta:
                meta[f] = old_meta[f]
            else:
                meta.pop(f, None)

    def spec_changed(self, new, old):
        """Whether an update bumps metadata.generation (any change outside metadata/status)."""
        from .util import equal
        skip = ("metadata", "status") if self.status else ("metadata",)
        a = {k: v for k, v in new.items() if k not in skip}
        b = {k: v for k, v in old.items() if k not in skip}
        return not equal(a, b)

    def validate(self, obj):
        return []

    def validate_update(self, new, old):
        return self.validate(new)

    def validate_status_update(self, new, old):
        return []

    def unknown_fields(self, obj):
        """Prunes fields the schema does not know; returns their paths (for CRs)."""
        return []

    def graceful_period(self, obj, grace):
        """Seconds of graceful deletion, or None when the type deletes at once."""
        return None

    def fields(self, obj):
        """Values of the field selectors this type supports, beyond metadata.name/namespace."""
        return {}

    def encode(self, obj):
        """The stored form of an object written through this resource (events.k8s.io)."""
        return obj

    def decode(self, obj):
        """This resource's view of a stored object."""
        return obj

    def table(self, obj, now):
        """(columns, cells) for server-side printing: Name + Age unless overridden."""
        from .util import human_duration, parse_time
        meta = obj.get("metadata", {})
        created = parse_time(meta.get("creationTimestamp"))
        return [("Name", "string", "name")], [meta.get("name", "")], \
            human_duration(now - created) if created else "<unknown>"

    def discovery(self):
        res = {"name": self.plural, "singularName": self.singular, "namespaced": self.namespaced,
               "kind": self.kind, "verbs": list(self.verbs)}
        if self.short_names:
            res["shortNames"] = self.short_names
        if self.categories:
            res["categories"] = self.categories
        out = [res]
        if self.status:
            out.append({"name": f"{self.plural}/status", "singularName": "",
                        "namespaced": self.namespaced, "kind": self.kind,
                        "verbs": ["get", "patch", "update"]})
        return out


class Registry:
    """Every served resource, by (group, version, plural), with discovery built on demand."""

    def __init__(self):
        self.lock = threading.RLock()
        self.types = {}       # (group, version, plural) -> ResourceType
        self.by_kind = {}     # (group, version, kind) -> ResourceType
        self.group_order = []  # groups in registration order (preferred-version order)
        self.version_order = {}  # group -> [versions]

    def add(self, rt):
        with self.lock:
            self.types[(rt.group, rt.version, rt.plural)] = rt
            self.by_kind[(rt.group, rt.version, rt.kind)] = rt
            if rt.group not in self.version_order:
                self.group_order.append(rt.group)
                self.version_order[rt.group] = []
            if rt.version not in self.version_order[rt.group]:
                self.version_order[rt.group].append(rt.version)

    def remove(self, group, version, plural):
        with self.lock:
            rt = self.types.pop((group, version, plural), None)
            if rt is None:
                return
            self.by_kind.pop((group, version, rt.kind), None)
            if not any(g == group and v == version for g, v, _ in self.types):
                self.version_order[group].remove(version)
            if not self.version_order.get(group):
                self.version_order.pop(group, None)
                self.group_order.remove(group)

    def get(self, group, version, plural):
        with self.lock:
            return self.types.get((group, version, plural))

    def kind(self, group, version, kind):
        with self.lock:
            return self.by_kind.get((group, version, kind))

    def all(self):
        with self.lock:
            return list(self.types.values())

    def storage_types(self, storage):
        with self.lock:
            return [t for t in self.types.values() if t.storage == storage]

    def group_versions(self):
        with self.lock:
            return [(g, list(self.version_order[g])) for g in self.group_order]

    # ------------------------------------------------------------ discovery documents

    def api_versions(self, host):
        return {"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                "serverAddress": host}]}

    def _group(self, g, versions):
        vs = [{"groupVersion": f"{g}/{v}", "version": v} for v in versions]
        return {"name": g, "versions": vs, "preferredVersion": vs[0]}

    def api_group_list(self):
        groups = [self._group(g, vs) for g, vs in self.group_versions() if g]
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def api_group(self, group):
        for g, vs in self.group_versions():
            if g == group and g:
                doc = self._group(g, vs)
                doc.update({"kind": "APIGroup", "apiVersion": "v1"})
                return doc
        return None

    def resource_list(self, group, version):
        with self.lock:
            types = [t for (g, v, _), t in self.types.items() if g == group and v == version]
        if not types:
            return None
        resources = []
        for t in sorted(types, key=lambda t: t.plural):
            resources += t.discovery()
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                "resources": resources}
