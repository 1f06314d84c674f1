#!/usr/bin/env python3
"""Tests of bench/early_stopping/tabulate_curves.py's --steps and
--stages-per-step (run by ctest under Debian's /usr/bin/python3, which has
scikit-learn): a tiny family tabulated with a report at every boosting
stage matches the committed curves at every 4th, and the refusals."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "early_stopping", "tabulate_curves.py")
COMMITTED = os.path.join(HERE, "..", "..", "bench", "early_stopping", "curves", "gbr_diabetes.json")


def run(*arguments):
    environment = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, SCRIPT, *arguments], capture_output=True, text=True,
                          timeout=120, env=environment)


class TabulateTest(unittest.TestCase):
    def test_every_stage_reads_the_same_models_more_often(self):
        with tempfile.TemporaryDirectory() as out:
            result = run("--families", "gbr_diabetes", "--pool", "3", "--jobs", "1",
                         "--steps", "200", "--stages-per-step", "1", "--out", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "gbr_diabetes.json")) as made:
                family = json.load(made)
        with open(COMMITTED) as committed:
            reference = json.load(committed)
        self.assertEqual(family["steps"], 200)
        self.assertEqual(len(family["configs"]), 3)
        for made, kept in zip(family["configs"], reference["configs"]):
            self.assertEqual(made["params"], kept["params"])
            self.assertEqual(len(made["curve"]), 200)
            # Every 4th stage is the committed curve's step.
            self.assertEqual(made["curve"][3::4], kept["curve"])

    def test_other_curves_need_another_folder_and_sane_counts(self):
        for arguments, flag in [(["--steps", "1", "--out", "/tmp"], "--steps"),
                                (["--stages-per-step", "0", "--out", "/tmp"], "--stages-per-step"),
                                (["--steps", "20"], "--out")]:
            result = run("--families", "gbr_diabetes", *arguments)
            self.assertEqual(result.returncode, 2, arguments)
            self.assertIn(flag, result.stderr)


if __name__ == "__main__":
    unittest.main()
