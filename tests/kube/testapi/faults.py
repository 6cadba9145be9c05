"""Fault injection, driven by POST /__admin/faults.

A rule matches requests by verb (get, list, watch, create, update, patch, delete,
deletecollection or '*'), resource (plural or '*'), and optionally subresource, namespace and
name. A matching rule may add latency (seconds) and/or fail the request with `code` (a
Kubernetes Status of that code; 429, 503 and 504 carry Retry-After `retryAfter`). `count`
limits how many requests it hits (default 1; 0 means every request until cleared); `skip`
lets that many matching requests through first. Rules are tried in order; the first failing
rule wins, latencies add up."""
import threading

from . import errors

VERBS = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "*"}


class Rule:
    def __init__(self, spec):
        if not isinstance(spec, dict):
            raise errors.bad_request("a fault rule must be an object")
        self.verb = spec.get("verb", "*")
        if self.verb not in VERBS:
            raise errors.bad_request(f"unknown verb {self.verb!r}")
        self.resource = spec.get("resource", "*")
        self.subresource = spec.get("subresource")
        self.namespace = spec.get("namespace")
        self.name = spec.get("name")
        self.code = spec.get("code")
        self.latency = float(spec.get("latency", 0) or 0)
        self.retry_after = spec.get("retryAfter")
        self.message = spec.get("message")
        self.count = int(spec.get("count", 1))
        self.skip = int(spec.get("skip", 0))
        self.hits = 0
        if self.code is None and not self.latency:
            raise errors.bad_request("a fault rule needs a code or a latency")

    def matches(self, info):
        return (self.verb in ("*", info.verb) and self.resource in ("*", info.resource) and
                (self.subresource is None or self.subresource == info.subresource) and
                (self.namespace is None or self.namespace == info.namespace) and
                (self.name is None or self.name == info.name))

    def describe(self):
        return {"verb": self.verb, "resource": self.resource, "subresource": self.subresource,
                "namespace": self.namespace, "name": self.name, "code": self.code,
                "latency": self.latency, "retryAfter": self.retry_after, "count": self.count,
                "skip": self.skip, "hits": self.hits}


class Faults:
    def __init__(self):
        self.lock = threading.Lock()
        self.rules = []

    def add(self, specs):
        rules = [Rule(s) for s in (specs if isinstance(specs, list) else [specs])]
        with self.lock:
            self.rules.extend(rules)
        return len(rules)

    def clear(self):
        with self.lock:
            n = len(self.rules)
            self.rules = []
            return n

    def describe(self):
        with self.lock:
            return [r.describe() for r in self.rules]

    def check(self, info):
        """(latency seconds, ApiError or None) for a request."""
        latency, err = 0.0, None
        with self.lock:
            for r in list(self.rules):
                if not r.matches(info):
                    continue
                if r.skip > 0:
                    r.skip -= 1
                    continue
                r.hits += 1
                latency += r.latency
                if r.code is not None and err is None:
                    err = errors.from_code(int(r.code), r.message, r.retry_after)
                if r.count and r.hits >= r.count:
                    self.rules.remove(r)
        return latency, err
