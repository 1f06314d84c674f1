#!/usr/bin/env python3
"""Tests of bench/realistic/problems.py's problems with failure regions (run
by ctest under Debian's /usr/bin/python3, with this build's binaries in
$VERNIER_BUILD_DIR): each fails where it says and not at its best point,
the evaluator answers "infeasible" there, suggest_quality_bench records
such trials as INFEASIBLE and counts them, and run.py's TPE tells Optuna
they failed, and deterministic_run.py completes them infeasible in a
vernier serve and FAIL in Optuna."""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REALISTIC = os.path.join(HERE, "..", "..", "bench", "realistic")
sys.path.insert(0, REALISTIC)
import problems  # noqa: E402
import run  # noqa: E402

BUILD = os.environ.get("VERNIER_BUILD_DIR", os.path.join(HERE, "..", "..", "build"))


def unit(coordinates):
    return {f"x{i + 1}": value for i, value in enumerate(coordinates)}


HARTMANN6_MINIMISER = [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573]
ACKLEY_SHIFTS = [1.3, -2.2, 0.7, 2.9, -0.4, -3.1]
# The box functions' minimisers (feasible) and a point of each failure region.
BOX = {
    "hartmann6_fail": (HARTMANN6_MINIMISER, [0.2, 0.15, 0.6, 0.27, 0.31, 0.66]),
    "hartmann6_noisy_fail": (HARTMANN6_MINIMISER, [0.2, 0.15, 0.6, 0.27, 0.31, 0.66]),
    "levy8_fail": ([0.55] * 8, [0.6, 0.6] + [0.55] * 6),
    "styblinski_tang8_fail": ([(5 - 2.903534) / 10] * 8, [0.3, 0.2] + [0.21] * 6),
    "rosenbrock6_crash": ([0.75] * 6, [0.3] * 6),
    "ackley6_noisy_cap": ([(5 + s) / 10 for s in ACKLEY_SHIFTS], [0.7] + [0.5] * 5),
}


class FailureRegionTest(unittest.TestCase):
    def test_box_functions_fail_in_their_region_and_not_at_their_minimum(self):
        chosen = [p for p in problems.failure_problems() + problems.failure_held_out()
                  if p.name in BOX]
        self.assertEqual(sorted(p.name for p in chosen), sorted(BOX))
        default = {p.name for p in problems.all_problems()}
        for problem in chosen:
            self.assertNotIn(problem.name, default)
            self.assertIs(problems.by_name(problem.name).__class__, problem.__class__)
            minimiser, failing = BOX[problem.name]
            self.assertAlmostEqual(problem.evaluate(unit(minimiser)), problem.optimum, delta=1e-3,
                                   msg=problem.name)
            with self.assertRaises(problems.Infeasible, msg=problem.name):
                problem.evaluate(unit(failing))
            with self.assertRaises(problems.Infeasible, msg=problem.name):
                problem.observe(unit(failing), 1, 1)

    def test_flaky_trials_fail_at_random_wherever_they_are(self):
        for name, minimiser in (("hartmann6_flaky", HARTMANN6_MINIMISER),
                                ("levy8_flaky", [0.55] * 8)):
            problem = problems.by_name(name)
            point = unit(minimiser)
            self.assertAlmostEqual(problem.evaluate(point), problem.optimum, delta=1e-3)
            lost = 0
            for trial in range(1, 201):
                try:
                    self.assertAlmostEqual(problem.observe(point, 1, trial), problem.optimum,
                                           delta=1e-3)
                except problems.Infeasible:
                    lost += 1
            # A fifth, drawn from (seed, trial): the same draws every run.
            self.assertGreater(lost, 20, name)
            self.assertLess(lost, 60, name)

    def test_real_models_fail_by_divergence_time_and_memory(self):
        mlp = problems.by_name("mlp_friedman_diverging")
        calm = {"learning_rate_init": 0.01, "momentum": 0.9, "batch_size": 16, "width": 32,
                "alpha": 1e-4}
        self.assertLess(mlp.evaluate(calm), 0.5)
        with self.assertRaisesRegex(problems.Infeasible, "training diverged"):
            mlp.evaluate(dict(calm, learning_rate_init=1.0, batch_size=4))
        svc = problems.by_name("svc_iteration_cap")
        moderate = {"C": 1.0, "gamma": 0.01, "kernel": "rbf", "degree": 3, "coef0": 0.0}
        self.assertLess(svc.evaluate(moderate), 0.1)
        with self.assertRaisesRegex(problems.Infeasible, "time limit"):
            svc.evaluate(dict(moderate, C=1e4, gamma=1.0))
        hgb = problems.by_name("hgb_memory_cap")
        small = {"learning_rate": 0.1, "max_iter": 50, "max_leaf_nodes": 8,
                 "min_samples_leaf": 10, "l2_regularization": 1e-3}
        self.assertLess(hgb.evaluate(small), 0.3)
        with self.assertRaisesRegex(problems.Infeasible, "out of memory"):
            hgb.evaluate(dict(small, max_iter=100, max_leaf_nodes=21))

    def test_the_evaluator_answers_infeasible(self):
        evaluator = subprocess.Popen(
            [sys.executable, os.path.join(REALISTIC, "evaluator.py"), "levy8_fail"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            self.assertIn('parameter_name: "x8"', evaluator.stdout.readline())
            self.assertEqual(float(evaluator.stdout.readline()), 0.0)
            evaluator.stdin.write(f"observe 1 1 {json.dumps(BOX['levy8_fail'][1])}\n")
            evaluator.stdin.write(f"evaluate {json.dumps(BOX['levy8_fail'][0])}\n")
            evaluator.stdin.flush()
            self.assertEqual(evaluator.stdout.readline().strip(),
                             "infeasible: in the failure region")
            self.assertAlmostEqual(float(evaluator.stdout.readline()), 0.0, delta=1e-9)
        finally:
            evaluator.stdin.close()
            evaluator.wait(timeout=30)
            evaluator.stdout.close()

    def test_suggest_quality_bench_records_and_counts_infeasible_trials(self):
        with tempfile.TemporaryDirectory() as scratch:
            runs = os.path.join(scratch, "runs.csv")
            subprocess.run(
                [os.path.join(BUILD, "bin", "suggest_quality_bench"), "--evaluator",
                 f"{sys.executable} {os.path.join(REALISTIC, 'evaluator.py')}",
                 "--external", "levy8_fail", "--problems", "levy8_fail",
                 "--designers", "gp,random", "--modes", "sequential", "--seeds", "2",
                 "--trials", "16", "--threads", "1", "--runs", runs],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            with open(runs) as table:
                rows = list(csv.DictReader(table))
        self.assertEqual(len(rows), 4)
        for row in rows:
            self.assertEqual(row["status"], "OK", row)
            self.assertEqual(int(row["completed_trials"]), 16)
        # A third of the box fails: over 64 trials some did.
        self.assertGreater(sum(int(row["infeasible_trials"]) for row in rows), 0)

    def test_a_capped_forest_fails_out_of_memory_in_a_server_and_in_optuna(self):
        import deterministic  # noqa: PLC0415  (bench/realistic)
        import deterministic_run  # noqa: PLC0415
        capped = deterministic.by_name("forest_3obj_memory_cap")
        self.assertIn(capped.name, [p.name for p in deterministic.held_out()])
        small = {"n_estimators": 4, "max_depth": 5, "min_samples_leaf": 2,
                 "max_features": 0.5, "criterion": "gini", "bootstrap": "true"}
        self.assertEqual(len(capped.values(small)), 3)
        with self.assertRaisesRegex(problems.Infeasible, "out of memory"):
            capped.values(dict(small, n_estimators=8, max_depth=10))
        # A third of the space fails: the runs keep only the trials with values.
        _, history = deterministic_run.optuna_run(("forest_3obj_memory_cap", "random", 1, 12))
        self.assertLess(len(history), 12)
        self.assertTrue(all(len(values) == 3 for values in history))
        _, history = deterministic_run.vernier_serve_run(
            ("forest_3obj_memory_cap", "vernier_gp", 1, 12, BUILD))
        self.assertLess(len(history), 12)
        self.assertTrue(all(len(values) == 3 for values in history))
        # Trials lost at random: as many lost in Optuna as in a server.
        flaky = deterministic.by_name("forest_3obj_flaky")
        lost = sum(flaky.lost(1, number) for number in range(1, 13))
        self.assertGreater(lost, 0)
        _, history = deterministic_run.optuna_run(("forest_3obj_flaky", "random", 1, 12))
        self.assertEqual(len(history), 12 - lost)
        _, history = deterministic_run.vernier_serve_run(
            ("forest_3obj_flaky", "vernier_gp", 1, 12, BUILD))
        self.assertEqual(len(history), 12 - lost)

    def test_tpe_tells_optuna_the_failed_trials(self):
        (name, seed, batch), regret = run.tpe_run(("rosenbrock6_crash", 1, 1))
        self.assertEqual((name, seed, batch), ("rosenbrock6_crash", 1, 1))
        self.assertGreaterEqual(regret, 0.0)


if __name__ == "__main__":
    unittest.main()
