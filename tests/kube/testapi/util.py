"""Small helpers: time formats, names, JSON, deep equality."""
import datetime
import json
import random
import time

# rand.String of k8s.io/apimachinery/pkg/util/rand: no vowels, no 0/1/3 (avoids words and
# look-alikes); generateName appends five of these.
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_rng = random.SystemRandom()


def random_suffix(n=5):
    return "".join(_rng.choice(NAME_ALPHABET) for _ in range(n))


def now():
    return time.time()


def rfc3339(t=None):
    """metav1.Time: second precision, UTC, 'Z'."""
    t = now() if t is None else t
    return datetime.datetime.fromtimestamp(int(t), datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def rfc3339_micro(t=None):
    """metav1.MicroTime."""
    t = now() if t is None else t
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(s):
    """Seconds since the epoch of an RFC 3339 timestamp, or None."""
    if not isinstance(s, str) or not s:
        return None
    txt = s.replace("Z", "+00:00")
    try:
        return datetime.datetime.fromisoformat(txt).timestamp()
    except ValueError:
        return None


def human_duration(seconds):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        sec = s % 60
        return f"{minutes}m" if sec == 0 else f"{minutes}m{sec}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def dumpb(obj):
    return dumps(obj).encode("utf-8")


def copy(obj):
    """A deep copy of a JSON value (faster than copy.deepcopy for plain JSON)."""
    if isinstance(obj, dict):
        return {k: copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [copy(v) for v in obj]
    return obj


def equal(a, b):
    """JSON equality where 1 == 1.0 but True != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b if isinstance(a, bool) and isinstance(b, bool) else False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def get_path(obj, *path, default=None):
    cur = obj
    for p in path:
        if isinstance(cur, dict) and p in cur:
            cur = cur[p]
        elif isinstance(cur, list) and isinstance(p, int) and 0 <= p < len(cur):
            cur = cur[p]
        else:
            return default
    return cur


def ensure(obj, *path):
    """The dict at path inside obj, created as needed."""
    cur = obj
    for p in path:
        nxt = cur.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[p] = nxt
        cur = nxt
    return cur


def truthy_param(v):
    return v is not None and v.lower() in ("1", "true", "t", "yes", "y")
