"""Vernier's Python client: ask/tell hyperparameter tuning against ``vernier serve``.

    import vernier

    client = vernier.Client("localhost:7730")
    study = client.create_study("quickstart", {
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss", "maxTrials": 20,
        "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": -5, "maxValue": 5}],
    })
    for _ in range(20):
        trial = study.suggest()[0]
        trial.complete(loss=(trial.parameters["x"] - 1) ** 2)
    print(study.best_trial)

See docs/python.md for the guide.
"""

import pkgutil

# The generated protobuf modules (vernier.v1) live in the build tree
# (BUILD/python/vernier/v1) when the package is used from a checkout; this
# makes every `vernier` folder on sys.path part of the package.
__path__ = pkgutil.extend_path(__path__, __name__)

import importlib  # noqa: E402
from typing import TYPE_CHECKING, Any, List  # noqa: E402

# Where each public name lives. They are imported on first use, so that a
# trainer's `from vernier import report` (or `import vernier.reporting`)
# needs nothing beyond the standard library: no grpc, no protobuf.
_EXPORTS = {
    "Client": "vernier.client", "DEFAULT_TARGET": "vernier.client",
    "study_spec_from": "vernier.client",
    "Aborted": "vernier.errors", "AlreadyExists": "vernier.errors",
    "DeadlineExceeded": "vernier.errors", "FailedPrecondition": "vernier.errors",
    "Internal": "vernier.errors", "InvalidArgument": "vernier.errors",
    "NotFound": "vernier.errors", "PermissionDenied": "vernier.errors",
    "Unauthenticated": "vernier.errors", "Unavailable": "vernier.errors",
    "Unimplemented": "vernier.errors", "VernierError": "vernier.errors",
    "Leaderboard": "vernier.leaderboard", "LeaderboardRow": "vernier.leaderboard",
    "LocalServer": "vernier.local_server", "find_vernier_binary": "vernier.local_server",
    "report": "vernier.reporting",
    "Study": "vernier.study", "Suggestions": "vernier.study",
    "Measurement": "vernier.trial", "ParameterValue": "vernier.trial", "Trial": "vernier.trial",
}

if TYPE_CHECKING:  # pragma: no cover
    from vernier.client import DEFAULT_TARGET, Client, study_spec_from
    from vernier.errors import (Aborted, AlreadyExists, DeadlineExceeded, FailedPrecondition,
                                Internal, InvalidArgument, NotFound, PermissionDenied,
                                Unauthenticated, Unavailable, Unimplemented, VernierError)
    from vernier.leaderboard import Leaderboard, LeaderboardRow
    from vernier.local_server import LocalServer, find_vernier_binary
    from vernier.reporting import report
    from vernier.study import Study, Suggestions
    from vernier.trial import Measurement, ParameterValue, Trial


def __getattr__(name: str) -> Any:
    if name == "plot":  # vernier.plot: matplotlib plots of a study (needs matplotlib).
        return importlib.import_module("vernier.plot")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vernier' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.1.0"

__all__ = [
    "Aborted",
    "AlreadyExists",
    "Client",
    "DEFAULT_TARGET",
    "DeadlineExceeded",
    "FailedPrecondition",
    "Internal",
    "InvalidArgument",
    "Leaderboard",
    "LeaderboardRow",
    "LocalServer",
    "Measurement",
    "NotFound",
    "ParameterValue",
    "PermissionDenied",
    "Study",
    "Suggestions",
    "Trial",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "VernierError",
    "find_vernier_binary",
    "report",
    "study_spec_from",
]
