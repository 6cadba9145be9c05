"""Server-side printing: meta.k8s.io/v1 Table responses for `kubectl get`."""
import time

NAME_DESC = ("Name must be unique within a namespace. Is required when creating resources, "
             "although some resources may allow a client to request the generation of an "
             "appropriate name automatically. Name is primarily intended for creation "
             "idempotence and configuration definition. Cannot be updated. More info: "
             "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
AGE_DESC = ("CreationTimestamp is a timestamp representing the server time when this object "
            "was created. It is not guaranteed to be set in happens-before order across "
            "separate operations. Clients may not set this value. It is represented in RFC3339 "
            "form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More "
            "info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
            "api-conventions.md#metadata")


def _row_object(obj, include):
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": obj.get("metadata", {})}


def table(rt, objs, include="Metadata", list_meta=None, version="v1"):
    """A Table of objs (views of rt), with rt's columns."""
    now = time.time()
    columns, rows = None, []
    for obj in objs:
        cols, cells, age = rt.table(obj, now)
        if age is not None:
            cols = cols + [("Age", "string", "")]
            cells = cells + [age]
        if columns is None:
            columns = cols
        row = {"cells": cells}
        ro = _row_object(obj, include)
        if ro is not None:
            row["object"] = ro
        rows.append(row)
    if columns is None:
        cols, _, age = rt.table({"metadata": {"name": ""}}, now)
        columns = cols + ([("Age", "string", "")] if age is not None else [])
    defs = []
    for name, typ, fmt in columns:
        desc = NAME_DESC if fmt == "name" else AGE_DESC if name == "Age" else name
        defs.append({"name": name, "type": "string" if typ == "date" else typ, "format": fmt,
                     "description": desc, "priority": 0})
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}",
            "metadata": list_meta or {}, "columnDefinitions": defs, "rows": rows}
