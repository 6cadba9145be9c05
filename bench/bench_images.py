"""Start-up of containers in their images (`jaxset run --images`), beside its floors in the same
run: 16 pods of one JobSet, each container running `true`, from start to the end of the run:

  plain     the same JobSet without --images (processes of this machine)
  images    jaxset run --images (each container an overlay root of the image)
  podman    16 `podman run --rm IMAGE true` at once (the same image, the same store)

Medians of R repetitions, interleaved so that machine noise hits all three alike; the image's
root filesystem is unpacked into the cache once before the first repetition (a run's first
start pays that copy once per image, which is printed apart).  Needs root, podman, buildah
and busybox-static; builds its image with tests/images/build.sh.

  python3 bench/bench_images.py [--reps R] [--pods N] [--bin build/jaxset]"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGE = "localhost/jxtest-busybox:1"
PODMAN = ["podman", "--storage-driver", "vfs", "--runtime", "runc"]
ULIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]


def manifest(pods, images):
    c = {"name": "c", "command": ["/bin/true"] if images else ["true"]}
    if images:
        c.update(image=IMAGE, imagePullPolicy="Never")
    pod = {"restartPolicy": "Never", "containers": [c]}
    rj = {"name": "w", "replicas": 1, "template": {"spec": {
        "parallelism": pods, "completions": pods, "backoffLimit": 0,
        "template": {"spec": pod}}}}
    return json.dumps({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                       "metadata": {"name": "bench-img"}, "spec": {"replicatedJobs": [rj]}})


def timed(argv, env=None):
    t0 = time.monotonic()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    return time.monotonic() - t0


def jaxset_run(binary, path, home, images):
    env = dict(os.environ, JAXSET_HOME=home,
               JAXSET_PODMAN_ARGS="--storage-driver vfs --runtime runc")
    argv = [binary, "run", path, "--quiet", *(["--images"] if images else [])]
    return timed(argv, env)


def podman_16(pods):
    t0 = time.monotonic()
    procs = [subprocess.Popen([*PODMAN, "run", "--rm", *ULIMITS, "--network", "host",
                               "--entrypoint", "/bin/true", IMAGE],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for _ in range(pods)]
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"podman run failed: {err.decode()[-500:]}")
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--pods", type=int, default=16)
    ap.add_argument("--bin", default=os.path.join(SRC, "build", "jaxset"))
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("podman") or not shutil.which("buildah"):
        sys.exit("bench_images.py: needs root, podman and buildah")
    subprocess.run([os.path.join(SRC, "tests", "images", "build.sh")], check=True,
                   capture_output=True)
    work = tempfile.mkdtemp(prefix="jaxset-bench-img-")
    home = os.path.join(work, "home")
    try:
        paths = {}
        for images in (False, True):
            paths[images] = os.path.join(work, f"job-{int(images)}.yaml")
            with open(paths[images], "w", encoding="utf-8") as f:
                f.write(manifest(a.pods, images))
        first = jaxset_run(a.bin, paths[True], home, True)  # unpacks the image into the cache
        podman_16(1)  # podman's own first start (its database, the runtime) is not counted
        times = {"plain": [], "images": [], "podman": []}
        for _ in range(a.reps):
            times["plain"].append(jaxset_run(a.bin, paths[False], home, False))
            times["images"].append(jaxset_run(a.bin, paths[True], home, True))
            times["podman"].append(podman_16(a.pods))
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        print(f"{a.pods} pods, {a.reps} repetitions, medians (ms); first --images run, with "
              f"the image's unpack: {first * 1000:.0f} ms")
        for k in ("plain", "images", "podman"):
            print(f"  {k:7s} {med[k]:8.1f}   (min {min(times[k]) * 1000:.1f}, "
                  f"max {max(times[k]) * 1000:.1f})")
        print(f"  images / plain  = {med['images'] / med['plain']:.2f}x")
        print(f"  images / podman = {med['images'] / med['podman']:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
