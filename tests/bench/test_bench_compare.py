"""scripts/bench_compare.py on synthetic history files (bench/history.py writes them): a ratio
or memory figure that moved by more than its spread is flagged and the exit status says so; one
within its spread, and any time or rate, is not; different machines are pointed out; a file
that is not a history is refused.  No benchmark runs here."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SRC = os.path.abspath(os.environ.get("JAXSET_SRC",
                                     os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(SRC, "bench"))
import history  # noqa: E402

COMPARE = os.path.join(SRC, "scripts", "bench_compare.py")


def doc(rows, cpus=2, model="Test CPU"):
    h = history.History("local")
    for rid, kind, samples in rows:
        h.record(rid, kind, "x", samples)
    d = h.document()
    d["machine"] = {"cpus": cpus, "model": model, "mem_kib": 1 << 20, "kernel": "6"}
    return d


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, d):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(d, f)
        return path

    def compare(self, old, new, *args):
        p = subprocess.run([sys.executable, COMPARE, self.write("old.json", old),
                            self.write("new.json", new), *args],
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def test_ratio_beyond_its_spread_is_flagged(self):
        old = doc([("launch/N=16/j-floor", "ratio", [1.20, 1.25, 1.30])])
        new = doc([("launch/N=16/j-floor", "ratio", [1.60, 1.65, 1.70])])
        rc, out = self.compare(old, new)
        self.assertEqual(rc, 1, out)
        self.assertIn("MOVED launch/N=16/j-floor", out)
        self.assertIn("up 0.4", out)  # 1.65 - 1.25
        self.assertIn("(spread 0.05)", out)
        self.assertIn("1 moved by more than their spread", out)

    def test_a_move_within_the_spread_is_not(self):
        old = doc([("log/jaxset-raw", "ratio", [0.30, 0.40, 0.50])])
        new = doc([("log/jaxset-raw", "ratio", [0.38, 0.45, 0.52])])  # moved 0.05, spread 0.1
        rc, out = self.compare(old, new)
        self.assertEqual(rc, 0, out)
        self.assertNotIn("MOVED", out)
        self.assertIn("0 moved by more than their spread", out)

    def test_the_larger_spread_of_the_two_counts(self):
        old = doc([("r", "ratio", [1.0, 1.0, 1.0])])          # no spread
        new = doc([("r", "ratio", [0.9, 1.2, 1.6])])          # median moved 0.2, spread 0.35
        rc, out = self.compare(old, new)
        self.assertEqual(rc, 0, out)
        rc, out = self.compare(new, old)                      # the old file's spread counts too
        self.assertEqual(rc, 0, out)
        new = doc([("r", "ratio", [1.1, 1.31, 1.5])])         # moved 0.31, spread 0.2
        rc, out = self.compare(old, new)
        self.assertEqual(rc, 1, out)

    def test_memory_is_flagged_times_are_not(self):
        old = doc([("rss/N=256/VmRSS", "memory", [4.6, 4.7, 4.6]),
                   ("launch/N=16/jaxset", "time", [10.0, 11.0, 12.0])])
        new = doc([("rss/N=256/VmRSS", "memory", [10.7, 10.7, 10.8]),
                   ("launch/N=16/jaxset", "time", [30.0, 31.0, 32.0])])
        rc, out = self.compare(old, new)
        self.assertEqual(rc, 1, out)
        self.assertIn("MOVED rss/N=256/VmRSS", out)
        self.assertNotIn("launch/N=16/jaxset", out)  # listed only with --all
        rc, out = self.compare(old, new, "--all")
        self.assertIn("launch/N=16/jaxset", out)
        self.assertNotIn("MOVED launch/N=16/jaxset", out)

    def test_rows_of_one_file_only_and_other_machines_are_named(self):
        old = doc([("a", "ratio", [1.0]), ("gone", "ratio", [1.0])])
        new = doc([("a", "ratio", [1.0]), ("added", "ratio", [2.0])], cpus=16, model="Other")
        rc, out = self.compare(old, new)
        self.assertEqual(rc, 0, out)
        self.assertIn("in one file only: added, gone", out)
        self.assertIn("the machines differ", out)

    def test_not_a_history_file(self):
        rc, out = self.compare({"rows": "no"}, doc([]))
        self.assertEqual(rc, 2, out)
        self.assertIn("not a bench history file", out)

    def test_history_merges_repeated_figures_and_round_trips(self):
        h = history.History("kube")
        h.record("many/ratio", "ratio", "x", [1.2])
        h.record("many/ratio", "ratio", "x", [1.4])
        path = h.save(directory=self.tmp.name)
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        self.assertTrue(os.path.basename(path).endswith("-kube.json"), path)
        (r,) = d["rows"]
        self.assertEqual(r["samples"], [1.2, 1.4])
        self.assertAlmostEqual(r["median"], 1.3)
        self.assertAlmostEqual(r["spread"], 0.1)
        self.assertEqual(len(d["load"]["start"]), 3)
        self.assertGreater(d["machine"]["cpus"], 0)
        self.assertIn("commit", d)


if __name__ == "__main__":
    unittest.main()
