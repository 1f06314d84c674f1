#!/usr/bin/env python3
"""Executes a notebook top to bottom with nbclient and fails on the first cell
that raises, printing that cell and its traceback.

    /usr/bin/python3 python/tools/run_notebook.py examples/notebooks/quickstart.ipynb

The kernel runs in the notebook's folder with this process's environment
(PYTHONPATH, VERNIER_BUILD_DIR) and matplotlib's inline backend, which renders
plots with Agg into the cell outputs (no display needed). Unless VERNIER_SERVER is set, it
is pointed at a free loopback port where nothing listens, so that the notebook
starts a server of its own rather than creating studies on whatever server a
developer runs on the default port.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def unused_target() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    parser.add_argument("--kernel", default="python3")
    parser.add_argument("--output", type=Path, help="write the executed notebook here")
    parser.add_argument("--require-image", action="store_true",
                        help="fail unless some cell shows an image (a plot)")
    args = parser.parse_args()

    # The kernel runs in the notebook's folder: relative entries would miss.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if entry)
    # matplotlib's inline backend renders with Agg into the cell's outputs:
    # no display needed, and the plots can be checked.
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # ipykernel's debugger otherwise warns about frozen modules on every start.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    os.environ.setdefault("VERNIER_SERVER", unused_target())
    notebook = nbformat.read(args.notebook, as_version=4)
    client = NotebookClient(notebook, timeout=args.timeout, kernel_name=args.kernel,
                            resources={"metadata": {"path": str(args.notebook.parent.resolve())}})
    try:
        client.execute()
    except CellExecutionError as error:
        print(f"{args.notebook}: a cell failed:\n{error}", file=sys.stderr)
        return 1
    finally:
        if args.output:
            nbformat.write(notebook, args.output)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    images = sum(1 for cell in code_cells for output in cell.get("outputs", [])
                 if "image/png" in output.get("data", {}))
    print(f"{args.notebook}: {len(code_cells)} code cells ran without error, {images} images")
    if args.require_image and images == 0:
        print(f"{args.notebook}: no cell showed an image", file=sys.stderr)
        return 1
    for cell in code_cells:
        for output in cell.get("outputs", []):
            if output.get("name") == "stdout":
                sys.stdout.write(output["text"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
