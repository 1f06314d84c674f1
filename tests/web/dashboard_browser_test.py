#!/usr/bin/python3
"""The dashboard in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by Debian's python3-selenium) against a real
`vernier serve` running real jobs. Every page loads with no console error,
the leaderboard's rows are the API's, every plot draws, a trial that ends
during the test shows without a reload, a failed trial's reason keeps its
lines, the job page's cancel button cancels, a viewer gets no cancel button and a 403 from the API, and
a developer whose share is revoked while the page is open is told the server refused the cancel. A
login with a bad token gets an error page and no cookie; a good one gets a
session cookie that is not the token, and an address without it. It takes a screenshot of each page (docs/images/web-*.png when
VERNIER_WEB_SCREENSHOTS names that folder; a temporary folder otherwise).

Usage: dashboard_browser_test.py BUILD_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

TIMEOUT = 120


def wait_for(what, check, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


class Server:
    def __init__(self, build_dir, data_dir):
        self.log_path = os.path.join(data_dir, "serve.log")
        os.makedirs(data_dir, exist_ok=True)
        # A data dir used again (the benchmark's --data-dir) has an earlier
        # server's log: only what this one writes after it counts.
        self.log_start = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [os.path.join(build_dir, "bin", "vernier"), "serve", "--port", "0",
                 "--data-dir", data_dir, "--grace-period-ms", "1000",
                 # Two GPUs (indexes, not checked against hardware): the
                 # timeline shows the one each trial held.
                 "--gpus", "0,1"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.build_dir = build_dir
        self.url = wait_for("the server's dashboard URL", self._url, 60).rstrip("/")
        # The server's own admin token: the API takes it as a bearer token,
        # and the browser logs in with /?token= (docs/web.md).
        with open(os.path.join(data_dir, "admin.token"), encoding="utf-8") as token_file:
            self.token = token_file.read().strip()

    def _log(self):
        with open(self.log_path, "rb") as log:
            log.seek(self.log_start)
            return log.read().decode("utf-8", errors="replace")

    def _url(self):
        match = re.search(r"dashboard and HTTP API at (http://\S+)", self._log())
        if match is None and self.process.poll() is not None:
            raise AssertionError("vernier serve exited:\n" + open(self.log_path).read())
        return match and match.group(1)

    def grpc_address(self):
        return re.search(r"vernier serve listening on (\S+)", self._log()).group(1)

    def create_token(self, user, role):
        """A new API token (`vernier tokens create`, as the server's admin)."""
        created = subprocess.run(
            [os.path.join(self.build_dir, "bin", "vernier"), "tokens", "create", "--user", user,
             "--role", role, "--server", self.grpc_address()],
            capture_output=True, text=True, timeout=60, check=True,
            env={**os.environ, "VERNIER_TOKEN": self.token})
        return created.stdout.splitlines()[0].strip()

    def call(self, method, path, body=None, token=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": "Bearer " + (token or self.token)})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def submit(self, job_id, max_trials, parallel, script, token=None):
        return self.call("POST", "/v1/projects/-/jobs", {
            "jobId": job_id,
            "trainingInput": {
                "scaleTier": "CUSTOM", "masterType": "n1-standard-4",
                "masterConfig": {"acceleratorConfig": {"count": 1, "type": "NVIDIA_TESLA_T4"}},
                "hyperparameters": {
                "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy",
                "maxTrials": max_trials, "maxParallelTrials": parallel,
                "algorithm": "RANDOM_SEARCH",
                "params": [
                    {"parameterName": "lr", "type": "DOUBLE", "minValue": 0.01, "maxValue": 0.1},
                    {"parameterName": "layers", "type": "INTEGER", "minValue": 1, "maxValue": 4},
                ]}},
            "command": ["/bin/sh", "-c", script, "trainer"]}, token=token)

    def share_job(self, job_id, user, role, token):
        """`vernier jobs share JOB --user USER --role ROLE` as the token's user
        (role none: unshares)."""
        subprocess.run(
            [os.path.join(self.build_dir, "bin", "vernier"), "jobs", "share", job_id, "--user", user,
             "--role", role, "--server", self.grpc_address()],
            capture_output=True, text=True, timeout=60, check=True,
            env={**os.environ, "VERNIER_TOKEN": token})

    def wait_for_job(self, job_id, states):
        return wait_for(f"job {job_id} in {states}", lambda: (
            lambda job: job if job.get("state") in states else None)(
                self.call("GET", f"/v1/projects/-/jobs/{job_id}")))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()


# Reports accuracy = lr * step / 4 at steps 1..4, a measurement a step.
LEARNING = ('lr=${1#--lr=}; for step in 1 2 3 4; do '
            'awk -v lr="$lr" -v step="$step" \'BEGIN { print "accuracy=" lr * step / 4 }\'; '
            'sleep 0.1; done')


def browser(performance_log=False):
    """Debian's headless Chromium; with PERFORMANCE_LOG, its network events
    too (bench/web/dashboard_scale_bench.py counts the bytes received)."""
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1400,1800", "--disable-gpu"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    logs = {"browser": "ALL", "performance": "ALL"} if performance_log else {"browser": "ALL"}
    options.set_capability("goog:loggingPrefs", logs)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                            options=options)


def text_of(driver, selector):
    """The element's text, read in one step (the pages re-render rows as they update); an
    SVG element's textContent."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "return e ? (e.innerText === undefined ? e.textContent : e.innerText) : '';", selector)


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def open_page(driver, server, fragment, ready_selector):
    driver.get(server.url + "/#" + fragment)
    wait_for(ready_selector, lambda: driver.find_elements(By.CSS_SELECTOR, ready_selector))


# JavaScript: drawn(id), whether the element `id` holds a canvas with
# painted pixels or an SVG with shapes (also bench/web/dashboard_scale_bench.py).
DRAWN_FUNCTION = """
function drawn(id) {
  const box = document.getElementById(id);
  if (!box) return false;
  for (const canvas of box.querySelectorAll('canvas')) {
    if (canvas.width === 0 || canvas.height === 0) continue;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
  }
  return box.querySelectorAll('svg polyline, svg rect, svg circle').length > 0;
}
"""


def plot_drawn(driver, plot_id):
    """Whether the plot holds a canvas with painted pixels or an SVG with shapes."""
    return driver.execute_script(DRAWN_FUNCTION + "return drawn(arguments[0]);", plot_id)


def count(driver, selector):
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length;", selector)


def check_plot_shapes(driver, server, shots):
    """Issue 36 items 5 and 6: a study with a log-scaled, an integer and a
    conditional parameter. Parallel coordinates draw a whole line for every
    trial (an inactive parameter crosses its axis at "inactive") with ticks
    on each axis; the slice plot draws every point, also those that share an
    x, on a log axis for a log-scaled parameter and whole-number ticks for
    an integer one; the importances are the server's, unscaled."""
    server.call("POST", "/v1/studies", {"name": "shapes", "spec": {
        "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
        "parameters": [
            {"parameterName": "lr", "type": "DOUBLE", "minValue": 1e-4, "maxValue": 1,
             "scaleType": "UNIT_LOG_SCALE"},
            {"parameterName": "layers", "type": "INTEGER", "minValue": 1, "maxValue": 3},
            {"parameterName": "model", "type": "CATEGORICAL", "categoricalValues": ["linear", "dnn"],
             "conditionalParameterSpecs": [{
                 "parentCategoricalValues": {"values": ["dnn"]},
                 "parameterSpec": {"parameterName": "width", "type": "INTEGER",
                                   "minValue": 8, "maxValue": 64}}]}],
        "algorithm": "RANDOM_SEARCH", "seed": 3}})
    trials = server.call("POST", "/v1/studies/shapes/trials:suggest",
                         {"count": 16, "clientId": "test"})["trials"]
    for trial in trials:
        params = {p["parameterName"]: p.get("doubleValue", p.get("intValue", p.get("stringValue")))
                  for p in trial["parameters"]}
        accuracy = int(params["layers"]) * 0.1 + (0.05 if params["model"] == "dnn" else 0)
        server.call("POST", f"/v1/studies/shapes/trials/{trial['id']}:complete",
                    {"finalMeasurement": {"metrics": [{"metricId": "accuracy", "value": accuracy}]}})
    models = {next(p["stringValue"] for p in t["parameters"] if p["parameterName"] == "model")
              for t in trials}
    assert models == {"linear", "dnn"}, models
    open_page(driver, server, "/study/shapes", "#leaderboard tbody tr")
    wait_for("16 lines in parallel coordinates", lambda: count(driver, "#plot-parallel polyline") == 16)
    lines = driver.execute_script("return [...document.querySelectorAll('#plot-parallel polyline')]"
                                  ".map(l => l.getAttribute('points'));")
    assert not [line for line in lines if "NaN" in line], lines
    assert count(driver, "#plot-parallel .axis-tick") >= 5 * 2
    assert "inactive" in text_of(driver, "#plot-parallel")
    assert "lr (log)" in text_of(driver, "#plot-parallel")
    # The slice of an integer parameter: 16 points over 3 values, whole ticks.
    driver.execute_script("const s = document.getElementById('slice-parameter'); s.value = 'layers';"
                          "s.dispatchEvent(new Event('change'));")
    wait_for("16 slice points", lambda: count(driver, "#plot-slice circle") == 16)
    ticks = driver.execute_script("return [...document.querySelectorAll('#plot-slice .x-tick')]"
                                  ".map(t => t.textContent);")
    assert ticks and all(re.fullmatch(r"-?\d+", tick) for tick in ticks), ticks
    driver.execute_script("const s = document.getElementById('slice-parameter'); s.value = 'lr';"
                          "s.dispatchEvent(new Event('change'));")
    wait_for("the log axis", lambda: "(log scale)" in text_of(driver, "#plot-slice .x-label"))
    ticks = driver.execute_script("return [...document.querySelectorAll('#plot-slice .x-tick')]"
                                  ".map(t => Number(t.textContent));")
    assert len(ticks) >= 2 and all(abs(__import__("math").log10(t) - round(__import__("math").log10(t))) < 1e-9
                                   or str(t)[0] in "25" for t in ticks), ticks
    # Importances: the server's shares as they are (not scaled to sum to
    # 1), with no too-few note at 16 trials.
    summary = server.call("GET", "/dashboard/studies/shapes/summary")
    assert summary["importanceMinTrials"] == 10 and summary["importanceTrialCount"] == "16", summary
    wait_for("the importance bars", lambda: count(driver, "#plot-importance rect") == 4)
    shown = driver.execute_script("return Object.fromEntries([...document.querySelectorAll("
                                  "'#plot-importance rect')].map(r => [r.getAttribute('data-parameter'),"
                                  " Number(r.getAttribute('data-share'))]));")
    served = dict(zip(summary["parameterNames"], summary["importance"]))
    assert shown == {name: float(value) for name, value in served.items()}, (shown, served)
    assert shown["layers"] > 0.5, shown
    assert "Too few" not in text_of(driver, "#plot-importance .note")
    driver.save_screenshot(os.path.join(shots, "web-shapes.png"))


def main():
    build_dir = os.path.abspath(sys.argv[1])
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            sys.exit(f"{program} is missing: run scripts/install-deps.sh")
    shots = os.environ.get("VERNIER_WEB_SCREENSHOTS") or tempfile.mkdtemp(prefix="vernier-shots-")
    os.makedirs(shots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="vernier-web-test-")
    server = Server(build_dir, os.path.join(work, "data"))
    driver = None
    gate = os.path.join(work, "gate")
    try:
        server.submit("sweep", 8, 2, LEARNING)
        server.wait_for_job("sweep", {"SUCCEEDED"})
        # Without a token the API answers 401 (authentication is on).
        try:
            urllib.request.urlopen(server.url + "/v1/projects/-/jobs", timeout=30)
            raise AssertionError("the API served a caller without a token")
        except urllib.error.HTTPError as error:
            assert error.code == 401, error.code
        driver = browser()
        # Issue 36 item 4: the page without a token, or with a session the
        # server does not know, says it is not logged in and how to log in,
        # rather than showing empty tables.
        driver.get(server.url + "/#/")
        wait_for("the not-logged-in message",
                 lambda: driver.find_elements(By.CSS_SELECTOR, "#auth-error"))
        refusal = text_of(driver, "#auth-error")
        assert "Not logged in" in refusal and "UNAUTHENTICATED" in refusal, refusal
        assert driver.find_elements(By.CSS_SELECTOR, "#auth-error a[href='/login']"), refusal
        driver.add_cookie({"name": "vernier_session_" + server.url.rsplit(":", 1)[1],
                           "value": "0" * 64, "path": "/"})
        driver.get(server.url + "/#/job/sweep")
        driver.refresh()
        wait_for("the not-logged-in message for an unknown session",
                 lambda: "Not logged in" in text_of(driver, "#auth-error"))
        driver.delete_all_cookies()
        console_errors(driver)  # the refused calls' 401s, expected
        # A login link with a token the server does not know: a page naming
        # the problem, and no cookie.
        driver.get(server.url + "/?token=vnr_forged")
        wait_for("the refused login's page",
                 lambda: driver.find_elements(By.CSS_SELECTOR, "#login-error"))
        assert "token" in text_of(driver, "#login-error"), text_of(driver, "#login-error")
        assert not driver.get_cookies(), driver.get_cookies()
        console_errors(driver)  # the refused login's 401, expected
        # The login link: the server checks the token, keeps it, puts an
        # opaque session id in the cookie and reloads without the token.
        driver.get(server.url + "/?token=" + server.token)
        wait_for("the token to leave the address", lambda: "token" not in driver.current_url)
        port = server.url.rsplit(":", 1)[1]
        cookies = {cookie["name"]: cookie for cookie in driver.get_cookies()}
        assert list(cookies) == ["vernier_session_" + port], cookies
        session = cookies["vernier_session_" + port]
        assert re.fullmatch(r"[0-9a-f]{64}", session["value"]), session
        assert server.token not in session["value"], "the cookie holds the token"
        assert session["httpOnly"] and session["sameSite"] == "Strict", session

        # The jobs and studies list.
        open_page(driver, server, "/", "#jobs tr[data-job-id='sweep']")
        row = text_of(driver, "#jobs tr[data-job-id='sweep']")
        assert "SUCCEEDED" in row and "8 / 8" in row, row
        wait_for("the study's row", lambda: driver.find_elements(By.CSS_SELECTOR, "#studies tr[data-study='sweep']"))
        driver.save_screenshot(os.path.join(shots, "web-jobs.png"))

        # The study: leaderboard rows are the API's, every plot draws.
        open_page(driver, server, "/study/sweep", "#leaderboard tbody tr")
        best_first = [str(t["id"]) for t in
                      server.call("GET", "/v1/studies/sweep/trials:optimal")["trials"]]
        def leaderboard():
            ids = driver.execute_script(
                "return [...document.querySelectorAll('#leaderboard tbody tr')]"
                ".map(r => r.getAttribute('data-trial-id'));")
            return ids if len(ids) == 8 else None
        assert wait_for("8 leaderboard rows", leaderboard) == best_first, (leaderboard(), best_first)
        # Sorted and paged by the server: the page knows the study's size.
        wait_for("the page label", lambda: "(8 trials)" in text_of(driver, "#page-label"))
        for plot in ("plot-history", "plot-curves", "plot-parallel", "plot-slice", "plot-timeline",
                     "plot-importance"):
            wait_for(f"{plot} to draw", lambda: plot_drawn(driver, plot))
        # The timeline: each trial's bar names the GPU its master held, as
        # the job's description has it.
        runs = server.call("GET", "/v1/projects/-/jobs/sweep:describe")["trialRuns"]
        held = {str(run["trialId"]): ",".join(str(g) for r in run["replicas"] for g in r.get("gpus", []))
                for run in runs}
        assert all(gpus in ("0", "1") for gpus in held.values()), held
        def timeline_gpus():
            bars = driver.execute_script(
                "return Object.fromEntries([...document.querySelectorAll('#plot-timeline rect')]"
                ".map(r => [r.getAttribute('data-trial-id'), r.getAttribute('data-gpus')]));")
            return bars if bars and all(bars.values()) else None
        assert wait_for("the GPUs on the timeline", timeline_gpus) == held, (timeline_gpus(), held)
        # Filter by state and by a parameter's range.
        driver.execute_script("const s = document.getElementById('state-filter'); s.value = 'FAILED';"
                              "s.dispatchEvent(new Event('change'));")
        wait_for("no FAILED rows", lambda: not driver.execute_script(
            "return document.querySelectorAll('#leaderboard tbody tr').length;"))
        driver.execute_script("const s = document.getElementById('state-filter'); s.value = '';"
                              "s.dispatchEvent(new Event('change'));")
        wait_for("the rows back", leaderboard)
        # Intermediate values have a legend (a line per state); 8 trials are
        # fewer than the importances need: a note says so.
        wait_for("the curves' legend", lambda: "SUCCEEDED (" in text_of(driver, "#plot-curves .legend"))
        wait_for("the too-few-trials note", lambda: "Too few trials" in text_of(
            driver, "#plot-importance .note"))
        time.sleep(0.5)
        driver.save_screenshot(os.path.join(shots, "web-study.png"))

        check_plot_shapes(driver, server, shots)

        # Two metrics: the Pareto front (a study driven over the API).
        server.call("POST", "/v1/studies", {"name": "two_metrics", "spec": {
            "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                        {"metricId": "latency", "goal": "MINIMIZE"}],
            "parameters": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}],
            "algorithm": "RANDOM_SEARCH"}})
        suggested = server.call("POST", "/v1/studies/two_metrics/trials:suggest",
                                {"count": 6, "clientId": "test"})["trials"]
        for number, trial in enumerate(suggested):
            x = trial["parameters"][0]["doubleValue"]
            # Pairs of trials share an accuracy (the plot's x): each point
            # is drawn all the same.
            server.call("POST", f"/v1/studies/two_metrics/trials/{trial['id']}:complete",
                        {"finalMeasurement": {"metrics": [{"metricId": "accuracy", "value": number // 2},
                                                          {"metricId": "latency", "value": x}]}})
        open_page(driver, server, "/study/two_metrics", "#leaderboard tbody tr")
        wait_for("the Pareto plot", lambda: plot_drawn(driver, "plot-pareto"))
        front = len(server.call("GET", "/v1/studies/two_metrics/trials:optimal")["trials"])
        assert front > 0
        wait_for("the API's Pareto front on the plot", lambda: driver.execute_script(
            "return document.getElementById('plot-pareto').dataset.frontSize;") == str(front))
        assert wait_for("6 points on the Pareto plot", lambda: count(driver, "#plot-pareto circle") == 6)
        # Issue 36 item 7: both objectives in the header and the study list,
        # and the history shows either one.
        objectives_text = text_of(driver, "#study-objectives")
        assert "accuracy to maximize" in objectives_text and "latency to minimize" in objectives_text, objectives_text
        wait_for("the history of accuracy", lambda: text_of(driver, "#plot-history .y-label") == "accuracy")
        assert count(driver, "#plot-history circle") == 6
        driver.execute_script("const s = document.getElementById('history-objective'); s.value = 'latency';"
                              "s.dispatchEvent(new Event('change'));")
        wait_for("the history of latency", lambda: text_of(driver, "#plot-history .y-label") == "latency")
        # A job with two objectives has no one best: its row says so.
        server.call("POST", "/v1/projects/-/jobs", {
            "jobId": "pareto_job",
            "trainingInput": {"scaleTier": "BASIC", "hyperparameters": {
                "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                            {"metricId": "latency", "goal": "MINIMIZE"}],
                "maxTrials": 1, "algorithm": "RANDOM_SEARCH",
                "params": [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]}},
            "command": ["/bin/sh", "-c", "echo accuracy=0.5 latency=2", "trainer"]})
        open_page(driver, server, "/", "#studies tr[data-study='two_metrics']")
        listed = text_of(driver, "#studies tr[data-study='two_metrics']")
        assert "accuracy (MAXIMIZE)" in listed and "latency (MINIMIZE)" in listed, listed
        wait_for("the two-objective job's row", lambda: "2 objectives: see the study's Pareto front"
                 in text_of(driver, "#jobs tr[data-job-id='pareto_job']"))
        open_page(driver, server, "/study/two_metrics", "#leaderboard tbody tr")
        wait_for("the Pareto plot", lambda: plot_drawn(driver, "plot-pareto"))
        driver.save_screenshot(os.path.join(shots, "web-pareto.png"))

        # A constraint is no objective: the plot's axes are the objectives,
        # and one objective with a constraint has no Pareto plot.
        x_parameter = [{"parameterName": "x", "type": "DOUBLE", "minValue": 0, "maxValue": 1}]
        server.call("POST", "/v1/studies", {"name": "constrained_two", "spec": {
            "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                        {"metricId": "memory_gb", "constraint": {"maxValue": 8}},
                        {"metricId": "latency", "goal": "MINIMIZE"}],
            "parameters": x_parameter, "algorithm": "RANDOM_SEARCH"}})
        open_page(driver, server, "/study/constrained_two", "#plot-pareto")
        wait_for("the constrained_two page", lambda: "constrained_two" in text_of(driver, "h2"))
        assert driver.execute_script(
            "return document.getElementById('plot-pareto').parentNode.querySelector('h3')"
            ".textContent;") == "Pareto front: accuracy and latency"
        server.call("POST", "/v1/studies", {"name": "constrained_one", "spec": {
            "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"},
                        {"metricId": "memory_gb", "constraint": {"maxValue": 8}}],
            "parameters": x_parameter, "algorithm": "RANDOM_SEARCH"}})
        open_page(driver, server, "/study/constrained_one", "#plot-history")
        wait_for("the constrained_one page", lambda: "constrained_one" in text_of(driver, "h2"))
        assert driver.execute_script("return document.getElementById('plot-pareto');") is None

        # A trial.
        open_page(driver, server, f"/trial/sweep/{best_first[0]}", "#trial-state")
        assert text_of(driver, "#trial-state") == "SUCCEEDED"
        wait_for("the trial's learning curve", lambda: plot_drawn(driver, "plot-trial-curve"))
        wait_for("the trial's replica", lambda: "master" in text_of(driver, "#trial-replicas tbody"))
        wait_for("the trial's log", lambda: "[master-0] accuracy=" in text_of(driver, "#trial-log"))
        driver.save_screenshot(os.path.join(shots, "web-trial.png"))

        # Live: a trial that ends while the page is open shows without a reload.
        server.submit("live", 1, 1, f'while [ ! -e {gate} ]; do sleep 0.1; done; echo "accuracy=0.5"')
        open_page(driver, server, "/study/live", "#leaderboard tbody tr[data-trial-id='1']")
        driver.execute_script("window.notReloaded = true;")
        row = text_of(driver, "#leaderboard tbody tr[data-trial-id='1']")
        assert "ACTIVE" in row, row
        open(gate, "w").close()
        wait_for("trial 1 SUCCEEDED on the open page", lambda: "SUCCEEDED" in text_of(
            driver, "#leaderboard tbody tr[data-trial-id='1']"))
        assert driver.execute_script("return window.notReloaded === true;"), "the page reloaded"

        # The job page's cancel button.
        server.submit("doomed", 2, 1, "sleep 600")
        open_page(driver, server, "/job/doomed", "#cancel")
        assert "maxTrials: 2" in text_of(driver, "#training-input"), text_of(driver, "#training-input")
        driver.save_screenshot(os.path.join(shots, "web-job.png"))
        driver.execute_script("document.getElementById('cancel').click();")
        server.wait_for_job("doomed", {"CANCELLED"})
        wait_for("CANCELLED on the job page",
                 lambda: text_of(driver, "#job-state") == "CANCELLED")

        # A failed trial's reason keeps its lines (the trainer's last output).
        server.submit("broken", 1, 1, "echo first line; echo second line; exit 3")
        server.wait_for_job("broken", {"FAILED"})
        open_page(driver, server, "/trial/broken/1", "#trial-reason")
        reason = text_of(driver, "#trial-reason")
        assert "first line\nsecond line" in reason, reason

        # A viewer: logged in with their own token, the job page of a running
        # job offers no cancel button, and the API refuses the cancel (403).
        server.submit("watched", 1, 1, "sleep 600")
        server.wait_for_job("watched", {"RUNNING"})
        viewer = server.create_token("vic", "viewer")
        driver.get(server.url + "/?token=" + viewer)
        open_page(driver, server, "/job/watched", "#job-state")
        wait_for("the watched job's page", lambda: "watched" in text_of(driver, "h2"))
        wait_for("RUNNING on the job page", lambda: text_of(driver, "#job-state") == "RUNNING")
        assert not driver.find_elements(By.CSS_SELECTOR, "#cancel"), "a viewer got a cancel button"
        try:
            server.call("POST", "/v1/projects/-/jobs/watched:cancel", {}, token=viewer)
            raise AssertionError("the API let a viewer cancel a job")
        except urllib.error.HTTPError as error:
            assert error.code == 403, error.code
        server.call("POST", "/v1/projects/-/jobs/watched:cancel", {})

        # A share revoked while the page is open: the cancel button the page
        # offered is refused (403), and the page says so above everything.
        alice = server.create_token("alice", "developer")
        bob = server.create_token("bob", "developer")
        server.submit("shared", 1, 1, "sleep 600", token=alice)
        server.wait_for_job("shared", {"RUNNING"})
        server.share_job("shared", "bob", "developer", alice)
        driver.get(server.url + "/?token=" + bob)
        wait_for("bob's session", lambda: "token" not in driver.current_url)
        open_page(driver, server, "/job/shared", "#cancel")
        # The button as the page showed it, before the page learns of the
        # revocation.
        driver.execute_script("window.offeredCancel = document.getElementById('cancel');")
        server.share_job("shared", "bob", "none", alice)
        driver.execute_script("window.offeredCancel.click();")
        wait_for("the refusal", lambda: driver.find_elements(By.CSS_SELECTOR, "#auth-error"))
        refusal = text_of(driver, "#auth-error")
        assert "The server refused this page" in refusal, refusal
        assert "bob (developer) may not change job" in refusal, refusal
        assert not driver.find_elements(By.CSS_SELECTOR, "#auth-error a[href='/login']"), refusal
        assert server.call("GET", "/v1/projects/-/jobs/shared")["state"] == "RUNNING"
        console_errors(driver)  # the refused cancel's 403, expected
        server.call("POST", "/v1/projects/-/jobs/shared:cancel", {})

        errors = console_errors(driver)
        assert not errors, errors
        print(f"dashboard browser test passed; screenshots in {shots}")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
