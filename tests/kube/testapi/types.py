"""JSON types of the built-in kinds, for what Go's decoder refuses: a value of the wrong JSON
type for a typed field is a 400 BadRequest ("cannot be handled as a Pod: json: cannot
unmarshal ..."), before any strategy code sees the object. Only the fields the server reads
are typed; other fields pass as they are. null is accepted everywhere (a nil pointer, slice or
map in Go)."""
from . import errors

S, I, B, F = "string", "integer", "boolean", "number"
ANY = None
IOS = "int-or-string"
TIME = S


def O(**props):  # noqa: E743 - an object with typed properties
    return ("object", props)


def M(v=S):
    return ("map", v)


def L(v):
    return ("list", v)


OWNER = O(apiVersion=S, kind=S, name=S, uid=S, controller=B, blockOwnerDeletion=B)
OBJECT_META = O(name=S, generateName=S, namespace=S, selfLink=S, uid=S, resourceVersion=S,
                generation=I, creationTimestamp=TIME, deletionTimestamp=TIME,
                deletionGracePeriodSeconds=I, labels=M(), annotations=M(),
                ownerReferences=L(OWNER), finalizers=L(S), managedFields=L(O()))
TEMPLATE_META = O(name=S, namespace=S, labels=M(), annotations=M(), finalizers=L(S))
LABEL_SELECTOR = O(matchLabels=M(), matchExpressions=L(O(key=S, operator=S, values=L(S))))
CONTAINER = O(name=S, image=S, command=L(S), args=L(S), workingDir=S, imagePullPolicy=S,
              terminationMessagePath=S, terminationMessagePolicy=S,
              ports=L(O(name=S, containerPort=I, hostPort=I, protocol=S, hostIP=S)),
              env=L(O(name=S, value=S, valueFrom=O(fieldRef=O(apiVersion=S, fieldPath=S)))),
              resources=O(limits=M(IOS), requests=M(IOS)),
              volumeMounts=L(O(name=S, mountPath=S, readOnly=B, subPath=S)))
POD_SPEC = O(containers=L(CONTAINER), initContainers=L(CONTAINER), restartPolicy=S,
             terminationGracePeriodSeconds=I, activeDeadlineSeconds=I, dnsPolicy=S,
             nodeSelector=M(), serviceAccountName=S, nodeName=S, hostNetwork=B, hostname=S,
             subdomain=S, schedulerName=S, priority=I, enableServiceLinks=B,
             securityContext=O(), affinity=O(), tolerations=L(O(key=S, operator=S, value=S,
                                                                effect=S)),
             schedulingGates=L(O(name=S)),
             volumes=L(O(name=S, persistentVolumeClaim=O(claimName=S, readOnly=B))))
CONDITIONS = L(O(type=S, status=S, reason=S, message=S, lastTransitionTime=TIME,
                 lastProbeTime=TIME, lastUpdateTime=TIME, observedGeneration=I))

TYPES = {
    "Namespace": O(spec=O(finalizers=L(S)), status=O(phase=S, conditions=CONDITIONS)),
    "Pod": O(spec=POD_SPEC, status=O(phase=S, reason=S, message=S, podIP=S, hostIP=S,
                                     nominatedNodeName=S, qosClass=S, startTime=TIME,
                                     conditions=CONDITIONS,
                                     containerStatuses=L(O(name=S, ready=B, restartCount=I,
                                                           started=B, image=S)))),
    "Service": O(spec=O(type=S, clusterIP=S, clusterIPs=L(S), selector=M(),
                        publishNotReadyAddresses=B, sessionAffinity=S, ipFamilies=L(S),
                        ipFamilyPolicy=S, internalTrafficPolicy=S,
                        ports=L(O(name=S, port=I, targetPort=IOS, protocol=S, nodePort=I))),
                 status=O(loadBalancer=O(), conditions=CONDITIONS)),
    "ConfigMap": O(data=M(), binaryData=M(), immutable=B),
    "Secret": O(data=M(), stringData=M(), type=S, immutable=B),
    "PersistentVolumeClaim": O(spec=O(accessModes=L(S), volumeName=S, storageClassName=S,
                                      volumeMode=S, volumeAttributesClassName=S,
                                      resources=O(requests=M(IOS), limits=M(IOS)),
                                      selector=LABEL_SELECTOR),
                               status=O(phase=S, accessModes=L(S), capacity=M(IOS),
                                        conditions=CONDITIONS)),
    "Event": O(involvedObject=O(kind=S, namespace=S, name=S, uid=S, apiVersion=S,
                                resourceVersion=S, fieldPath=S),
               regarding=O(kind=S, namespace=S, name=S, uid=S, apiVersion=S,
                           resourceVersion=S, fieldPath=S),
               reason=S, message=S, note=S, type=S, count=I, deprecatedCount=I,
               firstTimestamp=TIME, lastTimestamp=TIME, eventTime=TIME, action=S,
               reportingComponent=S, reportingController=S, reportingInstance=S,
               source=O(component=S, host=S), deprecatedSource=O(component=S, host=S)),
    "Job": O(spec=O(parallelism=I, completions=I, backoffLimit=I, backoffLimitPerIndex=I,
                    maxFailedIndexes=I, activeDeadlineSeconds=I, ttlSecondsAfterFinished=I,
                    completionMode=S, suspend=B, manualSelector=B, podReplacementPolicy=S,
                    managedBy=S, selector=LABEL_SELECTOR, podFailurePolicy=O(),
                    successPolicy=O(),
                    template=O(metadata=TEMPLATE_META, spec=POD_SPEC)),
             status=O(active=I, succeeded=I, failed=I, ready=I, terminating=I,
                      startTime=TIME, completionTime=TIME, completedIndexes=S,
                      failedIndexes=S, conditions=CONDITIONS,
                      uncountedTerminatedPods=O(succeeded=L(S), failed=L(S)))),
    "Lease": O(spec=O(holderIdentity=S, leaseDurationSeconds=I, acquireTime=TIME,
                      renewTime=TIME, leaseTransitions=I, strategy=S, preferredHolder=S)),
    "TokenRequest": O(spec=O(audiences=L(S), expirationSeconds=I,
                             boundObjectRef=O(kind=S, apiVersion=S, name=S, uid=S))),
    "TokenReview": O(spec=O(token=S, audiences=L(S))),
    "CustomResourceDefinition": O(spec=O(
        group=S, scope=S, preserveUnknownFields=B, conversion=O(strategy=S),
        names=O(plural=S, singular=S, kind=S, listKind=S, shortNames=L(S), categories=L(S)),
        versions=L(O(name=S, served=B, storage=B, deprecated=B, schema=O(openAPIV3Schema=O()),
                     subresources=O(),
                     additionalPrinterColumns=L(O(name=S, type=S, format=S, description=S,
                                                  priority=I, jsonPath=S))))),
        status=O()),
}

_JSON = {dict: "object", list: "array", str: "string", bool: "bool"}


def _jtype(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return _JSON.get(type(v), "value")


def _fail(kind, version, path, value, want):
    raise errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: '
                             f"json: cannot unmarshal {_jtype(value)} into Go struct field "
                             f"{kind}.{path} of type {want}")


def _check(v, t, path, kind, version):
    if v is None or t is ANY:
        return
    if t == S and not isinstance(v, str):
        _fail(kind, version, path, v, "string")
    if t == I and (isinstance(v, bool) or not isinstance(v, int) and
                   not (isinstance(v, float) and v.is_integer())):
        _fail(kind, version, path, v, "int64")
    if t == B and not isinstance(v, bool):
        _fail(kind, version, path, v, "bool")
    if t == F and (isinstance(v, bool) or not isinstance(v, (int, float))):
        _fail(kind, version, path, v, "float64")
    if t == IOS and (isinstance(v, bool) or not isinstance(v, (int, str))):
        _fail(kind, version, path, v, "intstr.IntOrString")
    if isinstance(t, tuple):
        shape, sub = t
        if shape == "object":
            if not isinstance(v, dict):
                _fail(kind, version, path, v, "struct")
            for k, st in sub.items():
                if k in v:
                    _check(v[k], st, f"{path}.{k}", kind, version)
        elif shape == "map":
            if not isinstance(v, dict):
                _fail(kind, version, path, v, "map")
            for k, x in v.items():
                _check(x, sub, f"{path}[{k}]", kind, version)
        elif shape == "list":
            if not isinstance(v, list):
                _fail(kind, version, path, v, "slice")
            for x in v:
                _check(x, sub, path, kind, version)


def check(obj, kind, version, builtin):
    """400 when obj has a wrong JSON type where Go's decoder would refuse it."""
    _check(obj.get("metadata"), OBJECT_META, "metadata", kind, version)
    if builtin and kind in TYPES:
        for k, t in TYPES[kind][1].items():
            if k in obj:
                _check(obj[k], t, k, kind, version)
