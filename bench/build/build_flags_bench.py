#!/usr/bin/python3
"""What the build's debug-info level, linker and precompiled headers cost, in
CPU seconds.

Compiles a sample of the project's translation units with full debug info
(-g) and with line tables only (-g1), links a sample of its executables with
ld.bfd and with gold, and compiles a sample of the sources that use a
precompiled header (cmake/VernierPch.cmake) with it and without it, all from
the compile and link commands of an existing build folder (run
scripts/build.sh first; the default configuration has the precompiled
headers), and prints the CPU time (user + sys) of each, summed, the ratios,
and what building the precompiled headers costs once per build; and a
sample of the tests' own sources compiled with the build type's optimisation
and at -O0 (cmake/VernierTargets.cmake: test code compiles at -O0), each
with a test precompiled header of its level. CPU time
rather than wall time, so that other work on the machine matters less.

    /usr/bin/python3 bench/build/build_flags_bench.py [BUILD_DIR] [--sources N] [--links N]
        [--pch-sources N] [--test-sources N]
"""

import argparse
import json
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional


def cpu_seconds(command: str, cwd: Optional[Path] = None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"build_flags_bench: failed: {command[:200]}...\n{result.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compile_command(entry: dict, debug_flag: Optional[str], output: Path,
                    with_pch: bool = True) -> str:
    """The entry's command without a launcher or dependency files, writing
    OUTPUT; with DEBUG_FLAG for its -g or -g1, and without its precompiled
    header unless WITH_PCH."""
    args = shlex.split(entry["command"])
    if args[0].endswith("ccache"):
        args = args[1:]
    kept = []
    skip = 0
    for i, arg in enumerate(args):
        if skip:
            skip -= 1
            continue
        if arg in ("-MT", "-MF"):
            skip = 1
            continue
        if arg == "-MD":
            continue
        if not with_pch and arg == "-include" and args[i + 1].endswith("cmake_pch.hxx"):
            skip = 1
            continue
        # clang's form: -Xclang -include-pch -Xclang H.pch -Xclang -include -Xclang H.hxx
        if (not with_pch and arg == "-Xclang" and i + 3 < len(args)
                and args[i + 1] in ("-include-pch", "-include")
                and "cmake_pch.hxx" in args[i + 3]):
            skip = 3
            continue
        if not with_pch and arg == "-Winvalid-pch":
            continue
        kept.append(arg)
    if debug_flag is not None:
        kept = [debug_flag if a in ("-g", "-g1") else a for a in kept]
    kept[kept.index("-o") + 1] = str(output)
    return shlex.join(kept)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--sources", type=int, default=12)
    parser.add_argument("--links", type=int, default=5)
    parser.add_argument("--pch-sources", type=int, default=16)
    parser.add_argument("--test-sources", type=int, default=0)
    parser.add_argument("--seed", type=int, default=3)
    options = parser.parse_args()
    build = Path(options.build_dir).resolve()
    all_entries = json.loads((build / "compile_commands.json").read_text())
    entries = [e for e in all_entries
               if e["file"].endswith(".cc") and str(build) not in e["file"]]
    rng = random.Random(options.seed)
    sample = rng.sample(entries, min(options.sources, len(entries)))
    out = Path(tempfile.mkdtemp(prefix="vernier-build-bench."))
    totals = {"-g": 0.0, "-g1": 0.0}
    for i, entry in enumerate(sample):
        for flag in totals:
            # Without the precompiled header: GCC takes one only with the
            # debug-info level it was built with.
            command = compile_command(entry, flag, out / f"{i}{flag}.o", with_pch=False)
            totals[flag] += cpu_seconds(command, Path(entry["directory"]))
    if sample:
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
    if links["bfd"] > 0:
        print(f"link {options.links} executables: ld.bfd {links['bfd']:.1f} s, gold "
              f"{links['gold']:.1f} s, ratio {links['gold'] / links['bfd']:.2f}")
    measure_pch(build, all_entries, options.pch_sources, rng, out)
    measure_test_optimisation(build, all_entries, options.test_sources, rng, out)


def measure_test_optimisation(build: Path, entries: list, count: int, rng: random.Random,
                              out: Path) -> None:
    """The tests' own sources compiled as the build type says (-O2 in
    RelWithDebInfo) and at -O0, as the build compiles them, each with a
    test precompiled header built at its level (GCC takes a header only
    with the -O it was built with): the build's own at -O0, and one built
    here without it."""
    if count <= 0:
        return
    tests = [e for e in entries if "/tests/" in e["file"] and e["file"].endswith("_test.cc")
             and "cmake_pch.hxx" in e["command"]]
    if not tests:
        print("test code: no test sources with the test precompiled header in this build")
        return
    header = build / "CMakeFiles" / "vernier_test_pch.dir" / "cmake_pch.hxx"
    commands = subprocess.run(["ninja", "-C", str(build), "-t", "commands",
                               str(header.relative_to(build)) + ".gch"],
                              capture_output=True, text=True, check=True).stdout
    optimised_header = out / "optimised" / "cmake_pch.hxx"
    optimised_header.parent.mkdir()
    shutil.copy(header, optimised_header)
    pch = shlex.split(compile_command({"command": commands.strip().splitlines()[-1]}, None,
                                      Path(str(optimised_header) + ".gch")))
    pch = [str(optimised_header) if a == str(header) else a for a in pch if a != "-O0"]
    headers = cpu_seconds(shlex.join(pch), build)
    sample = rng.sample(tests, min(count, len(tests)))
    totals = {"optimised": 0.0, "-O0": 0.0}
    for i, entry in enumerate(sample):
        as_built = shlex.split(compile_command(entry, None, out / f"opt{i}.o"))
        optimised = [str(optimised_header) if a == str(header) else a
                     for a in as_built if a != "-O0"]
        for mode, args in (("optimised", optimised), ("-O0", as_built)):
            totals[mode] += cpu_seconds(shlex.join(args), Path(entry["directory"]))
    scale = len(tests) / len(sample)
    print(f"compile {len(sample)} of the {len(tests)} test sources, each with a test precompiled "
          f"header of its level: as the build type says {totals['optimised']:.1f} s, at -O0 "
          f"{totals['-O0']:.1f} s, ratio {totals['-O0'] / totals['optimised']:.2f}; scaled to all "
          f"{len(tests)}: {totals['optimised'] * scale:.0f} s and {totals['-O0'] * scale:.0f} s "
          f"(the optimised header: {headers:.0f} s)")


def measure_pch(build: Path, entries: list, count: int, rng: random.Random, out: Path) -> None:
    """Sources that use a precompiled header, compiled with and without it,
    and the two headers themselves (built once per build, and again after a
    .proto changes)."""
    if count <= 0:
        return
    users = [e for e in entries if "cmake_pch.hxx" in e["command"]
             and e["file"].endswith(".cc") and not e["file"].endswith("pch_anchor.cc")]
    if not users:
        print("precompiled headers: none in this build (configured with -DVERNIER_PCH=OFF)")
        return
    sample = rng.sample(users, min(count, len(users)))
    totals = {"without": 0.0, "with": 0.0}
    for i, entry in enumerate(sample):
        for mode in totals:
            command = compile_command(entry, None, out / f"pch{i}-{mode}.o", mode == "with")
            totals[mode] += cpu_seconds(command, Path(entry["directory"]))
    headers = 0.0
    for target in ("vernier_pch", "vernier_test_pch"):
        folder = build / "CMakeFiles" / f"{target}.dir"
        # GCC's precompiled header, or clang's (the fuzz build).
        header = folder / "cmake_pch.hxx.gch"
        if not header.exists():
            header = folder / "cmake_pch.hxx.pch"
        if not header.exists():
            continue
        commands = subprocess.run(["ninja", "-C", str(build), "-t", "commands",
                                   str(header.relative_to(build))],
                                  capture_output=True, text=True, check=True).stdout
        entry = {"command": commands.strip().splitlines()[-1]}
        headers += cpu_seconds(compile_command(entry, None, out / f"{target}.gch"), build)
    scale = len(users) / len(sample)
    print(f"compile {len(sample)} of the {len(users)} sources with a precompiled header: without "
          f"{totals['without']:.1f} s, with {totals['with']:.1f} s, ratio "
          f"{totals['with'] / totals['without']:.2f}; scaled to all {len(users)}: "
          f"{totals['without'] * scale:.0f} s without, {totals['with'] * scale + headers:.0f} s "
          f"with, the headers' own {headers:.0f} s included")


if __name__ == "__main__":
    main()
