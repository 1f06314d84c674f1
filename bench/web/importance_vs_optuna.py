#!/usr/bin/python3
"""The dashboard's parameter importances beside Optuna's (docs/web.md,
"Parameter importance"): the same trials, read by a real `vernier serve`
(GET /dashboard/studies/NAME/summary) and by Optuna's fANOVA and
mean-decrease-impurity evaluators (Debian's python3-optuna 3.1 and
python3-sklearn; PED-ANOVA came with Optuna 3.6).

Each study is random search over a function whose effects are known; the
objective is noisy. Optuna's readings are normalised to sum to 1; Vernier's
are not (each is the share of the variance the parameter explains alone,
less chance), so the table shows both as they are.

Usage: PYTHONPATH=python:build/python VERNIER_BUILD_DIR=build \\
       /usr/bin/python3 bench/web/importance_vs_optuna.py [--trials 60] [--seed 1]
"""
import argparse
import math
import random

import optuna
import vernier

optuna.logging.set_verbosity(optuna.logging.WARNING)

STUDIES = {
    # accuracy = x + 0.3 y + noise; z does nothing.
    "linear": ({
        "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy", "algorithm": "RANDOM_SEARCH",
        "params": [{"parameterName": n, "type": "DOUBLE", "minValue": 0, "maxValue": 1}
                   for n in ("x", "y", "z")]},
        lambda p, r: p["x"] + 0.3 * p["y"] + r.gauss(0, 0.1)),
    # loss = (log10 lr + 2)^2 + 0.5 [model = dnn] + noise; layers does nothing.
    "log_and_category": ({
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss", "algorithm": "RANDOM_SEARCH",
        "params": [
            {"parameterName": "lr", "type": "DOUBLE", "minValue": 1e-4, "maxValue": 1,
             "scaleType": "UNIT_LOG_SCALE"},
            {"parameterName": "model", "type": "CATEGORICAL", "categoricalValues": ["linear", "dnn"]},
            {"parameterName": "layers", "type": "INTEGER", "minValue": 1, "maxValue": 8}]},
        lambda p, r: (math.log10(p["lr"]) + 2) ** 2 + (0.5 if p["model"] == "dnn" else 0)
        + r.gauss(0, 0.2)),
}


def distributions(study):
    result = {}
    for spec in study.spec.parameters:
        name = spec.parameter_name
        if spec.categorical_values:
            result[name] = optuna.distributions.CategoricalDistribution(list(spec.categorical_values))
        elif spec.type == spec.INTEGER:
            result[name] = optuna.distributions.IntDistribution(int(spec.min_value), int(spec.max_value))
        else:
            result[name] = optuna.distributions.FloatDistribution(
                spec.min_value, spec.max_value, log=spec.scale_type == spec.UNIT_LOG_SCALE)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with vernier.LocalServer() as server, vernier.Client(server.target) as client:
        for name, (space, objective) in STUDIES.items():
            noise = random.Random(args.seed)
            study = client.create_study(f"{name}_{args.trials}", space, seed=args.seed)
            study.optimize(lambda trial: objective(trial.parameters, noise), n_trials=args.trials)
            summary = study.dashboard()
            ours = dict(zip(summary.parameter_names, summary.importance))
            direction = "minimize" if study.goal == "MINIMIZE" else "maximize"
            mirror = optuna.create_study(direction=direction)
            dists = distributions(study)
            for trial in study.trials(states=["SUCCEEDED"]):
                mirror.add_trial(optuna.trial.create_trial(
                    params=dict(trial.parameters), distributions=dists, value=trial.value))
            readings = {
                "fANOVA": optuna.importance.get_param_importances(
                    mirror, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=args.seed)),
                "MDI": optuna.importance.get_param_importances(
                    mirror, evaluator=optuna.importance.MeanDecreaseImpurityImportanceEvaluator(
                        seed=args.seed)),
            }
            print(f"\n{name}: {summary.importance_trial_count} succeeded trials (the dashboard "
                  f"notes too few below {summary.importance_min_trials})")
            print(f"{'parameter':<10} {'Vernier':>8} {'fANOVA':>8} {'MDI':>8}")
            for parameter in summary.parameter_names:
                print(f"{parameter:<10} {ours[parameter]:>8.3f} "
                      f"{readings['fANOVA'][parameter]:>8.3f} {readings['MDI'][parameter]:>8.3f}")


if __name__ == "__main__":
    main()
