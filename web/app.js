// The Vernier dashboard: a page per hash route (#/, #/study/S, #/trial/S/ID,
// #/job/J), reading the HTTP API (/v1/...), the event streams (/events...)
// and the downsampled curves (/dashboard/...). See docs/web.md.
"use strict";

const main = document.getElementById("main");
let sources = [];        // the page's EventSources
let timers = [];

function el(name, attributes = {}, ...children) {
  const element = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "onclick" || key === "onchange" || key === "oninput") element[key] = value;
    else element.setAttribute(key, value);
  }
  for (const child of children) {
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// An error the server answered: its HTTP status in `code`.
function httpError(body, fallback) {
  const error = new Error(body && body.error ? `${body.error.status}: ${body.error.message}` : fallback);
  error.code = body && body.error ? body.error.code : undefined;
  return error;
}

async function api(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json();
  if (!response.ok) throw httpError(body, response.statusText);
  return body;
}

// What the page says when the server refused the caller (an answer or a
// stream's `event: failure`): 401, not logged in, or logged in with a token
// the server no longer knows (revoked, expired); 403, not allowed. Shown
// once, above everything, instead of empty tables.
function showRefusal(error) {
  if (document.getElementById("auth-error")) return;
  const text = error.code === 401
      ? "Not logged in, or the session's token is no longer valid (revoked or expired): the server answered " +
        `${error.message}. Open the link \`vernier serve\` printed (http://HOST:PORT/?token=...), ` +
        "or log in with an API token: "
      : `The server refused this page: ${error.message}. `;
  main.prepend(el("p", { id: "auth-error", class: "error" }, text,
                  error.code === 401 ? el("a", { href: "/login" }, "log in") : ""));
}

function listen(url, handlers) {
  const source = new EventSource(url);
  sources.push(source);
  source.onopen = () => document.getElementById("live").classList.add("on");
  source.onerror = () => document.getElementById("live").classList.remove("on");
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, event => handler(JSON.parse(event.data)));
  }
  // A stream the server ended with a failure is not opened again (the
  // browser would, every few seconds): a refused caller is told so.
  source.addEventListener("failure", event => {
    source.close();
    document.getElementById("live").classList.remove("on");
    const error = httpError(JSON.parse(event.data), "the stream failed");
    if (error.code === 401 || error.code === 403) showRefusal(error);
    else if (!handlers.failure) showError(error);
  });
  return source;
}

// A value as YAML (the job page's trainingInput, as it was submitted).
function yaml(value, indent = "") {
  if (Array.isArray(value)) {
    if (value.length === 0) return " []";
    return value.map(item => {
      const text = yaml(item, indent + "  ");
      return "\n" + indent + "-" + (typeof item === "object" && item !== null && !Array.isArray(item)
          ? text.replace(/^\n\s*/, " ") : text);
    }).join("");
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return " {}";
    return entries.map(([key, item]) => "\n" + indent + key + ":" + yaml(item, indent + "  ")).join("");
  }
  return " " + (typeof value === "string" && !/^[A-Za-z0-9_.\/-]+$/.test(value) ? JSON.stringify(value) : String(value));
}

// Calls `render` at most every `ms` milliseconds.
function throttled(render, ms) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    timers.push(setTimeout(() => { pending = false; render(); }, ms));
  };
}

function age(time) {
  if (!time) return "";
  const seconds = Math.max(0, (Date.now() - Date.parse(time)) / 1000);
  if (seconds < 90) return Math.round(seconds) + " s";
  if (seconds < 5400) return Math.round(seconds / 60) + " min";
  if (seconds < 129600) return Math.round(seconds / 3600) + " h";
  return Math.round(seconds / 86400) + " d";
}

function format(value) {
  if (typeof value !== "number") return value === undefined ? "" : String(value);
  return Number.isInteger(value) ? String(value) : value.toPrecision(5);
}

function stateCell(state) { return el("td", { class: "state-" + state }, state || ""); }

function showError(error) {
  if (error.code === 401 || error.code === 403) showRefusal(error);
  else main.append(el("p", { class: "error" }, String(error.message || error)));
}

// A spec's metrics as the pages name them: "accuracy (MAXIMIZE), latency
// (MINIMIZE), memory_gb (constraint ≤ 16)".
function metricsText(metrics) {
  return (metrics || []).map(m => {
    if (!m.constraint) return `${m.metricId} (${m.goal || "MAXIMIZE"})`;
    const c = m.constraint;
    const bounds = [c.minValue !== undefined ? `≥ ${c.minValue}` : "", c.maxValue !== undefined ? `≤ ${c.maxValue}` : ""]
      .filter(Boolean).join(", ");
    return `${m.metricId} (constraint ${bounds})`;
  }).join(", ");
}

// ---- #/ : jobs and studies -------------------------------------------------

function jobsPage() {
  const jobs = new Map(), studies = new Map();
  const jobRows = el("tbody"), studyRows = el("tbody");
  main.append(el("h2", {}, "Jobs"),
    el("table", { id: "jobs" }, el("thead", {}, el("tr", {}, ...["job", "state", "trials done / max",
      "best", "algorithm", "age", ""].map(h => el("th", {}, h)))), jobRows),
    el("h2", {}, "Studies"),
    el("table", { id: "studies" }, el("thead", {}, el("tr", {}, ...["study", "state", "metrics",
      "algorithm", "age"].map(h => el("th", {}, h)))), studyRows));
  const render = throttled(() => {
    jobRows.replaceChildren(...[...jobs.values()].sort((a, b) => (b.createTime || "").localeCompare(a.createTime || ""))
      .map(job => {
        const hp = (job.trainingInput || {}).hyperparameters || {};
        const output = job.trainingOutput || {};
        const finals = (output.trials || []).map(t => (t.finalMetric || {}).objectiveValue).filter(v => v !== undefined);
        // Several objectives have no one best: the study page shows their front.
        const objectives = (hp.metrics || []).filter(m => !m.constraint);
        const best = objectives.length > 1 ? `${objectives.length} objectives: see the study's Pareto front`
            : finals.length === 0 ? ""
            : ((objectives[0] || hp).goal === "MINIMIZE" ? Math.min(...finals) : Math.max(...finals));
        return el("tr", { "data-job-id": job.jobId },
          el("td", {}, el("a", { href: "#/job/" + job.jobId }, job.jobId)), stateCell(job.state),
          el("td", { class: "num" }, `${output.completedTrialCount || 0} / ${hp.maxTrials || ""}`),
          el("td", { class: "num" }, format(best)), el("td", {}, hp.algorithm || "default"),
          el("td", {}, age(job.createTime)),
          el("td", {}, job.studyName ? el("a", { href: "#/study/" + job.studyName }, "study") : ""));
      }));
    studyRows.replaceChildren(...[...studies.values()].map(study => {
      const spec = study.spec || {};
      return el("tr", { "data-study": study.name },
        el("td", {}, el("a", { href: "#/study/" + study.name }, study.name)), stateCell(study.state),
        el("td", { class: "metrics" }, metricsText(spec.metrics)), el("td", {}, spec.algorithm || "default"),
        el("td", {}, age(study.createTime)));
    }));
  }, 200);
  listen("/events", {
    job: job => { jobs.set(job.jobId, job); render(); },
    study: study => { studies.set(study.name, study); render(); },
    // 401 and 403 say so above the tables (listen); others below them.
    failure: body => { const error = httpError(body, "the stream failed"); if (error.code !== 401 && error.code !== 403) showError(error); },
  });
  render();
}

// ---- #/study/S : leaderboard and plots ---------------------------------------

// The trial page's parameters (the API's Trial).
function paramsOf(trial) {
  const params = {};
  for (const p of trial.parameters || []) {
    params[p.parameterName] = p.doubleValue !== undefined ? p.doubleValue
        : p.intValue !== undefined ? Number(p.intValue) : p.stringValue;
  }
  return params;
}

// A number of a DashboardTrial ("NaN", absent: undefined).
function numberOf(value) {
  if (value === undefined || value === "NaN") return undefined;
  return Number(value);
}

// Every parameter spec of a spec, conditional ones after their parent (the
// server's column order).
function parameterSpecs(specs) {
  return (specs || []).flatMap(p => [p,
    ...parameterSpecs((p.conditionalParameterSpecs || []).map(c => c.parameterSpec || {}))]);
}

function parameterNames(specs) { return parameterSpecs(specs).map(p => p.parameterName); }

// How each parameter's axis is drawn: {log, integer, categorical} by name.
function parameterKinds(specs) {
  const kinds = {};
  for (const p of parameterSpecs(specs)) {
    kinds[p.parameterName] = {
      log: p.scaleType === "UNIT_LOG_SCALE",
      integer: p.type === "INTEGER" ||
          (p.type === "DISCRETE" && (p.discreteValues || []).every(v => Number.isInteger(Number(v)))),
      categorical: p.type === "CATEGORICAL",
    };
  }
  return kinds;
}

// Runs `load` now; a call while it runs runs it once more when it ends.
function coalesced(load) {
  let running = false, again = false;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    try { await load(); } catch (error) { showError(error); }
    running = false;
    if (again) { again = false; run(); }
  };
  return run;
}

async function studyPage(name) {
  const study = await api("/v1/studies/" + encodeURIComponent(name));
  const path = "/dashboard/studies/" + encodeURIComponent(name);
  const spec = study.spec || {};
  const metrics = (spec.metrics || []).map(m => m.metricId);
  // The objectives (a metric with a constraint is none): the Pareto plot's axes.
  const objectives = (spec.metrics || []).filter(m => !m.constraint).map(m => m.metricId);
  const objective = metrics[0];
  const maximize = ((spec.metrics || [])[0] || {}).goal !== "MINIMIZE";
  const parameters = parameterNames(spec.parameters);
  const kinds = parameterKinds(spec.parameters);
  const view = { sort: "objective", descending: maximize, state: "", page: 0, pageSize: 20,
                 rangeParam: parameters[0] || "", min: "", max: "" };
  const reloadTable = () => { loadTable(); };

  const stateSelect = el("select", { id: "state-filter", onchange: () => { view.state = stateSelect.value; view.page = 0; reloadTable(); } },
    ...["", "REQUESTED", "ACTIVE", "STOPPING", "SUCCEEDED", "FAILED", "INFEASIBLE", "STOPPED_EARLY", "CANCELLED"].map(s => el("option", { value: s }, s || "every state")));
  const rangeSelect = el("select", { onchange: () => { view.rangeParam = rangeSelect.value; reloadTable(); } },
    ...parameters.map(p => el("option", { value: p }, p)));
  const minInput = el("input", { placeholder: "min", oninput: () => { view.min = minInput.value; view.page = 0; reloadTable(); } });
  const maxInput = el("input", { placeholder: "max", oninput: () => { view.max = maxInput.value; view.page = 0; reloadTable(); } });
  const pageLabel = el("span", { id: "page-label" });
  const previous = el("button", { id: "previous-page", onclick: () => { view.page = Math.max(0, view.page - 1); reloadTable(); } }, "previous");
  const next = el("button", { id: "next-page", onclick: () => { view.page += 1; reloadTable(); } }, "next");
  const columns = ["id", "state", "objective", ...metrics.slice(1), ...parameters, "measurements"];
  const header = el("tr", {}, ...columns.map(column => el("th", { onclick: () => {
    view.descending = view.sort === column ? !view.descending : column === "objective" && maximize;
    view.sort = column; view.page = 0; reloadTable(); } }, column === "objective" ? `${objective} (objective)` : column)));
  const rows = el("tbody");
  const counts = el("p", { id: "state-counts" });
  const plotBox = (id, title, extra = "") => el("div", { class: "plot" }, el("h3", {}, title, extra), el("div", { id }));
  const sliceSelect = el("select", { id: "slice-parameter", onchange: () => renderPlots() },
    ...parameters.map(p => el("option", { value: p }, p)));
  // With several objectives the history shows one at a time.
  const historySelect = el("select", { id: "history-objective", onchange: () => renderPlots() },
    ...objectives.map(m => el("option", { value: m }, m)));
  const goals = (spec.metrics || []).filter(m => !m.constraint)
    .map(m => `${m.metricId} to ${m.goal === "MINIMIZE" ? "minimize" : "maximize"}`);
  const constraints = (spec.metrics || []).filter(m => m.constraint);
  const headline = `${spec.algorithm || "default algorithm"}; ` +
      (goals.length > 1 ? `${goals.length} objectives: ${goals.join(", ")} (the leaderboard is their Pareto front)`
                        : goals.join("")) +
      (constraints.length > 0 ? `; constraints: ${metricsText(constraints)}` : "");
  main.append(el("h2", {}, "Study ", name), el("p", { id: "study-objectives" }, headline),
    counts,
    el("h3", {}, "Leaderboard"),
    el("div", { class: "controls" }, "state ", stateSelect, "  ", rangeSelect, " from ", minInput, " to ", maxInput,
       "  ", previous, " ", pageLabel, " ", next),
    el("table", { id: "leaderboard" }, el("thead", {}, header), rows),
    el("div", { class: "plots" },
      plotBox("plot-history", "Optimisation history", objectives.length > 1 ? historySelect : ""),
      plotBox("plot-curves", "Intermediate values"),
      plotBox("plot-parallel", "Parallel coordinates"),
      plotBox("plot-slice", "Slice ", sliceSelect),
      plotBox("plot-timeline", "Timeline (latest trials, with the GPUs each held)"),
      plotBox("plot-importance", "Parameter importance (first-order variance share)"),
      ...(objectives.length > 1 ? [plotBox("plot-pareto", `Pareto front: ${objectives[0]} and ${objectives[1]}`)] : [])));

  // A DashboardTrial's value in a column.
  function cell(trial, column) {
    if (column === "id") return Number(trial.id);
    if (column === "state") return trial.state;
    if (column === "objective") return numberOf((trial.metrics || [])[0]);
    if (column === "measurements") return Number(trial.measurementCount || 0);
    if (metrics.includes(column)) return numberOf((trial.metrics || [])[metrics.indexOf(column)]);
    const index = parameters.indexOf(column);
    const label = (trial.labels || {})[index];
    return label !== undefined ? label : numberOf((trial.parameters || [])[index]);
  }
  function paramsOfRow(trial) {
    const params = {};
    parameters.forEach(p => { params[p] = cell(trial, p); });
    return params;
  }

  // The leaderboard: one page, sorted and filtered by the server.
  let asked = 0;
  const loadTable = coalesced(async () => {
    const query = new URLSearchParams({
      orderBy: view.sort === "objective" ? (objective || "") : view.sort,
      descending: String(Boolean(view.descending)), pageSize: view.pageSize, page: view.page });
    if (view.state) query.set("state", view.state);
    const bound = text => text.trim() !== "" && Number.isFinite(Number(text));
    if (view.rangeParam && (bound(view.min) || bound(view.max))) {
      query.set("rangeParameter", view.rangeParam);
      if (bound(view.min)) query.set("min", view.min.trim());
      if (bound(view.max)) query.set("max", view.max.trim());
    }
    const ask = ++asked;
    const page = await api(`${path}/trials?${query}`);
    if (ask !== asked) return;
    const total = Number(page.totalSize || 0);
    view.page = Number(page.page || 0);
    pageLabel.textContent = `page ${view.page + 1} of ${Math.max(1, Math.ceil(total / view.pageSize))} (${total} trials)`;
    rows.replaceChildren(...(page.trials || []).map(trial =>
      el("tr", { "data-trial-id": trial.id }, ...columns.map(column => {
        const value = cell(trial, column);
        if (column === "id") return el("td", {}, el("a", { href: `#/trial/${name}/${trial.id}` }, value));
        if (column === "state") return stateCell(value);
        return el("td", { class: "num" }, format(value));
      }))));
  });

  // The plots: a bounded summary (a sample with the best trials and the
  // Pareto front, the best so far, the latest trials), from the server.
  let summary = null;
  function renderPlots() {
    if (summary === null) return;
    const sample = summary.sample || [];
    const finished = state => sample.filter(t => t.state === state && cell(t, "objective") !== undefined)
      .map(t => ({ id: Number(t.id), state: t.state, value: cell(t, "objective"), params: paramsOfRow(t) }));
    const done = finished("SUCCEEDED");
    if (objectives.length > 1) {
      const metric = historySelect.value || objectives[0];
      const points = sample.filter(t => (t.state === "SUCCEEDED" || t.state === "STOPPED_EARLY") && t.final)
        .map(t => ({ id: Number(t.id), state: t.state, value: cell(t, metric) })).filter(p => p.value !== undefined);
      Plots.objectiveHistory(document.getElementById("plot-history"), points, metric, summary.paretoFront || []);
    } else {
      Plots.history(document.getElementById("plot-history"), done,
        (summary.bestSoFar || []).map(b => ({ id: Number(b.trialId), value: numberOf(b.value) })),
        Number(summary.lastTrialId || 0), finished("STOPPED_EARLY"));
    }
    Plots.parallel(document.getElementById("plot-parallel"), done, parameters, maximize, kinds, objective);
    if (sliceSelect.value) {
      Plots.slice(document.getElementById("plot-slice"), done, sliceSelect.value, kinds[sliceSelect.value] || {}, objective);
    }
    Plots.timeline(document.getElementById("plot-timeline"), (summary.recent || []).map(t => ({
      id: Number(t.id), state: t.state, start: Number(t.startSeconds || 0) * 1000,
      end: t.endSeconds ? Number(t.endSeconds) * 1000 : null, gpus: t.gpus || [] })));
    Plots.importance(document.getElementById("plot-importance"), summary.parameterNames || [],
                     summary.importance || [], {
                       trials: Number(summary.importanceTrialCount || 0),
                       minTrials: Number(summary.importanceMinTrials || 0),
                       stoppedLeftOut: Number(summary.importanceStoppedLeftOut || 0) });
    if (objectives.length > 1) {
      const point = t => ({ x: cell(t, objectives[0]), y: cell(t, objectives[1]), id: Number(t.id) });
      const ended = sample.filter(t => t.state === "SUCCEEDED" || (t.state === "STOPPED_EARLY" && t.final))
          .map(point).filter(p => p.x !== undefined && p.y !== undefined);
      const byId = new Map(sample.map(t => [String(t.id), t]));
      const front = (summary.paretoFront || []).map(id => byId.get(String(id))).filter(Boolean).map(point);
      Plots.pareto(document.getElementById("plot-pareto"), ended, front, objectives[0], objectives[1],
                   (summary.paretoFront || []).length);
    }
  }
  const loadSummary = coalesced(async () => {
    summary = await api(`${path}/summary?maxPoints=1000`);
    counts.textContent = `${Number(summary.trialCount || 0)} trials: ` + Object.entries(summary.stateCounts || {})
      .map(([state, count]) => `${count} ${state}`).join(", ");
    renderPlots();
  });
  const loadCurves = coalesced(async () => {
    Plots.curves(document.getElementById("plot-curves"), await api(`${path}/curves?maxPoints=50&maxTrials=50`));
  });
  // Live: the stream names each trial that changed; the views are asked
  // again (at most every 300 ms, the plots every second).
  const changedTable = throttled(loadTable, 300);
  const changedPlots = throttled(() => { loadSummary(); loadCurves(); }, 1000);
  listen("/events/studies/" + encodeURIComponent(name), {
    watching: () => { loadTable(); loadSummary(); loadCurves(); },
    trial: () => { changedTable(); changedPlots(); },
  });
}

// ---- #/trial/S/ID ----------------------------------------------------------------

async function trialPage(name, id) {
  const container = el("div");
  const curve = el("div", { id: "plot-trial-curve" });
  const replicaRows = el("tbody");
  const log = el("pre", { id: "trial-log" });
  main.append(el("h2", {}, `Trial ${id} of `, el("a", { href: "#/study/" + name }, name)), container,
    el("div", { class: "plots" }, el("div", { class: "plot" }, el("h3", {}, "Learning curve"), curve)),
    el("h3", {}, "Replicas"),
    el("table", { id: "trial-replicas" }, el("thead", {}, el("tr", {}, ...["attempt", "role", "index", "state", "host", "pid", "GPUs", "exit"].map(h => el("th", {}, h)))), replicaRows),
    el("h3", {}, "Logs"), log);
  async function load() {
    const trial = await api(`/v1/studies/${encodeURIComponent(name)}/trials/${id}`);
    const params = paramsOf(trial);
    container.replaceChildren(
      el("p", {}, "state ", el("span", { class: "state-" + trial.state, id: "trial-state" }, trial.state),
         ` started ${trial.startTime || "-"}, ended ${trial.endTime || "-"}`),
      // The reason keeps its lines (a failed trial's traceback).
      trial.statusReason ? el("pre", { class: "reason", id: "trial-reason" }, trial.statusReason) : "",
      el("h3", {}, "Parameters"),
      el("table", { id: "parameters" }, ...Object.entries(params).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, format(v))))),
      el("h3", {}, "Final measurement"),
      el("table", {}, ...((trial.finalMeasurement || {}).metrics || []).map(m => el("tr", {}, el("th", {}, m.metricId), el("td", { class: "num" }, format(m.value))))),
      el("p", {}, `${trial.measurementCount || 0} measurements`));
    Plots.curves(curve, await api(`/dashboard/studies/${encodeURIComponent(name)}/curves?trialId=${id}&maxPoints=200`));
    // A job's study is named after the job: its replicas, when it has them.
    const described = await fetch(`/v1/projects/-/jobs/${encodeURIComponent(name)}:describe`);
    if (described.ok) {
      const runs = ((await described.json()).trialRuns || []).filter(run => String(run.trialId) === String(id));
      replicaRows.replaceChildren(...runs.flatMap(run => (run.replicas || []).map(r => el("tr", {},
        el("td", {}, run.attempt || 0), el("td", {}, r.role), el("td", {}, r.index || 0), el("td", {}, r.state),
        el("td", {}, r.host || ""), el("td", {}, r.pid || ""), el("td", {}, (r.gpus || []).join(",")),
        el("td", {}, r.exitCode || (r.termSignal ? "signal " + r.termSignal : ""))))));
      if (!log.started) {
        log.started = true;
        const logs = listen(`/events/jobs/${encodeURIComponent(name)}/logs?trialId=${id}`, {
          log: line => { log.append(`[${line.role}-${line.index || 0}] ${line.text}\n`); },
          end: () => logs.close(),
          failure: () => logs.close(),
        });
      }
    }
  }
  await load();
  const reload = throttled(() => load().catch(showError), 500);
  listen("/events/studies/" + encodeURIComponent(name), {
    trial: trial => { if (String(trial.id) === String(id)) reload(); },
  });
}

// ---- #/job/J -----------------------------------------------------------------------

// Who is logged in ({user, role}), asked once: the pages offer what the
// user may do (the server decides regardless).
let whoAmI = null;
async function currentUser() {
  if (whoAmI === null) whoAmI = await api("/v1/whoami");
  return whoAmI;
}

// Whether `me` may change (cancel) `job`: an admin, or a developer who owns
// it or to whom it is shared as a developer (docs/security.md).
function mayChange(job, me) {
  if (me.role === "ADMIN") return true;
  if (me.role !== "DEVELOPER") return false;
  return job.owner === me.user ||
      (job.grants || []).some(grant => grant.user === me.user && grant.role === "DEVELOPER");
}

async function jobPage(id) {
  const me = await currentUser();
  const container = el("div");
  const cancel = el("button", { id: "cancel", onclick: async () => {
    cancel.disabled = true;
    try {
      await api(`/v1/projects/-/jobs/${encodeURIComponent(id)}:cancel`,
                { method: "POST", headers: { "X-Vernier-Request": "1" } });
    } catch (error) { showError(error); cancel.disabled = false; }
  } }, "Cancel job");
  main.append(el("h2", {}, "Job ", id), container);
  async function load() {
    const described = await api(`/v1/projects/-/jobs/${encodeURIComponent(id)}:describe`);
    const job = described.job, counts = described.trialCounts || {};
    const ended = ["SUCCEEDED", "FAILED", "CANCELLED", "CANCELLING"].includes(job.state);
    const replicas = [];
    for (const run of described.trialRuns || []) {
      for (const replica of run.replicas || []) replicas.push([run.trialId, replica]);
    }
    container.replaceChildren(
      el("p", {}, "state ", el("span", { id: "job-state", class: "state-" + job.state }, job.state), " ",
         ended || !mayChange(job, me) ? "" : cancel,
         job.waitingForStoreSince ? el("span", { id: "job-waiting", class: "error" },
                                       " waiting for the store since " + new Date(job.waitingForStoreSince).toLocaleString()) : "",
         job.waitingForSlurmSince ? el("span", { id: "job-waiting-slurm", class: "error" },
                                       " waiting for Slurm since " + new Date(job.waitingForSlurmSince).toLocaleString()) : "",
         job.waitingForGpus ? el("span", { id: "job-waiting-gpus" }, " waiting for GPUs: " + job.waitingForGpus) : ""),
      // The error keeps its lines (pip's, a trial's traceback).
      job.errorMessage ? el("pre", { class: "error", id: "job-error" }, job.errorMessage) : "",
      el("p", {}, job.studyName ? el("a", { href: "#/study/" + job.studyName }, "study " + job.studyName) : "",
         ` — trials: ${counts.succeeded || 0} succeeded, ${counts.active || 0} active, ${counts.failed || 0} failed, ` +
         `${counts.stoppedEarly || 0} stopped early`),
      el("h3", {}, "Replicas"),
      el("table", { id: "replicas" }, el("tr", {}, ...["trial", "role", "index", "state", "host", "pid", "GPUs"].map(h => el("th", {}, h))),
        ...replicas.map(([trial, r]) => el("tr", {}, el("td", {}, trial), el("td", {}, r.role), el("td", {}, r.index || 0),
          el("td", {}, r.state), el("td", {}, r.host || ""), el("td", {}, r.pid || ""), el("td", {}, (r.gpus || []).join(","))))),
      el("h3", {}, "Machine types"),
      el("table", {}, ...(job.replicaSpecs || []).map(r => el("tr", {}, el("td", {}, `${r.role} ${r.index || 0}`), el("td", {}, r.machineType || ""),
          el("td", {}, `${r.gpuCount || 0} GPU`)))),
      el("h3", {}, "trainingInput"),
      el("pre", { id: "training-input" }, "trainingInput:" + yaml(job.trainingInput || {}, "  ")),
      el("h3", {}, "Command"), el("pre", {}, (job.command || []).join(" ")));
  }
  await load();
  const reload = throttled(() => load().catch(showError), 300);
  listen("/events", { job: job => { if (job.jobId === id) reload(); } });
}

// ---- routing ---------------------------------------------------------------------------

async function route() {
  sources.forEach(source => source.close());
  sources = [];
  timers.forEach(clearTimeout);
  timers = [];
  main.replaceChildren();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "study" && parts[1]) await studyPage(parts[1]);
    else if (parts[0] === "trial" && parts[2]) await trialPage(parts[1], parts[2]);
    else if (parts[0] === "job" && parts[1]) await jobPage(parts[1]);
    else jobsPage();
  } catch (error) { showError(error); }
}

window.addEventListener("hashchange", route);
// A page left for another keeps no stream open (a browser allows 6
// connections to a server: streams of pages left behind would hold them);
// one shown again from the back/forward cache opens them again.
window.addEventListener("pagehide", () => {
  sources.forEach(source => source.close());
  sources = [];
});
window.addEventListener("pageshow", event => { if (event.persisted) route(); });
route();
