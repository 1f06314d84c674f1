#!/usr/bin/python3
"""How fast the dashboard's study page is at 1,000, 10,000 and 100,000 trials
(issue 20 part 4): a real `vernier serve` on a store filled by
build/bin/dashboard_scale_seed (each study: 20 parameters, two objectives,
50 measurements per trial), driven by Debian's headless Chromium through
Selenium, as tests/web/dashboard_browser_test.py does (its Server and
helpers are reused).

For each study it opens #/study/scale_N in a fresh document and reports, in
milliseconds from the navigation's start (performance.now() in the page),
when the leaderboard showed its first rows and when each plot was drawn (a
canvas with painted pixels or an SVG with shapes, checked every 20 ms by a
script the browser runs before the page's own), and the bytes the page
received by then (Chromium's Network events). A page that is not done
within --cap seconds is reported as "> cap". Each study is opened --runs
times: the first run finds the server cold for that study.

Usage:
  bench/web/dashboard_scale_bench.py BUILD_DIR [--sizes 1000,10000,100000]
      [--cap 60] [--runs 2] [--data-dir DIR] [--json FILE]
--data-dir keeps the seeded store between runs (seeded only when it has no
vernier.db yet), so a before/after comparison reads the same data.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "web"))
import dashboard_browser_test as harness  # noqa: E402

PLOTS = ("plot-history", "plot-curves", "plot-parallel", "plot-slice", "plot-timeline",
         "plot-pareto")

# Runs in every document before the page's scripts: records when each
# thing first shows.
PROBE = """
(() => {
  const plots = %s;
  window.__marks = {};
  %s
  function tick() {
    if (location.hash.startsWith('#/study/')) {
      if (window.__marks.leaderboard === undefined &&
          document.querySelector('#leaderboard tbody tr')) {
        window.__marks.leaderboard = performance.now();
      }
      for (const id of plots) {
        if (window.__marks[id] === undefined && drawn(id)) window.__marks[id] = performance.now();
      }
    }
    if (Object.keys(window.__marks).length < plots.length + 1) setTimeout(tick, 20);
  }
  setTimeout(tick, 0);
})();
""" % (json.dumps(list(PLOTS)), harness.DRAWN_FUNCTION)


def received_bytes(driver):
    """Bytes received since the performance log was last read."""
    per_request = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.dataReceived":
            request = per_request.setdefault(params["requestId"], [0, 0])
            request[0] += params.get("encodedDataLength", 0)
        elif message["method"] == "Network.loadingFinished":
            request = per_request.setdefault(params["requestId"], [0, 0])
            request[1] = params.get("encodedDataLength", 0)
    return sum(max(streamed, finished) for streamed, finished in per_request.values())


def measure(driver, server, study, cap):
    driver.get("about:blank")
    received_bytes(driver)
    driver.get(server.url + "/#/study/" + study)
    deadline = time.monotonic() + cap
    wanted = 1 + len(PLOTS)
    marks = {}
    while time.monotonic() < deadline:
        try:
            marks = driver.execute_script("return window.__marks || {};")
        except Exception:  # noqa: BLE001 (a page too busy to answer: try again)
            marks = marks
        if len(marks) >= wanted:
            break
        time.sleep(0.1)
    try:
        marks = driver.execute_script("return window.__marks || {};")
    except Exception:  # noqa: BLE001
        pass
    return marks, received_bytes(driver)


def cell(marks, key, cap):
    return f"{marks[key]:.0f}" if key in marks else f"> {cap * 1000:.0f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--cap", type=float, default=60)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--data-dir")
    parser.add_argument("--json")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    sizes = [int(size) for size in args.sizes.split(",")]
    work = tempfile.mkdtemp(prefix="vernier-dashboard-bench-")
    data_dir = args.data_dir or os.path.join(work, "data")
    if not os.path.exists(os.path.join(data_dir, "vernier.db")):
        started = time.monotonic()
        subprocess.run([os.path.join(build_dir, "bin", "dashboard_scale_seed"), data_dir]
                       + [str(size) for size in sizes], check=True)
        print(f"seeded in {time.monotonic() - started:.1f} s", flush=True)
    server = harness.Server(build_dir, data_dir)
    driver = None
    results = []
    try:
        driver = harness.browser(performance_log=True)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        driver.get(server.url + "/?token=" + server.token)
        columns = ["leaderboard"] + list(PLOTS)
        print("| trials | run | " + " | ".join(columns) + " | all drawn | bytes |")
        print("|" + " --- |" * (len(columns) + 4))
        for size in sizes:
            for run in range(1, args.runs + 1):
                marks, received = measure(driver, server, f"scale_{size}", args.cap)
                done = len(marks) == len(columns)
                everything = f"{max(marks.values()):.0f}" if done else f"> {args.cap * 1000:.0f}"
                print(f"| {size} | {run} | " + " | ".join(cell(marks, c, args.cap) for c in columns)
                      + f" | {everything} | {received} |", flush=True)
                results.append({"trials": size, "run": run, "marks_ms": marks, "all_drawn": done,
                                "bytes": received})
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        if args.json:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump(results, out, indent=1)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
