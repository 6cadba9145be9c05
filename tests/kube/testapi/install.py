"""The kinds a controller's own installation holds (jaxset's config/): core/v1 serviceaccounts
(their token subresource is authn.py's), apps/v1 deployments and rbac.authorization.k8s.io/v1
roles, clusterroles, rolebindings and clusterrolebindings, served so that kubectl can apply,
get and delete them.

As in builtin.py, each keeps the parts of its upstream strategy a client can observe (k8s.io/
kubernetes pkg/apis/apps/v1/defaults.go, pkg/apis/apps/validation, pkg/apis/rbac/validation).
Nothing acts on them: no Deployment controller makes ReplicaSets or pods, and no RBAC is
enforced (every request is allowed, as before)."""
from . import authn
from . import patch as pm
from .builtin import _age, _int_errs, _validate_template_meta, default_pod_spec, dflt, \
    validate_pod_spec
from .errors import FieldError
from .resources import ResourceType
from .util import equal, get_path

RBAC = "rbac.authorization.k8s.io"
DEPLOYMENT = pm.field({"metadata": pm.OBJECT_META,
                       "spec": pm.field({"template": pm.POD_TEMPLATE}),
                       "status": pm.field({"conditions": pm.CONDITIONS})})


class ServiceAccounts(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "serviceaccounts", "ServiceAccount", short_names=["sa"])

    def discovery(self):
        """With the token subresource (served by authn.py), as kube-apiserver lists it."""
        return super().discovery() + [{
            "name": "serviceaccounts/token", "singularName": "", "namespaced": True,
            "group": authn.GROUP, "version": "v1", "kind": "TokenRequest", "verbs": ["create"]}]

    def table(self, obj, now):
        return [("Name", "string", "name"), ("Secrets", "integer", "")], \
            [obj["metadata"]["name"], len(obj.get("secrets") or [])], _age(obj, now)


class Deployments(ResourceType):
    def __init__(self):
        super().__init__("apps", "v1", "deployments", "Deployment", short_names=["deploy"],
                         categories=["all"], status=True, generation=True, smp=DEPLOYMENT)

    def defaults(self, obj):
        """SetDefaults_Deployment (apps/v1) and the pod template defaults."""
        spec = dflt(obj, "spec", {})
        if spec.get("replicas") is None:
            spec["replicas"] = 1
        strategy = dflt(spec, "strategy", {})
        dflt(strategy, "type", "RollingUpdate")
        if strategy.get("type") == "RollingUpdate":
            ru = dflt(strategy, "rollingUpdate", {})
            dflt(ru, "maxUnavailable", "25%")
            dflt(ru, "maxSurge", "25%")
        if spec.get("revisionHistoryLimit") is None:
            spec["revisionHistoryLimit"] = 10
        if spec.get("progressDeadlineSeconds") is None:
            spec["progressDeadlineSeconds"] = 600
        default_pod_spec(get_path(spec, "template", "spec"))

    def prepare_create(self, obj):
        obj["status"] = {}

    def spec_changed(self, new, old):
        return not equal(new.get("spec"), old.get("spec"))

    def validate(self, obj):
        errs = []
        spec = obj.get("spec") or {}
        for f in ("replicas", "revisionHistoryLimit", "minReadySeconds"):
            _int_errs(obj, ["spec", f], errs)
        stype = get_path(spec, "strategy", "type")
        if stype not in ("Recreate", "RollingUpdate"):
            errs.append(FieldError("NotSupported", "spec.strategy.type", stype,
                                   'supported values: "Recreate", "RollingUpdate"'))
        elif stype == "Recreate" and get_path(spec, "strategy", "rollingUpdate") is not None:
            errs.append(FieldError("Forbidden", "spec.strategy.rollingUpdate", None,
                                   "may not be specified when strategy `type` is 'Recreate'"))
        pds, mrs = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds", 0)
        if isinstance(pds, int) and isinstance(mrs, int) and pds <= mrs:
            errs.append(FieldError("Invalid", "spec.progressDeadlineSeconds", pds,
                                   "must be greater than minReadySeconds"))
        tmpl = spec.get("template") or {}
        errs += _validate_template_meta(tmpl, "spec.template")
        errs += validate_pod_spec(tmpl.get("spec"), "spec.template.spec", ["Always"])
        from .selectors import selector_from_label_selector_object
        sel = selector_from_label_selector_object(spec.get("selector"))
        if sel is None:
            errs.append(FieldError("Required", "spec.selector", None, ""))
        elif sel.empty():
            errs.append(FieldError("Invalid", "spec.selector", "object",
                                   "empty selector is invalid for deployment"))
        elif not sel.matches(get_path(tmpl, "metadata", "labels") or {}):
            errs.append(FieldError("Invalid", "spec.template.metadata.labels", "object",
                                   "`selector` does not match template `labels`"))
        return errs

    def validate_update(self, new, old):
        """apps/v1 makes the selector immutable."""
        errs = self.validate(new)
        if not equal(get_path(new, "spec", "selector"), get_path(old, "spec", "selector")):
            errs.append(FieldError("Invalid", "spec.selector", "object", "field is immutable"))
        return errs

    def table(self, obj, now):
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        return [("Name", "string", "name"), ("Ready", "string", ""),
                ("Up-to-date", "string", ""), ("Available", "string", "")], \
            [obj["metadata"]["name"], f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 0)}",
             str(st.get("updatedReplicas", 0)), str(st.get("availableReplicas", 0))], \
            _age(obj, now)


# ---------------------------------------------------------------- rbac.authorization.k8s.io/v1

def validate_rules(rules, namespaced):
    """ValidatePolicyRule for each rule."""
    errs = []
    if rules is not None and not isinstance(rules, list):
        return [FieldError("Invalid", "rules", rules, "must be an array")]
    for i, r in enumerate(rules or []):
        p = f"rules[{i}]"
        if not isinstance(r, dict):
            errs.append(FieldError("Invalid", p, r, "must be an object"))
            continue
        if not r.get("verbs"):
            errs.append(FieldError("Required", f"{p}.verbs", None,
                                   "verbs must contain at least one value"))
        if r.get("nonResourceURLs"):
            if namespaced:
                errs.append(FieldError("Invalid", f"{p}.nonResourceURLs", r["nonResourceURLs"],
                                       "namespaced rules cannot apply to non-resource URLs"))
            if r.get("apiGroups") or r.get("resources"):
                errs.append(FieldError("Invalid", f"{p}.nonResourceURLs",
                                       r["nonResourceURLs"], "rules cannot apply to both "
                                       "regular resources and non-resource URLs"))
            continue
        if not r.get("apiGroups"):
            errs.append(FieldError("Required", f"{p}.apiGroups", None,
                                   "resource rules must supply at least one api group"))
        if not r.get("resources"):
            errs.append(FieldError("Required", f"{p}.resources", None,
                                   "resource rules must supply at least one resource"))
    return errs


def _created_at(obj):
    return [("Name", "string", "name"), ("Created At", "date", "")], \
        [obj["metadata"]["name"], get_path(obj, "metadata", "creationTimestamp", default="")], \
        None


class Roles(ResourceType):
    def __init__(self, cluster):
        kind = "ClusterRole" if cluster else "Role"
        super().__init__(RBAC, "v1", kind.lower() + "s", kind, namespaced=not cluster,
                         name_kind="path", smp=pm.PLAIN)

    def validate(self, obj):
        return validate_rules(obj.get("rules"), self.namespaced)

    def table(self, obj, now):
        return _created_at(obj)


def validate_subject(s, p, namespaced):
    """ValidateRoleBindingSubject."""
    if not isinstance(s, dict):
        return [FieldError("Invalid", p, s, "must be an object")]
    errs = []
    if not s.get("name"):
        errs.append(FieldError("Required", f"{p}.name", None, ""))
    kind = s.get("kind")
    if kind == "ServiceAccount":
        if s.get("apiGroup"):
            errs.append(FieldError("NotSupported", f"{p}.apiGroup", s["apiGroup"],
                                   'supported values: ""'))
        if not namespaced and not s.get("namespace"):
            errs.append(FieldError("Required", f"{p}.namespace", None, ""))
    elif kind in ("User", "Group"):
        if s.get("apiGroup") != RBAC:
            errs.append(FieldError("NotSupported", f"{p}.apiGroup", s.get("apiGroup", ""),
                                   f'supported values: "{RBAC}"'))
    else:
        errs.append(FieldError("NotSupported", f"{p}.kind", kind,
                               'supported values: "ServiceAccount", "User", "Group"'))
    return errs


class RoleBindings(ResourceType):
    def __init__(self, cluster):
        kind = "ClusterRoleBinding" if cluster else "RoleBinding"
        super().__init__(RBAC, "v1", kind.lower() + "s", kind, namespaced=not cluster,
                         name_kind="path", smp=pm.PLAIN)

    def validate(self, obj):
        errs = []
        ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
        if ref.get("apiGroup") != RBAC:
            errs.append(FieldError("NotSupported", "roleRef.apiGroup", ref.get("apiGroup", ""),
                                   f'supported values: "{RBAC}"'))
        kinds = ["Role", "ClusterRole"] if self.namespaced else ["ClusterRole"]
        if ref.get("kind") not in kinds:
            errs.append(FieldError("NotSupported", "roleRef.kind", ref.get("kind", ""),
                                   "supported values: " + ", ".join(f'"{k}"' for k in kinds)))
        if not ref.get("name"):
            errs.append(FieldError("Required", "roleRef.name", None, ""))
        subjects = obj.get("subjects") or []
        for i, s in enumerate(subjects if isinstance(subjects, list) else []):
            errs += validate_subject(s, f"subjects[{i}]", self.namespaced)
        return errs

    def validate_update(self, new, old):
        errs = self.validate(new)
        if not equal(new.get("roleRef"), old.get("roleRef")):
            errs.append(FieldError("Invalid", "roleRef", "object", "cannot change roleRef"))
        return errs

    def table(self, obj, now):
        ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
        return [("Name", "string", "name"), ("Role", "string", "")], \
            [obj["metadata"]["name"], f"{ref.get('kind', '')}/{ref.get('name', '')}"], \
            _age(obj, now)


def install_types():
    return [ServiceAccounts(), Deployments(), Roles(cluster=False), Roles(cluster=True),
            RoleBindings(cluster=False), RoleBindings(cluster=True)]
