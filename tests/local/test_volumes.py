"""`jaxset run` with volumes at their mountPath (docs/volumes.md): ConfigMap scripts, emptyDirs
shared by a pod's containers, tmpfs, Secrets, subPath, readOnly, claims kept across a gang
restart, hostPath, downwardAPI and projected volumes; nothing left on the host; the refusal,
before anything starts, where the kernel allows no namespace; validation errors."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, Run, main, test  # noqa: E402

RJ_POD = "spec.replicatedJobs[0].template.spec.template.spec"


def manifest(*docs):
    """JSON documents are YAML documents."""
    return "\n---\n".join(json.dumps(d) for d in docs) + "\n"


def config_map(name, data, kind="ConfigMap", field="data"):
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, field: data}


def py(name, script, mounts=(), **extra):
    c = {"name": name, "command": ["python3", "-c", script], "volumeMounts": list(mounts)}
    c.update(extra)
    return c


def jobset(name, containers, volumes, pods=1, restart="Never", spec=None, init=None,
           backoff=0):
    pod = {"restartPolicy": restart, "containers": containers, "volumes": volumes}
    if init:
        pod["initContainers"] = init
    rj = {"name": "w", "replicas": 1, "template": {"spec": {
        "parallelism": pods, "completions": pods, "backoffLimit": backoff,
        "template": {"spec": pod}}}}
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": name}, "spec": {"replicatedJobs": [rj]}}
    js["spec"].update(spec or {})
    return js


def mount(name, path, **kw):
    return dict(name=name, mountPath=path, **kw)


class Host:
    """What the host must still look like after a run: the mount paths that were absent stay
    absent, no mount of the run reaches the host's mount table."""

    def __init__(self, *paths):
        self.absent = [p for p in paths if not os.path.lexists(p)]

    def check(self, r):
        for p in self.absent:
            assert not os.path.lexists(p), f"{p} was left on the host\n" + r.describe()
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            assert r.home not in f.read(), "a mount of the run is in the host's mount table"
        for d in os.listdir(os.path.join(r.home, "runs")):
            run = os.path.join(r.home, "runs", d, "latest")
            assert not os.path.exists(os.path.join(run, "pod-volumes")), os.listdir(run)
        assert not r.leftovers(), r.leftovers()


def userns_ok():
    return shutil.which("unshare") and subprocess.run(
        ["unshare", "-Ur", "true"], capture_output=True).returncode == 0


TRAIN = """import os, errno
st = os.stat(__file__)
print('train', oct(st.st_mode & 0o777), os.path.dirname(os.path.abspath(__file__)), os.getuid())
try:
    open('/scripts/new', 'w')
except OSError as e:
    print('write refused:', errno.errorcode[e.errno])
"""


def script_manifest(name="cmscript"):
    vol = {"name": "scripts", "configMap": {"name": "train-script", "defaultMode": 0o750}}
    c = {"name": "c", "command": ["python3", "/scripts/train.py"],
         "volumeMounts": [mount("scripts", "/scripts")]}
    return manifest(config_map("train-script", {"train.py": TRAIN}),
                    jobset(name, [c], [vol]))


@test
def configmap_script_runs_from_scripts():
    host = Host("/scripts")
    r = Run(script_manifest()).run()
    assert r.rc == 0, r.describe()
    assert f"[cmscript-w-0-0] train 0o750 /scripts {os.getuid()}" in r.out, r.describe()
    assert "write refused: EROFS" in r.out, r.describe()  # configMap volumes are read-only
    host.check(r)


@test
def configmap_script_example():
    host = Host("/scripts", "/workspace", "/etc/podinfo")
    r = Run.example("configmap-script.yaml").run()
    assert r.rc == 0, r.describe()
    for i in range(2):
        assert (f"[cm-train-workers-0-{i}] process {i}/2 (restart attempt 0): steps 0..100, "
                f"checkpoint /workspace/checkpoints/rank{i}.step") in r.out, r.describe()
        claim = os.path.join(r.run_dir("cm-train"), "volumes", "checkpoints-cm-train")
        with open(os.path.join(claim, f"rank{i}.step")) as f:
            assert f.read() == "100"
    host.check(r)


@test
def user_namespace_when_not_root():
    # as root the pod gets a mount namespace only; as another user a user namespace too, the
    # user's own uid mapped to itself: run one as uid 1000 of a user namespace to see it
    if os.geteuid() != 0:
        return  # configmap_script_runs_from_scripts ran without root already
    if not userns_ok():
        print("  (no user namespaces here: not checked)")
        return
    r = Run(script_manifest("rootless"))
    r.args = ["unshare", "-U", "--map-user=1000", "--map-group=1000"] + r.args
    r.run()
    assert r.rc == 0, r.describe()
    assert "[rootless-w-0-0] train 0o750 /scripts 1000" in r.out, r.describe()
    assert "write refused: EROFS" in r.out, r.describe()


WRITER = """import os
for d in ('/tmp/cache', '/dev/shm'):
    with open(d + '/tmp', 'w') as f:
        f.write('from ' + d)
    os.rename(d + '/tmp', d + '/msg')
"""

READER = """import os, sys, time
end = time.monotonic() + 30
while not (os.path.exists('/tmp/cache/msg') and os.path.exists('/dev/shm/msg')):
    if time.monotonic() > end:
        sys.exit('no message')
    time.sleep(0.02)
for d in ('/tmp/cache', '/dev/shm'):
    print('read', open(d + '/msg').read())
print('init said', open('/tmp/cache/init').read())
s = os.statvfs('/dev/shm')
print('shm bytes', s.f_blocks * s.f_frsize)
print('home seen', os.path.isdir(os.environ['TEST_HOME']))
"""


@test
def empty_dir_shared_by_a_pods_containers():
    host = Host("/tmp/cache")
    mounts = [mount("cache", "/tmp/cache"), mount("shm", "/dev/shm")]
    init = [py("init", "open('/tmp/cache/init', 'w').write('hello')", mounts[:1])]
    vols = [{"name": "cache", "emptyDir": {}},
            {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}}]
    r = Run(manifest(jobset("shared", [py("writer", WRITER, mounts),
                                       py("reader", READER, mounts)], vols, init=init)))
    r.env["TEST_HOME"] = r.home  # under /tmp, which /tmp/cache shadows: its entries stay
    r.run()
    assert r.rc == 0, r.describe()
    for line in ("read from /tmp/cache", "read from /dev/shm", "init said hello",
                 f"shm bytes {16 * 1024 * 1024}", "home seen True"):
        assert f"[shared-w-0-0/reader] {line}" in r.out, r.describe()
    host.check(r)


KEEP = """import os, sys
if os.path.exists('/scratch/first'):
    print('restarted, emptyDir kept')
    sys.exit(0)
open('/scratch/first', 'w').close()
sys.exit(1)
"""


@test
def empty_dir_survives_a_container_restart():
    r = Run(manifest(jobset("keep", [py("c", KEEP, [mount("s", "/scratch")])],
                            [{"name": "s", "emptyDir": {}}], restart="OnFailure",
                            backoff=3))).run()
    assert r.rc == 0, r.describe()
    assert "[keep-w-0-0] restarted, emptyDir kept" in r.out, r.describe()


SECRET = """import os, errno
def mode(p): return oct(os.stat(p).st_mode & 0o777)
print('token', mode('/secret/token'), open('/secret/token').read()[::-1] == 'terc3s')
print('user', mode('/secret/user'), open('/secret/user').read())
print('item', mode('/items/sub/tok'), sorted(os.listdir('/items')))
print('conf', open('/etc/app.conf').read(), os.path.exists('/etc/hostname'))
open('/work/f', 'w').write('x')
try:
    open('/ro/f', 'w')
except OSError as e:
    print('ro', errno.errorcode[e.errno])
"""


@test
def secret_modes_sub_path_and_read_only():
    host = Host("/secret", "/items", "/work", "/ro", "/etc/app.conf")
    token = base64.b64encode(b"s3cret").decode()
    secret = config_map("creds", {"token": token}, kind="Secret")
    secret["stringData"] = {"user": "me"}
    vols = [{"name": "creds", "secret": {"secretName": "creds", "defaultMode": 0o400}},
            {"name": "some", "secret": {"secretName": "creds", "items": [
                {"key": "token", "path": "sub/tok", "mode": 0o440}]}},
            {"name": "conf", "configMap": {"name": "conf"}},
            {"name": "work", "emptyDir": {}}, {"name": "ro", "emptyDir": {}}]
    mounts = [mount("creds", "/secret"), mount("some", "/items"),
              mount("conf", "/etc/app.conf", subPath="app.conf"),
              mount("work", "/work", subPath="a/b"), mount("ro", "/ro", readOnly=True)]
    r = Run(manifest(secret, config_map("conf", {"app.conf": "debug=1"}),
                     jobset("sec", [py("c", SECRET, mounts)], vols))).run()
    assert r.rc == 0, r.describe()
    for line in ("token 0o400 True", "user 0o400 me", "item 0o440 ['sub']",
                 "conf debug=1 True", "ro EROFS"):
        assert f"[sec-w-0-0] {line}" in r.out, r.describe()
    run_dir = r.run_dir("sec")
    assert os.stat(run_dir).st_mode & 0o777 == 0o700
    for root, _, files in os.walk(r.home):  # the Secret's files went with the pod
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                assert b"s3cret" not in f.read(), os.path.join(root, name)
    host.check(r)


CKPT = """import os, sys, time
attempt, i = os.environ['ATTEMPT'], os.environ['JOB_COMPLETION_INDEX']
path = '/data/ckpt/step'
if attempt == '0':
    if i == '0':
        open(path + '.tmp', 'w').write('100')
        os.rename(path + '.tmp', path)
        sys.exit(0)
    end = time.monotonic() + 30
    while not os.path.exists(path) and time.monotonic() < end:
        time.sleep(0.02)
    print('pod 1 saw the checkpoint of pod 0:', open(path).read())
    sys.exit(1)
print('attempt', attempt, 'resumed from', open(path).read())
"""


def ckpt_job(name):
    c = py("c", CKPT, [mount("ckpt", "/data/ckpt")], env=[{"name": "ATTEMPT", "valueFrom": {
        "fieldRef": {"fieldPath": "metadata.labels['jobset.sigs.k8s.io/restart-attempt']"}}}])
    vols = [{"name": "ckpt", "persistentVolumeClaim": {"claimName": "ckpt"}}]
    return manifest(jobset(name, [c], vols, pods=2, spec={"failurePolicy": {"maxRestarts": 1}}))


@test
def claim_shared_by_pods_and_kept_across_a_gang_restart():
    host = Host("/data")
    r = Run(ckpt_job("ckpt")).run()
    assert r.rc == 0, r.describe()
    assert "[ckpt-w-0-1] pod 1 saw the checkpoint of pod 0: 100" in r.out, r.describe()
    for i in range(2):
        assert f"[ckpt-w-0-{i}] attempt 1 resumed from 100" in r.out, r.describe()
    with open(os.path.join(r.run_dir("ckpt"), "volumes", "ckpt", "step")) as f:
        assert f.read() == "100"
    host.check(r)


@test
def pvc_flag_maps_a_claim_to_a_directory():
    d = tempfile.mkdtemp(prefix="jaxset-pvc-")
    try:
        r = Run(ckpt_job("mapped"), "--pvc", f"ckpt={d}").run()
        assert r.rc == 0, r.describe()
        with open(os.path.join(d, "step")) as f:
            assert f.read() == "100"
        assert os.stat(os.path.join(d, "step")).st_uid == os.getuid()
        r = Run(ckpt_job("typo"), "--pvc", f"ckpt2={d}").run()
        assert r.rc == 2 and 'no pod of the job mounts a claim named "ckpt2"' in r.err, \
            r.describe()
        r = Run(ckpt_job("nodir"), "--pvc", f"ckpt={d}/missing").run()
        assert r.rc == 2 and "is not a directory" in r.err, r.describe()
    finally:
        shutil.rmtree(d)


INFO = """import os
print('labels', open('/etc/podinfo/labels').read().splitlines())
print('name', open('/etc/podinfo/name').read())
print('cpu', open('/etc/podinfo/cpu').read())
print('projected', sorted(os.listdir('/projected')), open('/projected/ns').read())
open('/data/in/out.txt', 'w').write('written in the pod')
"""


@test
def host_path_downward_api_and_projected():
    host = Host("/etc/podinfo", "/projected", "/data")
    r = Run("")
    hp = os.path.join(r.home, "hp")
    vols = [{"name": "hp", "hostPath": {"path": hp, "type": "DirectoryOrCreate"}},
            {"name": "info", "downwardAPI": {"items": [
                {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}},
                {"path": "cpu", "resourceFieldRef": {"containerName": "c",
                                                     "resource": "limits.cpu",
                                                     "divisor": "1m"}}]}},
            {"name": "proj", "projected": {"sources": [
                {"configMap": {"name": "conf", "items": [{"key": "k", "path": "k.txt"}]}},
                {"downwardAPI": {"items": [
                    {"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}]}}]}}]
    mounts = [mount("hp", "/data/in"), mount("info", "/etc/podinfo"),
              mount("proj", "/projected")]
    c = py("c", INFO, mounts, resources={"limits": {"cpu": "1500m"}})
    with open(r.path, "w", encoding="utf-8") as f:
        f.write(manifest(config_map("conf", {"k": "v"}), jobset("info", [c], vols)))
    r.run()
    assert r.rc == 0, r.describe()
    assert 'jobset.sigs.k8s.io/jobset-name="info"' in r.out, r.describe()
    assert "[info-w-0-0] name info-w-0-0-" in r.out, r.describe()
    assert "[info-w-0-0] cpu 1500" in r.out, r.describe()
    assert "[info-w-0-0] projected ['k.txt', 'ns'] default" in r.out, r.describe()
    with open(os.path.join(hp, "out.txt")) as f:
        assert f.read() == "written in the pod"
    host.check(r)


@test
def pods_without_volumes_share_the_host_namespace():
    # no volumeMounts: no namespace, the launch costs what it cost before volumes
    c = py("c", "import os; print('ns', os.readlink('/proc/self/ns/mnt'))")
    r = Run(manifest(jobset("plain", [c], []))).run()
    assert r.rc == 0, r.describe()
    assert f"[plain-w-0-0] ns {os.readlink('/proc/self/ns/mnt')}" in r.out, r.describe()


LIMIT = ("echo 1 > /proc/sys/user/max_user_namespaces || exit 99; "
         'g="$1"; shift; exec unshare -U --map-user="$0" --map-group="$g" "$@"')


@test
def no_namespaces_refused_before_anything_starts():
    # a user namespace whose limit allows no more (user.max_user_namespaces, counted in every
    # ancestor namespace): jaxset, a user of the innermost one, may create none
    if not userns_ok() and os.geteuid() == 0:
        print("  (no user namespaces, and root needs none: not checked)")
        return
    if not userns_ok():
        r = Run(script_manifest("nons"))  # the machine itself refuses them
    else:
        uid = str(os.getuid() or 1000)
        r = Run(script_manifest("nons"))
        r.args = ["unshare", "-Ur", "sh", "-c", LIMIT, uid, uid] + r.args
    r.run()
    if r.rc == 99:
        print("  (cannot lower user.max_user_namespaces here: not checked)")
        return
    assert r.rc == 2, r.describe()
    assert (f"{RJ_POD}.containers[0].volumeMounts[0] (configMap volume \"scripts\" at "
            "/scripts): the pods' volumes cannot be mounted here") in r.err, \
        r.describe()
    assert "--volumes=skip" in r.err, r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), os.listdir(r.home)
    if userns_ok():
        assert "user.max_user_namespaces" in r.err, r.describe()
        r.args.insert(r.args.index("run") + 2, "--volumes=skip")
        r.run()
        assert r.rc == 1, r.describe()  # the script is not there without its volume
        assert "is not mounted (--volumes=skip)" in r.err, r.describe()


def invalid(name, vols, mounts, extra_docs=(), init=None):
    return manifest(*extra_docs, jobset(name, [py("c", "pass", mounts)], vols, init=init))


INVALID = [
    ("unknown", invalid("unknown", [], [mount("nope", "/d")]),
     f'{RJ_POD}.containers[0].volumeMounts[0].name: Not found: "nope"'),
    ("nocm", invalid("nocm", [{"name": "v", "configMap": {"name": "missing"}}],
                     [mount("v", "/d")]),
     f'{RJ_POD}.volumes[0].configMap.name: Not found: "missing": jaxset run reads ConfigMaps'),
    ("nokey", invalid("nokey", [{"name": "v", "configMap": {"name": "cm", "items": [
        {"key": "x", "path": "x"}]}}], [mount("v", "/d")], [config_map("cm", {"y": "1"})]),
     f'{RJ_POD}.volumes[0].configMap.items[0].key: Not found: "x"'),
    ("dup", invalid("dup", [{"name": "v"}], [mount("v", "/d"), mount("v", "/d")]),
     f'{RJ_POD}.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique'),
    ("rel", invalid("rel", [{"name": "v"}], [mount("v", "data")]),
     f'{RJ_POD}.containers[0].volumeMounts[0].mountPath: Invalid value: "data": must be an '
     "absolute path"),
    ("nfs", invalid("nfs", [{"name": "v", "nfs": {"server": "s", "path": "/"}}],
                    [mount("v", "/d")]),
     f'{RJ_POD}.volumes[0]: volume "v": nfs volumes are not supported by jaxset run'),
    ("token", invalid("token", [{"name": "v", "projected": {"sources": [
        {"serviceAccountToken": {"path": "t"}}]}}], [mount("v", "/d")]),
     f"{RJ_POD}.volumes[0].projected.sources[0]: only configMap, secret and downwardAPI"),
    ("hostfile", invalid("hostfile", [{"name": "v", "hostPath": {
        "path": "/nonexistent/jaxset-file", "type": "File"}}], [mount("v", "/d")]),
     f"{RJ_POD}.volumes[0].hostPath: /nonexistent/jaxset-file (type File): No such file"),
    ("initmnt", invalid("initmnt", [], [], init=[py("i", "pass", [mount("w", "/d")])]),
     f'{RJ_POD}.initContainers[0].volumeMounts[0].name: Not found: "w"'),
    # no claim is named so; the run directory itself or every claim would be mounted
    ("dotdot", invalid("dotdot", [{"name": "v", "persistentVolumeClaim": {"claimName": ".."}}],
                       [mount("v", "/d")]),
     f'{RJ_POD}.volumes[0].persistentVolumeClaim.claimName: Invalid value: ".."'),
    ("dot", invalid("dot", [{"name": "v", "persistentVolumeClaim": {"claimName": "."}}],
                    [mount("v", "/d")]),
     f'{RJ_POD}.volumes[0].persistentVolumeClaim.claimName: Invalid value: "."'),
    ("rootdot", invalid("rootdot", [{"name": "v"}], [mount("v", "/.")]),
     f'{RJ_POD}.containers[0].volumeMounts[0].mountPath: Invalid value: "/.": cannot be '
     "mounted over the root"),
    ("itemup", invalid("itemup", [{"name": "v", "configMap": {"name": "cm", "items": [
        {"key": "k", "path": "..data/x"}]}}], [mount("v", "/d")], [config_map("cm", {"k": "1"})]),
     f'{RJ_POD}.volumes[0].configMap.items[0].path: Invalid value: "..data/x": must not start '
     "with '..'"),
    ("ours", invalid("ours", [{"name": "v"}], [mount("v", "//.jaxset-host/tmp/x")]),
     f'{RJ_POD}.containers[0].volumeMounts[0].mountPath: Invalid value: "//.jaxset-host/tmp/x": '
     "/.jaxset-host is jaxset run's own"),
    ("hostup", invalid("hostup", [{"name": "v", "hostPath": {"path": "/tmp/../etc"}}],
                       [mount("v", "/d")]),
     f'{RJ_POD}.volumes[0].hostPath.path: Invalid value: "/tmp/../etc": must not contain \'..\''),
]


@test
def invalid_volumes_exit_2_in_validate_and_run():
    for name, text, want in INVALID:
        r = Run(text)
        v = subprocess.run([BIN, "validate", r.path], capture_output=True, text=True)
        assert v.returncode == 2 and want in v.stderr, (name, v.stderr)
        r.run()
        assert r.rc == 2 and want in r.err, (name, r.describe())
        assert not os.path.exists(os.path.join(r.home, "runs")), (name, os.listdir(r.home))
        assert not r.leftovers(), name


@test
def sub_path_through_a_link_out_of_the_volume_makes_nothing_outside():
    # kubernetes subpath_linux.go doSafeMakeDir: checked before anything is made, not after
    r0 = Run("")
    vol, out = os.path.join(r0.home, "vol"), os.path.join(r0.home, "outside")
    os.makedirs(os.path.join(vol, "real"))
    os.makedirs(out)
    os.symlink(out, os.path.join(vol, "link"))
    os.symlink("real", os.path.join(vol, "in"))  # a link that stays in the volume is followed
    for kind, source, args in (
            ("hostPath", {"hostPath": {"path": vol}}, ()),
            ("pvc", {"persistentVolumeClaim": {"claimName": "data"}}, ("--pvc", f"data={vol}"))):
        for sub, ok in (("link/new/deeper", False), ("in/new", True)):
            c = py("c", "open('/d/f', 'w').write('x'); print('ran')", [mount("v", "/d",
                                                                                 subPath=sub)])
            r = Run(manifest(jobset(f"sub{kind.lower()}", [c], [dict(name="v", **source)])),
                    *args).run()
            if ok:
                assert r.rc == 0 and "] ran" in r.out, (kind, r.describe())
                assert os.path.exists(os.path.join(vol, "real", "new", "f")), kind
                continue
            assert r.rc != 0 and "subPath link/new/deeper leads out of the volume" in \
                r.out + r.err, (kind, r.describe())
            assert os.listdir(out) == [], (kind, os.listdir(out))  # nothing made at the target
            assert not r.leftovers(), kind


RO_CLAIM = """import errno, os
for p in ('/ckpt/x', os.environ['CLAIM'] + '/x', os.environ['HP'] + '/x', '/rw/x'):
    try:
        open(p, 'w').write('x')
        print('wrote', p)
    except OSError as e:
        print('refused', p, errno.errorcode[e.errno])
"""


@test
def read_only_volumes_are_read_only_where_their_source_lies_too():
    # a pod finds the run directory (NSS_WRAPPER_HOSTS): a read-only claim's directory there,
    # and a read-only hostPath at its own path, refuse writes as the mount does
    r = Run("")
    hp = os.path.join(r.home, "hp")
    os.makedirs(hp)
    claim = os.path.join(r.home, "runs", "roclaim", "latest", "volumes", "ckpt")
    c = py("c", RO_CLAIM, [mount("ckpt", "/ckpt"), mount("hp", "/hp", readOnly=True),
                           mount("rw", "/rw")],
           env=[{"name": "CLAIM", "value": claim}, {"name": "HP", "value": hp}])
    vols = [{"name": "ckpt", "persistentVolumeClaim": {"claimName": "ckpt", "readOnly": True}},
            {"name": "hp", "hostPath": {"path": hp}}, {"name": "rw", "emptyDir": {}}]
    with open(r.path, "w", encoding="utf-8") as f:
        f.write(manifest(jobset("roclaim", [c], vols)))
    r.run()
    assert r.rc == 0, r.describe()
    for p in ("/ckpt/x", claim + "/x", hp + "/x"):
        assert f"[roclaim-w-0-0] refused {p} EROFS" in r.out, r.describe()
    assert "[roclaim-w-0-0] wrote /rw/x" in r.out, r.describe()
    assert os.listdir(hp) == [] and not os.path.exists(os.path.join(r.run_dir("roclaim"),
                                                                    "volumes", "ckpt", "x"))


NESTED = """import os
d = os.environ['D']
for p in (d + '/x/f', d + '/sub/y/f'):
    open(p, 'w').write(p)
print('entries', len(os.listdir(d)), os.path.exists(d + '/e299'), sorted(os.listdir(d + '/sub')))
"""


@test
def nested_mounts_in_a_host_directory_of_more_than_256_entries():
    # the directory is shadowed by links into /.jaxset-host; its subdirectory sub, shadowed
    # in turn for y, lies where the link leads
    d = tempfile.mkdtemp(prefix="jaxset-big-")
    try:
        for i in range(300):
            open(os.path.join(d, f"e{i}"), "w").close()
        os.makedirs(os.path.join(d, "sub", "kept"))
        host = Host(os.path.join(d, "x"), os.path.join(d, "sub", "y"))
        c = py("c", NESTED, [mount("a", d + "/x"), mount("b", d + "/sub/y")],
               env=[{"name": "D", "value": d}])
        r = Run(manifest(jobset("nested", [c], [{"name": "a", "emptyDir": {}},
                                                {"name": "b", "emptyDir": {}}]))).run()
        assert r.rc == 0, r.describe()
        assert "[nested-w-0-0] entries 302 True ['kept', 'y']" in r.out, r.describe()
        host.check(r)
    finally:
        shutil.rmtree(d)


MANY = """n = sum(1 for line in open('/proc/self/mountinfo') if line.split()[4].startswith('/m/'))
print('mounts', n)
"""


@test
def a_thousand_volume_mounts_start_or_are_refused_before_anything_starts():
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    c = py("c", MANY, [mount("v", f"/m/{i}") for i in range(1100)])
    text = manifest(jobset("many", [c], [{"name": "v", "emptyDir": {}}]))
    if hard == resource.RLIM_INFINITY or hard >= 2000:  # the soft limit is raised for them
        r = Run(text)
        r.args = ["prlimit", "--nofile=1024:" + str(min(hard, 65536)), "--"] + r.args
        r.run(timeout=120)
        assert r.rc == 0 and "[many-w-0-0] mounts 1100" in r.out, r.describe()
    r = Run(text)
    r.args = ["prlimit", "--nofile=1024:1024", "--"] + r.args
    r.run()
    assert r.rc == 2 and "container c: 1100 volumeMounts" in r.err and \
        "limit of open files here is 1024" in r.err, r.describe()
    assert "[many-" not in r.out, r.describe()  # nothing started


if __name__ == "__main__":
    main()
