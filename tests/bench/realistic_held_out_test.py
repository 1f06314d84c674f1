#!/usr/bin/env python3
"""Tests of bench/realistic/problems.py's held-out and high-dimensional
functions (run by ctest under Debian's /usr/bin/python3): each reaches its
stated optimum at its known minimiser and only there, and by_name finds them
and names the unknown."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                                "realistic"))
import problems  # noqa: E402


def unit(problem, coordinates):
    return {f"x{i + 1}": value for i, value in enumerate(coordinates)}


# The known minimisers, in the unit box.
MINIMISERS = {
    "zakharov10": [1 / 3] * 10,
    # Dixon-Price: x_i = 2^-((2^i - 2) / 2^i), i = 1..d, on [-10, 10].
    "dixon_price8": [(2 ** (-((2 ** i - 2) / 2 ** i)) + 10) / 20 for i in range(1, 9)],
    "griewank8": [22.7 / 60] * 8,
    # Michalewicz (d = 5): the published minimiser.
    "michalewicz5": [v / 3.141592653589793
                     for v in (2.202906, 1.570796, 1.284992, 1.923058, 1.720470)],
    "sumsq10_noisy": [0.31 + 0.05 * i for i in range(10)],
}


def check_noise_and_names(test, chosen, minimisers):
    """Only the problems named *_noisy among `chosen` observe with noise (at
    their minimisers), none is in run.py's default set, and by_name finds
    each."""
    default = {p.name for p in problems.all_problems()}
    for problem in chosen:
        test.assertNotIn(problem.name, default)
        test.assertEqual(problems.by_name(problem.name).name, problem.name)
        point = unit(problem, minimisers[problem.name])
        observed = [problem.observe(point, seed, 1) for seed in (1, 2)]
        if problem.name.endswith("_noisy"):
            test.assertNotEqual(observed[0], observed[1], problem.name)
        else:
            test.assertEqual(observed, [problem.evaluate(point)] * 2, problem.name)


class HeldOutTest(unittest.TestCase):
    def test_each_reaches_its_optimum_at_its_minimiser(self):
        held_out = problems.held_out_problems()
        self.assertEqual(sorted(p.name for p in held_out), sorted(MINIMISERS))
        for problem in held_out:
            point = MINIMISERS[problem.name]
            value = problem.evaluate(unit(problem, point))
            self.assertAlmostEqual(value, problem.optimum, delta=1e-4, msg=problem.name)
            # A step away in the first coordinate is worse.
            moved = list(point)
            moved[0] = min(1.0, moved[0] + 0.05)
            self.assertGreater(problem.evaluate(unit(problem, moved)), problem.optimum + 1e-6,
                               msg=problem.name)

    def test_only_the_noisy_one_is_noisy_and_by_name_finds_them(self):
        check_noise_and_names(self, problems.held_out_problems(), MINIMISERS)
        with self.assertRaisesRegex(KeyError, "unknown problem 'nope'.*zakharov10"):
            problems.by_name("nope")


# The high-dimensional set's minimisers, in the unit box (20 coordinates).
HIGH_DIMENSIONAL_MINIMISERS = {
    "levy20": [0.55] * 20,
    "rosenbrock20": [0.75] * 20,
    "styblinski_tang20": [(5 - 2.903534) / 10] * 20,
    # Shifted Ackley: the shifts of problems._ackley, repeated.
    "ackley20_noisy": [(5 + s) / 10 for s in [1.3, -2.2, 0.7, 2.9, -0.4, -3.1, 1.9, -1.1] * 3][:20],
    "dixon_price20": [(2 ** (-((2 ** i - 2) / 2 ** i)) + 10) / 20 for i in range(1, 21)],
}


class HighDimensionalTest(unittest.TestCase):
    def test_every_coordinate_matters_and_the_optimum_is_at_the_minimiser(self):
        chosen = problems.high_dimensional_problems()
        self.assertEqual(sorted(p.name for p in chosen), sorted(HIGH_DIMENSIONAL_MINIMISERS))
        for problem in chosen:
            self.assertEqual(problem.dimension, 20, problem.name)
            self.assertIsNone(problem.active, problem.name)
            point = HIGH_DIMENSIONAL_MINIMISERS[problem.name]
            self.assertAlmostEqual(problem.evaluate(unit(problem, point)), problem.optimum,
                                   delta=1e-3, msg=problem.name)
            # A step away in any one coordinate is worse: all 20 matter.
            for index in range(20):
                moved = list(point)
                moved[index] = moved[index] + 0.05 if moved[index] < 0.9 else moved[index] - 0.05
                self.assertGreater(problem.evaluate(unit(problem, moved)),
                                   problem.optimum + 1e-6, msg=f"{problem.name} x{index + 1}")

    def test_only_the_noisy_one_is_noisy_and_by_name_finds_them(self):
        check_noise_and_names(self, problems.high_dimensional_problems(),
                              HIGH_DIMENSIONAL_MINIMISERS)


if __name__ == "__main__":
    unittest.main()
