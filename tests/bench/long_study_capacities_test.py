#!/usr/bin/env python3
"""Tests of bench/long_study_bench.cc's --capacities (run by ctest under
Debian's /usr/bin/python3 against $VERNIER_BUILD_DIR/bin/long_study_bench):
each capacity is one more variant, paired with the baseline seed by seed; a
capacity equal to the designer's default (400) is the baseline itself, a
smaller one models less of the history; a capacity that is not a number of
points is refused before any study, naming the flag."""

import os
import subprocess
import unittest

SMALL = ["--seeds=2", "--threads=1", "--checkpoints=12,24", "--shares=0",
         "--problems=hartmann6_noise0.1"]


@unittest.skipUnless(os.environ.get("VERNIER_BUILD_DIR"),
                     "VERNIER_BUILD_DIR (the build with bin/long_study_bench) is not set")
class CapacitiesTest(unittest.TestCase):
    def setUp(self):
        self.bench = os.path.join(os.environ["VERNIER_BUILD_DIR"], "bin", "long_study_bench")

    def run_bench(self, *flags):
        return subprocess.run([self.bench, *SMALL, *flags], capture_output=True, text=True,
                              timeout=240)

    def rows(self, output):
        """The table's rows: {(trials, variant): (median, wins/ties/losses)}."""
        rows = {}
        for line in output.splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) == 8 and cells[1].isdigit():
                rows[(int(cells[1]), cells[2])] = (cells[3], cells[6])
        return rows

    def test_each_capacity_is_a_variant_paired_with_the_baseline(self):
        done = self.run_bench("--capacities=400,8")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = self.rows(done.stdout)
        self.assertEqual(sorted({variant for _, variant in rows}),
                         ["capacity 400", "capacity 8", "share 0"])
        for trials in (12, 24):
            # The default capacity is the baseline, trial for trial.
            self.assertEqual(rows[(trials, "capacity 400")][0], rows[(trials, "share 0")][0])
            self.assertEqual(rows[(trials, "capacity 400")][1], "0/2/0")
        # Past 8 trials a model of 8 points forgets most of the history:
        # not the baseline's studies any more.
        self.assertNotEqual(rows[(24, "capacity 8")][1], "0/2/0")

    def test_a_capacity_that_is_not_a_number_of_points_is_refused(self):
        for bad in ("0", "-3"):
            done = self.run_bench(f"--capacities={bad}")
            self.assertEqual(done.returncode, 2, done.stdout)
            self.assertIn(f"--capacities: {bad} is not a number of model points", done.stderr)
            self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    unittest.main()
