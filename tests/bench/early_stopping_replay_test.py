#!/usr/bin/env python3
"""Tests of bench/early_stopping/replay.py (run by ctest under Debian's
/usr/bin/python3, which has Optuna, with VERNIER_BUILD_DIR set): a tiny
replay of the committed mlp_digits curves through a real `vernier serve`
(1 seed, 8 trials from the first 40 configurations) and Optuna's median
pruner; the table's shape, no stopping saving nothing, ASHA saving some
steps, a policy the server refuses skipped with a note, the same runs twice."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                      "early_stopping", "replay.py")
METHODS = ["none", "Vernier default", "Vernier ASHA g5", "Vernier HYPERBAND",
           "Vernier LEARNING_CURVE m3", "Optuna MedianPruner"]
ARGUMENTS = [
    "--families", "mlp_digits", "--seeds", "1", "--trials", "8", "--pool", "40", "--jobs", "1",
    "--optuna", "median",
    "--vernier", "Vernier default=default",
    "--vernier", 'Vernier ASHA g5={"policy": "ASHA", "gracePeriod": 5, "maxStep": "STEPS"}',
    "--vernier", 'Vernier HYPERBAND={"policy": "HYPERBAND", "maxStep": "STEPS"}',
    "--vernier", 'Vernier LEARNING_CURVE m3={"policy": "LEARNING_CURVE", "minTrials": 3}',
    "--vernier", 'Unknown policy={"policy": "NO_SUCH_POLICY"}',
]


class ReplayTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.runs = []
        for attempt in range(2):
            save = os.path.join(cls.dir.name, f"runs{attempt}.jsonl")
            result = subprocess.run([sys.executable, SCRIPT, *ARGUMENTS, "--save", save],
                                    capture_output=True, text=True, timeout=120)
            if result.returncode != 0:
                raise AssertionError(f"replay.py failed:\n{result.stdout}\n{result.stderr}")
            with open(save) as lines:
                cls.runs.append([json.loads(line) for line in lines])
        cls.output = result.stdout

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def rows(self):
        lines = self.output.splitlines()
        start = lines.index("| method | steps | saved | stopped | picked | regret | +- | "
                            "vs none | same pick |")
        rows = []
        for line in lines[start + 2:]:
            if not line.startswith("|"):
                break
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        return rows

    def test_one_row_per_method_with_every_column(self):
        rows = self.rows()
        self.assertEqual([row[0] for row in rows], METHODS, self.output)
        for row in rows:
            self.assertEqual(len(row), 9, row)

    def test_no_stopping_trains_every_step_and_asha_saves_some(self):
        rows = {row[0]: row for row in self.rows()}
        self.assertEqual(rows["none"][1:4], ["400", "0.0%", "0.0"])
        self.assertEqual(rows["none"][7], "1.00")
        saved = float(rows["Vernier ASHA g5"][2].rstrip("%"))
        self.assertGreater(saved, 0.0, self.output)
        self.assertLess(saved, 100.0, self.output)

    def test_a_policy_the_server_refuses_is_skipped_with_a_note(self):
        self.assertIn("Skipped Unknown policy: the server refused its spec:", self.output)
        self.assertNotIn("| Unknown policy |", self.output)

    def test_the_runs_are_deterministic(self):
        def outcome(runs):
            return [(r["method"], r["steps"], r["stopped"], r["picked_config"], r["regret"])
                    for r in runs]
        self.assertEqual(outcome(self.runs[0]), outcome(self.runs[1]))
        self.assertEqual(len(self.runs[0]), len(METHODS))


if __name__ == "__main__":
    unittest.main()
