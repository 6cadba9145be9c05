"""Kubernetes `Status` errors as the API server writes them (k8s.io/apimachinery
pkg/api/errors): the code, reason, message and details a client decodes.

Every failure inside the server is an ApiError; the HTTP layer turns it into a Status body."""


class ApiError(Exception):
    def __init__(self, code, reason, message, details=None, headers=None, list_continue=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers = headers or {}
        self.list_continue = list_continue

    def status(self):
        return status_object(self.code, self.reason, self.message, self.details,
                             self.list_continue)


def status_object(code, reason, message, details=None, list_continue=None):
    meta = {"continue": list_continue} if list_continue else {}
    st = {"kind": "Status", "apiVersion": "v1", "metadata": meta, "status": "Failure",
          "message": message}
    if reason:
        st["reason"] = reason
    if details is not None:
        st["details"] = details
    st["code"] = code
    return st


def success_status(name, group, resource, uid):
    """What a delete answers when the object is gone and the registry does not return it."""
    details = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = resource
    details["uid"] = uid
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": details}


def qualified(group, resource):
    """'jobs.batch', or 'pods' for the core group (schema.GroupResource.String)."""
    return f"{resource}.{group}" if group else resource


def _details(name, group, kind, **extra):
    d = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    if kind:
        d["kind"] = kind
    d.update(extra)
    return d


def not_found(group, resource, name):
    return ApiError(404, "NotFound", f'{qualified(group, resource)} "{name}" not found',
                    _details(name, group, resource))


def not_found_path():
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})


def already_exists(group, resource, name, deleting=False):
    msg = f'{qualified(group, resource)} "{name}" already exists'
    if deleting:
        msg = "object is being deleted: " + msg
    return ApiError(409, "AlreadyExists", msg, _details(name, group, resource))


OPTIMISTIC_LOCK = ("the object has been modified; please apply your changes to the latest "
                   "version and try again")


def conflict(group, resource, name, why=OPTIMISTIC_LOCK):
    return ApiError(409, "Conflict",
                    f'Operation cannot be fulfilled on {qualified(group, resource)} "{name}": {why}',
                    _details(name, group, resource))


OMIT = object()  # field.OmitValueType: the message leaves the value out


class FieldError:
    """One field.Error of k8s.io/apimachinery/pkg/util/validation/field."""

    REASONS = {
        "Required": "FieldValueRequired", "Invalid": "FieldValueInvalid",
        "Forbidden": "FieldValueForbidden", "Duplicate": "FieldValueDuplicate",
        "NotSupported": "FieldValueNotSupported", "TooLong": "FieldValueTooLong",
        "TooMany": "FieldValueTooMany", "TypeInvalid": "FieldValueTypeInvalid",
        "NotFound": "FieldValueNotFound",
    }

    def __init__(self, kind, field, value=None, detail=""):
        self.kind = kind
        self.field = field
        self.value = value
        self.detail = detail

    def body(self):
        k, d = self.kind, self.detail
        if k == "Required":
            return "Required value" + (f": {d}" if d else "")
        if k == "Forbidden":
            return "Forbidden" + (f": {d}" if d else "")
        if k == "Duplicate":
            return f"Duplicate value: {go_value(self.value)}"
        if k == "NotSupported":
            return f"Unsupported value: {go_value(self.value)}" + (f": {d}" if d else "")
        if k == "TooLong":
            return f"Too long: {d}" if d else "Too long"
        if k == "TooMany":
            return f"Too many: {d}" if d else "Too many"
        if k == "TypeInvalid":
            return f"Invalid value: {go_value(self.value)}: {d}"
        if k == "NotFound":
            return f"Not found: {go_value(self.value)}"
        if self.value is OMIT:
            return f"Invalid value: {d}"
        return f"Invalid value: {go_value(self.value)}" + (f": {d}" if d else "")

    def message(self):
        return f"{self.field}: {self.body()}" if self.field else self.body()

    def cause(self):
        return {"reason": self.REASONS.get(self.kind, "FieldValueInvalid"),
                "message": self.body(), "field": self.field}


def go_value(v):
    """A value as Go's %#v-ish rendering in field errors: strings quoted, numbers bare."""
    import json
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if v is None:
        return "null"
    return '"' + type(v).__name__.replace("dict", "object").replace("list", "array") + '"'


def invalid(group, kind, name, errors):
    """422 Invalid: '<Kind>.<group> "<name>" is invalid: <errors>' with one cause per error."""
    gk = f"{kind}.{group}" if group else kind
    msgs = [e.message() for e in errors]
    body = msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
    return ApiError(422, "Invalid", f'{gk} "{name}" is invalid: {body}',
                    _details(name, group, kind, causes=[e.cause() for e in errors]))


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def method_not_allowed(message="the server does not allow this method on the requested resource"):
    return ApiError(405, "MethodNotAllowed", message, {})


def unsupported_media_type(content_type, accepted):
    return ApiError(415, "UnsupportedMediaType",
                    f"the body of the request was in an unknown format - accepted media types "
                    f"include: {', '.join(accepted)}", {})


def not_acceptable(accepted):
    return ApiError(406, "NotAcceptable",
                    f"only the following media types are accepted: {', '.join(accepted)}", {})


def expired(message):
    return ApiError(410, "Expired", message)


def gone(message):
    return ApiError(410, "Gone", message)


def forbidden(group, resource, name, why, causes=None):
    res = qualified(group, resource)
    subject = f'{res} "{name}"' if name else res
    details = _details(name, group, resource)
    if causes:
        details["causes"] = causes
    return ApiError(403, "Forbidden", f"{subject} is forbidden: {why}", details)


def unauthorized():
    return ApiError(401, "Unauthorized", "Unauthorized")


def internal(message):
    return ApiError(500, "InternalError", f"Internal error occurred: {message}",
                    {"causes": [{"message": message}]})


def too_many_requests(retry_after=1):
    return ApiError(429, "TooManyRequests", "Too many requests, please try again later.",
                    {"causes": [{"message": "injected fault"}], "retryAfterSeconds": retry_after},
                    headers={"Retry-After": str(retry_after)})


def service_unavailable(message="the server is currently unable to handle the request",
                        retry_after=None):
    details = {"causes": [{"message": message}]}
    headers = {}
    if retry_after is not None:
        details["retryAfterSeconds"] = retry_after
        headers["Retry-After"] = str(retry_after)
    return ApiError(503, "ServiceUnavailable", message, details, headers=headers)


def timeout(message, retry_after=1):
    return ApiError(504, "Timeout", message, {"retryAfterSeconds": retry_after},
                    headers={"Retry-After": str(retry_after)})


def from_code(code, message=None, retry_after=None):
    """An error for an injected fault with HTTP status `code`."""
    if code == 429:
        return too_many_requests(retry_after or 1)
    if code == 503:
        return service_unavailable(message or "injected fault", retry_after)
    if code == 504:
        return timeout(message or "injected fault", retry_after or 1)
    if code == 500:
        e = internal(message or "injected fault")
        if retry_after is not None:
            e.headers["Retry-After"] = str(retry_after)
        return e
    if code == 410:
        return expired(message or "too old resource version")
    if code == 409:
        return ApiError(409, "Conflict", message or "injected conflict")
    if code == 404:
        return ApiError(404, "NotFound", message or "injected not found")
    if code == 401:
        return unauthorized()
    if code == 403:
        return ApiError(403, "Forbidden", message or "injected forbidden")
    reason = {400: "BadRequest", 502: "InternalError"}.get(code, "InternalError" if code >= 500
                                                            else "BadRequest")
    e = ApiError(code, reason, message or "injected fault")
    if retry_after is not None:
        e.headers["Retry-After"] = str(retry_after)
    return e
