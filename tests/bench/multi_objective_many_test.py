#!/usr/bin/env python3
"""Tests of the four- and five-objective problems of
bench/multi_objective_bench.{cc,py} (run by ctest under Debian's
/usr/bin/python3, against $VERNIER_BUILD_DIR/bin/multi_objective_bench):
each problem's front is where DTLZ puts it, the C++ and Python problems
agree at the points the C++ designers chose, the hypervolume of four or
more objectives is exact on fronts whose volume is known, batches are
asked for together, and an unknown problem (or a batch that is not a
number of points) is refused, naming it."""

import csv
import math
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import multi_objective_bench as bench  # noqa: E402


def point(values):
    return {f"x{i}": v for i, v in enumerate(values)}


class ProblemsTest(unittest.TestCase):
    def test_dtlz2_fronts_lie_on_the_unit_sphere(self):
        for objectives in (3, 4, 5):
            evaluate = bench.PROBLEMS["dtlz2" if objectives == 3 else f"dtlz2_m{objectives}"]
            for position in ([0.0] * (objectives - 1), [0.3, 0.9, 0.1, 0.6][:objectives - 1],
                             [1.0] * (objectives - 1)):
                # g = 0: the distance coordinates at 1/2.
                f = evaluate(point(position + [0.5] * bench.DISTANCE_COORDINATES))
                self.assertEqual(len(f), objectives)
                self.assertAlmostEqual(sum(v * v for v in f), 1.0, places=12)
                self.assertTrue(all(v >= -1e-15 for v in f))
                # Away from 1/2 the point moves out along its ray by 1 + g.
                far = evaluate(point(position + [0.0] * bench.DISTANCE_COORDINATES))
                for near_value, far_value in zip(f, far):
                    self.assertAlmostEqual(far_value, 2.0 * near_value, places=12)

    def test_dtlz5_front_is_a_curve(self):
        # At g = 0 every angle after the first is pi/4, whatever its
        # coordinate: f_1 = f_2 (M = 4), the front a curve on the sphere.
        evaluate = bench.PROBLEMS["dtlz5_m4"]
        a = evaluate(point([0.4, 0.1, 0.9] + [0.5] * 4))
        b = evaluate(point([0.4, 0.7, 0.2] + [0.5] * 4))
        for x, y in zip(a, b):
            self.assertAlmostEqual(x, y, places=12)
        self.assertAlmostEqual(sum(v * v for v in a), 1.0, places=12)
        self.assertAlmostEqual(a[0], a[1], places=12)

    def test_dtlz7_last_objective(self):
        evaluate = bench.PROBLEMS["dtlz7_m4"]
        # g = 1 at distance coordinates 0; the first three objectives are
        # the position coordinates; f_4 = 2 (4 - sum f_i / 2 (1 + sin(3 pi f_i))).
        f = evaluate(point([0.0, 0.5, 1.0] + [0.0] * 4))
        self.assertEqual(f[:3], [0.0, 0.5, 1.0])
        h = 4 - sum(v / 2 * (1 + math.sin(3 * math.pi * v)) for v in (0.0, 0.5, 1.0))
        self.assertAlmostEqual(f[3], 2 * h, places=12)
        # The worst distance (g = 10) multiplies the last objective by 11 / 2.
        worst = evaluate(point([0.0, 0.0, 0.0] + [1.0] * 4))
        self.assertAlmostEqual(worst[3], 11 * 4, places=12)

    def test_every_reference_has_one_value_per_objective(self):
        for name in bench.MANY_OBJECTIVES:
            f = bench.PROBLEMS[name](point([0.5] * (len(bench.REFERENCE[name]) + 3)))
            self.assertEqual(len(f), len(bench.REFERENCE[name]), name)


class HypervolumeTest(unittest.TestCase):
    def test_one_point_is_its_box(self):
        reference = (1.0, 2.0, 1.0, 3.0, 1.0)
        self.assertAlmostEqual(bench.hypervolume([(0.5, 1.0, 0.0, 1.0, 0.5)], reference),
                               0.5 * 1.0 * 1.0 * 2.0 * 0.5)

    def test_two_boxes_counted_once_where_they_overlap(self):
        reference = (1.0, 1.0, 1.0, 1.0)
        a = (0.0, 0.5, 0.5, 0.5)
        b = (0.5, 0.0, 0.5, 0.5)
        # Each box 1 x 0.5 x 0.5 x 0.5; their intersection 0.5 x 0.5 x 0.5 x 0.5.
        self.assertAlmostEqual(bench.hypervolume([a, b], reference), 2 * 0.125 - 0.0625)
        # A dominated point and one outside the reference add nothing.
        self.assertAlmostEqual(bench.hypervolume([a, b, (0.6, 0.6, 0.6, 0.6),
                                                  (0.0, 0.0, 0.0, 1.5)], reference),
                               2 * 0.125 - 0.0625)
        self.assertEqual(bench.hypervolume([(2.0, 0.0, 0.0, 0.0)], reference), 0.0)

    def test_four_dimensions_agree_with_the_three_dimensional_slices(self):
        # A fourth objective at 0 against a reference of 1 leaves the
        # three-dimensional volume unchanged.
        front = [(0.1, 0.7, 0.4), (0.5, 0.2, 0.6), (0.8, 0.1, 0.05), (0.3, 0.3, 0.3)]
        reference = (1.0, 1.0, 1.0)
        three = bench.hypervolume(front, reference)
        four = bench.hypervolume([p + (0.0,) for p in front], reference + (1.0,))
        self.assertAlmostEqual(three, four, places=12)


@unittest.skipUnless(os.environ.get("VERNIER_BUILD_DIR"),
                     "VERNIER_BUILD_DIR (the build with bin/multi_objective_bench) is not set")
class CppAgreesTest(unittest.TestCase):
    def setUp(self):
        self.binary = os.path.join(os.environ["VERNIER_BUILD_DIR"], "bin",
                                   "multi_objective_bench")

    def test_the_cpp_problems_agree_with_these(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "runs.csv")
            done = subprocess.run([self.binary, "--problems", ",".join(bench.MANY_OBJECTIVES),
                                   "--designers", "random,gp", "--seeds", "1", "--trials", "14",
                                   "--out", path], capture_output=True, text=True, timeout=300)
            self.assertEqual(done.returncode, 0, done.stderr)
            seen = set()
            with open(path) as table:
                for row in csv.DictReader(table):
                    parameters = {name: float(value) for name, value in
                                  (item.split("=", 1) for item in row["parameters"].split(";"))}
                    metrics = [float(v) for v in row["metrics"].split(";")]
                    again = bench.PROBLEMS[row["problem"]](parameters)
                    self.assertEqual(len(metrics), len(bench.REFERENCE[row["problem"]]))
                    for a, b in zip(metrics, again):
                        self.assertTrue(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15),
                                        (row["problem"], parameters, metrics, again))
                    seen.add((row["problem"], row["designer"]))
            # Past the initial design (min(max(d + 1, 5), 10) trials) the GP ran.
            self.assertEqual(seen, {(p, d) for p in bench.MANY_OBJECTIVES
                                    for d in ("random", "gp")})

    def test_batches_of_points_asked_for_together(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "runs.csv")
            done = subprocess.run([self.binary, "--problems", "dtlz2_m4", "--designers", "gp",
                                   "--seeds", "1", "--trials", "14", "--batch", "4",
                                   "--out", path], capture_output=True, text=True, timeout=300)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(path) as table:
                rows = list(csv.DictReader(table))
            # 14 trials in batches of 4, 4, 4 and 2, all distinct points.
            self.assertEqual([int(row["trial"]) for row in rows], list(range(1, 15)))
            self.assertEqual(len({row["parameters"] for row in rows}), 14)
            for bad in ("0", "-2"):
                never = os.path.join(scratch, "never.csv")
                done = subprocess.run([self.binary, "--problems", "dtlz2_m4", "--batch", bad,
                                       "--out", never], capture_output=True, text=True,
                                      timeout=60)
                self.assertEqual(done.returncode, 2)
                self.assertIn(f"--batch: {bad} is not a number of points per request",
                              done.stderr)
                self.assertFalse(os.path.exists(never))

    def test_an_unknown_problem_is_refused_by_both(self):
        with tempfile.TemporaryDirectory() as scratch:
            done = subprocess.run([self.binary, "--problems", "dtlz2_m9", "--seeds", "1",
                                   "--out", os.path.join(scratch, "runs.csv")],
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertIn("unknown problem dtlz2_m9", done.stderr)
        script = os.path.join(os.path.dirname(os.path.abspath(bench.__file__)),
                              "multi_objective_bench.py")
        done = subprocess.run([sys.executable, script, "--problems", "dtlz2_m9"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertIn("--problems: unknown problem 'dtlz2_m9'", done.stderr)


if __name__ == "__main__":
    unittest.main()
