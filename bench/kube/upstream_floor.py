"""The floor of bench_kube's `many`: every write upstream's JobSet controller makes for M new
JobSets, made by a bare client with upstream's parallelism (bench/kube/README.md).

What upstream's controller writes for a new JobSet of N Jobs on an API server without a Job
controller (kubernetes-sigs/jobset pkg/controllers/jobset_controller.go):

  Reconcile -> reconcile: calculateReplicatedJobStatuses gives one zeroed ReplicatedJobStatus
  per replicated Job, which differs from the empty status, so updateReplicatedJobsStatuses sets
  shouldUpdate; createHeadlessSvcIfNecessary POSTs the headless Service (its Get is served by
  the cache); reconcileReplicatedJobs -> createJobs POSTs the N Jobs, at most
  constants.MaxParallelism (50) at once (workqueue.ParallelizeUntil); then updateJobSetStatus
  makes one Status().Update (PUT .../jobsets/NAME/status: the whole object, status
  {restarts: 0, replicatedJobsStatus: [...]}) and records the events the pass queued: none on
  this path (events come with conditions, and a new JobSet's first pass sets none).  The
  passes the Jobs' ADDED events and the status write itself trigger compute the same status
  and write nothing.

So each JobSet costs 1 Service POST, N Job POSTs in parallel, then 1 status PUT, in that order.
Reconciles run one at a time: SetupWithManager sets no MaxConcurrentReconciles, so
controller-runtime's default of 1 holds; the client is rate limited to --kube-api-qps 500 and
--kube-api-burst 500 (main.go).  This floor does exactly those requests, in that order, with
`conc` passes at once (1 by default), each starting as soon as its JobSet's POST is answered
(the controller has no watch to wait for), through a token bucket of the same QPS and burst.
"""
import concurrent.futures
import http.client
import json
import queue
import threading
import time
import urllib.parse
import ssl

JS_API = "/apis/jobset.x-k8s.io/v1alpha2"


class Http:
    """Keep-alive connections to the server, one per thread (as many as requests in flight)."""

    def __init__(self, server_url, token):
        self.u = urllib.parse.urlparse(server_url)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.local = threading.local()
        self.ctx = ssl._create_unverified_context()

    def conn(self):
        c = getattr(self.local, "c", None)
        if c is None:
            if self.u.scheme == "https":
                c = http.client.HTTPSConnection(self.u.hostname, self.u.port, timeout=60,
                                                context=self.ctx)
            else:
                c = http.client.HTTPConnection(self.u.hostname, self.u.port, timeout=60)
            self.local.c = c
        return c

    def call(self, method, path, body, want):
        """One request; its decoded answer.  Raises unless the status is `want`."""
        c = self.conn()
        try:
            c.request(method, path, body=body, headers=self.headers)
            r = c.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException):
            self.local.c = None
            c.close()
            raise
        if r.status != want:
            raise RuntimeError(f"{method} {path}: {r.status} {data[:300]!r}")
        return data


class Bucket:
    """client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter): `qps` tokens a second,
    at most `burst` saved."""

    def __init__(self, qps, burst):
        self.qps, self.burst = qps, burst
        self.tokens, self.at = float(burst), time.monotonic()
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.qps)
            self.at = now
            self.tokens -= 1
            wait = -self.tokens / self.qps if self.tokens < 0 else 0
        if wait > 0:
            time.sleep(wait)


def status_of(js):
    """The status upstream's first pass writes: a zeroed ReplicatedJobStatus per replicated
    Job (calculateReplicatedJobStatuses) and restarts 0 (not omitempty)."""
    return {"restarts": 0, "replicatedJobsStatus": [
        {"name": rj["name"], "ready": 0, "succeeded": 0, "failed": 0, "active": 0,
         "suspended": 0} for rj in js["spec"]["replicatedJobs"]]}


class Floor:
    """For each JobSet i: `services[i]` and `jobs[i]` are the objects upstream creates (their
    namespace already set).  run() POSTs the JobSets with `post_par` in flight and reconciles
    each as it is answered; returns the time the first POST was sent (self.posted: how long
    until the last was answered)."""

    def __init__(self, cl, ns, jobsets, services, jobs, conc=1, par=50, qps=500, burst=500,
                 post_par=50):
        self.http = Http(cl.server_url, cl.token)
        self.ns, self.conc, self.par, self.post_par = ns, conc, par, post_par
        self.bucket = Bucket(qps, burst)
        enc = lambda o: json.dumps(o).encode()  # noqa: E731
        self.js = [enc(j) for j in jobsets]
        self.svc = [[enc(o) for o in s] for s in services]
        self.jobs = [[enc(o) for o in js] for js in jobs]
        self.writes = {}  # (verb, resource) -> count
        self.lock = threading.Lock()

    def write(self, method, resource, path, body, want):
        self.bucket.take()
        data = self.http.call(method, path, body, want)
        with self.lock:
            self.writes[(method, resource)] = self.writes.get((method, resource), 0) + 1
        return data

    def reconcile(self, i, created, pool):
        ns = self.ns
        for body in self.svc[i]:
            self.write("POST", "services", f"/api/v1/namespaces/{ns}/services", body, 201)
        jp = f"/apis/batch/v1/namespaces/{ns}/jobs"
        fs = [pool.submit(self.write, "POST", "jobs", jp, b, 201) for b in self.jobs[i]]
        for f in fs:
            f.result()
        js = json.loads(created)
        js["status"] = status_of(js)
        name = js["metadata"]["name"]
        self.write("PUT", "jobsets/status", f"{JS_API}/namespaces/{ns}/jobsets/{name}/status",
                   json.dumps(js).encode(), 200)

    def worker(self, q, pool, errors):
        while True:
            item = q.get()
            if item is None:
                return
            try:
                self.reconcile(*item, pool)
            except Exception as e:  # noqa: BLE001 -- reported by run()
                errors.append(e)

    def run(self):
        q = queue.Queue()
        errors = []
        path = f"{JS_API}/namespaces/{self.ns}/jobsets"
        # ParallelizeUntil's goroutines: at most `par` Job POSTs per pass, `conc` passes
        pool = concurrent.futures.ThreadPoolExecutor(self.par * self.conc)
        posters = concurrent.futures.ThreadPoolExecutor(self.post_par)
        workers = [threading.Thread(target=self.worker, args=(q, pool, errors), daemon=True)
                   for _ in range(self.conc)]
        for w in workers:
            w.start()

        def post(i):
            q.put((i, self.http.call("POST", path, self.js[i], 201)))

        t0 = time.monotonic()
        posted = [posters.submit(post, i) for i in range(len(self.js))]
        for f in posted:
            f.result()
        self.posted = time.monotonic() - t0
        for _ in workers:
            q.put(None)
        for w in workers:
            w.join()
        posters.shutdown()
        pool.shutdown()
        if errors:
            raise errors[0]
        return t0


def post_all(cl, ns, jobsets, post_par=50):
    """POSTs the JobSets as Floor.run does (same client, same parallelism); returns the time
    the first was sent (post_all.posted: how long until the last was answered)."""
    f = Floor(cl, ns, jobsets, [[] for _ in jobsets], [[] for _ in jobsets], post_par=post_par)
    h, path = f.http, f"{JS_API}/namespaces/{ns}/jobsets"
    with concurrent.futures.ThreadPoolExecutor(post_par) as posters:
        t0 = time.monotonic()
        for fut in [posters.submit(h.call, "POST", path, b, 201) for b in f.js]:
            fut.result()
        post_all.posted = time.monotonic() - t0
    return t0
