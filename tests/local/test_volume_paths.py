"""What a pod's volume files cannot be, refused before anything starts: items[].path of
configMap, secret, downwardAPI and projected volumes that cannot all be files (one a directory
of another, ".", ending in "/", too long), in `validate`, `validate --cluster` and `run` alike,
naming the field; a hostPath FileOrCreate whose parent directory is missing, said to be about
the parent (not about mount namespaces).  What can be files still runs."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, Run, main, test  # noqa: E402

POD = "spec.replicatedJobs[0].template.spec.template.spec"
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
      "data": {"k1": "one", "k2": "two"}}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec"},
          "stringData": {"s1": "secret"}}


def manifest(name, volume, script="print('ran', flush=True)"):
    """A JobSet of one pod mounting `volume` (as "v") at /v, with CM and SECRET beside it."""
    c = {"name": "c", "command": ["python3", "-c", script],
         "volumeMounts": [{"name": "v", "mountPath": "/v"}]}
    rj = {"name": "w", "replicas": 1, "template": {"spec": {"backoffLimit": 0, "template": {
        "spec": {"restartPolicy": "Never", "containers": [c],
                 "volumes": [dict(name="v", **volume)]}}}}}
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": name}, "spec": {"replicatedJobs": [rj]}}
    return "\n---\n".join(json.dumps(d) for d in (CM, SECRET, js)) + "\n"


def items(*paths, key="k1"):
    return [{"key": key, "path": p} for p in paths]


def down(*paths):
    return [{"path": p, "fieldRef": {"fieldPath": "metadata.name"}} for p in paths]


def validate(r, *flags):
    return subprocess.run([BIN, "validate", *flags, r.path], capture_output=True, text=True,
                          env=r.env, timeout=60)


def refused_everywhere(name, volume, want, cluster=True):
    """Exit 2 with `want` from validate (and validate --cluster unless not `cluster`: then it
    is valid there) and run, nothing started."""
    r = Run(manifest(name, volume))
    for flags in (("--cluster",), ()):
        v = validate(r, *flags)
        if flags and not cluster:
            assert v.returncode == 0, (name, v.stdout, v.stderr)
            continue
        assert v.returncode == 2 and want in v.stderr, (name, flags, v.stderr)
    r.run()
    assert r.rc == 2 and want in r.err, (name, r.describe())
    assert "] ran" not in r.out, r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), (name, os.listdir(r.home))
    assert not r.leftovers(), name


FILE_DIR = "is a file: it cannot also be this path's directory"
DIR_FILE = "needs it to be a directory: it cannot also be a file"
NO_FILE = 'must be the path of a file: not ".", not ending in "/" or "/."'


@test
def item_path_below_another_items_file_is_refused_with_the_field_path():
    # the kubelet's atomic writer (pkg/volume/util/atomic_writer.go) cannot write "a/b" once
    # "a" is a file: the pod failed at start, exit 127, "Not a directory"
    refused_everywhere("below", {"configMap": {"name": "cm", "items": items("a", "a/b")}},
                       f'{POD}.volumes[0].configMap.items[1].path: Invalid value: "a/b": '
                       f'items[0].path "a" {FILE_DIR}')
    refused_everywhere("above", {"configMap": {"name": "cm", "items": items("a/b", "a")}},
                       f'{POD}.volumes[0].configMap.items[1].path: Invalid value: "a": '
                       f'items[0].path "a/b" {DIR_FILE}')
    # "./a" and "a//b/c" are "a" and "a/b/c" to the writer
    refused_everywhere("clean", {"secret": {"secretName": "sec", "items": items(
        "x", "./a", "a//b/c", key="s1")}},
        f'{POD}.volumes[0].secret.items[2].path: Invalid value: "a//b/c": '
        f'items[1].path "./a" {FILE_DIR}')
    refused_everywhere("downward", {"downwardAPI": {"items": down("n/x", "m", "n")}},
                       f'{POD}.volumes[0].downwardAPI.items[2].path: Invalid value: "n": '
                       f'items[0].path "n/x" {DIR_FILE}')


@test
def projected_sources_share_one_set_of_files():
    src = [{"configMap": {"name": "cm", "items": items("d")}},
           {"downwardAPI": {"items": down("d/name")}}]
    refused_everywhere("projdir", {"projected": {"sources": src}},
                       f'{POD}.volumes[0].projected.sources[1].downwardAPI.items[0].path: '
                       f'Invalid value: "d/name": sources[0].configMap.items[0].path "d" '
                       f"{FILE_DIR}")
    # validateProjectionSources: "conflicting duplicate paths"
    src = [{"configMap": {"name": "cm", "items": items("same")}},
           {"secret": {"name": "sec", "items": items("same", key="s1")}}]
    refused_everywhere("projdup", {"projected": {"sources": src}},
                       f'{POD}.volumes[0].projected: Invalid value: "sec": conflicting '
                       "duplicate paths")
    # a source without items gives every key of its object as a file: only the objects of
    # the manifest files say which, so the cluster's validation lets it through
    src = [{"configMap": {"name": "cm"}},
           {"secret": {"name": "sec", "items": items("k2/x", key="s1")}}]
    refused_everywhere("projkey", {"projected": {"sources": src}},
                       f'{POD}.volumes[0].projected.sources[1].secret.items[0].path: Invalid '
                       f'value: "k2/x": sources[0].configMap "cm" has no items: its key "k2" '
                       "is a file: it cannot also be this path's directory", cluster=False)


@test
def item_paths_that_name_no_file_are_refused():
    for i, path in enumerate((".", "a/", "a/.", "./", "d/./")):
        refused_everywhere(f"nofile{i}", {"configMap": {"name": "cm", "items": items(path)}},
                           f'{POD}.volumes[0].configMap.items[0].path: Invalid value: '
                           f'"{path}": {NO_FILE}')
    refused_everywhere("projnofile", {"projected": {"sources": [
        {"downwardAPI": {"items": down("meta/")}}]}},
        f'{POD}.volumes[0].projected.sources[0].downwardAPI.items[0].path: Invalid value: '
        f'"meta/": {NO_FILE}')
    long = "x" * 256
    refused_everywhere("longname", {"configMap": {"name": "cm", "items": items(f"d/{long}")}},
                       f'{POD}.volumes[0].configMap.items[0].path: Invalid value: "d/{long}": '
                       "must have no element longer than 255 characters")
    # absolute paths and ".." stay refused as the API server refuses them
    refused_everywhere("abs", {"configMap": {"name": "cm", "items": items("/etc/x")}},
                       f'{POD}.volumes[0].configMap.items[0].path: Invalid value: "/etc/x": '
                       "must be a relative path")
    refused_everywhere("up", {"secret": {"secretName": "sec", "items": items("a/../b",
                                                                             key="s1")}},
                       f'{POD}.volumes[0].secret.items[0].path: Invalid value: "a/../b": '
                       "must not contain '..'")


LIST = """import os
for d, _, files in sorted(os.walk('/v')):
    for f in sorted(files):
        p = os.path.join(d, f)
        print('file', p, open(p).read(), flush=True)
"""


@test
def item_paths_that_can_all_be_files_still_run():
    # siblings sharing a prefix of characters, not of elements; the same path twice (the
    # last one written is kept, as the kubelet keeps it); "./x"
    vol = {"configMap": {"name": "cm", "items": items("a", "a0/b", "a.b", "./x") + [
        {"key": "k1", "path": "dup"}, {"key": "k2", "path": "dup"}]}}
    r = Run(manifest("fine", vol, LIST))
    for flags in (("--cluster",), ()):
        v = validate(r, *flags)
        assert v.returncode == 0, (flags, v.stderr)
    r.run()
    assert r.rc == 0, r.describe()
    for line in ("file /v/a one", "file /v/a.b one", "file /v/a0/b one", "file /v/x one",
                 "file /v/dup two"):
        assert f"[fine-w-0-0] {line}" in r.out, (line, r.describe())
    src = [{"configMap": {"name": "cm"}},
           {"secret": {"name": "sec", "items": items("s/k1", key="s1")}},
           {"downwardAPI": {"items": down("meta/name")}}]
    r = Run(manifest("projfine", {"projected": {"sources": src}}, LIST)).run()
    assert r.rc == 0, r.describe()
    for line in ("file /v/k1 one", "file /v/k2 two", "file /v/s/k1 secret",
                 "file /v/meta/name projfine-w-0-0"):
        assert line in r.out, (line, r.describe())


@test
def host_path_file_or_create_without_its_parent_names_the_parent():
    base = tempfile.mkdtemp(prefix="jaxset-hostpath-")
    path = os.path.join(base, "missing", "file")
    want = (f"{POD}.volumes[0].hostPath: {path} (type FileOrCreate): the parent directory "
            f"{base}/missing does not exist: FileOrCreate does not create the parent "
            "directory of the file")
    r = Run(manifest("noparent", {"hostPath": {"path": path, "type": "FileOrCreate"}}))
    v = validate(r, "--cluster")  # the API server knows nothing of the machine's files
    assert v.returncode == 0, v.stderr
    v = validate(r)
    assert v.returncode == 2 and want in v.stderr, v.stderr
    r.run()
    assert r.rc == 2 and want in r.err, r.describe()
    assert "mount namespace" not in r.err, r.describe()
    assert not os.path.exists(os.path.join(base, "missing")), os.listdir(base)
    assert not os.path.exists(os.path.join(r.home, "runs")), os.listdir(r.home)


@test
def host_path_file_or_create_under_a_directory_or_create_of_the_pod_runs():
    # the directories are made first, whatever the order of the volumes
    base = tempfile.mkdtemp(prefix="jaxset-hostpath-")
    c = {"name": "c", "command": ["python3", "-c", "print('ran', open('/f').read() == '')"],
         "volumeMounts": [{"name": "f", "mountPath": "/f"}, {"name": "d", "mountPath": "/d"}]}
    pod = {"restartPolicy": "Never", "containers": [c], "volumes": [
        {"name": "f", "hostPath": {"path": f"{base}/new/sub/file", "type": "FileOrCreate"}},
        {"name": "d", "hostPath": {"path": f"{base}/new/sub", "type": "DirectoryOrCreate"}}]}
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
          "metadata": {"name": "dirfirst"}, "spec": {"replicatedJobs": [{
              "name": "w", "replicas": 1, "template": {"spec": {"backoffLimit": 0,
                                                                 "template": {"spec": pod}}}}]}}
    r = Run(json.dumps(js) + "\n")
    v = validate(r)
    assert v.returncode == 0, v.stderr
    r.run()
    assert r.rc == 0 and "[dirfirst-w-0-0] ran True" in r.out, r.describe()
    assert os.path.isfile(f"{base}/new/sub/file")


if __name__ == "__main__":
    main()
