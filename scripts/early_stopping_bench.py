#!/usr/bin/python3
"""Optuna's pruners on the curves of bench/early_stopping_bench.cc, and the table.

Reads the curves and Vernier's results that `early_stopping_bench --simulate`
wrote, runs Optuna 3.1's MedianPruner, SuccessiveHalvingPruner,
HyperbandPruner and PatientPruner through the very same loop (100 trials, 4 in
flight, one step per tick in slot order, a freed slot refilled at the next
tick, the best trial being the one with the best report, the checkpoint a
user keeps), and prints one table with every method: training steps spent,
the share saved against no stopping, and the final regret against the
family's optimum (mean and standard error over the seeds), plus whether issue
34's targets hold.

Run with Debian's Python (/usr/bin/python3), where python3-optuna is installed:
  /usr/bin/python3 scripts/early_stopping_bench.py CURVES RESULTS
"""

import collections
import statistics
import sys

import optuna


def read_curves(path):
    """{seed: [(noisy, true) per trial]}, the header's settings and the optimum."""
    studies = collections.defaultdict(dict)
    with open(path) as curves:
        header = curves.readline().split()
        settings = {header[i]: header[i + 1] for i in range(1, len(header) - 1, 2)}
        for line in curves:
            seed, trial, kind, *values = line.rstrip("\n").split("\t")
            studies[int(seed)].setdefault(int(trial), {})[kind] = [float(v) for v in values]
    return {
        seed: [(trials[i]["noisy"], trials[i]["true"]) for i in sorted(trials)]
        for seed, trials in studies.items()
    }, settings


def read_results(path):
    """[(method, seed, steps, stopped, regret)] from the C++ run."""
    rows = []
    with open(path) as results:
        for line in results:
            method, seed, steps, stopped, regret = line.rstrip("\n").split("\t")
            rows.append((method, int(seed), int(steps), int(stopped), float(regret)))
    return rows


def trials_any(studies):
    return next(iter(studies.values()))


def simulate(trials, pruner, parallel, optimum, name):
    """The C++ bench's loop with an Optuna pruner deciding."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # HyperbandPruner puts trials in brackets by a hash of the study name:
    # a fixed name makes the run repeatable.
    study = optuna.create_study(study_name=name, direction="maximize", pruner=pruner,
                                sampler=optuna.samplers.RandomSampler(seed=0))
    steps_total = len(trials[0][0])
    slots = [None] * parallel  # (trial index, optuna trial, steps reported)
    reported = {}
    next_trial = 0
    finished = 0
    steps = 0
    stopped = 0
    best = None  # (trial index, step) of the best report

    def finish(index):
        nonlocal finished, best
        finished += 1
        for step in range(1, reported[index] + 1):
            value = trials[index][0][step - 1]
            if best is None or value > trials[best[0]][0][best[1] - 1]:
                best = (index, step)

    while finished < len(trials):
        for slot in range(parallel):
            if slots[slot] is None and next_trial < len(trials):
                slots[slot] = (next_trial, study.ask())
                reported[next_trial] = 0
                next_trial += 1
        for slot in range(parallel):
            if slots[slot] is None:
                continue
            index, trial = slots[slot]
            step = reported[index] + 1
            value = trials[index][0][step - 1]
            reported[index] = step
            steps += 1
            trial.report(value, step)
            if step == steps_total:
                study.tell(trial, value)
                finish(index)
                slots[slot] = None
            elif trial.should_prune():
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                stopped += 1
                finish(index)
                slots[slot] = None
    return steps, stopped, optimum - trials[best[0]][1][best[1] - 1]


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    studies, settings = read_curves(argv[1])
    parallel = int(settings["parallel"])
    steps_total = int(settings["steps"])
    optimum = float(settings["optimum"])
    rows = read_results(argv[2])
    pruners = {
        "optuna MedianPruner": lambda: optuna.pruners.MedianPruner(),
        "optuna SuccessiveHalvingPruner": lambda: optuna.pruners.SuccessiveHalvingPruner(),
        "optuna HyperbandPruner": lambda: optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=steps_total, reduction_factor=3),
        "optuna PatientPruner": lambda: optuna.pruners.PatientPruner(
            optuna.pruners.MedianPruner(), patience=5),
    }
    for name, make in pruners.items():
        for seed, trials in sorted(studies.items()):
            steps, stopped, regret = simulate(trials, make(), parallel, optimum, f"seed{seed}")
            rows.append((name, seed, steps, stopped, regret))

    by_method = collections.OrderedDict()
    for method, seed, steps, stopped, regret in rows:
        by_method.setdefault(method, []).append((seed, steps, stopped, regret))
    full = len(trials_any(studies)) * steps_total
    summary = {}
    print(f"family {settings['family']}: {len(trials_any(studies))} trials, {parallel} in flight, "
          f"{steps_total} steps, noise {settings['noise']}; mean over {len(studies)} seeds")
    print(f"{'method':<26} {'steps':>8} {'saved':>7} {'stopped':>8} {'regret':>9} "
          f"{'+-':>8} {'vs none':>8}")
    baseline = statistics.mean(r for _, _, _, r in by_method["none"])
    for method, runs in by_method.items():
        steps = statistics.mean(s for _, s, _, _ in runs)
        stopped = statistics.mean(n for _, _, n, _ in runs)
        regrets = [r for _, _, _, r in runs]
        regret = statistics.mean(regrets)
        # The standard error of the mean regret over the seeds.
        error = statistics.stdev(regrets) / len(regrets) ** 0.5 if len(regrets) > 1 else 0.0
        saved = 1 - steps / full
        summary[method] = (saved, regret)
        print(f"{method:<26} {steps:>8.0f} {100 * saved:>6.1f}% {stopped:>8.1f} {regret:>9.5f} "
              f"{error:>8.5f} {regret / baseline:>8.2f}")

    print()
    # Issue 34's targets: at least 60% saved at no more than 1.5 times the
    # regret of no stopping; and dominating Optuna's best pruner (the one of
    # least regret): no fewer steps saved and no more regret.
    optuna_methods = [m for m in summary if m.startswith("optuna")]
    best_optuna = min(optuna_methods, key=lambda m: summary[m][1])
    for method in [m for m in summary if m.startswith("vernier")]:
        saved, regret = summary[method]
        other_saved, other_regret = summary[best_optuna]
        checks = [
            ("saves >= 60% of steps", saved >= 0.6),
            ("regret within 1.5x of no stopping", regret <= 1.5 * baseline),
            (f"dominates {best_optuna}", saved >= other_saved and regret <= other_regret),
        ]
        print(f"{method}: " + "; ".join(f"{'yes' if ok else 'NO'} {what}" for what, ok in checks))


if __name__ == "__main__":
    main(sys.argv)
