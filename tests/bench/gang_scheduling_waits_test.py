#!/usr/bin/env python3
"""Tests of bench/gang_scheduling_bench.cc's --waits_out (run by ctest under
Debian's /usr/bin/python3 against $VERNIER_BUILD_DIR/bin/gang_scheduling_bench):
one line per trial with its shape and its waits under `vernier` and the fluid
bound, the same for the same seed, and a path that cannot be written refused
before any simulation, naming the flag and the path."""

import csv
import os
import subprocess
import tempfile
import unittest

SMALL = ["--nodes=20", "--trials=300", "--vernier_only=1"]


@unittest.skipUnless(os.environ.get("VERNIER_BUILD_DIR"),
                     "VERNIER_BUILD_DIR (the build with bin/gang_scheduling_bench) is not set")
class WaitsOutTest(unittest.TestCase):
    def setUp(self):
        self.bench = os.path.join(os.environ["VERNIER_BUILD_DIR"], "bin", "gang_scheduling_bench")
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def run_bench(self, *flags):
        return subprocess.run([self.bench, *SMALL, *flags], capture_output=True, text=True,
                              timeout=60)

    def read(self, path):
        with open(path, newline="") as f:
            return list(csv.DictReader(f, delimiter="\t"))

    def test_one_line_per_trial_with_its_shape_and_waits(self):
        path = os.path.join(self.dir.name, "waits.tsv")
        done = self.run_bench("--seed=3", f"--waits_out={path}")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = self.read(path)
        self.assertEqual(len(rows), 300)
        self.assertEqual(list(rows[0]), ["trial", "gpus", "replica_gpus", "arrival_s",
                                         "duration_s", "vernier_wait_min", "fluid_wait_min"])
        arrivals = [float(row["arrival_s"]) for row in rows]
        self.assertEqual(arrivals, sorted(arrivals))
        for index, row in enumerate(rows):
            self.assertEqual(int(row["trial"]), index)
            gpus, replica = int(row["gpus"]), int(row["replica_gpus"])
            self.assertIn(gpus, (1, 2, 4, 8, 16, 32, 64))
            self.assertIn(replica, (1, 2, 4, 8))
            self.assertEqual(gpus % replica, 0)
            self.assertGreater(float(row["duration_s"]), 0)
            self.assertGreaterEqual(float(row["vernier_wait_min"]), 0)
            self.assertGreaterEqual(float(row["fluid_wait_min"]), 0)
        # On 20 nodes some gang waits under both.
        self.assertTrue(any(float(row["vernier_wait_min"]) > 0 for row in rows))
        self.assertTrue(any(float(row["fluid_wait_min"]) > 0 for row in rows))
        again = os.path.join(self.dir.name, "again.tsv")
        self.assertEqual(self.run_bench("--seed=3", f"--waits_out={again}").returncode, 0)
        self.assertEqual(self.read(again), rows)

    def test_a_path_that_cannot_be_written_is_refused_first(self):
        path = os.path.join(self.dir.name, "missing", "waits.tsv")
        done = self.run_bench(f"--waits_out={path}")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--waits_out: cannot write " + path, done.stderr)
        self.assertEqual(done.stdout, "")  # Nothing simulated.
        self.assertFalse(os.path.exists(path))

    def test_an_empty_path_is_a_bad_argument(self):
        done = self.run_bench("--waits_out=")
        self.assertEqual(done.returncode, 2)
        self.assertIn("bad argument --waits_out=", done.stderr)


if __name__ == "__main__":
    unittest.main()
