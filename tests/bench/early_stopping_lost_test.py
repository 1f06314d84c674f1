#!/usr/bin/env python3
"""Tests of bench/early_stopping_bench.cc's --lost_out (run by ctest under
Debian's /usr/bin/python3 against $VERNIER_BUILD_DIR/bin/early_stopping_bench):
on a pool with one late bloomer, the stopped trials that would have beaten
the pick are written with their stop step and the policy's reason, the same
for the same seeds; a path that cannot be written is refused before any
simulation, naming the flag and the path; a failed write is an error."""

import csv
import math
import os
import subprocess
import tempfile
import unittest

STEPS = 20


def pool_lines():
    """29 curves that fall fast and flatten between 0.5 and 0.7, and one
    late bloomer, the worst until the last steps and the best at the end."""
    lines = []
    for i in range(29):
        offset = 0.2 * i / 28
        lines.append([0.5 + offset + 0.5 * math.exp(-t / 3) for t in range(1, STEPS + 1)])
    lines.append([1.0 - 0.9 * (t / STEPS) ** 3 for t in range(1, STEPS + 1)])
    return ["\t".join(repr(v) for v in curve) for curve in lines]


@unittest.skipUnless(os.environ.get("VERNIER_BUILD_DIR"),
                     "VERNIER_BUILD_DIR (the build with bin/early_stopping_bench) is not set")
class LostOutTest(unittest.TestCase):
    def setUp(self):
        self.bench = os.path.join(os.environ["VERNIER_BUILD_DIR"], "bin", "early_stopping_bench")
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.pool = os.path.join(self.dir.name, "pool.tsv")
        with open(self.pool, "w") as f:
            f.write("\n".join(pool_lines()) + "\n")

    def run_bench(self, *flags):
        return subprocess.run([self.bench, "--simulate", f"--pool={self.pool}", "--seeds=1,2",
                               *flags], capture_output=True, text=True, timeout=120)

    def read(self, path):
        with open(path, newline="") as f:
            return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))

    def test_the_late_bloomer_stopped_early_is_written_with_its_reason(self):
        path = os.path.join(self.dir.name, "lost.tsv")
        done = self.run_bench(f"--lost_out={path}")
        self.assertEqual(done.returncode, 0, done.stderr)
        methods = {line.split("  ")[0] for line in done.stdout.splitlines()[1:]}
        rows = self.read(path)
        self.assertTrue(rows)
        self.assertEqual(list(rows[0]), ["method", "seed", "trial", "stopped_at", "best",
                                         "picked", "reason"])
        for row in rows:
            self.assertIn(row["method"], methods)
            self.assertNotEqual(row["method"], "none")
            self.assertIn(int(row["seed"]), (1, 2))
            self.assertTrue(0 <= int(row["trial"]) < 100)
            self.assertTrue(1 <= int(row["stopped_at"]) < STEPS)
            # Values as the policies see them: negated, larger is better.
            self.assertGreater(float(row["best"]), float(row["picked"]))
            self.assertAlmostEqual(float(row["best"]), -0.1, places=6)
            self.assertTrue(row["reason"])
        # ASHA judges the bloomer at its first rung, where it is the worst.
        self.assertTrue(any(row["method"].startswith("vernier ASHA") for row in rows))
        again = os.path.join(self.dir.name, "again.tsv")
        self.assertEqual(self.run_bench(f"--lost_out={again}").returncode, 0)
        self.assertEqual(self.read(again), rows)

    def test_a_path_that_cannot_be_written_is_refused_first(self):
        path = os.path.join(self.dir.name, "missing", "lost.tsv")
        done = self.run_bench(f"--lost_out={path}")
        self.assertEqual(done.returncode, 2)
        self.assertIn(f'--lost_out: cannot write "{path}"', done.stderr)
        self.assertEqual(done.stdout, "")

    def test_an_empty_path_is_refused(self):
        done = self.run_bench("--lost_out=")
        self.assertEqual(done.returncode, 2)
        self.assertIn('--lost_out: cannot write ""', done.stderr)

    @unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
    def test_a_failed_write_is_an_error(self):
        done = self.run_bench("--lost_out=/dev/full")
        self.assertEqual(done.returncode, 1)
        self.assertIn("--lost_out: a write failed", done.stderr)


if __name__ == "__main__":
    unittest.main()
