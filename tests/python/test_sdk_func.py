"""A training function shipped as a command: what can be shipped runs under python3 -c with
its arguments from JSON; what cannot (lambda, closure, no source, globals, decorators, bad
func_args) is refused with a message naming the problem."""
import functools
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402

from jaxset import _func  # noqa: E402

LIMIT = 3


def shippable(a: int, b: "SomeType" = 2, *, scale: float = 1.0):  # noqa: F821
    import json as j

    def helper(v):
        return v * scale

    total = helper(a + b)
    print(j.dumps({"total": total, "len": len([x for x in range(a)])}))


def uses_global():
    return LIMIT + 1


def uses_module():
    return json.dumps({})


def default_from_global(n=LIMIT):
    return n


def recursive(n: int):
    if n > 0:
        recursive(n - 1)
    else:
        print("bottom")


@functools.lru_cache(maxsize=None)
def decorated():
    return 1


def make_closure():
    secret = object()

    def train():
        print(secret)
    return train


namespace = {}
exec("def from_exec():\n    return 1\n", namespace)


class Holder:
    def method(self):
        return 1


class FuncTest(sdktest.unittest.TestCase):
    def test_program_runs_with_json_args(self):
        cmd = _func.function_command(shippable, {"a": 3, "scale": 2.0}, sys.executable)
        self.assertEqual(cmd[:3], [sys.executable, "-u", "-c"])
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout), {"total": 10.0, "len": 3})

    def test_no_args_and_recursion(self):
        out = subprocess.run(_func.function_command(recursive, {"n": 2}, sys.executable),
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.stdout.strip(), "bottom", out.stderr)
        prog = _func.function_program(uses_nothing, None)
        self.assertTrue(prog.rstrip().endswith("uses_nothing()"), prog)

    def refused(self, func, *words, args=None):
        with self.assertRaises(ValueError) as cm:
            _func.function_command(func, args)
        for w in words:
            self.assertIn(w, str(cm.exception))
        return str(cm.exception)

    def test_lambda(self):
        self.refused(lambda: 1, "lambda")

    def test_closure(self):
        self.refused(make_closure(), "closure", "secret")

    def test_no_source(self):
        self.refused(namespace["from_exec"], "cannot be read", "from_exec")

    def test_not_a_function(self):
        self.refused(len, "not a function defined with def")
        self.refused(functools.partial(shippable, 1), "partial")
        self.refused(Holder().method, "bound method")
        self.refused(42, "callable")

    def test_globals(self):
        self.refused(uses_global, "LIMIT", "inside the function")
        self.refused(uses_module, "json")
        self.refused(default_from_global, "LIMIT")

    def test_decorated(self):
        self.refused(decorated.__wrapped__, "decorated")

    def test_bad_func_args(self):
        self.refused(shippable, "JSON", args={"a": object()})
        self.refused(shippable, "do not fit", args={"zzz": 1})
        self.refused(shippable, "dict", args=[1, 2])


def uses_nothing():
    print("hi")


if __name__ == "__main__":
    sdktest.main()
