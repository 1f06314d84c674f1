"""The generated protobuf and gRPC modules (``vernier.v1.*_pb2``).

They are not in the source tree: the CMake build writes them to
``BUILD/python/vernier/v1`` (put ``BUILD/python`` on ``PYTHONPATH`` beside
``python/``), and ``pip install ./python`` generates them into the installed
package.
"""

from __future__ import annotations

try:
    from vernier.v1 import http_pb2, study_pb2, study_service_pb2, study_service_pb2_grpc
except ImportError as error:  # pragma: no cover - depends on how Python was started
    raise ImportError(
        "the generated vernier.v1 protobuf modules are missing: build Vernier "
        "(`bash scripts/build.sh`) and add build/python to PYTHONPATH beside python/, "
        "or install the package with `pip install --no-deps --no-build-isolation ./python` "
        f"({error})"
    ) from error

__all__ = ["http_pb2", "study_pb2", "study_service_pb2", "study_service_pb2_grpc"]
