"""Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), for
the few kinds kubectl's typed commands send that way: `kubectl create namespace`,
`kubectl create configmap`, `kubectl create secret generic`, `kubectl create serviceaccount`,
`kubectl create token` (a TokenRequest).

The envelope is the magic "k8s\\0" then a runtime.Unknown{typeMeta{apiVersion=1, kind=2},
raw=2}; raw is the object message, decoded here with the field numbers of k8s.io/api
core/v1 and authentication/v1 generated.proto and k8s.io/apimachinery meta/v1
generated.proto. Other kinds get a 415 naming the JSON alternative. Responses are always JSON
(clients accept it)."""
import base64
import datetime

from . import errors

MAGIC = b"k8s\x00"


def _varint(buf, i):
    shift = result = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def fields(buf):
    """{field number: [values]}: ints for varints, bytes for length-delimited fields."""
    out, i = {}, 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(buf, i)
        elif wire == 2:
            n, i = _varint(buf, i)
            v = bytes(buf[i:i + n])
            i += n
        elif wire == 1:
            v = buf[i:i + 8]
            i += 8
        elif wire == 5:
            v = buf[i:i + 4]
            i += 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.setdefault(num, []).append(v)
    return out


def _str(v):
    return v.decode("utf-8")


def _int(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _map(values, bytes_values=False):
    out = {}
    for entry in values:
        f = fields(entry)
        k = _str(f.get(1, [b""])[0])
        raw = f.get(2, [b""])[0]
        out[k] = base64.b64encode(raw).decode() if bytes_values else _str(raw)
    return out


def _time(v):
    f = fields(v)
    secs = _int(f.get(1, [0])[0])
    return datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def _owner(v):
    f = fields(v)
    r = {}
    for num, name in ((5, "apiVersion"), (1, "kind"), (3, "name"), (4, "uid")):
        if num in f:
            r[name] = _str(f[num][0])
    for num, name in ((6, "controller"), (7, "blockOwnerDeletion")):
        if num in f:
            r[name] = bool(f[num][0])
    return r


def object_meta(buf):
    f = fields(buf)
    m = {}
    for num, name in ((1, "name"), (2, "generateName"), (3, "namespace"), (5, "uid"),
                      (6, "resourceVersion")):
        if num in f:
            m[name] = _str(f[num][-1])
    for num, name in ((7, "generation"), (10, "deletionGracePeriodSeconds")):
        if num in f:
            m[name] = _int(f[num][-1])
    for num, name in ((8, "creationTimestamp"), (9, "deletionTimestamp")):
        if num in f:
            m[name] = _time(f[num][-1])
    if 11 in f:
        m["labels"] = _map(f[11])
    if 12 in f:
        m["annotations"] = _map(f[12])
    if 13 in f:
        m["ownerReferences"] = [_owner(v) for v in f[13]]
    if 14 in f:
        m["finalizers"] = [_str(v) for v in f[14]]
    return m


def _namespace(f):
    obj = {}
    if 2 in f:
        spec = fields(f[2][-1])
        obj["spec"] = {"finalizers": [_str(v) for v in spec.get(1, [])]}
    return obj


def _configmap(f):
    obj = {}
    if 2 in f:
        obj["data"] = _map(f[2])
    if 3 in f:
        obj["binaryData"] = _map(f[3], bytes_values=True)
    if 4 in f:
        obj["immutable"] = bool(f[4][-1])
    return obj


def _secret(f):
    obj = {}
    if 2 in f:
        obj["data"] = _map(f[2], bytes_values=True)
    if 4 in f:
        obj["stringData"] = _map(f[4])
    if 3 in f:
        obj["type"] = _str(f[3][-1])
    if 5 in f:
        obj["immutable"] = bool(f[5][-1])
    return obj


def _service_account(f):
    return {"automountServiceAccountToken": bool(f[4][-1])} if 4 in f else {}


def _token_request(f):
    spec = fields(f[2][-1]) if 2 in f else {}
    out = {"audiences": [_str(v) for v in spec.get(1, [])]}
    if 4 in spec:
        out["expirationSeconds"] = _int(spec[4][-1])
    if 3 in spec:
        ref = fields(spec[3][-1])
        out["boundObjectRef"] = {name: _str(ref[num][-1]) for num, name in (
            (1, "kind"), (2, "apiVersion"), (3, "name"), (4, "uid")) if num in ref}
    return {"spec": out}


KINDS = {("v1", "Namespace"): _namespace, ("v1", "ConfigMap"): _configmap,
         ("v1", "Secret"): _secret, ("v1", "ServiceAccount"): _service_account,
         ("authentication.k8s.io/v1", "TokenRequest"): _token_request}


def decode(body):
    """The JSON form of a protobuf request body; 415 for kinds not decoded here."""
    try:
        if not body.startswith(MAGIC):
            raise ValueError("missing the k8s protobuf magic number")
        env = fields(body[len(MAGIC):])
        tm = fields(env.get(1, [b""])[0])
        av = _str(tm.get(1, [b""])[0])
        kind = _str(tm.get(2, [b""])[0])
        fn = KINDS.get((av, kind))
        if fn is None:
            raise errors.unsupported_media_type(
                "application/vnd.kubernetes.protobuf",
                ["application/json", "application/yaml",
                 f"application/vnd.kubernetes.protobuf (only for "
                 f"{', '.join(k for _, k in KINDS)} here, not {kind})"])
        raw = fields(env.get(2, [b""])[0])
        obj = {"apiVersion": av, "kind": kind,
               "metadata": object_meta(raw[1][-1]) if 1 in raw else {}}
        obj.update(fn(raw))
        return obj
    except (ValueError, IndexError, UnicodeDecodeError) as e:
        raise errors.bad_request(f"unable to decode the protobuf body: {e}") from None
