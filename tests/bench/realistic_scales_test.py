#!/usr/bin/env python3
"""Tests of bench/realistic's problems whose parameters are declared on the
wrong scale (run by ctest under Debian's /usr/bin/python3): the decades
map keeps the box and its order and crowds the function's range into one
end, a misscaled function's optimum is still in its box, and the
deterministic problems with their log scales declared linear give the same
values as the originals with only their specs' scales changed."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "realistic"))
import deterministic  # noqa: E402
import problems  # noqa: E402


class MisscaledProblemsTest(unittest.TestCase):
    def test_decades_keep_the_box_and_crowd_one_end(self):
        for count in (2, 3):
            low, high = problems._decades(count), problems._decades(count, reverse=True)
            for scale in (low, high):
                self.assertAlmostEqual(scale(0.0), 0.0, places=12)
                self.assertAlmostEqual(scale(1.0), 1.0, places=12)
                grid = [scale(i / 200) for i in range(201)]
                self.assertEqual(grid, sorted(grid))
            # The first 10% of the coordinate holds (count - 1) / count of
            # the variable's range (a decade of the coordinate's each), and
            # the reverse map the same at the top.
            self.assertAlmostEqual(low(0.1), (count - 1) / count, delta=0.02)
            self.assertAlmostEqual(high(0.9), 1 - (count - 1) / count, delta=0.02)
        # At three decades, the first 1% a third.
        self.assertAlmostEqual(problems._decades(3)(0.01), 0.347, delta=0.001)

    def test_each_misscaled_function_reaches_its_optimum_in_its_box(self):
        chosen = problems.misscaled_problems() + problems.misscaled_held_out()
        self.assertEqual(len({p.name for p in chosen}), len(chosen))
        default = {p.name for p in problems.all_problems()}
        for problem in chosen:
            with self.subTest(problem=problem.name):
                self.assertNotIn(problem.name, default)
                self.assertIs(problems.by_name(problem.name).__class__, problem.__class__)
                self.assertEqual(len(problem.scales), problem.dimension)
                self.assertTrue(any(scale is not None for scale in problem.scales))
                # Unscaled, the same function: its value at any point is the
                # plain function's at the scaled point.
                point = {f"x{i + 1}": 0.37 for i in range(problem.dimension)}
                scaled = {f"x{i + 1}": (0.37 if scale is None else scale(0.37))
                          for i, scale in enumerate(problem.scales)}
                plain = problems.BoxFunction(problem.name, problem.key, problem.dimension,
                                             problem.function, problem.optimum, problem.noise,
                                             problem.trials, active=problem.active)
                self.assertAlmostEqual(problem.evaluate(point), plain.evaluate(scaled))
                self.assertGreaterEqual(problem.evaluate(point), problem.optimum - 1e-9)

    def test_linear_scales_change_the_spec_only(self):
        for name in ("mlp_digits", "hgb_synthetic", "svr_friedman"):
            with self.subTest(problem=name):
                original = deterministic.by_name(name)
                linear = deterministic.by_name(name + "_linear")
                self.assertIsInstance(linear, type(original))
                self.assertNotIn(linear.name, {p.name for p in deterministic.all_problems()})
                self.assertEqual([p[:4] for p in linear.space], [p[:4] for p in original.space])
                scales = [p["scaleType"] for p in linear.spec()["params"] if "scaleType" in p]
                self.assertNotIn("UNIT_LOG_SCALE", scales)
                self.assertIn("UNIT_LOG_SCALE",
                              [p.get("scaleType") for p in original.spec()["params"]])
                # The class's own space is untouched.
                self.assertIn("log", [p[4] for p in original.space if len(p) > 4])


if __name__ == "__main__":
    unittest.main()
