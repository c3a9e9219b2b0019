// End-to-end test of the playground in headless Chromium: type a model and see its plot, see an
// error located by line:column with the command line's exact text, run a teaching example and
// its structural view; a screenshot lands in web/test-results/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { WEB, nativeMinimo, openPage, requireSetup, run, serve, typeModel } from "./harness.mjs";

let server;
let browser;
let page;
let problems;

before(async () => {
  requireSetup();
  server = await serve();
  ({ browser, page, problems } = await openPage(server.url));
});

after(async () => {
  await browser?.close();
  server?.stop();
});

/// A screenshot of the whole page into web/test-results/.
async function shot(name) {
  mkdirSync(path.join(WEB, "test-results"), { recursive: true });
  await page.screenshot({ path: path.join(WEB, "test-results", name), fullPage: true });
}

/// What `minimo simulate model.mo` prints on standard error for this text, and its exit code.
function nativeSimulate(text) {
  const dir = mkdtempSync(path.join(tmpdir(), "minimo-playground-"));
  writeFileSync(path.join(dir, "model.mo"), text);
  const r = spawnSync(nativeMinimo(), ["simulate", "model.mo", "-o", "out.csv"], { cwd: dir, encoding: "utf8" });
  return { status: r.status, stderr: r.stderr };
}

const DECAY = `model Decay
  parameter Real k = 2;
  Real x(start = 1, fixed = true);
equation
  der(x) = -k*x;
  annotation(experiment(StopTime = 1));
end Decay;
`;

test("a typed model is simulated and its variable plotted", async () => {
  await typeModel(page, DECAY);
  assert.equal(await run(page, "#simulate"), "done", await page.textContent("#diagnostics"));
  assert.equal(await page.getAttribute("#plot", "data-series"), "x");
  // The trajectory the plot draws is the exact solution exp(-k t).
  const [t, x] = await page.evaluate(() => [playground.values("time"), playground.values("x")]);
  assert.equal(t.length, 501);
  assert.ok(Math.abs(t.at(-1) - 1) < 1e-12);
  for (const i of [0, 100, 250, 500]) {
    assert.ok(Math.abs(x[i] - Math.exp(-2 * t[i])) < 1e-4, `x(${t[i]}) = ${x[i]}`);
  }
  // The canvas holds a curve in the series' colour (not a blank chart).
  const coloured = await page.evaluate(() => {
    const c = document.querySelector("#plot canvas");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 2] > 150 && d[i] < 90 && d[i + 3] > 0) n++;
    return n;
  });
  assert.ok(coloured > 200, `only ${coloured} pixels of the curve's colour`);
  assert.deepEqual(problems, []);
});

const BROKEN = `model Broken
  Real x(start = 1, fixed = true);
equation
  der(x) = -k*x;
end Broken;
`;

test("an error is shown at its line:column with the command line's text", async () => {
  await typeModel(page, BROKEN);
  assert.equal(await run(page, "#simulate"), "error");
  const rendered = await page.textContent("#diagnostics");
  assert.match(rendered, /^model\.mo:4:13: error: /);
  const first = page.locator("#diag-list li").first();
  assert.equal(await first.getAttribute("data-line"), "4");
  assert.equal(await first.getAttribute("data-column"), "13");
  assert.equal(await page.locator("#gutter .bad").textContent(), "4");
  const native = nativeSimulate(BROKEN);
  assert.equal(native.status, 1);
  assert.equal(rendered.trim(), native.stderr.trim());
  // The plot of the last good run (the previous test's) stays, and can still be re-drawn.
  assert.equal(await page.getAttribute("#plot", "data-series"), "x");
  assert.equal((await page.evaluate(() => playground.values("x"))).length, 501);
  assert.match(await page.textContent("#sim-info"), /last run that succeeded/);
  // Clicking the diagnostic selects the offending name in the editor.
  await first.click();
  const selected = await page.evaluate(() => {
    const s = document.getElementById("source");
    return s.value.slice(s.selectionStart, s.selectionEnd);
  });
  assert.equal(selected, "k");
  await shot("playground-error.png");
});

test("a syntax error is located like on the command line", async () => {
  const text = "model Semi\n  Real x\nequation\n  x = 1;\nend Semi;\n";
  await typeModel(page, text);
  assert.equal(await run(page, "#check"), "error");
  const rendered = await page.textContent("#diagnostics");
  assert.match(rendered, /^model\.mo:2:9: error: /);
  assert.equal(rendered.trim(), nativeSimulate(text).stderr.trim());
});

test("the pendulum example simulates and its structure shows the index reduction", async () => {
  await page.selectOption("#example", "pendulum");
  assert.match(await page.inputValue("#source"), /model Pendulum/);
  assert.equal(await run(page, "#simulate"), "done", await page.textContent("#diagnostics"));
  assert.equal(await page.getAttribute("#plot", "data-series"), "x,y");
  const [x, y] = await page.evaluate(() => [playground.values("x"), playground.values("y")]);
  // The rod keeps its length L = 1 along the whole run.
  for (let i = 0; i < x.length; i += 300) assert.ok(Math.abs(Math.hypot(x[i], y[i]) - 1) < 1e-5);
  await page.click('#tabs button[data-tab="structure"]');
  await page.waitForFunction(() => document.body.dataset.state === "done");
  const summary = await page.textContent("#structure-summary");
  assert.match(summary, /Index reduction/);
  assert.match(summary, /equations added by differentiation/);
  assert.match(await page.textContent("#structure-text"), /^model Pendulum/);
  // The report of `minimo structure --html` in its frame: the incidence matrices and the
  // Pantelides steps, as on the command line.
  const frame = page.frameLocator("#structure-html");
  await frame.locator("#pantelides").waitFor();
  assert.match(await frame.locator("body").textContent(), /Incidence matrix in BLT order/);
  await shot("playground-structure.png");
  await page.click('#tabs button[data-tab="plot"]');
  await shot("playground.png");
  assert.deepEqual(problems, []);
});

test("every teaching example simulates", async () => {
  const ids = await page.$$eval("#example option", (os) => os.map((o) => o.value));
  assert.ok(ids.includes("rc") && ids.includes("omni_wheel"), ids.join(","));
  for (const id of ids) {
    await page.selectOption("#example", id);
    assert.equal(await run(page, "#simulate"), "done", `${id}: ${await page.textContent("#diagnostics")}`);
    const series = await page.getAttribute("#plot", "data-series");
    assert.ok(series, `${id}: nothing plotted`);
  }
  assert.deepEqual(problems, []);
});
