#!/usr/bin/python3
"""What the build's debug-info level and linker cost, in CPU seconds.

Compiles a sample of the project's translation units with full debug info
(-g) and with line tables only (-g1), and links a sample of its executables
with ld.bfd and with gold, all from the compile and link commands of an
existing build folder (run scripts/build.sh first), and prints the CPU time
(user + sys) of each, summed, and the ratios. CPU time rather than wall time,
so that other work on the machine matters less.

    /usr/bin/python3 bench/build/build_flags_bench.py [BUILD_DIR] [--sources N] [--links N]
"""

import argparse
import json
import random
import resource
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_seconds(command: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"build_flags_bench: failed: {command[:200]}...\n{result.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_command(entry: dict, debug_flag: str, output: Path) -> str:
    args = shlex.split(entry["command"])
    if args[0] == "ccache":
        args = args[1:]
    kept = []
    skip = 0
    for arg in args:
        if skip:
            skip -= 1
            continue
        if arg in ("-MT", "-MF"):
            skip = 1
            continue
        if arg == "-MD":
            continue
        kept.append(arg)
    kept = [debug_flag if a in ("-g", "-g1") else a for a in kept]
    kept[kept.index("-o") + 1] = str(output)
    return shlex.join(kept)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--sources", type=int, default=12)
    parser.add_argument("--links", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    options = parser.parse_args()
    build = Path(options.build_dir).resolve()
    entries = [e for e in json.loads((build / "compile_commands.json").read_text())
               if e["file"].endswith(".cc") and str(build) not in e["file"]]
    rng = random.Random(options.seed)
    sample = rng.sample(entries, min(options.sources, len(entries)))
    out = Path(tempfile.mkdtemp(prefix="vernier-build-bench."))
    totals = {"-g": 0.0, "-g1": 0.0}
    for i, entry in enumerate(sample):
        for flag in totals:
            totals[flag] += cpu_seconds(compile_command(entry, flag, out / f"{i}{flag}.o"))
    print(f"compile {len(sample)} sources: -g {totals['-g']:.1f} s, -g1 {totals['-g1']:.1f} s, "
          f"ratio {totals['-g1'] / totals['-g']:.2f}")

    binaries = sorted(p for p in (build / "bin").iterdir() if p.is_file())
    links = {"bfd": 0.0, "gold": 0.0}
    for binary in rng.sample(binaries, min(options.links, len(binaries))):
        target = str(binary.relative_to(build))
        commands = subprocess.run(["ninja", "-C", str(build), "-t", "commands", target],
                                  capture_output=True, text=True, check=True).stdout
        link = commands.strip().splitlines()[-1].replace(": && ", "").split(" && :")[0]
        link = link.replace("-fuse-ld=gold", "")
        for linker, flag in (("bfd", "-fuse-ld=bfd"), ("gold", "-fuse-ld=gold")):
            command = link.replace(f" -o {target} ", f" {flag} -o {out / linker} ")
            links[linker] += cpu_seconds(f"cd {shlex.quote(str(build))} && {command}")
    print(f"link {options.links} executables: ld.bfd {links['bfd']:.1f} s, gold "
          f"{links['gold']:.1f} s, ratio {links['gold'] / links['bfd']:.2f}")


if __name__ == "__main__":
    main()
