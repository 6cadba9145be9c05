"""Built-in kinds: core/v1 namespaces, pods, services, events, configmaps, secrets,
persistentvolumeclaims; batch/v1 jobs; coordination.k8s.io/v1 leases; events.k8s.io/v1 events.

Each is a ResourceType with the parts of its upstream strategy (k8s.io/kubernetes
pkg/registry/<group>/<kind>/strategy.go and pkg/apis/<group>/v1/defaults.go) that a controller
can observe: defaults, generated fields, validation of what the server would refuse, graceful
deletion, field selectors and table columns. Deep pod-spec validation is out of scope."""
import base64
import ipaddress
import threading

from . import patch as pm
from .errors import OMIT, FieldError
from .resources import ResourceType
from .util import equal, get_path, human_duration, parse_time, rfc3339

NS_LABEL = "kubernetes.io/metadata.name"


def dflt(d, key, value):
    """Go defaulting: a missing, null or empty-string field takes the default; returns the
    field's value (a throwaway dict when a container field holds something else)."""
    if not isinstance(d, dict):
        return {} if isinstance(value, dict) else value
    if d.get(key) is None or d.get(key) == "":
        d[key] = value
    v = d[key]
    if isinstance(value, dict) and not isinstance(v, dict):
        return {}
    return v


def _age(obj, now):
    created = parse_time(get_path(obj, "metadata", "creationTimestamp"))
    return human_duration(now - created) if created else "<unknown>"


def _int_errs(obj, path, errs, minimum=0, prefix=""):
    v = get_path(obj, *path)
    if v is None:
        return
    p = prefix + ".".join(path)
    if not isinstance(v, int) or isinstance(v, bool):
        errs.append(FieldError("Invalid", p, v, "must be an integer"))
    elif v < minimum:
        errs.append(FieldError("Invalid", p, v, f"must be greater than or equal to {minimum}"))


# ---------------------------------------------------------------- pod specs

def default_container(c):
    if not isinstance(c, dict):
        return
    dflt(c, "terminationMessagePath", "/dev/termination-log")
    dflt(c, "terminationMessagePolicy", "File")
    if "imagePullPolicy" not in c:
        image = c.get("image") if isinstance(c.get("image"), str) else ""
        tag = image.rsplit("/", 1)[-1]
        latest = "@" not in tag and (":" not in tag or tag.endswith(":latest"))
        c["imagePullPolicy"] = "Always" if latest else "IfNotPresent"
    dflt(c, "resources", {})
    for p in c.get("ports") or []:
        if isinstance(p, dict):
            dflt(p, "protocol", "TCP")
    for e in c.get("env") or []:
        ref = get_path(e, "valueFrom", "fieldRef")
        if isinstance(ref, dict):
            dflt(ref, "apiVersion", "v1")


def default_pod_spec(spec):
    if not isinstance(spec, dict):
        return
    dflt(spec, "restartPolicy", "Always")
    dflt(spec, "terminationGracePeriodSeconds", 30)
    dflt(spec, "dnsPolicy", "ClusterFirst")
    dflt(spec, "securityContext", {})
    dflt(spec, "schedulerName", "default-scheduler")
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            default_container(c)


def validate_pod_spec(spec, path, restart_values=None):
    errs = []
    if not isinstance(spec, dict):
        return [FieldError("Required", path, None, "")]
    containers = spec.get("containers")
    if not containers:
        errs.append(FieldError("Required", f"{path}.containers", None, ""))
    names = set()
    for key in ("initContainers", "containers"):
        items = spec.get(key) or []
        if not isinstance(items, list):
            errs.append(FieldError("Invalid", f"{path}.{key}", items, "must be an array"))
            continue
        for i, c in enumerate(items):
            p = f"{path}.{key}[{i}]"
            if not isinstance(c, dict):
                errs.append(FieldError("Invalid", p, c, "must be an object"))
                continue
            name = c.get("name")
            if not name:
                errs.append(FieldError("Required", f"{p}.name", None, ""))
            else:
                from .validation import dns_label
                for e in dns_label(name):
                    errs.append(FieldError("Invalid", f"{p}.name", name, e))
                if name in names:
                    errs.append(FieldError("Duplicate", f"{p}.name", name))
                names.add(name)
            if not c.get("image"):
                errs.append(FieldError("Required", f"{p}.image", None, ""))
    rp = spec.get("restartPolicy")
    allowed = restart_values or ["Always", "OnFailure", "Never"]
    if rp not in allowed:
        if rp:
            errs.append(FieldError("NotSupported", f"{path}.restartPolicy", rp,
                                   "supported values: " + ", ".join(f'"{v}"' for v in allowed)))
        else:
            errs.append(FieldError("Required", f"{path}.restartPolicy", None,
                                   "valid values: " + ", ".join(f'"{v}"' for v in allowed)))
    _int_errs(spec, ["terminationGracePeriodSeconds"], errs, prefix=path + ".")
    return errs


def _validate_template_meta(tmpl, path):
    from .validation import validate_annotations, validate_labels
    meta = (tmpl or {}).get("metadata") or {}
    return validate_labels(meta.get("labels"), f"{path}.metadata.labels") + \
        validate_annotations(meta.get("annotations"), f"{path}.metadata.annotations")


# ---------------------------------------------------------------- core/v1

class Namespaces(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "namespaces", "Namespace", namespaced=False,
                         short_names=["ns"], status=True, name_kind="label",
                         returns_deleted=True, field_labels=["status.phase"],
                         smp=pm.WITH_CONDITIONS)

    def defaults(self, obj):
        dflt(dflt(obj, "spec", {}), "finalizers", ["kubernetes"])
        st = dflt(obj, "status", {})
        dflt(st, "phase", "Active")
        name = get_path(obj, "metadata", "name")
        if name:
            dflt(obj["metadata"], "labels", {})[NS_LABEL] = name

    def prepare_create(self, obj):
        obj["status"] = {"phase": "Active"}

    def prepare_update(self, new, old):
        """Only /finalize changes spec.finalizers; status comes from the stored object."""
        super().prepare_update(new, old)
        fins = get_path(old, "spec", "finalizers")
        spec = dflt(new, "spec", {})
        if fins is None:
            spec.pop("finalizers", None)
        else:
            spec["finalizers"] = fins

    def fields(self, obj):
        return {"status.phase": get_path(obj, "status", "phase", default="")}

    def table(self, obj, now):
        return [("Name", "string", "name"), ("Status", "string", "")], \
            [obj["metadata"]["name"], get_path(obj, "status", "phase", default="")], \
            _age(obj, now)


class Nodes(ResourceType):
    """Nodes as the tests register them (what a kubelet would): cluster-scoped, with a status
    the /status subresource writes."""
    def __init__(self):
        super().__init__("", "v1", "nodes", "Node", namespaced=False, short_names=["no"],
                         status=True)

    def table(self, obj, now):
        return [("Name", "string", "name")], [obj["metadata"]["name"]], _age(obj, now)


class Pods(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "pods", "Pod", short_names=["po"], categories=["all"],
                         status=True, returns_deleted=True, smp=pm.POD,
                         field_labels=["spec.nodeName", "spec.restartPolicy",
                                       "spec.schedulerName", "spec.serviceAccountName",
                                       "spec.hostNetwork", "status.phase", "status.podIP",
                                       "status.nominatedNodeName"])
        self.status_keeps = ("generation", "deletionTimestamp", "ownerReferences")

    def defaults(self, obj):
        spec = dflt(obj, "spec", {})
        default_pod_spec(spec)
        dflt(spec, "enableServiceLinks", True)
        dflt(spec, "priority", 0)
        st = dflt(obj, "status", {})
        dflt(st, "phase", "Pending")

    def prepare_create(self, obj):
        obj["status"] = {"phase": "Pending", "qosClass": "BestEffort"}
        self._admission_defaults(obj.get("spec"))

    @staticmethod
    def _admission_defaults(spec):
        """What kube-apiserver's default admission plugins add to a new pod: Priority
        (preemptionPolicy with priority 0, no PriorityClass) and DefaultTolerationSeconds
        (300 s NoExecute tolerations of not-ready and unreachable nodes)."""
        if not isinstance(spec, dict):
            return
        if not spec.get("priorityClassName"):
            dflt(spec, "preemptionPolicy", "PreemptLowerPriority")
        tols = spec.get("tolerations")
        if tols is not None and not isinstance(tols, list):
            return
        tols = list(tols or [])
        for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
            if not any(isinstance(t, dict) and t.get("key") == key and
                       t.get("effect") in (None, "", "NoExecute") for t in tols):
                tols.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300})
        spec["tolerations"] = tols

    def validate(self, obj):
        return validate_pod_spec(obj.get("spec"), "spec")

    def validate_update(self, new, old):
        errs = self.validate(new)
        a, b = dict(new.get("spec") or {}), dict(old.get("spec") or {})
        # KEP-3838 (GA in 1.30): while the old pod is gated its nodeSelector may be added to
        # (not changed); its gates may only be removed
        gated = bool(b.get("schedulingGates"))
        old_gates = [g.get("name") for g in b.get("schedulingGates") or []]
        new_gates = [g.get("name") for g in a.get("schedulingGates") or []]
        if any(g not in old_gates for g in new_gates):
            errs.append(FieldError("Forbidden", "spec.schedulingGates", None,
                                   "only deletion is allowed, but found new scheduling gate"))
        if gated:
            olds, news = b.get("nodeSelector") or {}, a.get("nodeSelector") or {}
            if any(news.get(k) != v for k, v in olds.items()):
                errs.append(FieldError("Invalid", "spec.nodeSelector", None,
                                       "only additions to spec.nodeSelector are allowed "
                                       "(no mutations or deletions)"))
            for s_ in (a, b):
                s_.pop("nodeSelector", None)
        for s in (a, b):
            for k in ("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds",
                      "schedulingGates"):
                s.pop(k, None)
            s["containers"] = [{k: v for k, v in c.items() if k != "image"}
                               for c in s.get("containers") or [] if isinstance(c, dict)]
        if not equal(a, b):
            errs.append(FieldError("Forbidden", "spec", None,
                                   "pod updates may not change fields other than "
                                   "`spec.containers[*].image`,`spec.initContainers[*].image`,"
                                   "`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                                   "additions to existing tolerations),"
                                   "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 "
                                   "if it was previously negative)"))
        return errs

    def graceful_period(self, obj, grace):
        """podStrategy.CheckGracefulDelete."""
        period = grace if grace is not None else \
            get_path(obj, "spec", "terminationGracePeriodSeconds", default=0)
        if not get_path(obj, "spec", "nodeName"):
            period = 0
        if get_path(obj, "status", "phase") in ("Failed", "Succeeded"):
            period = 0
        return 1 if period < 0 else period

    def fields(self, obj):
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        return {"spec.nodeName": spec.get("nodeName", ""),
                "spec.restartPolicy": spec.get("restartPolicy", ""),
                "spec.schedulerName": spec.get("schedulerName", ""),
                "spec.serviceAccountName": spec.get("serviceAccountName", ""),
                "spec.hostNetwork": "true" if spec.get("hostNetwork") else "false",
                "status.phase": st.get("phase", ""), "status.podIP": st.get("podIP", ""),
                "status.nominatedNodeName": st.get("nominatedNodeName", "")}

    def table(self, obj, now):
        st = obj.get("status") or {}
        cs = st.get("containerStatuses") or []
        total = len(get_path(obj, "spec", "containers", default=[]) or [])
        ready = sum(1 for c in cs if c.get("ready"))
        restarts = sum(int(c.get("restartCount", 0)) for c in cs)
        phase = st.get("reason") or st.get("phase", "")
        if get_path(obj, "metadata", "deletionTimestamp"):
            phase = "Terminating"
        return [("Name", "string", "name"), ("Ready", "string", ""), ("Status", "string", ""),
                ("Restarts", "string", "")], \
            [obj["metadata"]["name"], f"{ready}/{total}", phase, str(restarts)], _age(obj, now)


class Services(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "services", "Service", short_names=["svc"],
                         categories=["all"], status=True, name_kind="dns1035", smp=pm.SERVICE)
        self._next_ip = 10
        self._ip_lock = threading.Lock()

    def defaults(self, obj):
        spec = dflt(obj, "spec", {})
        dflt(spec, "type", "ClusterIP")
        dflt(spec, "sessionAffinity", "None")
        for p in spec.get("ports") or []:
            if isinstance(p, dict):
                dflt(p, "protocol", "TCP")
                if "targetPort" not in p and "port" in p:
                    p["targetPort"] = p["port"]
        if spec.get("type") in ("ClusterIP", "NodePort", "LoadBalancer"):
            dflt(spec, "ipFamilies", ["IPv4"])
            dflt(spec, "ipFamilyPolicy", "SingleStack")
            dflt(spec, "internalTrafficPolicy", "Cluster")
        dflt(dflt(obj, "status", {}), "loadBalancer", {})

    def prepare_create(self, obj):
        obj["status"] = {"loadBalancer": {}}
        spec = dflt(obj, "spec", {})
        if spec.get("type", "ClusterIP") != "ExternalName" and not spec.get("clusterIP"):
            with self._ip_lock:
                n = self._next_ip
                self._next_ip += 1
            spec["clusterIP"] = str(ipaddress.ip_address("10.96.0.0") + n)
        if spec.get("clusterIP") and "clusterIPs" not in spec:
            spec["clusterIPs"] = [spec["clusterIP"]]

    def validate(self, obj):
        errs = []
        spec = obj.get("spec") or {}
        headless = spec.get("clusterIP") == "None"
        ports = spec.get("ports") or []
        if not ports and not headless and spec.get("type") != "ExternalName":
            errs.append(FieldError("Required", "spec.ports", None, ""))
        for i, p in enumerate(ports):
            port = p.get("port") if isinstance(p, dict) else None
            if not isinstance(port, int) or not 1 <= port <= 65535:
                errs.append(FieldError("Invalid", f"spec.ports[{i}].port", port,
                                       "must be between 1 and 65535, inclusive"))
            if len(ports) > 1 and isinstance(p, dict) and not p.get("name"):
                errs.append(FieldError("Required", f"spec.ports[{i}].name", None, ""))
        if spec.get("type") not in ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"):
            errs.append(FieldError("NotSupported", "spec.type", spec.get("type"),
                                   'supported values: "ClusterIP", "ExternalName", '
                                   '"LoadBalancer", "NodePort"'))
        return errs

    def validate_update(self, new, old):
        errs = self.validate(new)
        a, b = get_path(new, "spec", "clusterIP"), get_path(old, "spec", "clusterIP")
        if a != b and b:
            errs.append(FieldError("Invalid", "spec.clusterIPs[0]", a,
                                   "may not change once set"))
        return errs

    def table(self, obj, now):
        spec = obj.get("spec") or {}
        ports = ",".join(f"{p.get('port')}/{p.get('protocol', 'TCP')}"
                         for p in spec.get("ports") or [] if isinstance(p, dict)) or "<none>"
        return [("Name", "string", "name"), ("Type", "string", ""), ("Cluster-IP", "string", ""),
                ("External-IP", "string", ""), ("Port(s)", "string", "")], \
            [obj["metadata"]["name"], spec.get("type", ""), spec.get("clusterIP", ""), "<none>",
             ports], _age(obj, now)


class ConfigMaps(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "configmaps", "ConfigMap", short_names=["cm"])

    def validate(self, obj):
        errs = []
        for key in ("data", "binaryData"):
            d = obj.get(key)
            if d is not None and not isinstance(d, dict):
                errs.append(FieldError("Invalid", key, d, "must be an object"))
        return errs

    def validate_update(self, new, old):
        errs = self.validate(new)
        if old.get("immutable") and (not equal(new.get("data"), old.get("data")) or
                                     not equal(new.get("binaryData"), old.get("binaryData"))):
            errs.append(FieldError("Forbidden", "data", None,
                                   "field is immutable when `immutable` is set"))
        return errs

    def table(self, obj, now):
        n = len(obj.get("data") or {}) + len(obj.get("binaryData") or {})
        return [("Name", "string", "name"), ("Data", "integer", "")], \
            [obj["metadata"]["name"], n], _age(obj, now)


class Secrets(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "secrets", "Secret", field_labels=["type"])

    def defaults(self, obj):
        dflt(obj, "type", "Opaque")
        sd = obj.pop("stringData", None)
        if isinstance(sd, dict):
            data = dflt(obj, "data", {})
            for k, v in sd.items():
                data[k] = base64.b64encode(str(v).encode()).decode()

    def validate(self, obj):
        errs = []
        for k, v in (obj.get("data") or {}).items():
            try:
                base64.b64decode(v, validate=True)
            except (ValueError, TypeError):
                errs.append(FieldError("Invalid", f"data[{k}]", "<secret contents redacted>",
                                       "must be base64-encoded"))
        return errs

    def validate_update(self, new, old):
        errs = self.validate(new)
        if new.get("type") != old.get("type"):
            errs.append(FieldError("Invalid", "type", new.get("type"), "field is immutable"))
        return errs

    def fields(self, obj):
        return {"type": obj.get("type", "")}

    def table(self, obj, now):
        return [("Name", "string", "name"), ("Type", "string", ""), ("Data", "string", "")], \
            [obj["metadata"]["name"], obj.get("type", ""), str(len(obj.get("data") or {}))], \
            _age(obj, now)


class PersistentVolumeClaims(ResourceType):
    PROTECTION = "kubernetes.io/pvc-protection"

    def __init__(self):
        super().__init__("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim",
                         short_names=["pvc"], status=True, smp=pm.WITH_CONDITIONS)

    def defaults(self, obj):
        spec = dflt(obj, "spec", {})
        dflt(spec, "volumeMode", "Filesystem")

    def prepare_create(self, obj):
        obj["status"] = {"phase": "Pending"}
        # The StorageObjectInUseProtection admission plugin.
        fins = dflt(dflt(obj, "metadata", {}), "finalizers", [])
        if self.PROTECTION not in fins:
            fins.append(self.PROTECTION)

    def validate(self, obj):
        errs = []
        spec = obj.get("spec") or {}
        if not spec.get("accessModes"):
            errs.append(FieldError("Required", "spec.accessModes", None,
                                   "at least 1 access mode is required"))
        if not get_path(spec, "resources", "requests", "storage"):
            errs.append(FieldError("Required", "spec.resources[storage]", None, ""))
        return errs

    def validate_update(self, new, old):
        errs = self.validate(new)
        a, b = dict(new.get("spec") or {}), dict(old.get("spec") or {})
        for s in (a, b):
            s.pop("resources", None)
            s.pop("volumeAttributesClassName", None)
        if not equal(a, b):
            errs.append(FieldError("Forbidden", "spec", None,
                                   "spec is immutable after creation except resources.requests "
                                   "and volumeAttributesClassName for bound claims"))
        return errs

    def table(self, obj, now):
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        return [("Name", "string", "name"), ("Status", "string", ""), ("Volume", "string", ""),
                ("Capacity", "string", ""), ("Access Modes", "string", ""),
                ("StorageClass", "string", "")], \
            [obj["metadata"]["name"], st.get("phase", ""), spec.get("volumeName", ""),
             get_path(st, "capacity", "storage", default=""), ",".join(spec.get("accessModes")
                                                                        or []),
             spec.get("storageClassName") or "<unset>"], _age(obj, now)


# ---------------------------------------------------------------- events (two views)

EVENT_FIELDS = ["involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                "involvedObject.uid", "involvedObject.apiVersion",
                "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
                "reportingComponent", "source", "type"]


def _event_fields(obj):
    io = obj.get("involvedObject") or {}
    out = {f"involvedObject.{k}": str(io.get(k, "")) for k in
           ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")}
    out.update({"reason": obj.get("reason", ""),
                "reportingComponent": obj.get("reportingComponent", ""),
                "source": get_path(obj, "source", "component", default=""),
                "type": obj.get("type", "")})
    return out


class CoreEvents(ResourceType):
    def __init__(self):
        super().__init__("", "v1", "events", "Event", short_names=["ev"],
                         field_labels=EVENT_FIELDS, storage="core/events")

    def validate(self, obj):
        errs = []
        io = obj.get("involvedObject") or {}
        ns = get_path(obj, "metadata", "namespace", default="")
        if io.get("namespace") and io.get("namespace") != ns:
            errs.append(FieldError("Invalid", "involvedObject.namespace", io.get("namespace"),
                                   "does not match event.namespace"))
        if obj.get("type") and obj["type"] not in ("Normal", "Warning"):
            errs.append(FieldError("NotSupported", "type", obj["type"],
                                   'supported values: "Normal", "Warning"'))
        return errs

    def defaults(self, obj):
        # eventTime is a MicroTime (no pointer): a core/v1 Event without one reads as null
        if "eventTime" not in obj:
            obj["eventTime"] = None

    def fields(self, obj):
        return _event_fields(obj)

    def table(self, obj, now):
        last = parse_time(obj.get("lastTimestamp") or obj.get("eventTime") or
                          get_path(obj, "metadata", "creationTimestamp"))
        io = obj.get("involvedObject") or {}
        return [("Last Seen", "string", ""), ("Type", "string", ""), ("Reason", "string", ""),
                ("Object", "string", ""), ("Message", "string", "")], \
            [human_duration(now - last) if last else "<unknown>", obj.get("type", ""),
             obj.get("reason", ""), f"{io.get('kind', '').lower()}/{io.get('name', '')}",
             obj.get("message", "")], None


# events.k8s.io/v1 field <-> core/v1 field (k8s.io/kubernetes pkg/apis/events/v1 conversion).
_EV_MAP = [("regarding", "involvedObject"), ("note", "message"),
           ("reportingController", "reportingComponent"), ("deprecatedSource", "source"),
           ("deprecatedFirstTimestamp", "firstTimestamp"),
           ("deprecatedLastTimestamp", "lastTimestamp"), ("deprecatedCount", "count")]


class NewEvents(ResourceType):
    def __init__(self):
        super().__init__("events.k8s.io", "v1", "events", "Event", short_names=["ev"],
                         field_labels=EVENT_FIELDS, storage="core/events")

    def encode(self, obj):
        out = dict(obj)
        for new, old in _EV_MAP:
            if new in out:
                out[old] = out.pop(new)
        out["apiVersion"], out["kind"] = "v1", "Event"
        return out

    def decode(self, obj):
        out = dict(obj)
        for new, old in _EV_MAP:
            if old in out:
                out[new] = out.pop(old)
        out["apiVersion"], out["kind"] = "events.k8s.io/v1", "Event"
        return out

    def validate(self, obj):
        """events.k8s.io/v1 create validation (ValidateEventCreate for the v1 API)."""
        errs = CoreEvents.validate(self, obj)
        if not obj.get("eventTime"):
            errs.append(FieldError("Required", "eventTime", None, ""))
        if obj.get("type") not in ("Normal", "Warning"):
            errs.append(FieldError("NotSupported", "type", obj.get("type", ""),
                                   'supported values: "Normal", "Warning"'))
        for f, src in (("reportingController", "reportingComponent"),
                       ("reportingInstance", "reportingInstance"), ("action", "action"),
                       ("reason", "reason")):
            if not obj.get(src):
                errs.append(FieldError("Required", f, None, ""))
        if len(obj.get("message") or "") > 1024:
            errs.append(FieldError("TooLong", "note", None, "may not be more than 1024 bytes"))
        return errs

    def fields(self, obj):
        return _event_fields(obj)

    def table(self, obj, now):
        return CoreEvents.table(self, obj, now)


# ---------------------------------------------------------------- batch/v1 jobs

LEGACY_UID, UID_LABEL = "controller-uid", "batch.kubernetes.io/controller-uid"
LEGACY_NAME, NAME_LABEL = "job-name", "batch.kubernetes.io/job-name"


class Jobs(ResourceType):
    def __init__(self):
        super().__init__("batch", "v1", "jobs", "Job", categories=["all"], status=True,
                         generation=True, default_gc="Orphan", smp=pm.JOB,
                         field_labels=["status.successful"])

    def defaults(self, obj):
        """SetDefaults_Job and the pod template defaults."""
        spec = dflt(obj, "spec", {})
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
            spec["parallelism"] = 1
        dflt(spec, "parallelism", 1)
        if spec.get("backoffLimit") is None:
            spec["backoffLimit"] = 2147483647 if spec.get("backoffLimitPerIndex") is not None \
                else 6
        tlabels = get_path(spec, "template", "metadata", "labels")
        meta = dflt(obj, "metadata", {})
        if tlabels and not meta.get("labels"):
            meta["labels"] = dict(tlabels)
        dflt(spec, "completionMode", "NonIndexed")
        dflt(spec, "suspend", False)
        dflt(spec, "podReplacementPolicy",
                        "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed")
        default_pod_spec(get_path(spec, "template", "spec"))
        # The pod template's ObjectMeta serialises its zero creationTimestamp as null.
        tmeta = get_path(spec, "template", "metadata")
        if isinstance(spec.get("template"), dict) and tmeta is None:
            tmeta = spec["template"]["metadata"] = {}
        if isinstance(tmeta, dict) and "creationTimestamp" not in tmeta:
            tmeta["creationTimestamp"] = None
        # JobStatus.active, succeeded and failed are int32 with omitempty: 0 is not written.
        st = obj.get("status")
        if isinstance(st, dict):
            for k in ("active", "succeeded", "failed"):
                if st.get(k) == 0 and not isinstance(st.get(k), bool):
                    del st[k]

    def prepare_create(self, obj):
        obj["status"] = {}
        spec = dflt(obj, "spec", {})
        if not spec.get("manualSelector"):
            self._generate_selector(obj)

    def _generate_selector(self, obj):
        meta = obj["metadata"]
        tmpl = dflt(obj["spec"], "template", {})
        labels = dflt(dflt(tmpl, "metadata", {}), "labels", {})
        for k in (LEGACY_NAME, NAME_LABEL):
            dflt(labels, k, meta.get("name", ""))
        for k in (LEGACY_UID, UID_LABEL):
            dflt(labels, k, meta.get("uid", ""))
        sel = obj["spec"].get("selector")
        if not isinstance(sel, dict):
            sel = obj["spec"]["selector"] = {}
        dflt(dflt(sel, "matchLabels", {}), UID_LABEL, meta.get("uid", ""))

    def spec_changed(self, new, old):
        return not equal(new.get("spec"), old.get("spec"))

    def validate(self, obj):
        errs = []
        spec = obj.get("spec") or {}
        for f in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds",
                  "ttlSecondsAfterFinished"):
            _int_errs(obj, ["spec", f], errs)
        mode = spec.get("completionMode")
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(FieldError("NotSupported", "spec.completionMode", mode,
                                   'supported values: "NonIndexed", "Indexed"'))
        if mode == "Indexed" and spec.get("completions") is None:
            errs.append(FieldError("Required", "spec.completions", None,
                                   "when completion mode is Indexed"))
        tmpl = spec.get("template") or {}
        errs += _validate_template_meta(tmpl, "spec.template")
        errs += validate_pod_spec(tmpl.get("spec"), "spec.template.spec",
                                  ["OnFailure", "Never"])
        from .selectors import selector_from_label_selector_object
        sel = selector_from_label_selector_object(spec.get("selector"))
        if sel is None:
            errs.append(FieldError("Required", "spec.selector", None, ""))
        elif sel.empty():
            errs.append(FieldError("Invalid", "spec.selector", "object", "empty selector is "
                                   "invalid for deployment"))
        elif not sel.matches(get_path(tmpl, "metadata", "labels") or {}):
            errs.append(FieldError("Invalid", "spec.template.metadata.labels", "object",
                                   "`selector` does not match template `labels`"))
        return errs

    def validate_update(self, new, old):
        """ValidateJobSpecUpdate: only a suspended, never started Job may change its pod
        template's scheduling directives, labels and annotations."""
        errs = self.validate(new)
        ns, os_ = new.get("spec") or {}, old.get("spec") or {}
        for f in ("selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex",
                  "managedBy", "successPolicy"):
            if not equal(ns.get(f), os_.get(f)):
                errs.append(FieldError("Invalid", f"spec.{f}", ns.get(f) if not isinstance(
                    ns.get(f), dict) else "object", "field is immutable"))
        if not equal(ns.get("completions"), os_.get("completions")):
            elastic = ns.get("completionMode") == "Indexed" and \
                ns.get("completions") == ns.get("parallelism")
            if not elastic:
                errs.append(FieldError("Invalid", "spec.completions", ns.get("completions"),
                                       "field is immutable"))
        mutable = os_.get("suspend") is True and not get_path(old, "status", "startTime")
        a, b = _strip_template(ns.get("template"), mutable), \
            _strip_template(os_.get("template"), mutable)
        if not equal(a, b):
            errs.append(FieldError("Invalid", "spec.template", "object", "field is immutable"))
        return errs

    def validate_status_update(self, new, old):
        """ValidateJobUpdateStatus with the options of the JobManagedBy feature (on by
        default since Kubernetes 1.32): a rule on a field applies when that field changes."""
        errs = []
        for f in ("active", "succeeded", "failed", "ready", "terminating"):
            _int_errs(new, ["status", f], errs)
        if errs:
            return errs
        ns, os_ = new.get("status") or {}, old.get("status") or {}
        spec = new.get("spec") or {}

        def cond(st, t):
            return any(c.get("type") == t and c.get("status") == "True"
                       for c in st.get("conditions") or [] if isinstance(c, dict))

        def finished(st):
            return cond(st, "Complete") or cond(st, "Failed")

        def inv(fld, value, detail):
            errs.append(FieldError("Invalid", f"status.{fld}", value, detail))

        indexed = spec.get("completionMode") == "Indexed"
        fin_ch = finished(ns) != finished(os_)
        comp_ch = cond(ns, "Complete") != cond(os_, "Complete")
        fail_ch = cond(ns, "Failed") != cond(os_, "Failed")
        ft_ch = cond(ns, "FailureTarget") != cond(os_, "FailureTarget")
        active_ch = ns.get("active", 0) != os_.get("active", 0)
        start_ch = ns.get("startTime") != os_.get("startTime")
        ctime_ch = ns.get("completionTime") != os_.get("completionTime")
        if (not indexed or spec.get("completions") != spec.get("parallelism")) and \
                ns.get("succeeded", 0) < os_.get("succeeded", 0):
            inv("succeeded", ns.get("succeeded", 0), "cannot decrease the succeeded counter")
        if ns.get("failed", 0) < os_.get("failed", 0):
            inv("failed", ns.get("failed", 0), "cannot decrease the failed counter")
        for t in ("Failed", "Complete", "FailureTarget"):
            if cond(os_, t) and not cond(ns, t):
                inv("conditions", OMIT, f"cannot disable the terminal {t}=True condition")
        if (fin_ch or active_ch) and ns.get("active", 0) > 0 and finished(ns):
            inv("active", ns["active"], "active>0 is invalid for finished job")
        if (fin_ch or start_ch) and not ns.get("startTime") and finished(ns):
            errs.append(FieldError("Required", "status.startTime", None,
                                   "startTime is required for finished job"))
        if start_ch and os_.get("startTime") and not spec.get("suspend"):
            errs.append(FieldError("Required", "status.startTime", None,
                                   "startTime cannot be removed for unsuspended job"))
        st, ct = parse_time(ns.get("startTime")), parse_time(ns.get("completionTime"))
        if (start_ch or ctime_ch) and st is not None and ct is not None and ct < st:
            inv("completionTime", ns.get("completionTime"),
                "completionTime cannot be set before startTime")
        if ns.get("completionTime") and os_.get("completionTime") and ctime_ch:
            inv("completionTime", ns["completionTime"], "completionTime cannot be mutated")
        if (comp_ch or ctime_ch) and ns.get("completionTime") and not cond(ns, "Complete"):
            inv("completionTime", ns["completionTime"],
                "cannot set completionTime when there is no Complete=True condition")
        if (comp_ch or ctime_ch) and not ns.get("completionTime") and cond(ns, "Complete"):
            errs.append(FieldError("Required", "status.completionTime", None,
                                   "completionTime is required for Complete jobs"))
        if (comp_ch or fail_ch) and cond(ns, "Complete") and cond(ns, "Failed"):
            inv("conditions", OMIT, "cannot set Complete=True and Failed=true conditions")
        if (comp_ch or ft_ch) and cond(ns, "Complete") and cond(ns, "FailureTarget"):
            inv("conditions", OMIT, "cannot set Complete=True and FailureTarget=true conditions")
        scm = cond(ns, "SuccessCriteriaMet")
        if scm and cond(ns, "Failed"):
            inv("conditions", OMIT, "cannot set SuccessCriteriaMet=True and Failed=true "
                "conditions")
        if scm and cond(ns, "FailureTarget"):
            inv("conditions", OMIT, "cannot set SuccessCriteriaMet=True and FailureTarget=true "
                "conditions")
        if spec.get("successPolicy") and not scm and cond(ns, "Complete"):
            inv("conditions", OMIT, "cannot set Complete=True for Job with SuccessPolicy unless "
                "SuccessCriteriaMet=True")
        if cond(os_, "SuccessCriteriaMet") and not scm:
            inv("conditions", OMIT, "cannot disable the SuccessCriteriaMet=True condition")
        if cond(os_, "Complete") and not cond(os_, "SuccessCriteriaMet") and scm:
            inv("conditions", OMIT, "cannot set SuccessCriteriaMet=True for Job already has "
                "Complete=true conditions")
        if ns.get("completedIndexes") != os_.get("completedIndexes") and \
                ns.get("completedIndexes") and not indexed:
            inv("completedIndexes", ns["completedIndexes"],
                "cannot set non-empty completedIndexes when non-indexed completion mode")
        if ns.get("failedIndexes") != os_.get("failedIndexes") and \
                ns.get("failedIndexes") is not None and spec.get("backoffLimitPerIndex") is None:
            inv("failedIndexes", ns["failedIndexes"],
                "cannot set non-null failedIndexes when backoffLimitPerIndex is null")
        return errs

    def fields(self, obj):
        return {"status.successful": str(get_path(obj, "status", "succeeded", default=0))}

    def table(self, obj, now):
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        conds = {c.get("type"): c.get("status") for c in st.get("conditions") or []}
        if conds.get("Complete") == "True":
            state = "Complete"
        elif conds.get("Failed") == "True":
            state = "Failed"
        elif get_path(obj, "metadata", "deletionTimestamp"):
            state = "Terminating"
        elif conds.get("Suspended") == "True" or spec.get("suspend"):
            state = "Suspended"
        else:
            state = "Running"
        comp = spec.get("completions")
        completions = f"{st.get('succeeded', 0)}/{comp}" if comp is not None else \
            f"{st.get('succeeded', 0)}/1 of {spec.get('parallelism', 1)}"
        start, end = parse_time(st.get("startTime")), parse_time(st.get("completionTime"))
        duration = human_duration((end or now) - start) if start else ""
        return [("Name", "string", "name"), ("Status", "string", ""),
                ("Completions", "string", ""), ("Duration", "string", "")], \
            [obj["metadata"]["name"], state, completions, duration], _age(obj, now)


def _strip_template(t, mutable):
    if not isinstance(t, dict):
        return t
    if not mutable:
        return t
    t = dict(t)
    meta = dict(t.get("metadata") or {})
    meta.pop("labels", None)
    meta.pop("annotations", None)
    t["metadata"] = meta
    spec = dict(t.get("spec") or {})
    for k in ("nodeSelector", "tolerations", "schedulingGates"):
        spec.pop(k, None)
    aff = spec.get("affinity")
    if isinstance(aff, dict):
        aff = dict(aff)
        aff.pop("nodeAffinity", None)
        spec["affinity"] = aff or None
        if not aff:
            spec.pop("affinity")
    t["spec"] = spec
    return t


# ---------------------------------------------------------------- coordination.k8s.io/v1

class Leases(ResourceType):
    def __init__(self):
        super().__init__("coordination.k8s.io", "v1", "leases", "Lease")

    def validate(self, obj):
        errs = []
        spec = obj.get("spec") or {}
        d = spec.get("leaseDurationSeconds")
        if d is not None and (not isinstance(d, int) or d <= 0):
            errs.append(FieldError("Invalid", "spec.leaseDurationSeconds", d,
                                   "must be greater than 0"))
        t = spec.get("leaseTransitions")
        if t is not None and (not isinstance(t, int) or t < 0):
            errs.append(FieldError("Invalid", "spec.leaseTransitions", t,
                                   "must be greater than or equal to 0"))
        for f in ("acquireTime", "renewTime"):
            if spec.get(f) is not None and parse_time(spec[f]) is None:
                errs.append(FieldError("Invalid", f"spec.{f}", spec[f], "must be a MicroTime"))
        return errs

    def table(self, obj, now):
        return [("Name", "string", "name"), ("Holder", "string", "")], \
            [obj["metadata"]["name"], get_path(obj, "spec", "holderIdentity", default="")], \
            _age(obj, now)


def builtin_types():
    return [Namespaces(), Nodes(), Pods(), Services(), ConfigMaps(), Secrets(), PersistentVolumeClaims(),
            CoreEvents(), Jobs(), Leases(), NewEvents()]


DEFAULT_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"]


def namespace_object(name):
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "creationTimestamp": rfc3339()}}
