// The study page's plots: uPlot (canvas) for the history, the learning
// curves and the slice plot; SVG for parallel coordinates and the timeline.
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

  // Objective by trial id (the server's sample), and the best so far (the
  // server's: each trial that improved it, drawn as steps up to the last
  // trial).
  function history(container, points, best, lastId) {
    points = points.slice().sort((a, b) => a.id - b.id);
    const steps = best.slice();
    if (steps.length > 0 && lastId > steps[steps.length - 1].id) {
      steps.push({ id: lastId, value: steps[steps.length - 1].value });
    }
    const data = uPlot.join([[points.map(p => p.id), points.map(p => p.value)],
                             [steps.map(p => p.id), steps.map(p => p.value)]]);
    replace(container, new uPlot({
      width: WIDTH, height: HEIGHT, scales: { x: { time: false } },
      axes: [{ label: "trial" }, { label: "objective" }],
      series: [{ label: "trial" },
               { label: "objective", stroke: "#1f5fbf", paths: () => null,
                 points: { show: true, size: 4, fill: "#1f5fbf" } },
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
  }

  // Objective against one parameter.
  function slice(container, points, parameter) {
    points = points.filter(p => typeof p.params[parameter] === "number")
                   .sort((a, b) => a.params[parameter] - b.params[parameter]);
    replace(container, new uPlot({
      width: WIDTH, height: HEIGHT, scales: { x: { time: false } },
      axes: [{ label: parameter }, { label: "objective" }],
      series: [{ label: parameter },
               { label: "objective", stroke: "#1f5fbf", paths: () => null,
                 points: { show: true, size: 6, fill: "#1f5fbf" } }],
    }, [points.map(p => p.params[parameter]), points.map(p => p.value)], container));
  }

  // One axis per parameter and one for the objective; a line per trial,
  // darker the better.
  function parallel(container, points, parameters, maximize) {
    container.textContent = "";
    const axes = parameters.concat(["objective"]);
    const svg = svgElement("svg", { width: WIDTH, height: HEIGHT, class: "parallel" });
    const left = 40, right = WIDTH - 40, top = 20, bottom = HEIGHT - 20;
    const x = i => axes.length === 1 ? left : left + (right - left) * i / (axes.length - 1);
    const valueOf = (p, axis) => axis === "objective" ? p.value : p.params[axis];
    const ranges = axes.map(axis => {
      const categories = [...new Set(points.map(p => valueOf(p, axis))
                                         .filter(v => typeof v === "string"))].sort();
      const numbers = points.map(p => valueOf(p, axis)).filter(v => typeof v === "number");
      return { categories, min: Math.min(...numbers), max: Math.max(...numbers) };
    });
    const y = (value, range) => {
      let fraction = 0.5;
      if (typeof value === "string") {
        fraction = range.categories.length > 1
            ? range.categories.indexOf(value) / (range.categories.length - 1) : 0.5;
      } else if (range.max > range.min) {
        fraction = (value - range.min) / (range.max - range.min);
      }
      return bottom - (bottom - top) * fraction;
    };
    const objective = ranges[ranges.length - 1];
    for (const p of points) {
      const coordinates = axes.map((axis, i) => `${x(i)},${y(valueOf(p, axis), ranges[i])}`);
      let quality = objective.max > objective.min
          ? (p.value - objective.min) / (objective.max - objective.min) : 1;
      if (!maximize) quality = 1 - quality;
      svg.appendChild(svgElement("polyline", {
        points: coordinates.join(" "), fill: "none", stroke: "#1f5fbf",
        "stroke-opacity": (0.15 + 0.85 * quality).toFixed(2), "data-trial-id": p.id }));
    }
    axes.forEach((axis, i) => {
      svg.appendChild(svgElement("line", { x1: x(i), x2: x(i), y1: top, y2: bottom, stroke: "#444" }));
      const label = svgElement("text", { x: x(i), y: 12, "text-anchor": "middle", "font-size": 11 });
      label.textContent = axis;
      svg.appendChild(label);
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
  // trials) joined by a line.
  function pareto(container, points, front, xMetric, yMetric, frontSize) {
    const table = list => {
      const sorted = list.slice().sort((a, b) => a[0] - b[0]);
      return [sorted.map(p => p[0]), sorted.map(p => p[1])];
    };
    const data = uPlot.join([table(points), table(front)]);
    container.dataset.frontSize = frontSize;
    replace(container, new uPlot({
      width: WIDTH, height: HEIGHT, scales: { x: { time: false } },
      axes: [{ label: xMetric }, { label: yMetric }],
      series: [{ label: xMetric },
               { label: "trial", stroke: "#1f5fbf", paths: () => null,
                 points: { show: true, size: 6, fill: "#1f5fbf" } },
               { label: "Pareto front", stroke: "#b42318", width: 2, spanGaps: true,
                 points: { show: true, size: 7, fill: "#b42318" } }],
    }, data, container));
  }

  // A bar per parameter, the most important first (the server's
  // first-order variance shares).
  function importance(container, names, values) {
    container.textContent = "";
    const bars = names.map((name, i) => ({ name, value: Number(values[i] || 0) }))
      .sort((a, b) => b.value - a.value);
    const row = Math.max(8, Math.min(20, Math.floor((HEIGHT - 10) / Math.max(1, bars.length))));
    const height = Math.max(HEIGHT, row * bars.length + 10);
    const svg = svgElement("svg", { width: WIDTH, height, class: "importance" });
    const left = 120, right = WIDTH - 50;
    bars.forEach((bar, i) => {
      const y = 5 + row * i;
      const label = svgElement("text", { x: left - 6, y: y + row * 0.75, "text-anchor": "end", "font-size": 11 });
      label.textContent = bar.name;
      svg.appendChild(label);
      svg.appendChild(svgElement("rect", { x: left, y: y + 1, height: row - 2,
        width: Math.max(1, (right - left) * bar.value), fill: "#1f5fbf" }));
      const value = svgElement("text", { x: left + Math.max(1, (right - left) * bar.value) + 4,
                                         y: y + row * 0.75, "font-size": 10 });
      value.textContent = bar.value.toFixed(2);
      svg.appendChild(value);
    });
    container.appendChild(svg);
  }

  return { history, curves, slice, parallel, timeline, pareto, importance };
})();
