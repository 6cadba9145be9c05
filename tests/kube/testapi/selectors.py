"""Label and field selectors (k8s.io/apimachinery pkg/labels, pkg/fields).

parse_label_selector('app=x,tier in (a,b),!legacy') -> a matcher on a labels dict.
parse_field_selector('metadata.name=x') -> a list of (field, op, value)."""
import re

from . import errors
from .validation import label_value, qualified_name

_TOKEN = re.compile(r"\s*(==|!=|=|\(|\)|,|!|[^\s=!(),]+)")


class LabelSelector:
    def __init__(self, reqs):
        self.reqs = reqs  # list of (key, op, values)

    def empty(self):
        return not self.reqs

    def matches(self, labels):
        labels = labels or {}
        for key, op, values in self.reqs:
            has = key in labels
            v = labels.get(key)
            if op in ("=", "==", "in"):
                if not has or v not in values:
                    return False
            elif op in ("!=", "notin"):
                if has and v in values:
                    return False
            elif op == "exists":
                if not has:
                    return False
            elif op == "!":
                if has:
                    return False
            elif op in ("gt", "lt"):
                try:
                    lv = int(v)
                except (TypeError, ValueError):
                    return False
                if op == "gt" and not lv > int(values[0]):
                    return False
                if op == "lt" and not lv < int(values[0]):
                    return False
        return True


def _bad(sel, why):
    return errors.bad_request(f"unable to parse requirement: {why}" if why else
                              f"unable to parse selector {sel!r}")


def parse_label_selector(text):
    """Parses the string form; raises a 400 ApiError when malformed."""
    if text is None or not text.strip():
        return LabelSelector([])
    toks = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            break
        toks.append(m.group(1))
        pos = m.end()
        if text[pos:].strip() == "":
            break
    reqs = []
    i = 0

    def need(cond, why):
        if not cond:
            raise _bad(text, why)

    while i < len(toks):
        if toks[i] == "!":
            need(i + 1 < len(toks), "found '', expected: identifier")
            key = toks[i + 1]
            _check_key(key)
            reqs.append((key, "!", []))
            i += 2
        else:
            key = toks[i]
            need(key not in ("=", "==", "!=", "(", ")", ","), f"found '{key}', expected: !, "
                 "identifier, or 'end of string'")
            _check_key(key)
            i += 1
            if i >= len(toks) or toks[i] == ",":
                reqs.append((key, "exists", []))
            else:
                op = toks[i]
                i += 1
                if op in ("=", "==", "!="):
                    val = ""
                    if i < len(toks) and toks[i] not in (",",):
                        val = toks[i]
                        i += 1
                    _check_value(val)
                    reqs.append((key, op, [val]))
                elif op in ("in", "notin"):
                    need(i < len(toks) and toks[i] == "(", f"found '{toks[i] if i < len(toks) else ''}', expected: '('")
                    i += 1
                    vals = []
                    while i < len(toks) and toks[i] != ")":
                        if toks[i] != ",":
                            _check_value(toks[i])
                            vals.append(toks[i])
                        i += 1
                    need(i < len(toks), "found '', expected: ')'")
                    i += 1
                    need(vals or op == "notin", "for 'in', 'notin' operators, values set can't be empty")
                    reqs.append((key, op, vals))
                elif op in ("gt", "lt"):
                    need(i < len(toks), "found '', expected: value")
                    val = toks[i]
                    i += 1
                    need(re.fullmatch(r"-?\d+", val) is not None,
                         f"for 'Gt', 'Lt' operators, the value must be an integer")
                    reqs.append((key, op, [val]))
                else:
                    raise _bad(text, f"found '{op}', expected: in, notin, =, ==, !=, gt, lt")
        if i < len(toks):
            need(toks[i] == ",", f"found '{toks[i]}', expected: ',' or 'end of string'")
            i += 1
            need(i < len(toks), "found '', expected: identifier")
    return LabelSelector(reqs)


def _check_key(k):
    errs = qualified_name(k)
    if errs:
        raise errors.bad_request(f"unable to parse requirement: values[0][{k}]: Invalid value: "
                                 f"\"{k}\": {errs[0]}")


def _check_value(v):
    errs = label_value(v)
    if errs:
        raise errors.bad_request(f"unable to parse requirement: values[0][{v}]: Invalid value: "
                                 f"\"{v}\": {errs[0]}")


def selector_from_label_selector_object(sel):
    """A metav1.LabelSelector (matchLabels/matchExpressions) as a matcher; None matches nothing."""
    if sel is None:
        return None
    reqs = []
    for k, v in (sel.get("matchLabels") or {}).items():
        reqs.append((k, "=", [v]))
    for e in sel.get("matchExpressions") or []:
        op = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}.get(
            e.get("operator"))
        if op is None:
            return None
        reqs.append((e.get("key", ""), op, list(e.get("values") or [])))
    return LabelSelector(reqs)


def parse_field_selector(text, supported):
    """[(field, op, value)] for 'a=b,c!=d'; unsupported fields are a 400 as on a real server."""
    out = []
    if text is None or not text.strip():
        return out
    for part in _split_unescaped(text, ","):
        part = part.strip()
        if not part:
            continue
        for op in ("!=", "==", "="):
            idx = part.find(op)
            if idx > 0:
                field, value = part[:idx].strip(), part[idx + len(op):].strip()
                break
        else:
            raise errors.bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        value = value.replace("\\,", ",").replace("\\=", "=").replace("\\\\", "\\")
        if field not in supported:
            raise errors.bad_request(f'field label not supported: {field}')
        out.append((field, "!=" if op == "!=" else "=", value))
    return out


def _split_unescaped(s, sep):
    parts, cur, esc = [], "", False
    for ch in s:
        if esc:
            cur += "\\" + ch
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == sep:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def fields_match(reqs, fields):
    for f, op, v in reqs:
        have = fields.get(f, "")
        if op == "=" and have != v:
            return False
        if op == "!=" and have == v:
            return False
    return True
