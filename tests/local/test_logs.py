"""`jaxset logs` of a local run on lines of hostile size or written in parts: what it prints, and
the memory it takes doing so (the first test writes 600 MB to a temporary directory)."""
import json
import os
import select
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, Run, main, test, wait_for  # noqa: E402

BIG = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: big
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["sh", "-c", %s]
"""


@test
def logs_streams_a_300_mb_line_in_little_memory():
    # one line of 300 MB printed by a pod: `logs` prints it byte for byte, holding 64 KiB of
    # it at a time (it held the whole line: 315 MB of RSS)
    size = 300 * 1000 * 1000
    script = f"head -c {size} /dev/zero | tr '\\0' x; echo"
    r = Run(BIG % json.dumps(script))
    try:
        r.proc = subprocess.Popen(r.args, env=r.env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        assert r.proc.wait(120) == 0, r.proc.stderr.read()
        out_path = os.path.join(r.home, "logs.out")
        env = dict(os.environ, JAXSET_HOME=r.home)

        def logs(*args):
            with open(out_path, "wb") as out:
                p = subprocess.Popen([BIN, "logs", "big", *args], env=env, stdout=out,
                                     stderr=subprocess.PIPE)
                _, status, usage = os.wait4(p.pid, 0)
            return os.waitstatus_to_exitcode(status), p.stderr.read(), usage.ru_maxrss

        base = logs("no-such-pod")[2]  # what the binary and its libraries take (sanitizers too)
        rc, err, rss = logs()
        assert rc == 0, err
        prefix = b"[big-w-0-0] "
        assert os.path.getsize(out_path) == len(prefix) + size + 1, os.path.getsize(out_path)
        with open(out_path, "rb") as f:
            assert f.read(len(prefix)) == prefix
            left = size
            while left:
                chunk = f.read(min(left, 1 << 20))
                assert chunk.count(b"x") == len(chunk), "not only x"
                left -= len(chunk)
            assert f.read() == b"\n"
        assert rss - base < 24 * 1024, f"{rss} KiB, {base} KiB printing nothing"
    finally:
        shutil.rmtree(r.home)  # 600 MB


@test
def follow_prints_a_line_written_in_parts_once_it_is_whole():
    # `logs -f` prints whole lines only: a line's first part waits for its end, however long
    # it takes, and comes out in one piece under one prefix
    script = ("printf 'part one, '; while [ ! -e \"$JAXSET_HOME/go\" ]; do sleep 0.02; done; "
              "echo 'part two'; echo end")
    r = Run(BIG % json.dumps(script)).start()
    env = dict(os.environ, JAXSET_HOME=r.home)
    logs = os.path.join(r.home, "runs", "big", "latest", "logs")
    wait_for(lambda: os.path.isdir(logs) and any(
        os.path.getsize(os.path.join(logs, n)) for n in os.listdir(logs)), 20, "the first part")
    f = subprocess.Popen([BIN, "logs", "-f", "big"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([f.stdout], [], [], 0.5)
    assert not ready, "logs -f printed a line before its end"
    open(os.path.join(r.home, "go"), "w").close()
    out, err = f.communicate(timeout=20)
    assert f.returncode == 0, err
    assert out == "[big-w-0-0] part one, part two\n[big-w-0-0] end\n", out
    r.wait(30)
    assert r.rc == 0, r.describe()
    shutil.rmtree(r.home)


if __name__ == "__main__":
    main()
