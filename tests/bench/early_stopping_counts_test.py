#!/usr/bin/env python3
"""Tests of bench/early_stopping_bench.cc's --counts (run by ctest under
Debian's /usr/bin/python3 against $VERNIER_BUILD_DIR/bin/early_stopping_bench):
the synthetic families' reports rounded to whole samples of N, as an
accuracy on a fixed validation set is, which the learning-curve policy tells
for counts; a count that is not a positive whole number is refused, naming
the flag, before any simulation."""

import os
import subprocess
import unittest

from early_stopping_bench_output import bench_path, needs_build, rows


@needs_build
class CountsTest(unittest.TestCase):
    def setUp(self):
        self.bench = bench_path()

    def run_bench(self, *flags):
        return subprocess.run([self.bench, "--simulate", "--family=crossing", "--seeds=1,2",
                               "--settings=lc=policy: LEARNING_CURVE", *flags],
                              capture_output=True, text=True, timeout=120)

    def test_reports_rounded_to_counts_are_judged_as_counts(self):
        plain = self.run_bench()
        counted = self.run_bench("--counts=200")
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(counted.returncode, 0, counted.stderr)
        # No stopping runs every step either way; the policy sees counts
        # (no tie margin, a log scale) and decides differently.
        self.assertEqual(rows(counted.stdout)["none"][0][1], rows(plain.stdout)["none"][0][1])
        self.assertNotEqual(rows(counted.stdout)["lc"], rows(plain.stdout)["lc"])

    def assert_refused(self, flag, message):
        done = self.run_bench(flag)
        self.assertEqual(done.returncode, 2)
        self.assertIn(message, done.stderr)
        self.assertEqual(done.stdout, "")

    def test_a_count_that_is_not_a_positive_whole_number_is_refused(self):
        for value in ("0", "-5", "2.5", "many", ""):
            self.assert_refused(f"--counts={value}",
                                f'--counts: "{value}" is not a positive number of samples')

    def test_the_latency_form_takes_counts_too(self):
        done = subprocess.run([self.bench, "--latency", "--running=20", "--decisions=20",
                               "--counts=200"], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("vernier LEARNING_CURVE", done.stdout)
        refused = subprocess.run([self.bench, "--latency", "--counts=0"],
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(refused.returncode, 2)
        self.assertIn('--counts: "0" is not a positive count', refused.stderr)
        self.assertEqual(refused.stdout, "")

    def test_counts_with_a_pool_are_refused(self):
        # A pool's values are what they are: rounding them is not offered.
        pool = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"counts_pool_{os.getpid()}.tsv")
        with open(pool, "w") as out:
            out.write("0.5\t0.4\t0.3\n0.6\t0.5\t0.45\n")
        try:
            done = subprocess.run([self.bench, "--simulate", f"--pool={pool}", "--seeds=1",
                                   "--counts=200"], capture_output=True, text=True, timeout=60)
        finally:
            os.remove(pool)
        self.assertEqual(done.returncode, 2)
        self.assertIn("--counts: only for the synthetic families, not with --pool", done.stderr)
        self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    unittest.main()
