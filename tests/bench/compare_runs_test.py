#!/usr/bin/env python3
"""Tests of bench/realistic/compare_runs.py (run by ctest under Debian's
/usr/bin/python3, which has scipy): the paired table and its errors."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                      "realistic", "compare_runs.py")
HEADER = ("designer,mode,problem,seed,status,best_value,regret,completed_trials,"
          "duplicate_points,suggest_calls,suggest_seconds\n")


class CompareRunsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, rows):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as out:
            out.write(HEADER)
            for problem, seed, regret, *status in rows:
                out.write(f"GAUSSIAN_PROCESS_BANDIT,sequential,{problem},{seed},"
                          f"{status[0] if status else 'OK'},0,{regret},60,0,60,0.1\n")
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_pairs_seeds_and_marks_a_significant_change(self):
        # "after" halves every regret on `a` (significant over 10 seeds) and
        # leaves `b` as it was, but for one seed; `c` is only in "before".
        before = self.write("before.csv", [("a", s, s / 10) for s in range(1, 11)] +
                            [("b", s, 1.0) for s in range(1, 11)] + [("c", 1, 1.0)])
        after = self.write("after.csv", [("a", s, s / 20) for s in range(1, 11)] +
                           [("b", s, 1.0 if s != 3 else 2.0) for s in range(1, 11)])
        result = self.run_script(before, after)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 4, result.stdout)
        self.assertTrue(lines[2].startswith("| a | 10 | 0.55 [0.325, 0.775] | 1 | 0.275 "),
                        lines[2])
        self.assertIn("| 10 / 0 | **0.002** |", lines[2])
        self.assertTrue(lines[3].startswith("| b | 10 |"), lines[3])
        self.assertIn("| 0 / 1 | 0.317 |", lines[3])

    def test_a_problem_missing_from_one_run_is_named(self):
        before = self.write("before.csv", [("a", s, 1.0) for s in range(1, 11)])
        after = self.write("after.csv", [("b", s, 1.0) for s in range(1, 11)])
        result = self.run_script(before, after, "--problems", "a")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("a: not in both runs", result.stderr)

    def test_too_few_common_seeds_are_refused(self):
        before = self.write("before.csv", [("a", s, 1.0) for s in range(1, 6)])
        after = self.write("after.csv", [("a", s, 0.5) for s in range(1, 6)])
        result = self.run_script(before, after)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("a: only 5 seeds in both runs; the test needs 6 or more", result.stderr)

    def test_a_run_that_did_not_end_ok_is_named_with_its_file(self):
        before = self.write("before.csv", [("a", 1, 1.0), ("a", 2, 0.0, "FALLBACK")])
        after = self.write("after.csv", [("a", 1, 1.0)])
        result = self.run_script(before, after)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("before.csv: a seed 2: FALLBACK", result.stderr)


if __name__ == "__main__":
    unittest.main()
