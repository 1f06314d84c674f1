#!/usr/bin/env python3
"""The several-objectives and outcome-constraints benchmark of issue 21 in
one command.

Several objectives: the hypervolume of the trials after 25, 50 and 100
trials, median [lower quartile, upper quartile] over the seeds, for
Vernier's RANDOM_SEARCH and GAUSSIAN_PROCESS_BANDIT (build/bin/
multi_objective_bench, one trial at a time) and Optuna's NSGA-II and
MOTPE samplers (defaults, seeded) on ZDT3 (6-d), DTLZ1 and DTLZ2 (3
objectives, 6-d; a linear and a curved front), four and five objectives
(dtlz2_m4 and dtlz2_m5: the curved front in 7-d and 8-d; dtlz5_m4: a
degenerate front, a curve, 7-d; dtlz7_m4: a front in 8 disconnected
pieces, 7-d; not in the default set) and a mixed-space training
surrogate (loss against latency, with log,
integer, discrete and categorical parameters). Every hypervolume is
computed here, by one implementation, against a fixed reference point.

Constraints: the surrogate's loss with latency_ms at most 20 (an outcome
constraint): the fraction of trials that were infeasible and the best
feasible loss, Vernier's GP against random search.

The problems are defined in bench/multi_objective_bench.cc and again here
(for Optuna); every Vernier trial is re-evaluated here, so the two must
agree. Needs Debian's python3-optuna, hence /usr/bin/python3:

  /usr/bin/python3 bench/multi_objective_bench.py [--build build] [--seeds 10] [--trials 100]
"""

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy
import optuna
from optuna._hypervolume import WFG

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conditional_optuna import quartiles  # noqa: E402  (beside this file)

MULTI_OBJECTIVE = ["zdt3", "dtlz1", "dtlz2", "surrogate"]
# Four and five objectives: run with --problems.
MANY_OBJECTIVES = ["dtlz2_m4", "dtlz2_m5", "dtlz5_m4", "dtlz7_m4"]
# Reference points (all objectives minimised): BoTorch's for ZDT3, DTLZ1 and DTLZ2,
# the surrogate's worst loss and latency rounded up; for DTLZ2 and DTLZ5 in
# more objectives 1.1 in each, as DTLZ2's; for DTLZ7 1.1 in the first three
# and BoTorch's 15 in the last (the front's last objective spans about 2.9
# to 2M = 8; at 8.8 random search's hypervolume was 0 in every seed).
REFERENCE = {"zdt3": (11.0, 11.0), "dtlz1": (400.0, 400.0, 400.0), "dtlz2": (1.1, 1.1, 1.1),
             "dtlz2_m4": (1.1,) * 4, "dtlz2_m5": (1.1,) * 5, "dtlz5_m4": (1.1,) * 4,
             "dtlz7_m4": (1.1, 1.1, 1.1, 15.0), "surrogate": (4.0, 300.0)}
# DTLZ's k: the distance coordinates after the M - 1 position coordinates.
DISTANCE_COORDINATES = 4
LATENCY_LIMIT = 20.0


# The problems ---------------------------------------------------------------

def zdt3(p):
    x = [p[f"x{i}"] for i in range(6)]
    f1 = x[0]
    g = 1 + 9 * sum(x[1:]) / 5
    h = 1 - math.sqrt(f1 / g) - (f1 / g) * math.sin(10 * math.pi * f1)
    return [f1, g * h]


def dtlz1(p):
    x = [p[f"x{i}"] for i in range(6)]
    g = 100 * (4 + sum((v - 0.5) ** 2 - math.cos(20 * math.pi * (v - 0.5)) for v in x[2:]))
    return [0.5 * x[0] * x[1] * (1 + g), 0.5 * x[0] * (1 - x[1]) * (1 + g),
            0.5 * (1 - x[0]) * (1 + g)]


def dtlz2(p):
    x = [p[f"x{i}"] for i in range(6)]
    g = sum((v - 0.5) ** 2 for v in x[2:])
    a = x[0] * math.pi / 2
    b = x[1] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b),
            (1 + g) * math.sin(a)]


def sphere_point(radius, theta):
    """f_1 = r cos(theta_0) ... cos(theta_{M-2}); f_i = r cos(theta_0) ...
    cos(theta_{M-1-i}) sin(theta_{M-i}) for i > 1 (multiplied in the C++
    bench's order)."""
    m = len(theta) + 1
    f = []
    for i in range(m):
        value = radius
        for j in range(m - 1 - i):
            value *= math.cos(theta[j])
        if i > 0:
            value *= math.sin(theta[m - 1 - i])
        f.append(value)
    return f


def coordinates(p, objectives):
    return [p[f"x{i}"] for i in range(objectives - 1 + DISTANCE_COORDINATES)]


def squared_distance_from_centre(x, objectives):
    """DTLZ2's and DTLZ5's g: the sum of (x_i - 1/2)^2 over the distance
    coordinates (as the C++ bench computes it)."""
    return sum((v - 0.5) * (v - 0.5) for v in x[objectives - 1:])


def dtlz2_m(objectives):
    def evaluate(p):
        x = coordinates(p, objectives)
        g = squared_distance_from_centre(x, objectives)
        return sphere_point(1 + g, [v * math.pi / 2 for v in x[:objectives - 1]])
    return evaluate


def dtlz5_m(objectives):
    def evaluate(p):
        x = coordinates(p, objectives)
        g = squared_distance_from_centre(x, objectives)
        theta = [x[0] * math.pi / 2] + [math.pi / (4 * (1 + g)) * (1 + 2 * g * v)
                                         for v in x[1:objectives - 1]]
        return sphere_point(1 + g, theta)
    return evaluate


def dtlz7_m(objectives):
    def evaluate(p):
        x = coordinates(p, objectives)
        g = 1 + 9 * sum(x[objectives - 1:]) / DISTANCE_COORDINATES
        f = x[:objectives - 1]
        h = objectives
        for v in f:
            h -= v / (1 + g) * (1 + math.sin(3 * math.pi * v))
        return f + [(1 + g) * h]
    return evaluate


def surrogate(p):
    layers = p["layers"]
    width = p["width"]
    batch = p["batch_size"]
    optimizer = p["optimizer"]
    best_log_rate = {"adam": -3.0, "rmsprop": -3.5, "sgd": -1.5}[optimizer]
    optimizer_penalty = {"adam": 0.0, "rmsprop": 0.03, "sgd": 0.08}[optimizer]
    capacity = math.log2(width) * math.sqrt(layers)
    loss = (0.25 + 1.2 / capacity * 6
            + 0.15 * (math.log10(p["learning_rate"]) - best_log_rate) ** 2
            + 0.6 * (p["dropout"] - 0.2 * min(layers, 5.0) / 5.0) ** 2
            + 0.02 * math.log2(batch / 64) * math.log2(batch / 64) + optimizer_penalty)
    latency = 0.5 + layers * width * width / 1.0e5 * (1 + 32.0 / batch)
    return [loss, latency]


PROBLEMS = {"zdt3": zdt3, "dtlz1": dtlz1, "dtlz2": dtlz2, "dtlz2_m4": dtlz2_m(4),
            "dtlz2_m5": dtlz2_m(5), "dtlz5_m4": dtlz5_m(4), "dtlz7_m4": dtlz7_m(4),
            "surrogate": surrogate, "constrained": surrogate}


def optuna_parameters(problem, trial):
    if problem in ("zdt3", "dtlz1", "dtlz2"):
        return {f"x{i}": trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)}
    if problem in MANY_OBJECTIVES:
        d = len(REFERENCE[problem]) - 1 + DISTANCE_COORDINATES
        return {f"x{i}": trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(d)}
    return {
        "learning_rate": trial.suggest_float("learning_rate", 1e-5, 1e-1, log=True),
        "layers": trial.suggest_int("layers", 1, 8),
        "width": float(trial.suggest_categorical("width", [32, 64, 128, 256, 512, 1024])),
        "batch_size": float(trial.suggest_categorical("batch_size", [16, 32, 64, 128, 256])),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5),
        "optimizer": trial.suggest_categorical("optimizer", ["adam", "sgd", "rmsprop"]),
    }


# Hypervolume (every objective minimised) ------------------------------------

def hypervolume_2d(points, reference):
    volume = 0.0
    level = reference[1]
    for f1, f2 in sorted(points):
        if f2 < level:
            volume += (reference[0] - f1) * (level - f2)
            level = f2
    return volume


def hypervolume(points, reference):
    """Exact: a sweep in two dimensions, slices along the last objective in
    three, Optuna's WFG algorithm (While et al. 2012) in more."""
    inside = [p for p in points if all(v < r for v, r in zip(p, reference))]
    if len(reference) == 2:
        return hypervolume_2d(inside, reference)
    if len(reference) > 3:
        if not inside:
            return 0.0
        points = numpy.unique(numpy.array(inside, dtype=float), axis=0)
        # Only the points no other dominates count (and WFG's cost grows
        # fast with the points it is given).
        dominated = [bool(numpy.any(numpy.all(points <= p, axis=1) & numpy.any(points < p, axis=1)))
                     for p in points]
        front = points[~numpy.array(dominated)]
        return float(WFG().compute(front, numpy.array(reference, dtype=float)))
    inside.sort(key=lambda p: p[2])
    volume = 0.0
    for i, point in enumerate(inside):
        top = inside[i + 1][2] if i + 1 < len(inside) else reference[2]
        if top > point[2]:
            volume += (top - point[2]) * hypervolume_2d(
                [(p[0], p[1]) for p in inside[:i + 1]], reference[:2])
    return volume


# Runs ----------------------------------------------------------------------

def parse_value(text):
    try:
        return float(text)
    except ValueError:
        return text


def vernier_runs(build, problems, seeds, trials):
    """{(problem, designer, seed): [metrics of each trial]}, every trial
    re-evaluated here; and the seconds each problem took."""
    runs = {}
    seconds = {}
    with tempfile.TemporaryDirectory() as scratch:
        for problem in problems:
            path = os.path.join(scratch, f"{problem}.csv")
            start = time.monotonic()
            subprocess.run([os.path.join(build, "bin", "multi_objective_bench"), "--problems",
                            problem, "--designers", "random,gp", "--seeds", str(seeds),
                            "--trials", str(trials), "--out", path], check=True)
            seconds[problem] = time.monotonic() - start
            with open(path) as table:
                for row in csv.DictReader(table):
                    parameters = dict(item.split("=", 1) for item in row["parameters"].split(";"))
                    parameters = {name: parse_value(value) for name, value in parameters.items()}
                    metrics = [float(v) for v in row["metrics"].split(";")]
                    again = PROBLEMS[problem](parameters)
                    if any(not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                           for a, b in zip(metrics, again)):
                        raise SystemExit(f"{problem}: the C++ and Python problems disagree at "
                                         f"{parameters}: {metrics} against {again}")
                    key = (problem, row["designer"], int(row["seed"]))
                    runs.setdefault(key, []).append(metrics)
    return runs, seconds


def optuna_run(problem, sampler_name, seed, trials):
    sampler = (optuna.samplers.NSGAIISampler(seed=seed) if sampler_name == "nsga2"
               else optuna.samplers.MOTPESampler(seed=seed))
    directions = ["minimize"] * len(REFERENCE[problem])
    study = optuna.create_study(directions=directions, sampler=sampler)
    history = []

    def objective(trial):
        metrics = PROBLEMS[problem](optuna_parameters(problem, trial))
        history.append(metrics)
        return tuple(metrics)

    study.optimize(objective, n_trials=trials)
    return history


def summary(values):
    median, lower, upper = quartiles(values)
    return f"{median:.4g} [{lower:.4g}, {upper:.4g}]"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--problems", default=",".join(MULTI_OBJECTIVE + ["constrained"]),
                        help="any of " + ", ".join(MULTI_OBJECTIVE + MANY_OBJECTIVES)
                        + ", constrained")
    options = parser.parse_args(argv)
    problems = options.problems.split(",")
    unknown = [p for p in problems if p not in PROBLEMS]
    if unknown:
        parser.error(f"--problems: unknown problem {unknown[0]!r} (any of "
                     + ", ".join(PROBLEMS) + ")")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore")  # MOTPESampler is experimental in 3.1

    runs, seconds = vernier_runs(options.build, problems, options.seeds, options.trials)
    checkpoints = [c for c in (25, 50, 100) if c < options.trials] + [options.trials]
    names = {"random": "Vernier RANDOM_SEARCH", "gp": "Vernier GAUSSIAN_PROCESS_BANDIT",
             "nsga2": f"Optuna {optuna.__version__} NSGAIISampler",
             "motpe": f"Optuna {optuna.__version__} MOTPESampler"}
    for problem in [p for p in problems if p in MULTI_OBJECTIVE + MANY_OBJECTIVES]:
        histories = {}
        for designer in ("random", "gp"):
            histories[designer] = [runs[(problem, designer, s)]
                                   for s in range(1, options.seeds + 1)]
        for sampler in ("nsga2", "motpe"):
            start = time.monotonic()
            histories[sampler] = [optuna_run(problem, sampler, s, options.trials)
                                  for s in range(1, options.seeds + 1)]
            seconds[(problem, sampler)] = time.monotonic() - start
        print(f"\n{problem}: hypervolume (reference point {REFERENCE[problem]}), "
              f"{options.seeds} seeds, one trial at a time; median [lower quartile, upper "
              "quartile]; higher is better")
        print("| optimizer | " + " | ".join(f"{c} trials" for c in checkpoints) + " |")
        print("|---|" + "---|" * len(checkpoints))
        for name, history in histories.items():
            cells = [summary([hypervolume(h[:c], REFERENCE[problem]) for h in history])
                     for c in checkpoints]
            print(f"| {names[name]} | " + " | ".join(cells) + " |")
        print(f"(Vernier's two designers took {seconds[problem]:.0f} s together; NSGA-II "
              f"{seconds[(problem, 'nsga2')]:.0f} s, MOTPE {seconds[(problem, 'motpe')]:.0f} s)")

    if "constrained" in problems:
        print(f"\nconstrained: the surrogate's loss with latency_ms at most {LATENCY_LIMIT:g}, "
              f"{options.trials} trials one at a time, {options.seeds} seeds; median [lower "
              "quartile, upper quartile]")
        print("| designer | infeasible trials | best feasible loss |")
        print("|---|---|---|")
        for designer in ("random", "gp"):
            fractions = []
            best = []
            for seed in range(1, options.seeds + 1):
                history = runs[("constrained", designer, seed)]
                feasible = [loss for loss, latency in history if latency <= LATENCY_LIMIT]
                fractions.append(1 - len(feasible) / len(history))
                best.append(min(feasible) if feasible else math.inf)
            median, lower, upper = quartiles(fractions)
            print(f"| {names[designer]} | {median:.0%} [{lower:.0%}, {upper:.0%}] | "
                  f"{summary(best)} |")
        print(f"(Vernier's two designers took {seconds['constrained']:.0f} s together)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
