"""Every command block of README.md and docs/*.md marked runnable runs as written.

A block is marked by an HTML comment on the line before its fence, which GitHub does not show:

    <!-- runnable -->            a ```sh (bash) or ```python block, run on its own
    <!-- runnable: cluster -->   a ```sh block run against an empty test API server
                                 (tests/kube/apiserver.py): KUBECONFIG names it, and the block
                                 does the rest as a user would (CRDs, `jaxset controller &`...)
    <!-- runnable: continues --> runs after the file's previous runnable block, in the same
                                 script (a Python session that the prose interrupts)

Each script runs with the repository as its working directory, a fresh JAXSET_HOME and HOME
(no kubeconfig of the user's), the binary under test first on PATH as `jaxset` (and
`kubectl-jaxset`) and as JAXSET_BIN (the SDK's), `build/jaxset` in a command standing for it
(the ASan build's binary is elsewhere), python/ on PYTHONPATH (the SDK as if installed), stdin
empty, NO_COLOR set, and a deadline; whatever it leaves running (a backgrounded controller) is
killed with its process group.  Shell blocks run under `set -eo pipefail`: a command that fails
fails the test, named with its file and line.  `python3 tests/lint/test_docs.py FILE[:LINE]...`
runs some blocks."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from clitest import BIN, SRC, Suite

sys.path.insert(0, os.path.join(SRC, "tests", "kube"))
from kubetest import Server  # noqa: E402

MARK = re.compile(r"^<!--\s*runnable(?::\s*(\S+))?\s*-->\s*$")
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
LANGS = {"sh": "sh", "bash": "sh", "console": None, "python": "python"}
MODES = (None, "cluster", "continues")
DEADLINE = 240          # seconds per script: the README's cluster block starts a controller
SANITIZER = ("AddressSanitizer", "LeakSanitizer", "runtime error:")
# The shell's ERR trap names the failing line and command; LINENO is the line in the .md file
# since every block sits at its own lines of the script (line 1 is this prologue).
PROLOGUE = ("set -eEo pipefail; trap 'rc=$?; echo \"runnable-docs: line $LINENO: exit $rc: "
            "$BASH_COMMAND\" >&2' ERR")


class Block:
    def __init__(self, path, line, lang, mode, body):
        self.path, self.line, self.lang, self.mode, self.body = path, line, lang, mode, body


def blocks_of(path, problems):
    """The runnable blocks of one Markdown file; a marker without a block it can run is a
    problem (so that a typo cannot silently skip a block)."""
    rel = os.path.relpath(path, SRC)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        lang = LANGS.get(fence.group(1)) if fence else None
        if not lang or m.group(1) not in MODES:
            problems.append(f"{rel}:{i + 1}: the marker must be `<!-- runnable[: cluster|"
                            f"continues] -->` before a ```sh or ```python fence")
            i += 1
            continue
        start = i + 2
        end = start
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        out.append(Block(rel, start + 1, lang, m.group(1), lines[start:end]))
        i = end + 1
    return out


def scripts_of(blocks, problems):
    """Blocks grouped into scripts: a `continues` block joins the previous one."""
    scripts = []
    for b in blocks:
        if b.mode == "continues":
            if not scripts or scripts[-1][0].path != b.path or scripts[-1][0].lang != b.lang:
                problems.append(f"{b.path}:{b.line}: `continues` follows no runnable "
                                f"{b.lang} block of the file")
                continue
            scripts[-1].append(b)
        else:
            scripts.append([b])
    return scripts


def source(script):
    """The script's text: each block at its own lines of the .md file, blank lines between."""
    last = script[-1].line + len(script[-1].body)
    lines = [""] * last
    for b in script:
        for k, text in enumerate(b.body):
            lines[b.line - 1 + k] = re.sub(r"(?<![\w./-])build/jaxset\b", "$JAXSET_BIN", text) \
                if b.lang == "sh" else text
    if script[0].lang == "sh":
        lines[0] = PROLOGUE
    return "\n".join(lines) + "\n"


def environment(tmp, kubeconfig):
    binary = os.path.abspath(BIN)
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    for name in ("jaxset", "kubectl-jaxset"):
        os.symlink(binary, os.path.join(bindir, name))
    env = {k: v for k, v in os.environ.items()
           if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT",
                        "XDG_STATE_HOME", "PYTHONPATH")}
    env.update(HOME=os.path.join(tmp, "home"), JAXSET_HOME=os.path.join(tmp, "state"),
               JAXSET_BIN=binary, NO_COLOR="1", PYTHONPATH=os.path.join(SRC, "python"),
               PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    os.makedirs(env["HOME"])
    if kubeconfig:
        env["KUBECONFIG"] = kubeconfig
    return env


def kill_group(proc):
    """Ends what the script left running: SIGTERM to its process group, SIGKILL after 10 s."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def where_failed(script, output):
    """`FILE:LINE: COMMAND` of the failing line, as the .md file writes it: from the shell's
    trap, or from the Python traceback's last frame in the script."""
    b0 = script[0]
    written = {b.line + k: text for b in script for k, text in enumerate(b.body)}
    if b0.lang == "sh":
        m = re.findall(r"runnable-docs: line (\d+): exit (\d+): (.*)", output)
        if m:
            line, rc, cmd = m[-1]
            return f"{b0.path}:{line}: `{written.get(int(line), cmd).strip()}` exited {rc}"
    else:
        m = re.findall(r'File "[^"]*script\.py", line (\d+)', output)
        if m:
            n = int(m[-1])
            return f"{b0.path}:{n}: `{written.get(n, '').strip()}` raised"
    return f"{b0.path}:{b0.line}: the block"


def run_script(script, suite):
    b0 = script[0]
    name = f"{b0.path}:{b0.line} ({b0.lang}{', ' + b0.mode if b0.mode else ''})"
    tmp = tempfile.mkdtemp(prefix="jaxset-docs-")
    server = Server() if b0.mode == "cluster" else None
    try:
        text = source(script)
        path = os.path.join(tmp, "script.py" if b0.lang == "python" else "script.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        argv = [sys.executable, path] if b0.lang == "python" else ["bash", path]
        out_path = os.path.join(tmp, "output")
        t0 = time.monotonic()
        with open(out_path, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(argv, cwd=SRC, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    env=environment(tmp, server and server.kubeconfig))
            try:
                rc = proc.wait(DEADLINE)
            except subprocess.TimeoutExpired:
                rc = None
            kill_group(proc)
            proc.wait()
        with open(out_path, encoding="utf-8", errors="replace") as f:
            output = f.read()
        took = time.monotonic() - t0
        if rc is None:
            suite.check(name, False, f"{b0.path}:{b0.line}: still running after {DEADLINE} s"
                        f"\n{output[-3000:]}")
        else:
            bad = [s for s in SANITIZER if s in output]
            suite.check(name, rc == 0 and not bad,
                        f"{where_failed(script, output)}{' ' + str(bad) if bad else ''}"
                        f" (the script exited {rc})\n{output[-3000:]}")
        print(f"{'ok  ' if rc == 0 else 'FAIL'} {name} ({took:.1f}s)", flush=True)
    finally:
        if server:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    suite = Suite()
    files = [os.path.join(SRC, "README.md")] + sorted(
        os.path.join(SRC, "docs", f) for f in os.listdir(os.path.join(SRC, "docs"))
        if f.endswith(".md"))
    problems, per_file = [], {}
    scripts = []
    for path in files:
        blocks = blocks_of(path, problems)
        per_file[os.path.relpath(path, SRC)] = len(blocks)
        scripts += scripts_of(blocks, problems)
    suite.check("every runnable marker is well formed", not problems, "\n".join(problems))
    readme = {(s[0].lang, s[0].mode) for s in scripts if s[0].path == "README.md"}
    suite.check("README.md's local, cluster and Python examples are marked runnable",
                {("sh", None), ("sh", "cluster"), ("python", None)} <= readme, str(readme))
    print("runnable blocks: " + ", ".join(f"{k} {v}" for k, v in per_file.items() if v),
          flush=True)
    only = argv[1:]
    for script in scripts:
        b0 = script[0]
        if only and not any(o in (b0.path, f"{b0.path}:{b0.line}") for o in only):
            continue
        run_script(script, suite)
    return suite.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
