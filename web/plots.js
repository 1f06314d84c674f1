// The study page's plots: uPlot (canvas) for the history of one objective
// and the learning curves; SVG for the scatter plots (the slice, the Pareto
// front, the history of several objectives), parallel coordinates, the
// timeline and the importances.
"use strict";

const Plots = (() => {
  const WIDTH = 560, HEIGHT = 240;
  const COLORS = { SUCCEEDED: "#17803d", FAILED: "#b42318", INFEASIBLE: "#b42318",
                   STOPPED_EARLY: "#8a6d00", CANCELLED: "#6b7280", ACTIVE: "#1f5fbf", STOPPING: "#1f5fbf" };
  const SVG = "http://www.w3.org/2000/svg";

  function svgElement(name, attributes) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    return element;
  }

  function replace(container, chart) {
    if (container.chart) container.chart.destroy();
    container.chart = chart;
  }

  // Objective by trial id (the server's sample: succeeded trials, and
  // stopped-early ones in amber, whose value is from an earlier step), and
  // the best so far (the server's, over the succeeded trials: each trial
  // that improved it, drawn as steps up to the last trial).
  function history(container, points, best, lastId, stopped = []) {
    points = points.slice().sort((a, b) => a.id - b.id);
    stopped = stopped.slice().sort((a, b) => a.id - b.id);
    const steps = best.slice();
    if (steps.length > 0 && lastId > steps[steps.length - 1].id) {
      steps.push({ id: lastId, value: steps[steps.length - 1].value });
    }
    const data = uPlot.join([[points.map(p => p.id), points.map(p => p.value)],
                             [stopped.map(p => p.id), stopped.map(p => p.value)],
                             [steps.map(p => p.id), steps.map(p => p.value)]]);
    replace(container, new uPlot({
      width: WIDTH, height: HEIGHT, scales: { x: { time: false } },
      axes: [{ label: "trial" }, { label: "objective" }],
      series: [{ label: "trial" },
               { label: "succeeded", stroke: "#1f5fbf", paths: () => null,
                 points: { show: true, size: 4, fill: "#1f5fbf" } },
               { label: "stopped early", stroke: COLORS.STOPPED_EARLY, paths: () => null,
                 points: { show: true, size: 4, fill: COLORS.STOPPED_EARLY } },
               { label: "best so far", stroke: "#17803d", width: 2, spanGaps: true,
                 paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } }],
    }, data, container));
  }

  // Objective by step, one series per trial (already downsampled by the server).
  function curves(container, studyCurves) {
    const list = (studyCurves.curves || []).slice(-100);
    if (list.length === 0) {
      if (container.chart) container.chart.destroy();
      container.chart = null;
      container.textContent = "No measurements yet.";
      return;
    }
    container.textContent = "";
    const tables = list.map(c => [c.steps.map(Number), c.values]);
    const data = uPlot.join(tables);
    const series = [{ label: "step" }].concat(list.map(c => ({
      label: "trial " + c.trialId, stroke: COLORS[c.state] || "#888", width: 1, spanGaps: true,
      points: { show: false } })));
    replace(container, new uPlot({
      width: WIDTH, height: HEIGHT, scales: { x: { time: false } }, legend: { show: false },
      axes: [{ label: "step" }, { label: studyCurves.metricId || "objective" }], series,
    }, data, container));
    // uPlot's own legend would list every trial: a line per state instead.
    const states = new Map();
    for (const c of list) states.set(c.state, (states.get(c.state) || 0) + 1);
    container.querySelectorAll(".legend").forEach(old => old.remove());
    legend(container, [...states].map(([state, count]) =>
      [COLORS[state] || "#888", `${state} (${count} trial${count === 1 ? "" : "s"})`]));
  }

  // Round tick positions over [low, high]: about `count` of them at 1, 2 or
  // 5 times a power of ten; whole numbers only for an integer axis.
  function niceTicks(low, high, count, integer) {
    if (!(high > low)) return [low];
    let step = Math.pow(10, Math.floor(Math.log10((high - low) / count)));
    for (const factor of [1, 2, 5, 10]) {
      if ((high - low) / (step * factor) <= count) { step *= factor; break; }
    }
    if (integer) step = Math.max(1, Math.round(step));
    const ticks = [];
    for (let tick = Math.ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) {
      ticks.push(Number(tick.toPrecision(12)));
    }
    return ticks;
  }

  // Ticks of a log axis over [low, high] (both > 0): each power of ten, and
  // 2 and 5 times it when the range spans under two decades.
  function logTicks(low, high) {
    const ticks = [];
    const few = Math.log10(high / low) < 2;
    for (let e = Math.floor(Math.log10(low)); e <= Math.ceil(Math.log10(high)); e++) {
      for (const m of few ? [1, 2, 5] : [1]) {
        const tick = m * Math.pow(10, e);
        if (tick >= low * (1 - 1e-9) && tick <= high * (1 + 1e-9)) ticks.push(Number(tick.toPrecision(12)));
      }
    }
    return ticks.length > 0 ? ticks : [low, high];
  }

  function tickText(value) {
    if (typeof value === "string") return value;
    if (value !== 0 && (Math.abs(value) >= 1e5 || Math.abs(value) < 1e-3)) return value.toExponential(0);
    return String(Number(value.toPrecision(4)));
  }

  // One axis of a scatter plot: maps values to [0, 1] and names its ticks.
  // kind: {log, integer, categories (an array, for text values)}.
  function scale(values, kind) {
    if (kind.categories) {
      const categories = kind.categories;
      const at = value => (categories.indexOf(value) + 0.5) / categories.length;
      return { at, ticks: categories.map(c => [at(c), c]) };
    }
    const usable = values.filter(v => typeof v === "number" && Number.isFinite(v) && (!kind.log || v > 0));
    let low = Math.min(...usable), high = Math.max(...usable);
    if (usable.length === 0) { low = 0; high = 1; }
    if (kind.log) {
      const [a, b] = [Math.log10(low), Math.log10(high)];
      const pad = b > a ? (b - a) * 0.04 : 0.5;
      const at = value => (Math.log10(value) - (a - pad)) / (b - a + 2 * pad);
      return { at, ticks: logTicks(Math.pow(10, a - pad), Math.pow(10, b + pad)).map(t => [at(t), tickText(t)]) };
    }
    const pad = high > low ? (high - low) * 0.04 : (kind.integer ? 1 : Math.abs(low) * 0.1 || 1);
    const [a, b] = [low - pad, high + pad];
    const at = value => (value - a) / (b - a);
    return { at, ticks: niceTicks(a, b, 6, kind.integer).map(t => [at(t), tickText(t)]) };
  }

  // A scatter plot in SVG: every point is drawn (points that share an x
  // too), each a circle with its trial id; `line` (points, in order) is
  // joined over them. options: {points: [{x, y, id, color, title}], line,
  // lineLabel, xLabel, yLabel, x: {log, integer, categories}, legend: [[color, text]]}.
  function scatter(container, options) {
    if (container.chart) container.chart.destroy();
    container.chart = null;
    container.textContent = "";
    const points = options.points.filter(p => p.x !== undefined && p.y !== undefined &&
        (typeof p.x === "string" || Number.isFinite(p.x)) && Number.isFinite(p.y) && !(options.x.log && p.x <= 0));
    const line = (options.line || []).filter(p => Number.isFinite(p.y));
    const svg = svgElement("svg", { width: WIDTH, height: HEIGHT, class: "scatter" });
    const left = 56, right = WIDTH - 12, top = 10, bottom = HEIGHT - 40;
    const xs = scale(points.concat(line).map(p => p.x), options.x);
    const ys = scale(points.concat(line).map(p => p.y), {});
    const X = value => left + (right - left) * xs.at(value);
    const Y = value => bottom - (bottom - top) * ys.at(value);
    svg.appendChild(svgElement("line", { x1: left, x2: right, y1: bottom, y2: bottom, stroke: "#444" }));
    svg.appendChild(svgElement("line", { x1: left, x2: left, y1: top, y2: bottom, stroke: "#444" }));
    const text = (x, y, content, attributes = {}) => {
      const element = svgElement("text", Object.assign({ x, y, "font-size": 10 }, attributes));
      element.textContent = content;
      svg.appendChild(element);
      return element;
    };
    for (const [at, label] of xs.ticks) {
      if (at < -1e-9 || at > 1 + 1e-9) continue;
      const x = left + (right - left) * at;
      svg.appendChild(svgElement("line", { x1: x, x2: x, y1: bottom, y2: bottom + 4, stroke: "#444" }));
      text(x, bottom + 14, label, { "text-anchor": "middle", class: "x-tick" });
    }
    for (const [at, label] of ys.ticks) {
      if (at < -1e-9 || at > 1 + 1e-9) continue;
      const y = bottom - (bottom - top) * at;
      svg.appendChild(svgElement("line", { x1: left - 4, x2: left, y1: y, y2: y, stroke: "#444" }));
      text(left - 6, y + 3, label, { "text-anchor": "end", class: "y-tick" });
    }
    text((left + right) / 2, HEIGHT - 12, options.xLabel + (options.x.log ? " (log scale)" : ""),
         { "text-anchor": "middle", "font-size": 11, class: "x-label" });
    text(12, (top + bottom) / 2, options.yLabel,
         { "text-anchor": "middle", "font-size": 11, transform: `rotate(-90 12 ${(top + bottom) / 2})`, class: "y-label" });
    for (const p of points) {
      const circle = svgElement("circle", { cx: X(p.x), cy: Y(p.y), r: 3.5, fill: p.color || "#1f5fbf",
        "fill-opacity": 0.8, "data-trial-id": p.id });
      const title = svgElement("title", {});
      title.textContent = p.title || `trial ${p.id}: ${tickText(p.x)}, ${tickText(p.y)}`;
      circle.appendChild(title);
      svg.appendChild(circle);
    }
    if (line.length > 0) {
      svg.appendChild(svgElement("polyline", { points: line.map(p => `${X(p.x)},${Y(p.y)}`).join(" "),
        fill: "none", stroke: "#b42318", "stroke-width": 2, class: "line" }));
    }
    container.appendChild(svg);
    if (options.legend) legend(container, options.legend);
  }

  // A row of colour swatches with their meaning, under a plot.
  function legend(container, entries) {
    const box = document.createElement("div");
    box.className = "legend";
    for (const [color, label] of entries) {
      const item = document.createElement("span");
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = color;
      item.append(swatch, label);
      box.append(item);
    }
    container.appendChild(box);
  }

  // Objective against one parameter: every finished trial of the sample, on
  // the parameter's own scale (log for a log-scaled one, whole-number ticks
  // for an integer one, a column per category).
  function slice(container, points, parameter, kind, objectiveLabel) {
    const categories = kind.categorical
        ? [...new Set(points.map(p => p.params[parameter]).filter(v => typeof v === "string"))].sort() : null;
    scatter(container, {
      points: points.filter(p => p.params[parameter] !== undefined).map(p => ({
        x: p.params[parameter], y: p.value, id: p.id, color: COLORS[p.state] || "#1f5fbf" })),
      xLabel: parameter, yLabel: objectiveLabel || "objective",
      x: { log: kind.log, integer: kind.integer, categories },
    });
  }

  // One axis per parameter and one for the objective; a line per trial,
  // darker the better. Each axis is labelled with its name and its ticks
  // (the parameter's own scale: log, whole numbers, or its categories); a
  // trial in which a conditional parameter is inactive crosses that axis at
  // "inactive", below it, so its line is drawn whole. kinds: {name: {log,
  // integer}}.
  function parallel(container, points, parameters, maximize, kinds = {}, objectiveLabel = "objective") {
    container.textContent = "";
    const axes = parameters.concat(["objective"]);
    const svg = svgElement("svg", { width: WIDTH, height: HEIGHT, class: "parallel" });
    const left = 40, right = WIDTH - 40, top = 24, bottom = HEIGHT - 34, inactiveY = HEIGHT - 14;
    const x = i => axes.length === 1 ? left : left + (right - left) * i / (axes.length - 1);
    const valueOf = (p, axis) => axis === "objective" ? p.value : p.params[axis];
    const scales = axes.map(axis => {
      const values = points.map(p => valueOf(p, axis)).filter(v => v !== undefined);
      const categories = [...new Set(values.filter(v => typeof v === "string"))].sort();
      const kind = axis === "objective" ? {} : (kinds[axis] || {});
      return scale(values, categories.length > 0 ? { categories } : kind);
    });
    const y = (value, i) => {
      if (value === undefined || (typeof value === "number" && !Number.isFinite(value))) return inactiveY;
      return bottom - (bottom - top) * scales[i].at(value);
    };
    const objectiveValues = points.map(p => p.value);
    const best = Math.max(...objectiveValues), worst = Math.min(...objectiveValues);
    for (const p of points) {
      const coordinates = axes.map((axis, i) => `${x(i)},${y(valueOf(p, axis), i)}`);
      let quality = best > worst ? (p.value - worst) / (best - worst) : 1;
      if (!maximize) quality = 1 - quality;
      svg.appendChild(svgElement("polyline", {
        points: coordinates.join(" "), fill: "none", stroke: "#1f5fbf",
        "stroke-opacity": (0.15 + 0.85 * quality).toFixed(2), "data-trial-id": p.id }));
    }
    const anyInactive = points.some(p => parameters.some(axis => p.params[axis] === undefined));
    axes.forEach((axis, i) => {
      svg.appendChild(svgElement("line", { x1: x(i), x2: x(i), y1: top, y2: bottom, stroke: "#444" }));
      const label = svgElement("text", { x: x(i), y: 12, "text-anchor": "middle", "font-size": 11, class: "axis-name" });
      label.textContent = axis === "objective" ? objectiveLabel : axis + ((kinds[axis] || {}).log ? " (log)" : "");
      svg.appendChild(label);
      // At most 5 ticks an axis (the first, last and evenly between).
      const ticks = scales[i].ticks.filter(([at]) => at >= -1e-9 && at <= 1 + 1e-9);
      const shown = ticks.length <= 5 ? ticks
          : [0, 1, 2, 3, 4].map(k => ticks[Math.round(k * (ticks.length - 1) / 4)]);
      for (const [at, text] of shown) {
        const tick = svgElement("text", { x: x(i) + 3, y: bottom - (bottom - top) * at + 3,
                                          "font-size": 9, fill: "#555", class: "axis-tick" });
        tick.textContent = text;
        svg.appendChild(tick);
      }
      if (anyInactive && axis !== "objective" && points.some(p => p.params[axis] === undefined)) {
        const none = svgElement("text", { x: x(i) + 3, y: inactiveY + 3, "font-size": 9, fill: "#555", class: "axis-inactive" });
        none.textContent = "inactive";
        svg.appendChild(none);
      }
    });
    container.appendChild(svg);
  }

  // A bar per trial from its start to its end (now, while it runs): the
  // latest trials, {id, state, start, end} in milliseconds and the GPUs
  // the trial held (gpus, shown after its label and in the bar's title).
  function timeline(container, trials) {
    container.textContent = "";
    const rows = trials.filter(t => t.start).sort((a, b) => a.id - b.id);
    const row = Math.max(2, Math.min(14, Math.floor((HEIGHT - 30) / Math.max(1, rows.length))));
    const height = Math.max(HEIGHT, row * rows.length + 30);
    const svg = svgElement("svg", { width: WIDTH, height, class: "timeline" });
    const now = Date.now();
    const starts = rows.map(t => t.start);
    const ends = rows.map(t => t.end || now);
    const first = Math.min(...starts), last = Math.max(...ends, first + 1);
    const gpus = rows.map(t => (t.gpus || []).join(","));
    const left = gpus.some(Boolean) ? 130 : 60, right = WIDTH - 10;
    const x = time => left + (right - left) * (time - first) / (last - first);
    rows.forEach((t, i) => {
      if (row >= 10 || i % Math.ceil(10 / row) === 0) {
        const label = svgElement("text", { x: 4, y: 14 + row * i + Math.min(row, 10), "font-size": 10 });
        label.textContent = "trial " + t.id + (gpus[i] ? " · GPU " + gpus[i] : "");
        svg.appendChild(label);
      }
      const bar = svgElement("rect", {
        x: x(starts[i]), y: 14 + row * i, width: Math.max(2, x(ends[i]) - x(starts[i])),
        height: Math.max(1, row - 2), fill: COLORS[t.state] || "#888", "data-trial-id": t.id,
        "data-gpus": gpus[i] });
      const title = svgElement("title", {});
      title.textContent = `trial ${t.id} ${t.state}` + (gpus[i] ? `, GPU ${gpus[i]}` : "");
      bar.appendChild(title);
      svg.appendChild(bar);
    });
    const span = svgElement("text", { x: right, y: height - 4, "text-anchor": "end", "font-size": 11 });
    span.textContent = ((last - first) / 1000).toFixed(1) + " s";
    svg.appendChild(span);
    container.appendChild(svg);
  }

  // Two metrics against each other: the finished trials of the server's
  // sample, and the Pareto front (as ListOptimalTrials ranks it, frontSize
  // trials) joined by a line. points and front: [{x, y, id}].
  function pareto(container, points, front, xMetric, yMetric, frontSize) {
    container.dataset.frontSize = frontSize;
    const onFront = new Set(front.map(p => String(p.id)));
    scatter(container, {
      points: points.map(p => Object.assign({}, p, { color: onFront.has(String(p.id)) ? "#b42318" : "#1f5fbf" })),
      line: front.slice().sort((a, b) => a.x - b.x), xLabel: xMetric, yLabel: yMetric, x: {},
      legend: [["#1f5fbf", "trial"], ["#b42318", `Pareto front (${frontSize})`]],
    });
  }

  // With several objectives, one objective's value by trial id: the
  // sample's finished trials, the Pareto front's in red. There is no best
  // so far: the best of one objective alone is not the study's best.
  function objectiveHistory(container, points, metric, frontIds) {
    const onFront = new Set(frontIds.map(String));
    scatter(container, {
      points: points.map(p => ({ x: p.id, y: p.value, id: p.id,
        color: onFront.has(String(p.id)) ? "#b42318" : COLORS[p.state] || "#1f5fbf" })),
      xLabel: "trial", yLabel: metric, x: { integer: true },
      legend: [["#17803d", "succeeded"], ["#8a6d00", "stopped early"], ["#b42318", "on the Pareto front"]],
    });
  }

  // A bar per parameter, the most important first: the server's
  // first-order variance shares, as they are (neither clamped nor scaled:
  // near 0 or below is no effect told apart from noise). info: {trials,
  // minTrials, stoppedLeftOut}; below minTrials the bars are grey and a
  // note says there are too few trials to read them.
  function importance(container, names, values, info) {
    container.textContent = "";
    const tooFew = info.trials < info.minTrials;
    const bars = names.map((name, i) => ({ name, value: Number(values[i] || 0) }))
      .sort((a, b) => b.value - a.value);
    const row = Math.max(8, Math.min(20, Math.floor((HEIGHT - 40) / Math.max(1, bars.length))));
    const height = Math.max(HEIGHT - 30, row * bars.length + 10);
    const svg = svgElement("svg", { width: WIDTH, height, class: "importance" });
    const left = 120, right = WIDTH - 60;
    bars.forEach((bar, i) => {
      const y = 5 + row * i;
      const label = svgElement("text", { x: left - 6, y: y + row * 0.75, "text-anchor": "end", "font-size": 11 });
      label.textContent = bar.name;
      svg.appendChild(label);
      const width = (right - left) * Math.min(1, Math.max(0, bar.value));
      svg.appendChild(svgElement("rect", { x: left, y: y + 1, height: row - 2, width: Math.max(1, width),
        fill: tooFew ? "#b8bec8" : "#1f5fbf", "data-parameter": bar.name, "data-share": bar.value }));
      const value = svgElement("text", { x: left + Math.max(1, width) + 4, y: y + row * 0.75, "font-size": 10,
                                         class: "share" });
      value.textContent = bar.value.toFixed(2);
      svg.appendChild(value);
    });
    container.appendChild(svg);
    const note = document.createElement("p");
    note.className = "note" + (tooFew ? " too-few" : "");
    note.textContent = (tooFew
        ? `Too few trials to tell: ${info.trials} succeeded, and the shares mean little below ${info.minTrials}. `
        : `From ${info.trials} succeeded trials. `) +
        "Each bar is the share of the objective's variance the parameter explains alone, less chance; " +
        "near 0 or below: no effect told apart from noise." +
        (info.stoppedLeftOut > 0 ? ` ${info.stoppedLeftOut} stopped-early trials are left out ` +
            "(their values are from earlier steps)." : "");
    container.appendChild(note);
  }

  return { history, objectiveHistory, curves, slice, parallel, timeline, pareto, importance, COLORS };
})();
