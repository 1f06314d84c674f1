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

from vernier.client import DEFAULT_TARGET, Client, study_spec_from  # noqa: E402
from vernier.errors import (  # noqa: E402
    Aborted,
    AlreadyExists,
    DeadlineExceeded,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    VernierError,
)
from vernier.leaderboard import Leaderboard, LeaderboardRow  # noqa: E402
from vernier.local_server import LocalServer, find_vernier_binary  # noqa: E402
from vernier.reporting import report  # noqa: E402
from vernier.study import Study, Suggestions  # noqa: E402
from vernier.trial import Measurement, ParameterValue, Trial  # noqa: E402

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
