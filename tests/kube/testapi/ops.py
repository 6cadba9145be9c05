"""The generic registry: create, get, list, update, patch and delete with the semantics of
k8s.io/apiserver pkg/registry/generic/registry/store.go and pkg/registry/rest (BeforeCreate,
BeforeUpdate, BeforeDelete), plus the admission the server always runs for these resources
(NamespaceLifecycle; StorageObjectInUseProtection is in the PVC strategy).

Objects are JSON dicts in their storage form; a ResourceType's decode() gives the view of the
resource a request came through (events.k8s.io/v1, other CRD versions)."""
import base64
import json
import time
import uuid

from . import errors, managed, patch, types
from .errors import FieldError
from .selectors import fields_match, parse_field_selector, parse_label_selector
from .util import copy, equal, get_path, rfc3339
from .validation import FOREGROUND, ORPHAN, validate_meta, validate_meta_update

META_ORDER = ["name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
              "generation", "creationTimestamp", "deletionTimestamp",
              "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
              "finalizers", "managedFields"]
NAMESPACES = "/namespaces"
PROTECTED_NAMESPACES = ("default", "kube-system", "kube-public")


def canonical(obj, kind, api_version):
    """kind, apiVersion, metadata first (as the Go types serialise), ObjectMeta's own fields
    in order, empty ones dropped (omitempty)."""
    meta = obj.get("metadata") or {}
    m = {}
    for k in META_ORDER:
        v = meta.get(k)
        if v is None or v == "" or v == {} or v == []:
            continue
        if k == "generation" and v == 0:
            continue
        m[k] = v
    out = {"kind": kind, "apiVersion": api_version, "metadata": m}
    for k, v in obj.items():
        if k not in ("kind", "apiVersion", "metadata"):
            out[k] = v
    return out


def _int_param(q, name):
    v = q.get(name)
    if v is None or v == "":
        return None
    try:
        return int(v)
    except ValueError:
        raise errors.bad_request(f"invalid value for {name}: {v!r}") from None


def encode_continue(rev, key):
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rev, "start": key + "\x00"},
                     separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token):
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        c = json.loads(raw)
        if c.get("v") != "meta.k8s.io/v1" or not c.get("start") or not c.get("rv"):
            raise ValueError
        return int(c["rv"]), c["start"]
    except (ValueError, TypeError, json.JSONDecodeError):
        raise errors.bad_request("continue key is not valid") from None


def _key_string(entry, all_namespaces):
    return f"{entry.ns}/{entry.name}" if all_namespaces and entry.ns else entry.name


class Api:
    def __init__(self, store, registry):
        self.store = store
        self.registry = registry
        self.applied = {}  # (uid, fieldManager) -> last applied configuration
        self.managed_fields = True
        self.admission = None  # admission.Admission: the webhooks (set by the server)

    # ------------------------------------------------------------ helpers

    def fields_of(self, rt, obj):
        meta = obj.get("metadata") or {}
        f = {"metadata.name": meta.get("name", ""),
             "metadata.namespace": meta.get("namespace", "")}
        f.update(rt.fields(obj))
        return f

    def commit(self, rt, obj):
        """Writes a storage-form object; returns its Entry."""
        st_kind, st_av = self.storage_kind(rt)
        obj.setdefault("metadata", {})["resourceVersion"] = "0"  # keeps its place in order
        obj = canonical(obj, st_kind, st_av)
        return self.store.put(rt.storage, obj, self.fields_of(rt, obj))

    def storage_kind(self, rt):
        sample = rt.encode({"apiVersion": rt.api_version, "kind": rt.kind})
        return sample["kind"], sample["apiVersion"]

    def view(self, rt, obj):
        """The request's view of a storage-form object, with kind and apiVersion."""
        out = rt.decode(obj)
        return canonical(out, rt.kind, rt.api_version)

    def _current(self, rt, ns, name):
        e = self.store.get(rt.storage, ns if rt.namespaced else "", name)
        if e is None:
            raise errors.not_found(rt.group, rt.plural, name)
        return e

    def namespace_entry(self, ns):
        return self.store.get(NAMESPACES, "", ns)

    def _admit_create(self, rt, ns, name):
        """NamespaceLifecycle admission for creates."""
        if rt.crd_name:
            crd = self.store.get("apiextensions.k8s.io/customresourcedefinitions", "",
                                 rt.crd_name)
            if crd is not None and crd.deleting:
                raise errors.method_not_allowed(
                    "create not allowed while custom resource definition is terminating")
        if not rt.namespaced:
            return
        nse = self.namespace_entry(ns)
        if nse is None:
            raise errors.not_found("", "namespaces", ns)
        if nse.deleting:
            raise errors.forbidden(
                rt.group, rt.plural, name,
                f"unable to create new content in namespace {ns} because it is being terminated",
                [{"reason": "NamespaceTerminating",
                  "message": f"namespace {ns} is being terminated",
                  "field": "metadata.namespace"}])

    def _check_body(self, rt, body):
        if not isinstance(body, dict):
            raise errors.bad_request("the body of the request must be a JSON object")
        av, kind = body.get("apiVersion"), body.get("kind")
        if av and av != rt.api_version:
            raise errors.bad_request(f"the API version in the data ({av}) does not match the "
                                     f"expected API version ({rt.api_version})")
        if kind and kind != rt.kind:
            raise errors.bad_request(f"the kind in the data ({kind}) does not match the "
                                     f"expected kind ({rt.kind})")
        meta = body.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise errors.bad_request("metadata must be an object")
        types.check(body, rt.kind, rt.version, rt.crd_name is None)
        body = dict(body)
        body["metadata"] = dict(meta or {})
        body["apiVersion"], body["kind"] = rt.api_version, rt.kind
        return body

    def _unknown_fields(self, rt, obj, q, warnings):
        """Prunes unknown fields; fieldValidation=Strict refuses them, Warn (the default)
        warns, Ignore drops them silently."""
        pruned = rt.unknown_fields(obj)
        if not pruned:
            return
        mode = (q.get("fieldValidation") or "Warn").lower()
        texts = [f'unknown field "{p.lstrip(".")}"' for p in pruned]
        if mode == "strict":
            raise errors.bad_request(f'{rt.kind} in version "{rt.version}" cannot be handled as '
                                     f'a {rt.kind}: strict decoding error: ' + ", ".join(texts))
        if mode == "warn":
            warnings.extend(texts)

    def _record(self, rt, new, old, q, sub, operation="Update", applied=None):
        """metadata.managedFields of a write (or none, with --no-managed-fields)."""
        if not self.managed_fields:
            new.get("metadata", {}).pop("managedFields", None)
            return
        managed.record(rt, new, old, q.get("__manager") or managed.manager_from(q, ""),
                       operation, sub, applied)

    def _invalid(self, rt, name, errs):
        if errs:
            raise errors.invalid(rt.group, rt.kind, name, errs)

    # ------------------------------------------------------------ create

    def create(self, rt, ns, body, q, dry_run=False):
        warnings = []
        obj = self._check_body(rt, body)
        meta = obj["metadata"]
        if rt.namespaced:
            if meta.get("namespace") and meta["namespace"] != ns:
                raise errors.bad_request("the namespace of the provided object does not match "
                                         "the namespace sent on the request")
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        if meta.get("resourceVersion"):
            raise errors.internal("resourceVersion should not be set on objects to be created")
        self._unknown_fields(rt, obj, q, warnings)
        obj = rt.encode(obj)
        rt.defaults(obj)
        if self._webhooks(rt, None, "CREATE"):
            obj = self._admit_create_webhooks(rt, ns, obj, q, dry_run, warnings)
            meta = obj["metadata"]
        with self.store.lock:
            self._admit_create(rt, ns, meta.get("name") or meta.get("generateName", ""))
            for attempt in range(8):
                o = copy(obj)
                m = o["metadata"]
                for f in ("deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion",
                          "selfLink", "managedFields"):
                    m.pop(f, None)
                m["uid"] = str(uuid.uuid4())
                m["creationTimestamp"] = rfc3339()
                if rt.generation:
                    m["generation"] = 1
                else:
                    m.pop("generation", None)
                if m.get("generateName") and not m.get("name"):
                    from .util import random_suffix
                    m["name"] = m["generateName"][:63 - 5] + random_suffix()
                rt.prepare_create(o)
                rt.defaults(o)
                errs = rt.validate(o) + validate_meta(m, rt.namespaced, rt.name_kind)
                self._invalid(rt, m.get("name", ""), errs)
                existing = self.store.get(rt.storage, m.get("namespace", ""), m["name"])
                if existing is None:
                    break
                if not (obj["metadata"].get("generateName") and not obj["metadata"].get("name")):
                    raise errors.already_exists(rt.group, rt.plural, m["name"],
                                                deleting=existing.deleting)
            else:
                raise errors.already_exists(rt.group, rt.plural, m["name"])
            self._record(rt, o, None, q, None, q.get("__operation", "Update"),
                         q.get("__applied"))
            if dry_run:
                return 201, self.view(rt, canonical(o, rt.kind, rt.api_version)), warnings
            entry = self.commit(rt, o)
            return 201, self.view(rt, entry.obj()), warnings

    # ------------------------------------------------------------ admission webhooks

    def _webhooks(self, rt, sub, op):
        return self.admission is not None and self.admission.wanted(rt, sub, op)

    def _admit_create_webhooks(self, rt, ns, obj, q, dry_run, warnings):
        """Mutating webhooks, the registry's defaults and validation, then the validating
        webhooks, as kube-apiserver orders them; outside the store lock (a webhook may call
        this server). Returns the storage-form object to create."""
        name = obj["metadata"].get("name", "")
        self._admit_create(rt, ns, name or obj["metadata"].get("generateName", ""))
        view = self.view(rt, copy(obj))
        mutated = self.admission.mutate(rt, None, "CREATE", ns, name, view, None, dry_run,
                                        warnings)
        if mutated is not view:
            obj = rt.encode(self._check_body(rt, mutated))
            if rt.namespaced:
                obj["metadata"]["namespace"] = ns
            rt.defaults(obj)
        o = copy(obj)
        rt.prepare_create(o)
        rt.defaults(o)
        self._invalid(rt, name, rt.validate(o))
        self.admission.validate(rt, None, "CREATE", ns, name, self.view(rt, o), None, dry_run,
                                warnings)
        return obj

    def _tentative_update(self, rt, new, old):
        o = copy(new)
        rt.prepare_update(o, old)
        m, om = o.setdefault("metadata", {}), old["metadata"]
        for k in ("name", "namespace", "uid", "creationTimestamp", "generation"):
            if om.get(k) is not None:
                m[k] = om[k]
        rt.defaults(o)
        return o

    def _admit_update_webhooks(self, rt, sub, ns, name, new, cur, dry_run, warnings):
        """The same for an update of `cur` to `new` (storage form); returns the new object."""
        old = cur.obj()
        old_view = self.view(rt, copy(old))
        view = self.view(rt, self._tentative_update(rt, new, old))
        mutated = self.admission.mutate(rt, sub, "UPDATE", ns, name, view, old_view, dry_run,
                                        warnings)
        if mutated is not view:
            rv = new.get("metadata", {}).get("resourceVersion")
            new = rt.encode(self._check_body(rt, mutated))
            if rv is not None:
                new["metadata"]["resourceVersion"] = rv
        o = self._tentative_update(rt, new, old)
        if sub is None:
            self._invalid(rt, name, rt.validate_update(o, old))
        self.admission.validate(rt, sub, "UPDATE", ns, name, self.view(rt, o), old_view,
                                dry_run, warnings)
        return new

    # ------------------------------------------------------------ get / list

    def get(self, rt, ns, name):
        return self.view(rt, self._current(rt, ns, name).obj())

    def list_entries(self, rt, ns, q):
        """(entries, rev, continue, remaining) for a list request."""
        labels = parse_label_selector(q.get("labelSelector"))
        fields = parse_field_selector(q.get("fieldSelector"), rt.field_labels)
        limit = _int_param(q, "limit") or 0
        rv, match = q.get("resourceVersion"), q.get("resourceVersionMatch")
        all_ns = rt.namespaced and not ns
        start = None
        cont = q.get("continue")
        if match and match not in ("Exact", "NotOlderThan"):
            raise errors.invalid("meta.k8s.io", "ListOptions", "", [FieldError(
                "NotSupported", "resourceVersionMatch", match,
                'supported values: "Exact", "NotOlderThan"')])
        if match and not rv:
            raise errors.invalid("meta.k8s.io", "ListOptions", "", [FieldError(
                "Forbidden", "resourceVersionMatch", None,
                "resourceVersionMatch is forbidden unless resourceVersion is provided")])
        with self.store.lock:
            if cont:
                if rv:
                    raise errors.bad_request("specifying resource version is not allowed when "
                                             "using continue")
                crev, start = decode_continue(cont)
                if crev == -1:
                    crev = self.store.rev
                if crev < self.store.compacted:
                    raise errors.ApiError(
                        410, "Expired", "The provided continue parameter is too old to display "
                        "a consistent list result. You can start a new list without the continue "
                        "parameter, or use the continue token in this response to retrieve the "
                        "remainder of the results. Continuing with the provided token results in "
                        "an inconsistent list - objects that were created, modified, or deleted "
                        "between the time the first chunk was returned and now may show up in "
                        "the list.", list_continue=encode_continue(-1, start.rstrip("\x00")))
                rev = crev
                entries = self.store.snapshot(rt.storage, ns if rt.namespaced else None, rev)
            else:
                rev = self.store.rev
                want = None
                if rv and rv != "0":
                    try:
                        want = int(rv)
                    except ValueError:
                        raise errors.bad_request(f"invalid resource version: {rv}") from None
                if want is not None and match == "Exact":
                    if want > rev:
                        self._wait_for(want)
                    rev = want
                    entries = self.store.snapshot(rt.storage, ns if rt.namespaced else None,
                                                  rev)
                else:
                    if want is not None and want > rev:
                        self._wait_for(want)
                        rev = self.store.rev
                    entries = self.store.items(rt.storage, ns if rt.namespaced else None)
        out, next_key, remaining = [], None, None
        selecting = not labels.empty() or bool(fields)
        i = 0
        if start is not None:
            while i < len(entries) and _key_string(entries[i], all_ns) < start:
                i += 1
        while i < len(entries):
            e = entries[i]
            i += 1
            if labels.matches(e.labels) and fields_match(fields, e.fields):
                out.append(e)
                if limit and len(out) >= limit:
                    if i < len(entries):
                        next_key = _key_string(e, all_ns)
                        if not selecting:
                            remaining = len(entries) - i
                    break
        token = encode_continue(rev, next_key) if next_key is not None else None
        return out, rev, token, remaining

    def _wait_for(self, want):
        """A request for a future resourceVersion waits up to 3 s, then 504 (as the watch
        cache does)."""
        end = time.monotonic() + 3
        while self.store.rev < want:
            left = end - time.monotonic()
            if left <= 0:
                e = errors.timeout(f"Too large resource version: {want}, current: "
                                   f"{self.store.rev}")
                e.details["causes"] = [{"reason": "ResourceVersionTooLarge",
                                        "message": "Too large resource version"}]
                raise e
            self.store.cond.wait(left)

    # ------------------------------------------------------------ update / patch

    def update(self, rt, ns, name, body, sub, q, dry_run=False):
        warnings = []
        obj = self._check_body(rt, body)
        meta = obj["metadata"]
        if meta.get("name") and meta["name"] != name:
            raise errors.bad_request(f"the name of the object ({meta['name']}) does not match "
                                     f"the name on the URL ({name})")
        if rt.namespaced and meta.get("namespace") and meta["namespace"] != ns:
            raise errors.bad_request("the namespace of the provided object does not match the "
                                     "namespace sent on the request")
        self._unknown_fields(rt, obj, q, warnings)
        new = rt.encode(obj)
        if self._webhooks(rt, sub, "UPDATE"):
            new = self._admit_update_webhooks(rt, sub, ns, name, new,
                                              self._current(rt, ns, name), dry_run, warnings)
        with self.store.lock:
            cur = self._current(rt, ns, name)
            code, out = self._apply_update(rt, cur, new, sub, dry_run, q)
            return code, out, warnings

    def patch(self, rt, ns, name, ctype, body, sub, q, dry_run=False):
        warnings = []
        ctype = (ctype or "").split(";")[0].strip().lower()
        try:
            p = json.loads(body or b"null")
        except (ValueError, UnicodeDecodeError) as e:
            if ctype == "application/apply-patch+yaml":
                raise errors.unsupported_media_type(ctype, [
                    "application/apply-patch+yaml (JSON-formatted)",
                    "application/merge-patch+json"]) from None
            raise errors.bad_request(f"error decoding patch: {e}") from None
        if ctype == "application/apply-patch+yaml":
            with self.store.lock:
                return self._apply(rt, ns, name, p, q, dry_run, warnings, sub)
        hooks = self._webhooks(rt, sub, "UPDATE")
        for _ in range(8):
            with self.store.lock:
                cur, new = self._patched(rt, ns, name, ctype, p, sub, q, warnings)
                if not hooks:
                    code, out = self._apply_update(rt, cur, new, sub, dry_run, q)
                    return code, out, warnings
            new = self._admit_update_webhooks(rt, sub, ns, name, new, cur, dry_run, warnings)
            with self.store.lock:
                now = self._current(rt, ns, name)
                if now.rv != cur.rv:
                    continue  # changed meanwhile: patch the new state
                code, out = self._apply_update(rt, now, new, sub, dry_run, q)
                return code, out, warnings
        raise errors.conflict(rt.group, rt.plural, name)

    def _patched(self, rt, ns, name, ctype, p, sub, q, warnings):
        """The current entry and the storage form of it patched (under the store lock)."""
        cur = self._current(rt, ns, name)
        current_view = self.view(rt, cur.obj())
        if ctype == "application/merge-patch+json":
            if not isinstance(p, dict):
                raise errors.bad_request("the patch must be a JSON object")
            new = patch.merge_patch(current_view, p)
        elif ctype == "application/json-patch+json":
            new = patch.json_patch(current_view, p)
        elif ctype == "application/strategic-merge-patch+json":
            if rt.smp is None:
                raise errors.unsupported_media_type(ctype, [
                    "application/json-patch+json", "application/merge-patch+json",
                    "application/apply-patch+yaml"])
            new = patch.strategic_merge_patch(current_view, p, rt.smp)
        else:
            raise errors.unsupported_media_type(ctype, [
                "application/json-patch+json", "application/merge-patch+json",
                "application/strategic-merge-patch+json"])
        if not isinstance(new, dict):
            raise errors.bad_request("the patched object must be a JSON object")
        new = self._check_body(rt, new)
        if new["metadata"].get("name", name) != name:
            raise errors.bad_request("metadata.name: the name of the object does not match")
        new["metadata"]["name"] = name
        if rt.namespaced:
            new["metadata"]["namespace"] = ns
        self._unknown_fields(rt, new, q, warnings)
        if not new["metadata"].get("resourceVersion"):
            new["metadata"]["resourceVersion"] = str(cur.rv)
        return cur, rt.encode(new)

    def _apply(self, rt, ns, name, applied, q, dry_run, warnings, sub=None):
        """Server-side apply (application/apply-patch+yaml with a JSON body), simplified: see
        patch.apply_merge. Creates the object when absent."""
        manager = q.get("fieldManager")
        if not manager:
            raise errors.bad_request("PATCH apply requires fieldManager")
        if not isinstance(applied, dict):
            raise errors.bad_request("the applied configuration must be an object")
        applied = self._check_body(rt, applied)
        am = applied["metadata"]
        if am.get("name", name) != name:
            raise errors.bad_request(f"the name of the object ({am.get('name')}) does not match "
                                     f"the name on the URL ({name})")
        am["name"] = name
        if rt.namespaced:
            am["namespace"] = ns
        cur = self.store.get(rt.storage, ns if rt.namespaced else "", name)
        if cur is None and sub is not None:
            raise errors.not_found(rt.group, rt.plural, name)
        if cur is None:
            q = dict(q, __operation="Apply", __applied=applied)
            code, out, w = self.create(rt, ns, copy(applied), q, dry_run)
            warnings.extend(w)
            if not dry_run:
                self.applied[(out["metadata"]["uid"], manager)] = applied
            return code, out, warnings
        current_view = self.view(rt, cur.obj())
        key = (current_view["metadata"].get("uid"), manager)
        meta = patch.SmpMeta(rt.smp) if rt.smp is not None else patch.SchemaMeta(
            getattr(rt, "schema", None))
        merged = patch.apply_merge(current_view, applied, self.applied.get(key), meta)
        merged = self._check_body(rt, merged)
        self._unknown_fields(rt, merged, q, warnings)
        if not am.get("resourceVersion"):
            merged["metadata"]["resourceVersion"] = str(cur.rv)
        code, out = self._apply_update(rt, cur, rt.encode(merged), sub, dry_run, q, "Apply",
                                       rt.encode(copy(applied)))
        if not dry_run:
            self.applied[key] = applied
        return code, out, warnings

    def _apply_update(self, rt, cur, new, sub, dry_run, q, operation="Update", applied=None):
        """BeforeUpdate + validation + optimistic concurrency + write (under the store lock)."""
        old = cur.obj()
        name = old["metadata"]["name"]
        meta = new.setdefault("metadata", {})
        rv = meta.get("resourceVersion")
        if not rv:
            if not rt.unconditional_update:
                raise errors.invalid(rt.group, rt.plural, name, [FieldError(
                    "Invalid", "metadata.resourceVersion", 0, "must be specified for an update")])
                # (the upstream message shows the value as 0x0)
        elif rv != str(cur.rv):
            raise errors.conflict(rt.group, rt.plural, name)
        if sub == "status":
            rt.prepare_status_update(new, old)
            meta = new["metadata"]
        elif sub == "finalize":
            finalizers = get_path(new, "spec", "finalizers")
            new = copy(old)
            new.setdefault("spec", {})["finalizers"] = finalizers or []
            meta = new["metadata"]
        else:
            rt.prepare_update(new, old)
        om = old["metadata"]
        meta["generation"] = om.get("generation")
        if not meta.get("uid"):
            meta["uid"] = om.get("uid")
        meta["creationTimestamp"] = om.get("creationTimestamp")
        if om.get("deletionTimestamp"):
            meta["deletionTimestamp"] = om["deletionTimestamp"]
        if om.get("deletionGracePeriodSeconds") is not None and \
                meta.get("deletionGracePeriodSeconds") is None:
            meta["deletionGracePeriodSeconds"] = om["deletionGracePeriodSeconds"]
        meta["name"], meta["namespace"] = om.get("name"), om.get("namespace")
        if not rt.namespaced:
            meta.pop("namespace", None)
        rt.defaults(new)
        if rt.generation and sub is None and rt.spec_changed(new, old):
            meta["generation"] = (om.get("generation") or 0) + 1
        errs = validate_meta(meta, rt.namespaced, rt.name_kind) + validate_meta_update(meta, om)
        if sub == "status":
            errs += rt.validate_status_update(new, old)
        else:
            errs += rt.validate_update(new, old)
        self._invalid(rt, name, errs)
        if om.get("deletionTimestamp") and not meta.get("finalizers") and \
                not om.get("deletionGracePeriodSeconds"):
            if not dry_run:
                self.store.delete(rt.storage, cur.ns, cur.name)
            return 200, self.view(rt, canonical(new, rt.kind, rt.api_version))
        meta["resourceVersion"] = str(cur.rv)
        st_kind, st_av = self.storage_kind(rt)
        meta["managedFields"] = old["metadata"].get("managedFields")
        if equal(canonical(new, st_kind, st_av), canonical(old, st_kind, st_av)):
            return 200, self.view(rt, old)
        self._record(rt, new, old, q, sub, operation, applied)
        if dry_run:
            return 200, self.view(rt, canonical(new, st_kind, st_av))
        entry = self.commit(rt, new)
        return 200, self.view(rt, entry.obj())

    def write_internal(self, rt, ns, name, mutate, manager="kube-controller-manager",
                       sub=None):
        """A read-modify-write by a controller inside the server; mutate(obj) returns False
        to skip. Returns the new Entry, or None."""
        with self.store.lock:
            cur = self.store.get(rt.storage, ns, name)
            if cur is None:
                return None
            obj = cur.obj()
            if mutate(obj) is False:
                return None
            self._record(rt, obj, cur.obj(), {"__manager": manager}, sub)
            meta = obj["metadata"]
            if meta.get("deletionTimestamp") and not meta.get("finalizers") and \
                    not meta.get("deletionGracePeriodSeconds"):
                return self.store.delete(rt.storage, ns, name)
            return self.commit(rt, obj)

    # ------------------------------------------------------------ delete

    def delete_options(self, body, q):
        opts = {}
        if body:
            try:
                opts = json.loads(body)
            except ValueError as e:
                raise errors.bad_request(f"invalid DeleteOptions: {e}") from None
            if not isinstance(opts, dict):
                raise errors.bad_request("invalid DeleteOptions")
        if q.get("gracePeriodSeconds") not in (None, ""):
            opts["gracePeriodSeconds"] = _int_param(q, "gracePeriodSeconds")
        if q.get("propagationPolicy"):
            opts["propagationPolicy"] = q["propagationPolicy"]
        if q.get("orphanDependents") not in (None, ""):
            opts["orphanDependents"] = q["orphanDependents"].lower() == "true"
        if q.get("dryRun"):
            opts["dryRun"] = [q["dryRun"]]
        errs = []
        pp = opts.get("propagationPolicy")
        if pp is not None and pp not in ("Orphan", "Background", "Foreground"):
            errs.append(FieldError("NotSupported", "propagationPolicy", pp,
                                   'supported values: "Foreground", "Background", "Orphan", '
                                   '"nil"'))
        if pp is not None and opts.get("orphanDependents") is not None:
            errs.append(FieldError("Invalid", "propagationPolicy", pp,
                                   "orphanDependents and deletionPropagation cannot be both set"))
        g = opts.get("gracePeriodSeconds")
        if g is not None and (not isinstance(g, int) or isinstance(g, bool)):
            errs.append(FieldError("Invalid", "gracePeriodSeconds", g, "must be an integer"))
        if errs:
            raise errors.invalid("meta.k8s.io", "DeleteOptions", "", errs)
        return opts

    def delete(self, rt, ns, name, opts, dry_run=False):
        """Returns (code, body, warnings)."""
        warnings = []
        if rt.default_gc == "Orphan" and opts.get("propagationPolicy") is None and \
                opts.get("orphanDependents") is None:
            warnings.append("child pods are preserved by default when jobs are deleted; set "
                            "propagationPolicy=Background to remove them or set "
                            "propagationPolicy=Orphan to suppress this warning")
        with self.store.lock:
            cur = self._current(rt, ns, name)
            obj = cur.obj()
            meta = obj["metadata"]
            pre = opts.get("preconditions") or {}
            if pre.get("uid") and pre["uid"] != meta.get("uid"):
                raise errors.conflict(rt.group, rt.kind, name,
                                      f"the UID in the precondition ({pre['uid']}) does not "
                                      f"match the UID in record ({meta.get('uid')}). The object "
                                      "might have been deleted and then recreated")
            if pre.get("resourceVersion") and pre["resourceVersion"] != meta.get(
                    "resourceVersion"):
                raise errors.conflict(rt.group, rt.kind, name,
                                      f"the ResourceVersion in the precondition "
                                      f"({pre['resourceVersion']}) does not match the "
                                      f"ResourceVersion in record ({meta.get('resourceVersion')})"
                                      ". The object might have been modified")
            if rt.storage == NAMESPACES:
                return self._delete_namespace(rt, cur, obj, opts, dry_run) + (warnings,)
            grace = opts.get("gracePeriodSeconds")
            if grace is not None and grace < 0:
                grace = 1
            graceful, period = self._before_delete(rt, obj, grace)
            if graceful is None:  # graceful deletion already pending
                return 200, self._deleted_body(rt, obj), warnings
            changed_fins = self._gc_finalizers(rt, obj, opts)
            pending = bool(meta.get("finalizers"))
            if graceful or pending or changed_fins:
                if not graceful and pending:
                    self._mark_deleting(obj)
                elif not graceful and not pending:
                    return self._delete_now(rt, cur, obj, dry_run) + (warnings,)
                elif graceful and period == 0 and not pending:
                    return self._delete_now(rt, cur, obj, dry_run) + (warnings,)
                if dry_run:
                    return 200, self.view(rt, obj), warnings
                if equal(obj, cur.obj()):
                    return 200, self._deleted_body(rt, obj) if not pending else \
                        self.view(rt, obj), warnings
                entry = self.commit(rt, obj)
                code = 202 if opts.get("orphanDependents") is False else 200
                return code, self.view(rt, entry.obj()), warnings
            return self._delete_now(rt, cur, obj, dry_run) + (warnings,)

    def _before_delete(self, rt, obj, grace):
        """rest.BeforeDelete: (graceful, period); graceful None when already pending."""
        meta = obj["metadata"]
        period = rt.graceful_period(obj, grace)
        if period is None:
            return False, 0
        if meta.get("deletionTimestamp"):
            old = meta.get("deletionGracePeriodSeconds")
            if not old:
                return False, 0
            if grace is None or grace >= old:
                return None, old
            from .util import parse_time
            ts = parse_time(meta["deletionTimestamp"]) - old + grace
            now = time.time()
            if ts < now:
                ts = now
                if grace != 0:
                    grace = 1
            meta["deletionTimestamp"] = rfc3339(ts)
            meta["deletionGracePeriodSeconds"] = grace
            return True, grace
        meta["deletionTimestamp"] = rfc3339(time.time() + period)
        meta["deletionGracePeriodSeconds"] = period
        if (meta.get("generation") or 0) > 0:
            meta["generation"] += 1
        return True, period

    def _gc_finalizers(self, rt, obj, opts):
        """deletionFinalizersForGarbageCollection: whether the GC finalizers changed."""
        meta = obj["metadata"]
        fins = list(meta.get("finalizers") or [])
        orphan, foreground = self._gc_policy(rt, fins, opts)
        new = [f for f in fins if f not in (ORPHAN, FOREGROUND)]
        if orphan:
            new.append(ORPHAN)
        if foreground:
            new.append(FOREGROUND)
        if set(new) == set(fins):
            return False
        meta["finalizers"] = new
        return True

    def _gc_policy(self, rt, fins, opts):
        if rt.default_gc == "Unsupported":
            return False, False
        od, pp = opts.get("orphanDependents"), opts.get("propagationPolicy")
        if od is not None:
            return bool(od), False
        if pp is not None:
            return pp == "Orphan", pp == "Foreground"
        for f in fins:
            if f == ORPHAN:
                return True, False
            if f == FOREGROUND:
                return False, True
        return rt.default_gc == "Orphan", False

    def _mark_deleting(self, obj):
        meta = obj["metadata"]
        if not meta.get("deletionTimestamp") and (meta.get("generation") or 0) > 0:
            meta["generation"] += 1
        if not meta.get("deletionTimestamp"):
            meta["deletionTimestamp"] = rfc3339()
        meta["deletionGracePeriodSeconds"] = 0

    def _delete_now(self, rt, cur, obj, dry_run):
        if dry_run:
            return 200, self._deleted_body(rt, obj)
        last = self.store.delete(rt.storage, cur.ns, cur.name)
        return 200, self._deleted_body(rt, last.obj())

    def _deleted_body(self, rt, obj):
        if rt.returns_deleted:
            return self.view(rt, obj)
        meta = obj["metadata"]
        return errors.success_status(meta.get("name"), rt.group, rt.plural, meta.get("uid"))

    def _delete_namespace(self, rt, cur, obj, opts, dry_run):
        """The namespace registry's Delete: Terminating until the namespace controller has
        emptied it and removed the 'kubernetes' finalizer."""
        meta = obj["metadata"]
        name = meta["name"]
        if name in PROTECTED_NAMESPACES:
            raise errors.forbidden("", "namespaces", name, "this namespace may not be deleted")
        if meta.get("deletionTimestamp"):
            return 200, self.view(rt, obj)
        self._gc_finalizers(rt, obj, opts)
        if not get_path(obj, "spec", "finalizers") and not meta.get("finalizers"):
            return self._delete_now(rt, cur, obj, dry_run)
        meta["deletionTimestamp"] = rfc3339()
        meta["deletionGracePeriodSeconds"] = 0
        obj.setdefault("status", {})["phase"] = "Terminating"
        if dry_run:
            return 200, self.view(rt, obj)
        entry = self.commit(rt, obj)
        return 200, self.view(rt, entry.obj())

    def delete_collection(self, rt, ns, opts, q, dry_run=False):
        entries, rev, _, _ = self.list_entries(rt, ns, {k: v for k, v in q.items()
                                                        if k in ("labelSelector",
                                                                 "fieldSelector")})
        items, warnings = [], []
        for e in entries:
            try:
                _, body, w = self.delete(rt, e.ns, e.name, dict(opts), dry_run)
                warnings = w
            except errors.ApiError as err:
                if err.code == 404:
                    continue
                raise
            if body.get("kind") == rt.kind:
                items.append(body)
            else:
                items.append(self.view(rt, e.obj()))
        return 200, {"kind": rt.list_kind, "apiVersion": rt.api_version,
                     "metadata": {"resourceVersion": str(self.store.rev)}, "items": items}, \
            warnings[:1]

