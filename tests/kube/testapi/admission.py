"""Admission webhooks as kube-apiserver calls them (k8s.io/apiserver
pkg/admission/plugin/webhook): the admissionregistration.k8s.io/v1
MutatingWebhookConfiguration and ValidatingWebhookConfiguration kinds, and for each create or
update the matching webhooks called with an AdmissionReview v1 over HTTPS (the server
certificate verified against `caBundle`), mutating ones first (in the order of their
configurations' names, then of the list), their JSONPatch applied, then the validating ones.

Matching: `rules` (operations, apiGroups, apiVersions, resources with `*`, `*/status` and
`pods/*` forms), `namespaceSelector` on the namespace's labels, `objectSelector` on the
object's (or the old object's) labels. `clientConfig.url` is called as it is; a `service`
reference has no cluster network behind it here, so calling one fails (then `failurePolicy`
decides, as for any call that fails: Fail refuses the request with kube-apiserver's "failed
calling webhook" error, Ignore goes on). `timeoutSeconds` (default 10) bounds the call. A
refusal is returned as kube-apiserver's webhookerrors.ToStatusErr makes it: the webhook's
Status, its message prefixed with `admission webhook "<name>" denied the request: `.

Not implemented: reinvocationPolicy IfNeeded, matchConditions (CEL), matchPolicy Equivalent
(only the exact group/version is matched), DELETE and CONNECT admission, subresources other
than those named in rules, dry-run side effects checks."""
import base64
import http.client
import json
import ssl
import urllib.parse
import uuid

from . import errors, patch
from .errors import FieldError
from .resources import ResourceType
from .selectors import selector_from_label_selector_object
from .util import copy

GROUP = "admissionregistration.k8s.io"
# kubectl's strategic merge patches: webhooks merged by name (patchMergeKey), rules atomic.
WEBHOOKS_SMP = patch.field({"metadata": patch.OBJECT_META,
                            "webhooks": patch.field(key="name")})


class WebhookConfigurations(ResourceType):
    def __init__(self, mutating):
        kind = ("Mutating" if mutating else "Validating") + "WebhookConfiguration"
        super().__init__(GROUP, "v1", kind.lower() + "s", kind, namespaced=False,
                         generation=True, smp=WEBHOOKS_SMP)
        self.mutating = mutating

    def defaults(self, obj):
        for w in obj.get("webhooks") or []:
            if not isinstance(w, dict):
                continue
            w.setdefault("failurePolicy", "Fail")
            w.setdefault("matchPolicy", "Equivalent")
            w.setdefault("timeoutSeconds", 10)
            w.setdefault("namespaceSelector", {})
            w.setdefault("objectSelector", {})
            if self.mutating:
                w.setdefault("reinvocationPolicy", "Never")
            for r in w.get("rules") or []:
                if isinstance(r, dict):
                    r.setdefault("scope", "*")

    def validate(self, obj):
        errs = []
        hooks = obj.get("webhooks") or []
        names = set()
        for i, w in enumerate(hooks if isinstance(hooks, list) else []):
            p = f"webhooks[{i}]"
            if not isinstance(w, dict):
                errs.append(FieldError("Invalid", p, w, "must be an object"))
                continue
            name = w.get("name") or ""
            if not name:
                errs.append(FieldError("Required", f"{p}.name", None, ""))
            elif name in names:
                errs.append(FieldError("Duplicate", f"{p}.name", name))
            names.add(name)
            cc = w.get("clientConfig") or {}
            if bool(cc.get("url")) == bool(cc.get("service")):
                errs.append(FieldError("Required", f"{p}.clientConfig",
                                       None, "exactly one of url or service is required"))
            elif cc.get("url") and not str(cc["url"]).startswith("https://"):
                errs.append(FieldError("Invalid", f"{p}.clientConfig.url", cc["url"],
                                       "'https' is the only allowed URL scheme"))
            if "v1" not in (w.get("admissionReviewVersions") or []):
                errs.append(FieldError("Required", f"{p}.admissionReviewVersions", None,
                                       "must specify one of v1, v1beta1"))
            if w.get("sideEffects") not in ("None", "NoneOnDryRun"):
                errs.append(FieldError("NotSupported", f"{p}.sideEffects", w.get("sideEffects"),
                                       'supported values: "None", "NoneOnDryRun"'))
            if w.get("failurePolicy") not in ("Fail", "Ignore"):
                errs.append(FieldError("NotSupported", f"{p}.failurePolicy",
                                       w.get("failurePolicy"),
                                       'supported values: "Fail", "Ignore"'))
            t = w.get("timeoutSeconds")
            if not isinstance(t, int) or not 1 <= t <= 30:
                errs.append(FieldError("Invalid", f"{p}.timeoutSeconds", t,
                                       "the timeout value must be between 1 and 30 seconds"))
        return errs

    def validate_update(self, new, old):
        return self.validate(new)

    def table(self, obj, now):
        from .builtin import _age
        return [("Name", "string", "name"), ("Webhooks", "integer", "")], \
            [obj["metadata"]["name"], len(obj.get("webhooks") or [])], _age(obj, now)


def types():
    return [WebhookConfigurations(True), WebhookConfigurations(False)]


def _match_list(values, want):
    return "*" in values or want in values


def _resource_matches(rules_resources, resource, sub):
    full = f"{resource}/{sub}" if sub else resource
    for r in rules_resources:
        if r == full or r == "*/*":
            return True
        if r == "*" and not sub:
            return True
        base, _, rsub = r.partition("/")
        if sub and rsub and (base in ("*", resource)) and rsub in ("*", sub):
            return True
    return False


class Admission:
    """The webhook admission of one server; `api` is its ops.Api."""

    def __init__(self, api, registry):
        self.api = api
        self.registry = registry

    def _configs(self, mutating):
        rt = self.registry.get(GROUP, "v1", ("mutating" if mutating else "validating") +
                               "webhookconfigurations")
        out = []
        for e in sorted(self.api.store.items(rt.storage), key=lambda e: e.name):
            for w in e.obj().get("webhooks") or []:
                out.append(w)
        return out

    def _matches(self, w, rt, sub, op, ns, obj, old):
        ok = False
        for r in w.get("rules") or []:
            if _match_list(r.get("operations") or [], op) and \
                    _match_list(r.get("apiGroups") or [], rt.group) and \
                    _match_list(r.get("apiVersions") or [], rt.version) and \
                    _resource_matches(r.get("resources") or [], rt.plural, sub):
                ok = True
                break
        if not ok:
            return False
        osel = selector_from_label_selector_object(w.get("objectSelector") or {})
        labels = [((o or {}).get("metadata") or {}).get("labels") or {} for o in (obj, old) if o]
        if osel is None or not any(osel.matches(lbl) for lbl in labels):
            return False
        nsel = selector_from_label_selector_object(w.get("namespaceSelector") or {})
        if nsel is None:
            return False
        if rt.namespaced and not nsel.empty():
            nse = self.api.namespace_entry(ns)
            nlabels = ((nse.obj().get("metadata") or {}).get("labels") or {}) if nse else {}
            if not nsel.matches(nlabels):
                return False
        return True

    def _call(self, w, review):
        cc = w.get("clientConfig") or {}
        url = cc.get("url")
        if not url:
            svc = cc.get("service") or {}
            raise OSError(f'Post "https://{svc.get("name")}.{svc.get("namespace")}.svc:'
                          f'{svc.get("port", 443)}{svc.get("path", "")}": no cluster network '
                          f'in the test API server (register the webhook by url)')
        u = urllib.parse.urlsplit(url)
        ctx = ssl.create_default_context()
        ca = cc.get("caBundle")
        if ca:
            ctx.load_verify_locations(cadata=base64.b64decode(ca).decode())
        timeout = w.get("timeoutSeconds") or 10
        conn = http.client.HTTPSConnection(u.hostname, u.port or 443, context=ctx,
                                           timeout=timeout)
        try:
            path = (u.path or "/") + f"?timeout={timeout}s"
            conn.request("POST", path, json.dumps(review),
                         {"Content-Type": "application/json", "Accept": "application/json"})
            r = conn.getresponse()
            body = r.read()
        finally:
            conn.close()
        if r.status != 200:
            raise OSError(f"expected response code 200, got {r.status}")
        out = json.loads(body)
        resp = out.get("response") if isinstance(out, dict) else None
        if not isinstance(resp, dict) or resp.get("uid") != review["request"]["uid"]:
            raise OSError("the webhook's response is not an AdmissionReview answering the "
                          "request's uid")
        return resp

    def _review(self, rt, sub, op, ns, name, obj, old, dry_run):
        req = {"uid": str(uuid.uuid4()),
               "kind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
               "resource": {"group": rt.group, "version": rt.version, "resource": rt.plural},
               "requestKind": {"group": rt.group, "version": rt.version, "kind": rt.kind},
               "requestResource": {"group": rt.group, "version": rt.version,
                                   "resource": rt.plural},
               "name": name, "operation": op,
               "userInfo": {"username": "system:admin", "groups": ["system:masters"]},
               "object": obj, "oldObject": old, "dryRun": bool(dry_run),
               "options": {"apiVersion": "meta.k8s.io/v1",
                           "kind": "CreateOptions" if op == "CREATE" else "UpdateOptions"}}
        if sub:
            req["subResource"] = sub
        if rt.namespaced:
            req["namespace"] = ns
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "request": req}

    def _run(self, w, rt, sub, op, ns, name, obj, old, dry_run, warnings):
        """One webhook: its response, or None when it failed and failurePolicy is Ignore."""
        review = self._review(rt, sub, op, ns, name, obj, old, dry_run)
        try:
            resp = self._call(w, review)
        except (OSError, ValueError, ssl.SSLError, http.client.HTTPException) as e:
            if w.get("failurePolicy", "Fail") == "Ignore":
                return None
            raise errors.internal(f'failed calling webhook "{w.get("name")}": failed to call '
                                  f'webhook: {e}') from None
        warnings.extend(resp.get("warnings") or [])
        if not resp.get("allowed"):
            st = dict(resp.get("status") or {})
            code = st.get("code") or 0
            if code < 400:
                code = 400
            denied = f'admission webhook "{w.get("name")}" denied the request'
            if st.get("message"):
                msg = f"{denied}: {st['message']}"
            elif st.get("reason"):
                msg = f"{denied}: {st['reason']}"
            else:
                msg = f"{denied} without explanation"
            raise errors.ApiError(code, st.get("reason") or "", msg, st.get("details"))
        return resp

    def wanted(self, rt, sub, op):
        """Whether a webhook's rules name this request (selectors aside). Requests on the
        webhook configurations themselves are never sent to webhooks, as in kube-apiserver."""
        if rt.group == GROUP:
            return False
        for w in self._configs(True) + self._configs(False):
            for r in w.get("rules") or []:
                if _match_list(r.get("operations") or [], op) and \
                        _match_list(r.get("apiGroups") or [], rt.group) and \
                        _match_list(r.get("apiVersions") or [], rt.version) and \
                        _resource_matches(r.get("resources") or [], rt.plural, sub):
                    return True
        return False

    def mutate(self, rt, sub, op, ns, name, obj, old, dry_run, warnings):
        """The object after every matching mutating webhook (obj itself when none matched)."""
        for w in self._configs(True):
            if not self._matches(w, rt, sub, op, ns, obj, old):
                continue
            resp = self._run(w, rt, sub, op, ns, name, obj, old, dry_run, warnings)
            if resp is None or not resp.get("patch"):
                continue
            if resp.get("patchType") != "JSONPatch":
                raise errors.internal(f'failed calling webhook "{w.get("name")}": unsupported '
                                      f'patch type "{resp.get("patchType")}"')
            try:
                ops = json.loads(base64.b64decode(resp["patch"]))
                obj = patch.json_patch(copy(obj), ops)
            except (ValueError, errors.ApiError) as e:
                raise errors.internal(f'failed calling webhook "{w.get("name")}": '
                                      f'invalid patch: {e}') from None
        return obj

    def validate(self, rt, sub, op, ns, name, obj, old, dry_run, warnings):
        for w in self._configs(False):
            if self._matches(w, rt, sub, op, ns, obj, old):
                self._run(w, rt, sub, op, ns, name, obj, old, dry_run, warnings)
