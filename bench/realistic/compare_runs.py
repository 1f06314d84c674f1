#!/usr/bin/env python3
"""Compares two designers' runs seed by seed: the --runs CSV files of two
build/bin/suggest_quality_bench runs over the same problems and seeds (a
change to the GP designer against the designer before it). The two runs of
a seed share their initial design, so they are paired: per problem, the
median [quartiles] and worst final regret of each, how many seeds got
better / worse (by more than 0.1%), and the two-sided Wilcoxon signed-rank
p-value on the log regrets. Prints the markdown table of docs/benchmarks.md
("Adopted: the exploration step"). Needs Debian's python3-scipy (with
python3-sklearn), hence /usr/bin/python3:

  /usr/bin/python3 bench/realistic/compare_runs.py BEFORE.csv[,MORE.csv] AFTER.csv[,MORE.csv]
      [--problems a,b]   (default: every problem both have, in the order first seen)
"""

import argparse
import csv
import math
import statistics
import sys
import warnings

from scipy import stats

# Regrets of exactly 0 still have a logarithm.
FLOOR = 1e-12
# Seeds whose regrets differ by less than this (relative) count as ties.
TIE = 1e-3


def read_runs(paths):
    """{problem: {seed: regret}} from suggest_quality_bench --runs files."""
    runs = {}
    for path in paths.split(","):
        with open(path) as table:
            for run in csv.DictReader(table):
                if run["status"] != "OK":
                    raise SystemExit(f"{path}: {run['problem']} seed {run['seed']}: {run['status']}")
                runs.setdefault(run["problem"], {})[int(run["seed"])] = float(run["regret"])
    return runs


def summary(values):
    if len(values) == 1:
        return f"{values[0]:.4g} [{values[0]:.4g}, {values[0]:.4g}]"
    lower, median, upper = statistics.quantiles(sorted(values), n=4, method="inclusive")
    return f"{median:.4g} [{lower:.4g}, {upper:.4g}]"


def compare(before, after):
    """(seeds, before row, after row, better, worse, p) of two {seed: regret}."""
    seeds = sorted(set(before) & set(after))
    x = [before[s] for s in seeds]
    y = [after[s] for s in seeds]
    better = sum(1 for a, b in zip(x, y) if b < a * (1 - TIE))
    worse = sum(1 for a, b in zip(x, y) if b > a * (1 + TIE))
    differences = [math.log(b + FLOOR) - math.log(a + FLOOR) for a, b in zip(x, y)]
    with warnings.catch_warnings():
        # Tied seeds (equal regrets) switch scipy to its normal approximation.
        warnings.simplefilter("ignore", UserWarning)
        p = stats.wilcoxon(differences).pvalue if any(differences) else 1.0
    return len(seeds), x, y, better, worse, p


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--problems", default=None)
    options = parser.parse_args(argv)
    before = read_runs(options.before)
    after = read_runs(options.after)
    names = options.problems.split(",") if options.problems else [
        name for name in before if name in after]
    print("| problem | seeds | before | before worst | after | after worst "
          "| seeds better / worse | Wilcoxon p |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        if name not in before or name not in after:
            raise SystemExit(f"{name}: not in both runs")
        seeds, x, y, better, worse, p = compare(before[name], after[name])
        if seeds < 6:
            raise SystemExit(f"{name}: only {seeds} seeds in both runs; the test needs 6 or more")
        mark = "**" if p < 0.05 else ""
        print(f"| {name} | {seeds} | {summary(x)} | {max(x):.4g} | {summary(y)} | {max(y):.4g} "
              f"| {better} / {worse} | {mark}{p:.3f}{mark} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
