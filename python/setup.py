"""Builds the `vernier` package with its generated protobuf/gRPC stubs.

`pip install --no-deps --no-build-isolation ./python` runs protoc with
grpc_python_plugin (Debian: protobuf-compiler, protobuf-compiler-grpc) over
../proto, or, when they are missing, copies the stubs a CMake build already
generated (VERNIER_BUILD_DIR/python, else ../build/python). Everything else is
in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent / "proto"


def _built_stub_dirs() -> list:
    build_dirs = [Path(os.environ["VERNIER_BUILD_DIR"])] if os.environ.get("VERNIER_BUILD_DIR") else []
    build_dirs.append(HERE.parent / "build")
    return [build / "python" / "vernier" / "v1" for build in build_dirs]


def generate_stubs(out_root: Path) -> None:
    """Writes vernier/v1/*_pb2.py and *_service_pb2_grpc.py under out_root."""
    stub_dir = out_root / "vernier" / "v1"
    stub_dir.mkdir(parents=True, exist_ok=True)
    protos = sorted((PROTO_ROOT / "vernier" / "v1").glob("*.proto"))
    protoc = os.environ.get("PROTOC") or shutil.which("protoc")
    plugin = os.environ.get("GRPC_PYTHON_PLUGIN") or shutil.which("grpc_python_plugin")
    if protos and protoc and plugin:
        for proto in protos:
            command = [protoc, f"-I{PROTO_ROOT}", f"--python_out={out_root}", str(proto)]
            if proto.stem.endswith("_service"):
                command[2:2] = [f"--grpc_python_out={out_root}",
                                f"--plugin=protoc-gen-grpc_python={plugin}"]
            subprocess.run(command, check=True)
    else:
        built = next((d for d in _built_stub_dirs() if (d / "study_pb2.py").is_file()), None)
        if built is None:
            raise SystemExit(
                "vernier: cannot generate the protobuf stubs: protoc and grpc_python_plugin "
                "(apt-get install protobuf-compiler protobuf-compiler-grpc) and "
                f"{PROTO_ROOT} are needed, or a CMake build that generated them "
                "(set VERNIER_BUILD_DIR)")
        for stub in built.glob("*.py"):
            shutil.copy2(stub, stub_dir / stub.name)
    (stub_dir / "__init__.py").touch()


class BuildPyWithStubs(build_py):
    """build_py that adds the generated vernier.v1 package."""

    def run(self) -> None:
        super().run()
        generate_stubs(Path(self.build_lib))


setup(cmdclass={"build_py": BuildPyWithStubs})
