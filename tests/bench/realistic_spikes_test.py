#!/usr/bin/env python3
"""Tests of bench/realistic/problems.py's problems whose reports have a heavy
tail of bad values (run by ctest under Debian's /usr/bin/python3): a spike
only ever makes a report worse, the same (seed, trial) always draws the same
one, about the stated share of the reports spike, the regret's value has
none, and the evaluator answers with the spiked report."""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REALISTIC = os.path.join(HERE, "..", "..", "bench", "realistic")
sys.path.insert(0, REALISTIC)
import problems  # noqa: E402


def middle(problem):
    return {f"x{i + 1}": 0.5 for i in range(problem.dimension)}


class SpikyProblemsTest(unittest.TestCase):
    def test_spikes_make_reports_worse_repeatably_at_their_stated_share(self):
        chosen = [p for p in problems.spiky_problems() + problems.spiky_held_out()
                  if isinstance(p, problems.BoxFunction)]
        self.assertGreaterEqual(len(chosen), 8)
        default = {p.name for p in problems.all_problems()}
        for problem in chosen:
            with self.subTest(problem=problem.name):
                self.assertNotIn(problem.name, default)
                self.assertIs(problems.by_name(problem.name).__class__, problem.__class__)
                chance = problem.spikes[0]
                point = middle(problem)
                # The same function and noise without the spikes.
                plain = problems.BoxFunction(problem.name, problem.key, problem.dimension,
                                             problem.function, problem.optimum, problem.noise,
                                             problem.trials, active=problem.active)
                spiked = 0
                for trial in range(1, 2001):
                    report = problem.observe(point, 3, trial)
                    self.assertEqual(report, problem.observe(point, 3, trial))
                    unspiked = plain.observe(point, 3, trial)
                    self.assertGreaterEqual(report, unspiked)
                    if report > unspiked:
                        spiked += 1
                # The share of 2,000 draws, within about four deviations.
                self.assertAlmostEqual(spiked / 2000, chance, delta=0.04, msg=problem.name)
                # Another seed draws other spikes.
                self.assertNotEqual([problem.observe(point, 3, t) for t in range(1, 50)],
                                    [problem.observe(point, 4, t) for t in range(1, 50)])

    def test_a_spike_s_size_follows_its_scale(self):
        problem = problems.by_name("hartmann6_spiky")
        point = middle(problem)
        value = problem.evaluate(point)
        excess = [problem.observe(point, 1, t) - value for t in range(1, 3001)]
        spikes = [e for e in excess if e > 0]
        # Exponential draws of mean `size` (1.0 here).
        self.assertAlmostEqual(sum(spikes) / len(spikes), problem.spikes[1], delta=0.15)

    def test_the_network_s_runs_differ_by_their_start_and_its_value_is_their_mean(self):
        problem = problems.by_name("mlp_friedman_seeds")
        point = {"learning_rate_init": 0.01, "width": 16, "layers": 1, "alpha": 1e-3,
                 "batch_size": 32}
        reports = [problem.observe(point, 1, t) for t in range(1, 4)]
        self.assertEqual(reports[0], problem.observe(point, 1, 1))
        self.assertGreater(len(set(reports)), 1)
        self.assertAlmostEqual(problem.evaluate(point),
                               sum(problem._error(point, s) for s in range(3)) / 3)

    def test_the_three_objective_forest_reports_a_spiked_error_only(self):
        import deterministic  # noqa: PLC0415  (bench/realistic, on the path above)
        spiky = deterministic.by_name("forest_3obj_spiky")
        plain = deterministic.by_name("forest_3obj")
        self.assertEqual(deterministic.REFERENCES["forest_3obj_spiky"],
                         deterministic.REFERENCES["forest_3obj"])
        values = [0.2, 2.0, 5.0]
        # The plain forest reports its values as they are.
        self.assertEqual(plain.report(values, 1, 1), values)
        spiked = 0
        for trial in range(1, 1201):
            reported = spiky.report(values, 5, trial)
            self.assertEqual(reported, spiky.report(values, 5, trial))
            self.assertEqual(reported[1:], values[1:])
            self.assertGreaterEqual(reported[0], values[0])
            spiked += reported[0] > values[0]
        self.assertAlmostEqual(spiked / 1200, spiky.spikes[0], delta=0.04)

    def test_the_evaluator_answers_the_spiked_report(self):
        problem = problems.by_name("hartmann6_rare_spikes")
        point = middle(problem)
        trial = next(t for t in range(1, 200)
                     if problem.observe(point, 2, t) > problem.evaluate(point))
        values = "[" + ", ".join(["0.5"] * problem.dimension) + "]"
        result = subprocess.run(
            [sys.executable, os.path.join(REALISTIC, "evaluator.py"), problem.name],
            input=f"evaluate {values}\nobserve 2 {trial} {values}\n", capture_output=True,
            text=True, check=True)
        lines = result.stdout.splitlines()
        self.assertEqual(float(lines[2]), problem.evaluate(point))
        self.assertEqual(float(lines[3]), problem.observe(point, 2, trial))


if __name__ == "__main__":
    unittest.main()
