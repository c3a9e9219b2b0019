// The playground page: an editor, minimo's diagnostics, the structural views and plots.
// minimo itself runs in WebAssembly (pkg/, built by web/build.sh); nothing is fetched from
// anywhere but this page's own folder.
import init, * as minimo from "./pkg/minimo_playground.js";

const $ = (id) => document.getElementById(id);
const source = $("source");
const gutter = $("gutter");
const state = {
  examples: [],
  plotWanted: [], // variables to plot after the next simulation
  columns: [],
  chosen: new Set(),
  chart: null,
  structureFor: null, // text the structure tab shows
};

function setStatus(text, kind) {
  $("status").textContent = text;
  document.body.dataset.state = kind;
}

// ---- editor: a textarea with line numbers and marked lines --------------------------------

function drawGutter(marks = new Map()) {
  const n = source.value.split("\n").length;
  const lines = [];
  for (let i = 1; i <= n; i++) {
    const m = marks.get(i);
    lines.push(m ? `<span class="${m.cls}" title="${escapeHtml(m.title)}">${i}</span>` : String(i));
  }
  gutter.innerHTML = lines.join("\n") + "\n";
  gutter.scrollTop = source.scrollTop;
}

function escapeHtml(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// minimo gives 1-based lines and columns counted in characters.
function offsetOf(line, column) {
  const lines = source.value.split("\n");
  let off = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) off += lines[i].length + 1;
  return off + Math.max(0, column - 1);
}

function goTo(d) {
  if (!d.line) return;
  const start = offsetOf(d.line, d.column);
  const end = d.end_line ? Math.max(start + 1, offsetOf(d.end_line, d.end_column)) : start + 1;
  source.focus();
  source.setSelectionRange(start, end);
  const lineHeight = parseFloat(getComputedStyle(source).lineHeight) || 20;
  source.scrollTop = Math.max(0, (d.line - 5) * lineHeight);
}

// ---- diagnostics -------------------------------------------------------------------------

function showDiagnostics(ans) {
  const pre = $("diagnostics");
  const list = $("diag-list");
  list.innerHTML = "";
  const marks = new Map();
  for (const d of ans.diagnostics) {
    const li = document.createElement("li");
    li.className = d.severity;
    const where = d.line ? `${d.line}:${d.column}` : "";
    li.textContent = `${where ? where + " " : ""}${d.severity}: ${d.message}`;
    li.dataset.line = d.line ?? "";
    li.dataset.column = d.column ?? "";
    li.addEventListener("click", () => goTo(d));
    list.appendChild(li);
    if (d.line && (!marks.has(d.line) || d.severity === "error")) {
      marks.set(d.line, { cls: d.severity === "error" ? "bad" : "warn", title: d.message });
    }
  }
  pre.textContent = ans.rendered || "No problems reported.";
  pre.classList.toggle("empty", !ans.rendered);
  drawGutter(marks);
}

// ---- requests to minimo --------------------------------------------------------------------

function modelName() {
  return $("model").value.trim();
}

function request() {
  const r = { solver: $("solver").value };
  const m = modelName();
  if (m) r.model = m;
  const stop = $("stop-time").value.trim();
  if (stop) {
    const x = Number(stop);
    if (!Number.isFinite(x)) return { error: `the stop time \`${stop}\` is not a number` };
    r.stop_time = x;
  }
  return r;
}

// Lets the browser paint the "running" status before a long synchronous call.
const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

async function runStructure() {
  setStatus("analysing…", "busy");
  await nextFrame();
  const t0 = performance.now();
  const ans = JSON.parse(minimo.structure(source.value, modelName()));
  const ms = performance.now() - t0;
  showDiagnostics(ans);
  showStructure(ans);
  state.structureFor = source.value + "\u0000" + modelName();
  if (ans.ok) setStatus(`analysed in ${ms.toFixed(1)} ms`, "done");
  else setStatus("the model has errors", "error");
  return ans;
}

async function runSimulation() {
  const req = request();
  if (req.error) {
    setStatus(req.error, "error");
    return;
  }
  setStatus("simulating…", "busy");
  await nextFrame();
  const t0 = performance.now();
  const ans = JSON.parse(minimo.simulate(source.value, JSON.stringify(req)));
  const ms = performance.now() - t0;
  document.body.dataset.simulateMs = ms.toFixed(3);
  showDiagnostics(ans);
  if (!ans.ok) {
    setStatus("the model has errors", "error");
    if (state.chart) $("sim-info").textContent = "The plot shows the last run that succeeded.";
    return ans;
  }
  document.body.dataset.integrateMs = ans.integrate_ms.toFixed(3);
  state.columns = ans.columns;
  const names = new Set(ans.columns.map((c) => c.name));
  let wanted = state.plotWanted.filter((n) => names.has(n));
  if (!wanted.length) wanted = [...state.chosen].filter((n) => names.has(n));
  if (!wanted.length) wanted = ans.columns.filter((c) => c.kind === "state").slice(0, 4).map((c) => c.name);
  if (!wanted.length) wanted = ans.columns.slice(0, 1).map((c) => c.name);
  state.plotWanted = [];
  state.chosen = new Set(wanted);
  drawChooser();
  plot();
  $("sim-info").textContent =
    `${ans.model}: ${ans.states} states, ${ans.steps} steps, ${ans.events} events, ` +
    `${ans.points} output points; integration ${ans.integrate_ms.toFixed(1)} ms` +
    (ans.messages.length ? "\n" + ans.messages.map((m) => "note: " + m).join("\n") : "");
  setStatus(`simulated in ${ms.toFixed(1)} ms`, "done");
  if (!$("tab-structure").hidden) await runStructure();
  return ans;
}

// ---- plot ----------------------------------------------------------------------------------

function drawChooser() {
  const filter = $("var-filter").value.trim().toLowerCase();
  const box = $("var-list");
  box.innerHTML = "";
  const shown = state.columns.filter((c) => !filter || c.name.toLowerCase().includes(filter));
  // Chosen variables first, then at most 300 others: large models have thousands.
  shown.sort((a, b) => state.chosen.has(b.name) - state.chosen.has(a.name));
  for (const c of shown.slice(0, 300)) {
    const label = document.createElement("label");
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.value = c.name;
    cb.checked = state.chosen.has(c.name);
    cb.addEventListener("change", () => {
      if (cb.checked) state.chosen.add(c.name);
      else state.chosen.delete(c.name);
      plot();
    });
    label.append(cb, ` ${c.name} `);
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = c.unit ? `${c.kind}, ${c.unit}` : c.kind;
    label.append(kind);
    box.appendChild(label);
  }
  if (shown.length > 300) {
    const more = document.createElement("div");
    more.textContent = `… ${shown.length - 300} more: filter to find them`;
    box.appendChild(more);
  }
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

function plot() {
  const area = $("plot");
  if (state.chart) {
    state.chart.destroy();
    state.chart = null;
  }
  area.innerHTML = "";
  const names = [...state.chosen];
  area.dataset.series = names.join(",");
  if (!names.length) return;
  const data = [minimo.values("time"), ...names.map((n) => minimo.values(n))];
  const width = Math.max(300, $("plot-area").clientWidth - 10);
  state.chart = new uPlot(
    {
      width,
      height: 360,
      scales: { x: { time: false } },
      axes: [{ label: "time (s)" }, {}],
      series: [{ label: "time" }, ...names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 1.5 }))],
    },
    data,
    area,
  );
}

// ---- structure -----------------------------------------------------------------------------

function table(rows, head) {
  const h = head ? `<tr>${head.map((x) => `<th>${x}</th>`).join("")}</tr>` : "";
  return `<table>${h}${rows.map((r) => `<tr>${r.map((x) => `<td>${x}</td>`).join("")}</tr>`).join("")}</table>`;
}
const code = (xs) => xs.map((x) => `<code>${escapeHtml(x)}</code>`).join(", ");

function showStructure(ans) {
  const summary = $("structure-summary");
  const frame = $("structure-html");
  // A richer HTML view from the library, when the module provides one, takes the frame.
  frame.hidden = !ans.html;
  if (ans.html) frame.srcdoc = ans.html;
  $("structure-text").textContent = ans.text ?? "";
  if (!ans.ok || !ans.report) {
    summary.innerHTML = "<p>No analysis: see the diagnostics.</p>";
    return;
  }
  const r = ans.report;
  const s = r.sizes;
  let html = table([
    ["variables / unknowns / equations as flattened", `${s.variables} / ${s.unknowns} / ${s.equations}`],
    ["eliminated as aliases", s.eliminated],
    ["equations added by differentiation", s.differentiated],
    ["states", `${s.states}: ${code(r.states)}`],
    ["dummy derivatives", `${s.dummy_derivatives}${r.dummy_derivatives.length ? ": " + code(r.dummy_derivatives) : ""}`],
    ["blocks (largest)", `${s.blocks} (${s.largest_block})`],
  ]);
  if (r.differentiations.length) {
    html += "<h3>Index reduction (Pantelides)</h3>" +
      table(r.differentiations.map((d) => [`<code>${escapeHtml(d.equation)}</code>`, `${d.times}×`]), ["equation", "differentiated"]);
  }
  const blocks = r.blocks.slice(0, 200).map((b, i) => [
    i + 1, b.kind, code(b.variables), b.equations.map((e) => `<code>${escapeHtml(e)}</code>`).join("<br>"),
  ]);
  html += "<h3>Sorted blocks (evaluation order)</h3>" + table(blocks, ["#", "kind", "unknowns", "equations"]);
  if (r.blocks.length > 200) html += `<p>… ${r.blocks.length - 200} more blocks in the text view below.</p>`;
  summary.innerHTML = html;
}

// ---- wiring --------------------------------------------------------------------------------

function loadExample(id) {
  const ex = state.examples.find((e) => e.id === id);
  if (!ex) return;
  source.value = ex.text;
  $("lesson").textContent = ex.lesson;
  $("model").value = "";
  $("stop-time").value = "";
  state.plotWanted = [...ex.plot];
  state.chosen = new Set();
  showDiagnostics({ diagnostics: [], rendered: "" });
}

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  $("tab-plot").hidden = name !== "plot";
  $("tab-structure").hidden = name !== "structure";
  if (name === "structure" && state.structureFor !== source.value + "\u0000" + modelName()) runStructure();
  if (name === "plot" && state.chart) plot();
}

async function main() {
  try {
    await init();
  } catch (e) {
    setStatus(`cannot load minimo's WebAssembly module: ${e}`, "error");
    return;
  }
  state.examples = JSON.parse(minimo.examples());
  // The browser compiles the module's functions on their first call, and optimises them once
  // they are hot: one run of the simplest example at load makes the student's first run fast.
  setStatus("loading minimo… (a first run)", "loading");
  await nextFrame();
  minimo.simulate(state.examples[0].text, "{}");
  const sel = $("example");
  for (const ex of state.examples) sel.add(new Option(ex.title, ex.id));
  sel.addEventListener("change", () => loadExample(sel.value));
  loadExample(state.examples[0].id);
  source.addEventListener("input", () => drawGutter());
  source.addEventListener("scroll", () => (gutter.scrollTop = source.scrollTop));
  source.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (e.shiftKey) runStructure();
      else runSimulation();
    } else if (e.key === "Tab") {
      e.preventDefault();
      const { selectionStart: a, selectionEnd: b } = source;
      source.setRangeText("  ", a, b, "end");
      drawGutter();
    }
  });
  $("check").addEventListener("click", runStructure);
  $("simulate").addEventListener("click", runSimulation);
  $("var-filter").addEventListener("input", drawChooser);
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  // For the console and the end-to-end test: the trajectories of the last simulation.
  window.playground = { values: (name) => Array.from(minimo.values(name)) };
  setStatus(`minimo ${minimo.version()} ready`, "ready");
}

main();
