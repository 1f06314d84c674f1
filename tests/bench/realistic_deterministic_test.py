#!/usr/bin/env python3
"""Tests of the deterministic real-problem suite of issue 33
(bench/realistic/deterministic.py and deterministic_run.py), run by ctest
under Debian's /usr/bin/python3 (scikit-learn, Optuna, scipy, grpcio): every
problem gives a point the same value twice; and the one command, on a tiny
case against the build's suggest_quality_bench and vernier
($VERNIER_BUILD_DIR), prints a table of the expected shape and gives the same
runs when run again."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REALISTIC = os.path.join(HERE, "..", "..", "bench", "realistic")
sys.path.insert(0, REALISTIC)
import deterministic  # noqa: E402

COMMAND = os.path.join(REALISTIC, "deterministic_run.py")


def middle(problem, parameters=None, point=None):
    """A point inside every active parameter's range: the middle of a range,
    the last of the values (and the children that value makes active)."""
    point = {} if point is None else point
    for parameter in problem.space if parameters is None else parameters:
        name, kind = parameter[0], parameter[1]
        if kind == "double":
            point[name] = (parameter[2] * parameter[3]) ** 0.5 if parameter[4] == "log" else (
                (parameter[2] + parameter[3]) / 2)
        elif kind == "int":
            point[name] = (parameter[2] + parameter[3]) // 2
        else:
            point[name] = parameter[2][-1]
        for values, children in deterministic.children(parameter):
            if point[name] in values:
                middle(problem, children, point)
    return point


CONDITIONAL = ["conditional_model_synthetic", "conditional_regression_diabetes"]


class DeterministicProblemsTest(unittest.TestCase):
    def test_every_problem_gives_a_point_the_same_value_twice(self):
        problems = deterministic.all_problems()
        self.assertGreaterEqual(len(problems), 8)
        self.assertGreaterEqual(sum(1 for p in problems if len(p.metric_names) == 3), 2)
        for problem in problems + deterministic.held_out() + deterministic.branching():
            with self.subTest(problem=problem.name):
                point = middle(problem)
                try:
                    first = problem.values(point)
                except deterministic.Infeasible:
                    # In the problem's failure region: it fails every time.
                    with self.assertRaises(deterministic.Infeasible):
                        deterministic.by_name(problem.name).values(point)
                    continue
                # A fresh instance: nothing cached.
                again = deterministic.by_name(problem.name).values(point)
                self.assertEqual(first, again)
                self.assertEqual(len(first), len(problem.metric_names))
                self.assertEqual(problem.observe(point, 1, 1), problem.observe(point, 2, 7))
                if not problem.regression:
                    # A count of misclassified samples over the number of samples.
                    count = first[0] * len(problem.load()[1])
                    self.assertAlmostEqual(count, round(count), places=9)

    def test_the_held_out_problems_are_reachable_by_name_but_not_run_by_default(self):
        import problems  # noqa: PLC0415  (bench/realistic, on the path above)
        default = {p.name for p in deterministic.all_problems()}
        held_out = [p.name for p in deterministic.held_out()]
        self.assertGreaterEqual(len(held_out), 4)
        for problem in deterministic.all_problems() + deterministic.held_out():
            if len(problem.metric_names) >= 2:
                references = deterministic.REFERENCES[problem.name]
                self.assertTrue(all(len(references[r]) == len(problem.metric_names)
                                    for r in ("ideal", "wide", "tight")))
                for reference in ("wide", "tight"):
                    # The reference point lies beyond the ideal corner in
                    # every objective, so the box has a volume.
                    self.assertTrue(all(r > i for r, i in zip(references[reference],
                                                              references["ideal"])))
        # The branching problems the rules for conditional spaces are tuned
        # on: neither run by default nor held out.
        for problem in deterministic.branching():
            self.assertNotIn(problem.name, default)
            self.assertNotIn(problem.name, held_out)
            self.assertTrue(any(deterministic.children(p) for p in problem.space), problem.name)
            self.assertEqual(problems.by_name(problem.name).name, problem.name)
        for name in held_out:
            with self.subTest(problem=name):
                self.assertNotIn(name, default)
                self.assertEqual(deterministic.by_name(name).name, name)
                self.assertEqual(problems.by_name(name).name, name)
        with self.assertRaisesRegex(KeyError, "unknown problem 'no_such_problem'"):
            deterministic.by_name("no_such_problem")

    def test_the_evaluator_answers_a_point_the_same_value_every_time(self):
        point = '[1.0, 0.01, "rbf", 3, 0.5]'
        requests = f"evaluate {point}\nobserve 1 1 {point}\nobserve 9 30 {point}\n"
        result = subprocess.run([sys.executable, os.path.join(REALISTIC, "evaluator.py"),
                                 "svm_cancer"], input=requests, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(len(lines), 5, result.stdout)
        self.assertEqual(lines[1], "0.0")
        self.assertEqual(len(set(lines[2:])), 1, lines)
        self.assertAlmostEqual(float(lines[2]) * 569, round(float(lines[2]) * 569), places=9)

    def test_a_conditional_space_is_flattened_parents_first_as_the_server_does(self):
        problem = deterministic.by_name("conditional_model_synthetic")
        flat = deterministic.flat_parameters(problem.space)
        names = [parameter[0] for parameter, _, _ in flat]
        self.assertEqual(names[:6], ["scaler", "model", "svm_C", "svm_gamma", "svm_kernel",
                                     "svm_degree"])
        self.assertEqual(len(names), len(set(names)))
        parents = {parameter[0]: (parent, values) for parameter, parent, values in flat}
        self.assertEqual(parents["scaler"], (None, None))
        self.assertEqual(parents["svm_degree"], ("svm_kernel", ("poly",)))
        self.assertEqual(parents["forest_trees"], ("model", ("forest",)))
        # The protobuf text nests each child under its parent's values.
        text = problem.describe()
        self.assertIn('parameter_name: "svm_kernel" type: CATEGORICAL categorical_values: "rbf" '
                      'categorical_values: "poly" conditional_parameter_specs { '
                      'parent_categorical_values { values: "poly" } parameter_spec { '
                      'parameter_name: "svm_degree" type: INTEGER', text)
        # A point of the flattened values, None where inactive, keeps the
        # active ones only.
        values = [None] * len(names)
        values[names.index("scaler")] = "none"
        values[names.index("model")] = "knn"
        for name, value in (("knn_neighbors", 5), ("knn_weights", "uniform"),
                            ("knn_metric", "euclidean")):
            values[names.index(name)] = value
        point = problem.point(values)
        self.assertEqual(point, {"scaler": "none", "model": "knn", "knn_neighbors": 5,
                                 "knn_weights": "uniform", "knn_metric": "euclidean"})
        self.assertEqual([p[0] for p in deterministic.active_parameters(problem.space, point)],
                         ["scaler", "model", "knn_neighbors", "knn_weights", "knn_metric"])
        # The YAML vocabulary's nesting, for a study created from Python.
        spec = problem.spec()
        model = spec["params"][1]
        self.assertEqual(model["parameterName"], "model")
        kernel = model["conditionalParameterSpecs"][2]
        self.assertEqual(kernel["parentCategoricalValues"], {"values": ["svm"]})
        self.assertEqual(kernel["parameterSpec"]["conditionalParameterSpecs"][0], {
            "parentCategoricalValues": {"values": ["poly"]},
            "parameterSpec": {"parameterName": "svm_degree", "type": "INTEGER", "minValue": 2,
                              "maxValue": 4, "scaleType": "UNIT_LINEAR_SCALE"}})

    def test_optuna_asks_only_for_the_active_parameters(self):
        import optuna  # noqa: PLC0415
        import deterministic_run  # noqa: PLC0415
        optuna.logging.set_verbosity(optuna.logging.ERROR)
        for name in CONDITIONAL:
            problem = deterministic.by_name(name)
            distributions = deterministic_run._distributions(problem)
            self.assertEqual(len(distributions), len(deterministic.flat_parameters(problem.space)))
            study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
            for _ in range(20):
                trial = study.ask()
                deterministic_run._ask_active(trial, problem.space, distributions)
                active = [p[0] for p in deterministic.active_parameters(problem.space,
                                                                        trial.params)]
                self.assertEqual(sorted(trial.params), sorted(active), name)
                study.tell(trial, problem.evaluate(dict(trial.params)))

    def test_hypervolume_fraction_of_the_ideal_corner_is_one(self):
        import deterministic_run
        for name, references in deterministic.REFERENCES.items():
            ideal = references["ideal"]
            self.assertEqual(deterministic_run.hypervolume_fraction([ideal], name, "wide"), 1.0)
            outside = references["wide"]
            self.assertEqual(deterministic_run.hypervolume_fraction([outside], name, "wide"), 0.0)


@unittest.skipUnless(os.environ.get("VERNIER_BUILD_DIR"),
                     "VERNIER_BUILD_DIR (the build with bin/suggest_quality_bench and bin/vernier) "
                     "is not set")
class DeterministicCommandTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.build = os.environ["VERNIER_BUILD_DIR"]

    def tearDown(self):
        self.dir.cleanup()

    def run_command(self, save, problems, methods, *extra):
        result = subprocess.run(
            [sys.executable, COMMAND, "--build", self.build, "--seeds", "1", "--problems",
             problems, "--methods", methods, "--trials-single", "12", "--trials-multi", "12",
             "--save", save, *extra], capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(save) as saved:
            runs = {(name, method, seed): run for name, method, seed, run in json.load(saved)}
        return result.stdout, runs

    def test_a_tiny_comparison_has_the_table_s_shape_and_repeats_exactly(self):
        save = os.path.join(self.dir.name, "runs.json")
        stdout, runs = self.run_command(save, "knn_wine,forest_3obj",
                                        "vernier_gp,vernier_random,tpe,motpe")
        rows = [line for line in stdout.splitlines() if line.startswith("| ")]
        self.assertEqual(rows[0], "| problem | method | seeds | median [quartiles] | worst "
                                  "| GP better / worse | p |")
        body = rows[1:]
        # knn_wine: GP, random, TPE; forest_3obj at two references: GP, random, MOTPE.
        self.assertEqual([row.split(" | ")[0:2] for row in body], [
            ["| knn_wine", "Vernier GP"], ["| knn_wine", "Vernier random"],
            ["| knn_wine", "Optuna TPE"],
            ["| forest_3obj (wide)", "Vernier GP"], ["| forest_3obj (wide)", "Vernier random"],
            ["| forest_3obj (wide)", "Optuna MOTPE"],
            ["| forest_3obj (tight)", "Vernier GP"], ["| forest_3obj (tight)", "Vernier random"],
            ["| forest_3obj (tight)", "Optuna MOTPE"]], stdout)
        for row in body:
            cells = row.strip("|").split("|")
            self.assertEqual(len(cells), 7, row)
            self.assertEqual(cells[2].strip(), "1", row)
            self.assertEqual(cells[6].strip(), "—", row)  # one seed: no p-value
        self.assertIn("Where Vernier's GP median is worse than a method's:", stdout)
        self.assertEqual(sorted(runs), sorted(
            [("knn_wine", m, 1) for m in ("vernier_gp", "vernier_random", "tpe")] +
            [("forest_3obj", m, 1) for m in ("vernier_gp", "vernier_random", "motpe")]))
        for method in ("vernier_gp", "vernier_random", "motpe"):
            history = runs[("forest_3obj", method, 1)]
            self.assertEqual(len(history), 12)
            self.assertTrue(all(len(values) == 3 for values in history))
        # A conditional space: Vernier's GP and Optuna's define-by-run TPE.
        _, conditional = self.run_command(os.path.join(self.dir.name, "conditional.json"),
                                          CONDITIONAL[0], "vernier_gp,tpe_mv")
        self.assertEqual(sorted(conditional), [(CONDITIONAL[0], m, 1)
                                               for m in ("tpe_mv", "vernier_gp")])
        self.assertTrue(all(0 < run < 1 for run in conditional.values()), conditional)
        # The same space through a vernier serve, its study created from the
        # nested YAML spec by the Python client.
        _, served = self.run_command(os.path.join(self.dir.name, "served.json"), CONDITIONAL[0],
                                     "vernier_gp", "--vernier-runner", "serve")
        self.assertEqual(sorted(served), [(CONDITIONAL[0], "vernier_gp", 1)])
        self.assertTrue(0 < served[(CONDITIONAL[0], "vernier_gp", 1)] < 1, served)
        # The same seeds again: the very same runs.
        _, again = self.run_command(os.path.join(self.dir.name, "again.json"),
                                    "knn_wine,forest_3obj", "vernier_gp,tpe,motpe")
        for key, run in again.items():
            self.assertEqual(run, runs[key], key)


if __name__ == "__main__":
    unittest.main()
