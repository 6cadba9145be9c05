"""Name, label and ObjectMeta validation as k8s.io/apimachinery (pkg/util/validation,
pkg/api/validation) words it."""
import json
import re

from .errors import FieldError

DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN = DNS1123_LABEL + r"(\." + DNS1123_LABEL + r")*"
DNS1035_LABEL = r"[a-z]([-a-z0-9]*[a-z0-9])?"
QUALIFIED_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_VALUE = r"(" + QUALIFIED_NAME + r")?"

_re = {k: re.compile("^" + v + "$") for k, v in {
    "label": DNS1123_LABEL, "subdomain": DNS1123_SUBDOMAIN, "dns1035": DNS1035_LABEL,
    "qname": QUALIFIED_NAME, "lvalue": LABEL_VALUE}.items()}

MSG_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                 "characters, '-' or '.', and must start and end with an alphanumeric character "
                 "(e.g. 'example.com', regex used for validation is '" + DNS1123_SUBDOMAIN + "')")
MSG_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
             "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
             "'123-abc', regex used for validation is '" + DNS1123_LABEL + "')")
MSG_DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
               "start with an alphabetic character, and end with an alphanumeric character (e.g. "
               "'my-name',  or 'abc-123', regex used for validation is '" + DNS1035_LABEL + "')")
MSG_QNAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
             "'123-abc', regex used for validation is '" + QUALIFIED_NAME + "')")
MSG_LVALUE = ("a valid label must be an empty string or consist of alphanumeric characters, "
              "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
              "'MyValue',  or 'my_value',  or '12345', regex used for validation is '"
              + LABEL_VALUE + "')")


def dns_subdomain(name):
    """Problems with name as an RFC 1123 subdomain (empty list when valid)."""
    errs = []
    if len(name) > 253:
        errs.append("must be no more than 253 characters")
    if not _re["subdomain"].match(name):
        errs.append(MSG_SUBDOMAIN)
    return errs


def dns_label(name):
    errs = []
    if len(name) > 63:
        errs.append("must be no more than 63 characters")
    if not _re["label"].match(name):
        errs.append(MSG_LABEL)
    return errs


def dns1035_label(name):
    errs = []
    if len(name) > 63:
        errs.append("must be no more than 63 characters")
    if not _re["dns1035"].match(name):
        errs.append(MSG_DNS1035)
    return errs


def path_segment(name):
    """path.ValidatePathSegmentName: what any stored name must satisfy."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    for bad in ("/", "%"):
        if bad in name:
            return [f"may not contain '{bad}'"]
    return []


def qualified_name(key):
    """Label and annotation keys: [prefix/]name."""
    errs = []
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + e for e in dns_subdomain(prefix)]
    else:
        return ["a qualified name " + MSG_QNAME[len("name part "):] +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if name and not _re["qname"].match(name):
        errs.append(MSG_QNAME)
    return errs


def label_value(v):
    errs = []
    if len(v) > 63:
        errs.append("must be no more than 63 characters")
    if not _re["lvalue"].match(v):
        errs.append(MSG_LVALUE)
    return errs


NAME_VALIDATORS = {"subdomain": dns_subdomain, "label": dns_label, "dns1035": dns1035_label,
                   "path": path_segment}

ANNOTATIONS_MAX = 256 * 1024


def validate_labels(labels, path):
    errs = []
    if labels is None:
        return errs
    if not isinstance(labels, dict):
        return [FieldError("Invalid", path, labels, "must be an object")]
    for k, v in labels.items():
        for e in qualified_name(k):
            errs.append(FieldError("Invalid", path, k, e))
        if not isinstance(v, str):
            errs.append(FieldError("Invalid", f"{path}", v, "label values must be strings"))
            continue
        for e in label_value(v):
            errs.append(FieldError("Invalid", f"{path}", v, e))
    return errs


def validate_annotations(ann, path):
    errs = []
    if ann is None:
        return errs
    if not isinstance(ann, dict):
        return [FieldError("Invalid", path, ann, "must be an object")]
    total = 0
    for k, v in ann.items():
        for e in qualified_name(k.lower()):
            errs.append(FieldError("Invalid", path, k, e))
        if not isinstance(v, str):
            errs.append(FieldError("Invalid", path, v, "annotation values must be strings"))
            continue
        total += len(k) + len(v)
    if total > ANNOTATIONS_MAX:
        errs.append(FieldError("TooLong", path, None, f"must have at most {ANNOTATIONS_MAX} bytes"))
    return errs


def validate_owner_refs(refs, path):
    errs = []
    if refs is None:
        return errs
    if not isinstance(refs, list):
        return [FieldError("Invalid", path, refs, "must be an array")]
    controllers = []
    for i, r in enumerate(refs):
        p = f"{path}[{i}]"
        if not isinstance(r, dict):
            errs.append(FieldError("Invalid", p, r, "must be an object"))
            continue
        for f in ("apiVersion", "kind", "name", "uid"):
            if not r.get(f):
                errs.append(FieldError("Invalid", f"{p}.{f}", r.get(f, ""),
                                       f"{f} must not be empty" if f != "uid" else
                                       "uid must not be empty"))
        if r.get("controller") is True:
            controllers.append(r.get("name", ""))
    if len(controllers) > 1:
        errs.append(FieldError("Invalid", path, refs,
                               "Only one reference can have Controller set to true. Found \"true\" "
                               f"in references for {' and '.join(controllers)}"))
    return errs


ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"


def validate_finalizers(fins, path):
    errs = []
    if fins is None:
        return errs
    if not isinstance(fins, list):
        return [FieldError("Invalid", path, fins, "must be an array")]
    for i, f in enumerate(fins):
        if not isinstance(f, str):
            errs.append(FieldError("Invalid", f"{path}[{i}]", f, "must be a string"))
            continue
        for e in qualified_name(f):
            errs.append(FieldError("Invalid", f"{path}[{i}]", f, e))
    if ORPHAN in fins and FOREGROUND in fins:
        errs.append(FieldError("Invalid", path, FOREGROUND,
                               "finalizer 'foregroundDeletion' and 'orphan' cannot be both set"))
    return errs


def validate_meta(meta, namespaced, name_kind):
    """ValidateObjectMeta: the errors for a created or updated object's metadata."""
    errs = []
    name = meta.get("name", "")
    gen = meta.get("generateName", "")
    if not isinstance(name, str) or not isinstance(gen, str):
        return [FieldError("Invalid", "metadata.name", name, "must be a string")]
    if gen:
        base = gen[:-1] if gen.endswith("-") else gen
        for e in NAME_VALIDATORS[name_kind](base) if base else []:
            errs.append(FieldError("Invalid", "metadata.generateName", gen, e))
    if not name:
        errs.append(FieldError("Required", "metadata.name", None,
                               "name or generateName is required"))
    else:
        for e in NAME_VALIDATORS[name_kind](name) + (path_segment(name) if name_kind != "path"
                                                     else []):
            errs.append(FieldError("Invalid", "metadata.name", name, e))
    ns = meta.get("namespace", "")
    if namespaced:
        if not ns:
            errs.append(FieldError("Required", "metadata.namespace", None, ""))
        else:
            for e in dns_label(ns):
                errs.append(FieldError("Invalid", "metadata.namespace", ns, e))
    elif ns:
        errs.append(FieldError("Forbidden", "metadata.namespace", None, "not allowed on this type"))
    g = meta.get("generation", 0)
    if isinstance(g, int) and g < 0:
        errs.append(FieldError("Invalid", "metadata.generation", g,
                               "must be greater than or equal to 0"))
    errs += validate_labels(meta.get("labels"), "metadata.labels")
    errs += validate_annotations(meta.get("annotations"), "metadata.annotations")
    errs += validate_owner_refs(meta.get("ownerReferences"), "metadata.ownerReferences")
    errs += validate_finalizers(meta.get("finalizers"), "metadata.finalizers")
    return errs


def validate_meta_update(new, old):
    """ValidateObjectMetaUpdate: fields that never change, and no new finalizers while deleting."""
    errs = []
    for f in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp"):
        if new.get(f) != old.get(f) and not (f == "uid" and not new.get(f)):
            errs.append(FieldError("Invalid", f"metadata.{f}", new.get(f), "field is immutable"))
    if old.get("deletionTimestamp"):
        added = [f for f in new.get("finalizers") or [] if f not in (old.get("finalizers") or [])]
        if added:
            shown = ", ".join(json.dumps(a) for a in added)
            errs.append(FieldError("Forbidden", "metadata.finalizers", None,
                                   "no new finalizers can be added if the object is being "
                                   f"deleted, found new finalizers []string{{{shown}}}"))
    return errs
