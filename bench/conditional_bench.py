#!/usr/bin/env python3
"""The conditional benchmark of issue 21 in one command: Vernier's random
search and GP designer (build/bin/suggest_quality_bench, problem
"conditional") against Optuna 3.1's TPE (multivariate=True, group=True;
bench/conditional_optuna.py) on the same function, 60 trials, 10 seeds.
Prints one markdown table: median final regret [quartiles] and the worst
seed per designer. Needs Debian's python3-optuna, hence /usr/bin/python3:

  /usr/bin/python3 bench/conditional_bench.py [--build build] [--seeds 10] [--trials 60]
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

import optuna

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conditional_optuna  # noqa: E402  (beside this file)


def summary(regrets):
    median, lower, upper = conditional_optuna.quartiles(regrets)
    return f"{median:.4g} [{lower:.4g}, {upper:.4g}] | {max(regrets):.4g}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=60)
    options = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        runs = os.path.join(scratch, "runs.csv")
        subprocess.run([os.path.join(options.build, "bin", "suggest_quality_bench"),
                        "--problems", "conditional", "--designers", "random,gp",
                        "--modes", "sequential",
                        "--seeds", str(options.seeds), "--trials", str(options.trials),
                        "--runs", runs], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        regrets = {}
        with open(runs) as table:
            for run in csv.DictReader(table):
                if run["status"] != "OK":
                    raise SystemExit(f"{run['designer']} seed {run['seed']}: {run['status']}")
                regrets.setdefault(run["designer"], []).append(float(run["regret"]))
    names = {"RANDOM_SEARCH": "Vernier RANDOM_SEARCH",
             "GAUSSIAN_PROCESS_BANDIT": "Vernier GAUSSIAN_PROCESS_BANDIT"}
    for designer, values in regrets.items():
        rows.append(f"| {names.get(designer, designer)} | {summary(values)} |")

    tpe = conditional_optuna.tpe_regrets(options.seeds, options.trials)
    rows.append(f"| Optuna {optuna.__version__} TPE (multivariate, group) | {summary(tpe)} |")

    print(f"conditional problem, {options.trials} trials one at a time, {options.seeds} seeds; "
          "final regret")
    print("| designer | median [lower quartile, upper quartile] | worst seed |")
    print("|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
