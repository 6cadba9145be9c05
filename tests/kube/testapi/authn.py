"""ServiceAccount tokens as kube-apiserver issues and reviews them: the `token` subresource of
core/v1 serviceaccounts (a TokenRequest: k8s.io/kubernetes
pkg/registry/core/serviceaccount/storage/token.go) and authentication.k8s.io/v1 tokenreviews
(pkg/registry/authentication/tokenreview/storage.go). Both are create-only and store nothing.

A token is a JWT with the claims of pkg/serviceaccount/claims.go (aud, exp, iat, nbf, iss,
sub, jti and the private `kubernetes.io` claim naming the namespace, the ServiceAccount and
the pod, secret or node it is bound to, with the pod's node), signed HS256 with a key each
server draws at random (kube-apiserver signs RS256 with its service-account signing key):
only the server that issued a token accepts it, and any change to it breaks the signature.

A review authenticates as pkg/serviceaccount/jwt.go and claims.go do: the issuer, the
signature, the audiences (the token's must meet the requested ones, or the server's API
audience when none are requested), the expiry (with go-jose's minute of leeway), then the
ServiceAccount and the bound objects, which must still exist with the uids of the claims.
The user is what k8s.io/apiserver pkg/authentication/serviceaccount's UserInfo makes, plus
the system:authenticated group kube-apiserver's authenticator adds. A refused token is still
a 201, whose status carries the error kube-apiserver's authenticator chain reports:
`[invalid bearer token, <why>]`.

Not implemented: the extended expiry of the kubelet's 3607-second tokens
(--service-account-extend-token-expiration), --service-account-max-token-expiration, legacy
Secret-based tokens, and every authenticator but ServiceAccount tokens."""
import base64
import hashlib
import hmac
import json
import os
import re
import time
import uuid

from . import errors
from .errors import FieldError
from .resources import ResourceType
from .util import get_path, parse_time, rfc3339

GROUP = "authentication.k8s.io"
ISSUER = "https://kubernetes.default.svc.cluster.local"  # --service-account-issuer
API_AUDIENCES = [ISSUER]  # --api-audiences defaults to the issuer
LEEWAY = 60  # go-jose's jwt.DefaultLeeway
MIN_EXPIRATION, MAX_EXPIRATION = 10 * 60, 1 << 32  # pkg/apis/authentication/validation
BOUND_KINDS = ("Pod", "Secret", "Node")
HEADER = b'{"alg":"HS256"}'
EXTRA = "authentication.kubernetes.io/"
INVALID = "invalid bearer token"
# What a serviceaccounts/token body decodes as (and what its 422s name); never registered.
TOKEN_REQUEST = ResourceType(GROUP, "v1", "tokenrequests", "TokenRequest")


class TokenReviews(ResourceType):
    verbs = ["create"]

    def __init__(self):
        super().__init__(GROUP, "v1", "tokenreviews", "TokenReview", namespaced=False)


class Unauthenticated(Exception):
    """Why a token does not authenticate: the review's status.error."""


def _refused(why):
    return Unauthenticated(f"[{INVALID}, {why}]")


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text):
    """base64.RawURLEncoding.DecodeString: no padding, nothing outside the alphabet."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _quoted(values):
    """Go's %q of a []string: ["a" "b"]."""
    return "[" + " ".join(json.dumps(v) for v in values) + "]"


def _ref(obj):
    """claims.go's ref{name, uid}, empty fields omitted."""
    meta = obj["metadata"]
    return {k: meta[k] for k in ("name", "uid") if meta.get(k)}


def _deleted(obj, now):
    """Deleted more than the leeway ago (claims.go's invalidIfDeletedBefore)."""
    t = parse_time(get_path(obj, "metadata", "deletionTimestamp"))
    return t is not None and t < now - LEEWAY


def _user(claims):
    """ServiceAccountInfo.UserInfo, with the system:authenticated group."""
    private = claims["kubernetes.io"]
    ns, sa = private["namespace"], private["serviceaccount"]
    extra = {f"{EXTRA}{kind}-{k}": [v] for kind in ("pod", "node")
             for k, v in private.get(kind, {}).items()}
    extra[EXTRA + "credential-id"] = ["JTI=" + claims["jti"]]
    return {"username": f"system:serviceaccount:{ns}:{sa['name']}", "uid": sa["uid"],
            "groups": ["system:serviceaccounts", f"system:serviceaccounts:{ns}",
                       "system:authenticated"], "extra": extra}


class Tokens:
    """One server's token issuer and authenticator, with its signing key."""

    def __init__(self, api, registry):
        self.api = api
        self.registry = registry
        self.key = os.urandom(32)

    def _get(self, plural, ns, name):
        """A core/v1 object (404 NotFound when absent)."""
        return self.api.get(self.registry.get("", "v1", plural), ns, name)

    def _find(self, plural, ns, name):
        try:
            return self._get(plural, ns, name)
        except errors.ApiError:
            return None

    def _mac(self, signing_input):
        return hmac.new(self.key, signing_input.encode(), hashlib.sha256).digest()

    def _sign(self, claims):
        payload = json.dumps(claims, sort_keys=True, separators=(",", ":")).encode()
        signing_input = _b64(HEADER) + "." + _b64(payload)
        return signing_input + "." + _b64(self._mac(signing_input))

    # ------------------------------------------------------------ TokenRequest

    def request(self, ns, name, body):
        """TokenREST.Create: the TokenRequest defaulted, with status.token and
        status.expirationTimestamp."""
        req = self.api._check_body(TOKEN_REQUEST, body)
        meta = req["metadata"]
        for f, want in (("name", name), ("namespace", ns)):
            if meta.get(f) and meta[f] != want:
                raise errors.invalid(GROUP, "TokenRequest", name, [FieldError(
                    "Invalid", f"metadata.{f}", meta[f],
                    f"must match the service account {f} if specified")])
        sa = self._get("serviceaccounts", ns, name)
        spec = req["spec"] = dict(req.get("spec") or {})
        spec["audiences"] = spec.get("audiences") or list(API_AUDIENCES)
        if spec.get("expirationSeconds") is None:
            spec["expirationSeconds"] = 3600  # SetDefaults_TokenRequestSpec
        seconds = spec["expirationSeconds"] = int(spec["expirationSeconds"])
        if not MIN_EXPIRATION <= seconds <= MAX_EXPIRATION:
            why = "less than 10 minutes" if seconds < MIN_EXPIRATION else \
                "larger than 2^32 seconds"
            raise errors.invalid(GROUP, "TokenRequest", "", [FieldError(
                "Invalid", "spec.expirationSeconds", seconds,
                f"may not specify a duration {why}")])
        bound = self._bound(ns, name, spec.get("boundObjectRef"))
        now = int(time.time())
        private = {"namespace": ns, "serviceaccount": _ref(sa)}
        private.update((kind, _ref(obj)) for kind, obj in bound.items())
        token = self._sign({"aud": spec["audiences"], "exp": now + seconds, "iat": now,
                            "iss": ISSUER, "jti": str(uuid.uuid4()), "kubernetes.io": private,
                            "nbf": now, "sub": f"system:serviceaccount:{ns}:{name}"})
        meta.update(name=name, namespace=ns, creationTimestamp=rfc3339(now))
        req["status"] = {"token": token, "expirationTimestamp": rfc3339(now + seconds)}
        return req

    def _bound(self, ns, sa_name, ref):
        """{"pod" | "secret" | "node": object} for a boundObjectRef, checked as
        TokenREST.Create checks it; a pod brings its node (name only if no such Node)."""
        if ref is None:
            return {}
        kind, name = ref.get("kind") or "", ref.get("name") or ""
        group, _, version = (ref.get("apiVersion") or "").rpartition("/")
        if group or kind not in BOUND_KINDS:
            raise errors.bad_request(
                f"cannot bind token to object of type {group}/{version}, Kind={kind}")
        obj = self._get(kind.lower() + "s", ns, name)
        bound = {kind.lower(): obj}
        if kind == "Pod":
            bound.update(self._pod_node(obj, sa_name))
        uid = obj["metadata"]["uid"]
        if ref.get("uid") and ref["uid"] != uid:
            raise errors.conflict("", kind, name, f"the UID in the bound object reference "
                                  f"({ref['uid']}) does not match the UID in record. The "
                                  "object might have been deleted and then recreated")
        return bound

    def _pod_node(self, pod, sa_name):
        """The pod must run as the ServiceAccount: a pod without serviceAccountName runs as
        "default", which kube-apiserver's ServiceAccount admission would have set (this
        server does not set it)."""
        if (get_path(pod, "spec", "serviceAccountName") or "default") != sa_name:
            raise errors.bad_request(f'cannot bind token for serviceaccount "{sa_name}" to '
                                     "pod running with different serviceaccount name.")
        node = get_path(pod, "spec", "nodeName")
        if not node:
            return {}
        return {"node": self._find("nodes", "", node) or {"metadata": {"name": node}}}

    # ------------------------------------------------------------ TokenReview

    def review(self, body):
        """The tokenreview REST's Create: the TokenReview with its status."""
        rev = self.api._check_body(self.registry.get(GROUP, "v1", "tokenreviews"), body)
        spec = rev.get("spec") or {}
        if not spec.get("token"):
            raise errors.bad_request("token is required for TokenReview in authentication")
        try:
            user, audiences = self.authenticate(spec["token"],
                                                spec.get("audiences") or API_AUDIENCES)
            rev["status"] = {"authenticated": True, "user": user, "audiences": audiences}
        except Unauthenticated as e:
            rev["status"] = {"user": {}, "error": str(e)}  # authenticated: false is omitted
        return rev

    def authenticate(self, token, audiences):
        """(user, audiences met) of a token, or Unauthenticated: jwt.go's AuthenticateToken,
        then claims.go's Validate."""
        claims = self._verified(token)
        met = [a for a in audiences if a in claims["aud"]]
        if not met:
            raise _refused(f"token audiences {_quoted(claims['aud'])} is invalid for the "
                           f"target audiences {_quoted(audiences)}")
        now = time.time()
        if now - LEEWAY > claims["exp"]:
            raise _refused("service account token has expired")
        private = claims["kubernetes.io"]
        self._check_service_account(private, now)
        # A pod-bound token's node is only reported; a node-bound one's is checked.
        for kind in ("secret", "pod") if "pod" in private else ("secret", "node"):
            if kind in private:
                self._check_bound(kind, private["namespace"], private[kind], now)
        return _user(claims), met

    def _verified(self, token):
        """The claims of a token this server signed: hasCorrectIssuer, jwt.ParseSigned, then
        the signature."""
        parts = token.split(".")
        try:
            if token.lstrip().startswith("{") or len(parts) != 3 or \
                    json.loads(_unb64(parts[1])).get("iss") != ISSUER:
                raise ValueError("not a token of this issuer")
            json.loads(_unb64(parts[0]))
            signature = _unb64(parts[2])
        except (ValueError, AttributeError):
            raise Unauthenticated(INVALID) from None
        if not hmac.compare_digest(signature, self._mac(parts[0] + "." + parts[1])):
            raise _refused("go-jose/go-jose: error in cryptographic primitive")
        return json.loads(_unb64(parts[1]))

    def _check_service_account(self, private, now):
        ns, ref = private["namespace"], private["serviceaccount"]
        try:
            sa = self._get("serviceaccounts", ns, ref["name"])
        except errors.ApiError as e:
            raise _refused(e.message) from None
        uid = sa["metadata"]["uid"]
        if uid != ref["uid"]:
            raise _refused(f"service account UID ({uid}) does not match claim ({ref['uid']})")
        if _deleted(sa, now):
            raise _refused(f"service account {ns}/{ref['name']} has been deleted")

    def _check_bound(self, kind, ns, ref, now):
        """The bound secret, pod or node must still exist, with the claim's uid."""
        obj = self._find(kind + "s", ns, ref["name"])
        if obj is None:
            raise _refused("service account token has been invalidated")
        uid = obj["metadata"]["uid"]
        if uid != ref["uid"]:
            raise _refused(f"{kind} UID ({uid}) does not match service account {kind} ref "
                           f"claim ({ref['uid']})")
        if _deleted(obj, now):
            raise _refused("service account token has been invalidated")
