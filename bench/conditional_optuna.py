#!/usr/bin/env python3
"""Optuna 3.1's TPE (multivariate=True, group=True) on the conditional
benchmark problem of bench/quality/conditional_model_problem.cc: the same
function, the same space (define-by-run: a parameter is suggested only where
it is active), the same budget and seeds as the Vernier designers.

bench/conditional_bench.py runs it beside Vernier's designers in one
command. Alone, it prints one markdown row: median final regret [lower quartile, upper
quartile], worst seed. Needs Debian's python3-optuna, hence /usr/bin/python3:

  /usr/bin/python3 bench/conditional_optuna.py --seeds 10 --trials 60
"""

import argparse
import math
import statistics
import sys
import warnings

import optuna

OPTIMUM = 0.95
BEST_ADAM_LOG_LEARNING_RATE = -3.3


def objective(trial):
    model = trial.suggest_categorical("model", ["linear", "tree", "dnn"])
    if model == "linear":
        l2 = trial.suggest_float("l2", 1e-6, 1.0, log=True)
        return 0.80 - 0.03 * (math.log10(l2) + 3) ** 2
    if model == "tree":
        depth = trial.suggest_int("max_depth", 2, 16)
        estimators = trial.suggest_categorical("n_estimators", [50, 100, 200, 400, 800])
        return 0.88 - 0.004 * (depth - 9) ** 2 - 0.02 * math.log2(estimators / 400) ** 2
    layers = trial.suggest_int("layers", 1, 6)
    accuracy = 0.95 - 0.006 * (layers - 4) ** 2
    if layers >= 3:
        dropout = trial.suggest_float("dropout", 0.0, 0.7)
        accuracy -= 0.2 * (dropout - 0.3) ** 2
    else:
        accuracy -= 0.02
    optimizer = trial.suggest_categorical("optimizer", ["sgd", "adam"])
    if optimizer == "adam":
        adam_lr = trial.suggest_float("adam_lr", 1e-5, 0.1, log=True)
        accuracy -= 0.05 * (math.log10(adam_lr) - BEST_ADAM_LOG_LEARNING_RATE) ** 2
    else:
        momentum = trial.suggest_float("momentum", 0.0, 0.99)
        sgd_lr = trial.suggest_float("sgd_lr", 1e-4, 1.0, log=True)
        accuracy -= 0.01 + 0.05 * (math.log10(sgd_lr) + 1.5) ** 2 + 0.1 * (momentum - 0.9) ** 2
    return accuracy


def quartiles(values):
    lower, median, upper = statistics.quantiles(sorted(values), n=4, method="inclusive")
    return median, lower, upper


def tpe_regrets(seeds, trials):
    """The final regret of TPE for seeds 1..seeds, `trials` trials each."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    regrets = []
    for seed in range(1, seeds + 1):
        sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True)
        study = optuna.create_study(direction="maximize", sampler=sampler)
        study.optimize(objective, n_trials=trials)
        regrets.append(OPTIMUM - study.best_value)
    return regrets


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=60)
    options = parser.parse_args(argv)
    regrets = tpe_regrets(options.seeds, options.trials)
    median, lower, upper = quartiles(regrets)
    print(f"| Optuna {optuna.__version__} TPE (multivariate, group) | {median:.4g} "
          f"[{lower:.4g}, {upper:.4g}] | {max(regrets):.4g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
