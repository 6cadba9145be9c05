"""How the SDK's Kubernetes backend finds and authenticates to an API server, through the
jaxset binary's --kubeconfig/--context/-n (the project's test API server, started with the
flags each case needs): kubeconfig loading (KUBECONFIG merged, ~/.kube/config, contexts),
namespace precedence, bearer tokens, token files re-read when they change, exec plugins (v1
and v1beta1, renewed after a 401), client certificates (inline, files, from a plugin), CA
verification (data, file, tls-server-name, insecure-skip-tls-verify), configuration errors
naming the file and the entry, no binary, and an unreachable or silent server.  The binary's
own handling (the in-cluster configuration, credential caching within one process) is
tested in tests/unit/test_kc_cfg*.c."""
import json
import os
import socket
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import kubesdk  # noqa: E402
from kubesdk import Server, to_yaml  # noqa: E402

import jaxset  # noqa: E402
from jaxset import (ApiConnectionError, ApiError, KubeConfigError,  # noqa: E402
                    KubernetesBackendConfig, TrainingClient)

JOB = {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "probe"},
       "spec": {"jaxReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {
           "containers": [{"name": "jax", "image": "img"}]}}}}}}

PLUGIN = r'''import json, os, sys
state = sys.argv[1]
n = int(open(state).read()) + 1 if os.path.exists(state) else 1
open(state, "w").write(str(n))
info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
open(state + ".info", "w").write(json.dumps(info))
mode, api = sys.argv[2], sys.argv[3]
if mode == "fail":
    sys.stderr.write("plugin: no credentials for you\n")
    sys.exit(3)
status = {}
if mode.startswith("token"):
    good = sys.argv[4]
    status["token"] = "wrong" if mode == "token-bad-first" and n == 1 else good
elif mode == "cert":
    status["clientCertificateData"] = open(sys.argv[4]).read()
    status["clientKeyData"] = open(sys.argv[5]).read()
if os.environ.get("EXPIRES"):
    status["expirationTimestamp"] = os.environ["EXPIRES"]
print(json.dumps({"apiVersion": os.environ.get("ANSWER_API", api), "kind": "ExecCredential",
                  "status": status}))
'''


class ConfigTest(unittest.TestCase):

    servers = {}

    @classmethod
    def server(cls, *args):
        """One server per set of flags, shared by the tests of the module."""
        if args not in cls.servers:
            cls.servers[args] = Server(*args)
        return cls.servers[args]

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers.values():
            s.stop()
        cls.servers = {}

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="jaxset-kcfg-")
        self._env = {k: os.environ.get(k) for k in
                     ("KUBECONFIG", "HOME", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT",
                      "POD_NAMESPACE")}
        os.environ["KUBECONFIG"] = os.path.join(self.tmp, "none")
        os.environ["HOME"] = self.tmp
        for k in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE"):
            os.environ.pop(k, None)

    def tearDown(self):
        import shutil
        for k, v in self._env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------------

    def kc_doc(self, s):
        return jaxset.decode(s.kubeconfig)[0]

    def write(self, doc, name="kubeconfig", as_json=False):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc) if as_json else to_yaml(doc))
        return path

    def user(self, doc):
        u = doc["users"][0]
        if not isinstance(u.get("user"), dict):
            u["user"] = {}
        return u["user"]

    def probe(self, path=None, **kw):
        """A TrainingClient on the kubeconfig; lists JAXJobs (a request that needs auth)."""
        if path is not None:
            kw["config_file"] = path
        kw.setdefault("request_timeout", 10)
        c = TrainingClient(backend_config=KubernetesBackendConfig(**kw))
        c.list_jobs()
        return c

    def crds(self, s):
        """The test CRDs on a server started without them."""
        if s.get("/apis/kubeflow.org/v1/jaxjobs").status == 200:
            return
        for crd in kubesdk.test_crds():
            r = s.post(kubesdk.CRDS, crd)
            assert r.status in (201, 409), r
        kubesdk.wait(lambda: s.get("/apis/kubeflow.org/v1/jaxjobs").status == 200, "served")

    # -- loading and namespaces -----------------------------------------------------------

    def test_namespace_precedence(self):
        s = self.server()
        self.crds(s)
        doc = self.kc_doc(s)
        doc["contexts"][0]["context"]["namespace"] = "kube-system"
        path = self.write(doc)
        self.assertEqual(self.probe(path).namespace, "kube-system")        # the context's
        self.assertEqual(self.probe(path, namespace="kube-public").namespace, "kube-public")
        c = TrainingClient(config_file=path, namespace="default")            # explicit wins
        self.assertEqual(c.namespace, "default")
        del doc["contexts"][0]["context"]["namespace"]
        self.assertEqual(self.probe(self.write(doc, "nons")).namespace, "default")  # none
        # the job goes where the namespace says
        c = TrainingClient(backend_config=KubernetesBackendConfig(config_file=path))
        c.create_job(job=JOB)
        try:
            self.assertEqual(s.get("/apis/kubeflow.org/v1/namespaces/kube-system/jaxjobs/"
                                   "probe").status, 200)
        finally:
            c.delete_job("probe")

    def test_kubeconfig_files_merge(self):
        s = self.server()
        self.crds(s)
        real = self.kc_doc(s)
        a = {"apiVersion": "v1", "kind": "Config", "current-context": "main",
             "contexts": [{"name": "main", "context": {"cluster": "srv", "user": "u",
                                                       "namespace": "from-a"}}],
             "clusters": [], "users": []}
        b = {"apiVersion": "v1", "kind": "Config", "current-context": "other",
             "contexts": [{"name": "main", "context": {"cluster": "bad", "user": "u",
                                                       "namespace": "from-b"}},
                          {"name": "other", "context": {"cluster": "srv", "user": "u",
                                                        "namespace": "from-b-other"}}],
             "clusters": [{"name": "srv", "cluster": real["clusters"][0]["cluster"]},
                          {"name": "bad", "cluster": {"server": "http://127.0.0.1:1"}}],
             "users": [{"name": "u", "user": {}}]}
        pa, pb = self.write(a, "a"), self.write(b, "b", as_json=True)
        os.environ["KUBECONFIG"] = os.pathsep.join(
            [os.path.join(self.tmp, "missing"), pa, "", pb, pa])
        self.assertEqual(self.probe().namespace, "from-a")    # context from a, cluster from b
        self.assertEqual(self.probe(context="other").namespace, "from-b-other")
        with self.assertRaises(KubeConfigError) as cm:
            self.probe(context="nope")
        self.assertIn('context "nope" not found', str(cm.exception))
        self.assertIn(pa, str(cm.exception))                  # the files read are named
        # ~/.kube/config when KUBECONFIG is unset
        del os.environ["KUBECONFIG"]
        os.makedirs(os.path.join(self.tmp, ".kube"))
        self.write(real, os.path.join(".kube", "config"))
        self.assertEqual(self.probe().namespace, "default")

    def test_no_binary(self):
        s = self.server()
        nobin = os.path.join(self.tmp, "no-jaxset")
        with self.assertRaises(jaxset.BinaryNotFoundError) as cm:
            self.probe(self.write(self.kc_doc(s)), jaxset_bin=nobin)
        self.assertIn(nobin, str(cm.exception))

    def test_configuration_errors(self):
        s = self.server()
        doc = self.kc_doc(s)
        cases = []
        missing = os.path.join(self.tmp, "missing")
        cases.append(({"config_file": missing}, f"{missing}: No such file"))
        d = json.loads(json.dumps(doc))
        del d["current-context"]
        cases.append(({"config_file": self.write(d, "nocur")}, "no current-context"))
        d = json.loads(json.dumps(doc))
        d["contexts"][0]["context"]["cluster"] = "gone"
        cases.append(({"config_file": self.write(d, "nocluster")}, 'cluster "gone"'))
        d = json.loads(json.dumps(doc))
        self.user(d)["client-certificate-data"] = "AAAA"
        cases.append(({"config_file": self.write(d, "nokey")}, "client-key"))
        d = json.loads(json.dumps(doc))
        self.user(d)["exec"] = {"apiVersion": "client.authentication.k8s.io/v1alpha1",
                                "command": "x"}
        cases.append(({"config_file": self.write(d, "oldexec")}, "v1alpha1"))
        d = json.loads(json.dumps(doc))
        self.user(d)["auth-provider"] = {"name": "gcp"}
        cases.append(({"config_file": self.write(d, "gcp")}, "auth-provider"))
        d = json.loads(json.dumps(doc))
        d["clusters"][0]["cluster"]["certificate-authority"] = "ca.crt"
        d["clusters"][0]["cluster"]["certificate-authority-data"] = "AAAA"
        cases.append(({"config_file": self.write(d, "twoca")}, "both given"))
        d = json.loads(json.dumps(doc))
        self.user(d)["exec"] = {"apiVersion": "client.authentication.k8s.io/v1",
                                "command": "x", "interactiveMode": "Always"}
        cases.append(({"config_file": self.write(d, "interactive")}, "interactive"))
        cases.append(({}, "no kubeconfig"))  # KUBECONFIG names nothing, not in a cluster
        cases.append(({"config_file": self.write(doc, "ok"), "client_configuration": object()},
                      "client_configuration"))
        for kw, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    TrainingClient(backend_config=KubernetesBackendConfig(**kw))
                self.assertIn(text, str(cm.exception))

    # -- tokens ---------------------------------------------------------------------------

    def test_bearer_token(self):
        s = self.server("--token", "s3cret")
        self.crds(s)
        doc = self.kc_doc(s)
        self.assertEqual(self.user(doc)["token"], "s3cret")
        self.probe(self.write(doc))
        self.user(doc)["token"] = "wrong"
        with self.assertRaises(ApiError) as cm:
            self.probe(self.write(doc, "bad"))
        self.assertEqual((cm.exception.code, cm.exception.reason), (401, "Unauthorized"))

    def test_token_file_is_read_again_when_it_changes(self):
        s = self.server("--token", "s3cret")
        self.crds(s)
        doc = self.kc_doc(s)
        del self.user(doc)["token"]
        self.user(doc)["tokenFile"] = "tok"          # relative to the kubeconfig's folder
        with open(os.path.join(self.tmp, "tok"), "w", encoding="utf-8") as f:
            f.write("wrong\n")
        path = self.write(doc)
        c = TrainingClient(config_file=path)
        with self.assertRaises(ApiError) as cm:
            c.list_jobs()
        self.assertEqual(cm.exception.code, 401)
        with open(os.path.join(self.tmp, "tok"), "w", encoding="utf-8") as f:
            f.write("s3cret\n")
        self.assertEqual(c.list_jobs(), [])           # the same client, the new token

    # -- exec plugins ---------------------------------------------------------------------

    def plugin_doc(self, s, mode, api, *args, env=None):
        script = os.path.join(self.tmp, "plugin.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(PLUGIN)
        state = os.path.join(self.tmp, f"state-{mode}-{api.rsplit('/', 1)[1]}")
        doc = self.kc_doc(s)
        u = self.user(doc)
        u.pop("token", None)
        u.pop("client-certificate-data", None)
        u.pop("client-key-data", None)
        u["exec"] = {"apiVersion": api, "command": sys.executable,
                     "args": [script, state, mode, api, *args],
                     "env": [{"name": k, "value": v} for k, v in (env or {}).items()],
                     "provideClusterInfo": True, "interactiveMode": "Never"}
        return doc, state

    def calls(self, state):
        with open(state, encoding="utf-8") as f:
            return int(f.read())

    def test_exec_plugin_token(self):
        s = self.server("--token", "s3cret")
        self.crds(s)
        v1 = "client.authentication.k8s.io/v1"
        doc, state = self.plugin_doc(s, "token", v1, "s3cret",
                                     env={"EXPIRES": "2999-01-01T00:00:00Z"})
        self.probe(self.write(doc))
        self.assertEqual(self.calls(state), 1)
        with open(state + ".info", encoding="utf-8") as f:
            info = json.load(f)
        self.assertEqual((info["apiVersion"], info["kind"], info["spec"]["interactive"]),
                         (v1, "ExecCredential", False))
        self.assertEqual(info["spec"]["cluster"]["server"], f"http://127.0.0.1:{s.port}")
        # v1beta1
        beta = "client.authentication.k8s.io/v1beta1"
        doc, state = self.plugin_doc(s, "token", beta, "s3cret",
                                     env={"EXPIRES": "2000-01-01T00:00:00Z"})
        self.probe(self.write(doc, "beta"))
        self.assertEqual(self.calls(state), 1)
        # a 401 runs it again once: a token revoked before its expiry is renewed
        doc, state = self.plugin_doc(s, "token-bad-first", v1, "s3cret")
        self.probe(self.write(doc, "renew"))
        self.assertEqual(self.calls(state), 2)

    def test_exec_plugin_errors(self):
        s = self.server("--token", "s3cret")
        v1 = "client.authentication.k8s.io/v1"
        # the plugin runs when a request is sent: its failure is one of reaching the server
        doc, _ = self.plugin_doc(s, "fail", v1)
        with self.assertRaises(ApiConnectionError) as cm:
            self.probe(self.write(doc, "fail"))
        self.assertIn("exit code 3", str(cm.exception))
        self.assertIn("no credentials for you", str(cm.exception))
        doc, _ = self.plugin_doc(s, "token", v1, "s3cret",
                                 env={"ANSWER_API": "client.authentication.k8s.io/v1beta1"})
        with self.assertRaises(ApiConnectionError) as cm:
            self.probe(self.write(doc, "api"))
        self.assertIn("client.authentication.k8s.io/v1beta1", str(cm.exception))
        doc, _ = self.plugin_doc(s, "token", v1, "s3cret")
        self.user(doc)["exec"]["command"] = "no-such-plugin-xyz"
        self.user(doc)["exec"]["installHint"] = "install it from the wiki"
        with self.assertRaises(ApiConnectionError) as cm:
            self.probe(self.write(doc, "missing"))
        self.assertIn("install it from the wiki", str(cm.exception))

    # -- TLS ------------------------------------------------------------------------------

    def test_client_certificates(self):
        s = self.server("--tls", "--client-certs")
        self.crds(s)
        doc = self.kc_doc(s)
        self.assertIn("client-key-data", self.user(doc))
        self.probe(self.write(doc))
        # the same from files, relative to the kubeconfig
        u = self.user(doc)
        del u["client-certificate-data"], u["client-key-data"]
        import shutil
        for f in ("client.crt", "client.key"):
            shutil.copy(os.path.join(s.dir, f), os.path.join(self.tmp, f))
        u["client-certificate"], u["client-key"] = "client.crt", "client.key"
        self.probe(self.write(doc, "files"))
        # from an exec plugin
        d2, _ = self.plugin_doc(s, "cert", "client.authentication.k8s.io/v1",
                                os.path.join(s.dir, "client.crt"),
                                os.path.join(s.dir, "client.key"))
        self.probe(self.write(d2, "execcert"))
        del u["client-certificate"], u["client-key"]
        with self.assertRaises(ApiError) as cm:
            self.probe(self.write(doc, "nocert"))
        self.assertEqual(cm.exception.code, 401)

    def test_server_verification(self):
        s = self.server("--tls")
        self.crds(s)
        doc = self.kc_doc(s)
        cl = doc["clusters"][0]["cluster"]
        self.probe(self.write(doc))                                    # inline CA
        del cl["certificate-authority-data"]
        with self.assertRaises(ApiConnectionError) as cm:              # system CAs: refused
            self.probe(self.write(doc, "noca"))
        self.assertIn("certificate", str(cm.exception))
        cl["insecure-skip-tls-verify"] = True                          # only when set
        self.probe(self.write(doc, "insecure"))
        del cl["insecure-skip-tls-verify"]
        cl["certificate-authority"] = os.path.join(s.dir, "server.crt")
        self.probe(self.write(doc, "cafile"))                          # CA file
        cl["tls-server-name"] = "localhost"                            # a name of the cert
        self.probe(self.write(doc, "sni"))
        cl["tls-server-name"] = "elsewhere.example"
        with self.assertRaises(ApiConnectionError):
            self.probe(self.write(doc, "badsni"))
        del cl["tls-server-name"]
        cl["insecure-skip-tls-verify"] = True
        with self.assertRaises(KubeConfigError):                       # CA and insecure
            self.probe(self.write(doc, "both"))

    # -- unreachable ----------------------------------------------------------------------

    def test_unreachable_and_silent_servers(self):
        s = self.server()
        doc = self.kc_doc(s)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        doc["clusters"][0]["cluster"]["server"] = f"http://127.0.0.1:{port}"
        t0 = time.monotonic()
        with self.assertRaises(ApiConnectionError) as cm:
            self.probe(self.write(doc), request_timeout=2)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertIn(f"http://127.0.0.1:{port}", str(cm.exception))
        self.assertIn("cannot reach", str(cm.exception))
        with socket.socket() as silent:          # accepts connections, never answers
            silent.bind(("127.0.0.1", 0))
            silent.listen(8)
            doc["clusters"][0]["cluster"]["server"] = \
                f"http://127.0.0.1:{silent.getsockname()[1]}"
            t0 = time.monotonic()
            with self.assertRaises(ApiConnectionError) as cm:
                self.probe(self.write(doc, "silent"), request_timeout=1)
            took = time.monotonic() - t0
        self.assertGreaterEqual(took, 1)
        self.assertLess(took, 5)
        self.assertIn(doc["clusters"][0]["cluster"]["server"], str(cm.exception))


if __name__ == "__main__":
    kubesdk.main()
