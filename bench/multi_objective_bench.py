#!/usr/bin/env python3
"""The several-objectives and outcome-constraints benchmark of issue 21 in
one command.

Several objectives: the hypervolume of the trials after 25, 50 and 100
trials, median [lower quartile, upper quartile] over the seeds, for
Vernier's RANDOM_SEARCH and GAUSSIAN_PROCESS_BANDIT (build/bin/
multi_objective_bench, one trial at a time) and Optuna's NSGA-II and
MOTPE samplers (defaults, seeded) on ZDT3 (6-d), DTLZ1 and DTLZ2 (3
objectives, 6-d; a linear and a curved front) and a mixed-space training
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

import optuna

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conditional_optuna import quartiles  # noqa: E402  (beside this file)

MULTI_OBJECTIVE = ["zdt3", "dtlz1", "dtlz2", "surrogate"]
# Reference points (all objectives minimised): BoTorch's for ZDT3, DTLZ1 and DTLZ2,
# the surrogate's worst loss and latency rounded up.
REFERENCE = {"zdt3": (11.0, 11.0), "dtlz1": (400.0, 400.0, 400.0), "dtlz2": (1.1, 1.1, 1.1),
             "surrogate": (4.0, 300.0)}
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


PROBLEMS = {"zdt3": zdt3, "dtlz1": dtlz1, "dtlz2": dtlz2, "surrogate": surrogate,
            "constrained": surrogate}


def optuna_parameters(problem, trial):
    if problem in ("zdt3", "dtlz1", "dtlz2"):
        return {f"x{i}": trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)}
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
    three."""
    inside = [p for p in points if all(v < r for v, r in zip(p, reference))]
    if len(reference) == 2:
        return hypervolume_2d(inside, reference)
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
    parser.add_argument("--problems", default=",".join(MULTI_OBJECTIVE + ["constrained"]))
    options = parser.parse_args(argv)
    problems = options.problems.split(",")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore")  # MOTPESampler is experimental in 3.1

    runs, seconds = vernier_runs(options.build, problems, options.seeds, options.trials)
    checkpoints = [c for c in (25, 50, 100) if c < options.trials] + [options.trials]
    names = {"random": "Vernier RANDOM_SEARCH", "gp": "Vernier GAUSSIAN_PROCESS_BANDIT",
             "nsga2": f"Optuna {optuna.__version__} NSGAIISampler",
             "motpe": f"Optuna {optuna.__version__} MOTPESampler"}
    for problem in [p for p in problems if p in MULTI_OBJECTIVE]:
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
