// The pendulum (examples/pendulum.mo) simulated in the page and natively, alternately, several
// times each; prints the medians. Run after web/build.sh and cargo build --release:
//   node web/bench.mjs [runs]
// The page's figure is the whole `simulate` call (flatten, analyse, simulate, answer); the
// native one is the sum of the phases `minimo simulate --stats` prints (writing excluded).
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, nativeMinimo, openPage, requireSetup, run, serve } from "./tests/harness.mjs";

const runs = Number(process.argv[2] ?? 7);
requireSetup();
const bin = nativeMinimo();
const out = path.join(mkdtempSync(path.join(tmpdir(), "minimo-bench-")), "pendulum.csv");
const server = await serve();
const { browser, page } = await openPage(server.url);
await page.selectOption("#example", "pendulum");

function native() {
  const r = spawnSync(bin, ["simulate", path.join(ROOT, "examples/pendulum.mo"), "-o", out, "--stats"], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`native minimo failed: ${r.stderr}`);
  const ms = (phase) => Number(new RegExp(`${phase}\\s+([0-9.]+) ms`).exec(r.stderr)[1]);
  const phases = ["load \\+ flatten", "structural analysis", "compile", "initialization", "integration"];
  return { total: phases.map(ms).reduce((a, b) => a + b, 0), integrate: ms("integration") };
}

async function inPage() {
  const state = await run(page, "#simulate");
  if (state !== "done") throw new Error(`the page failed: ${await page.textContent("#diagnostics")}`);
  return page.evaluate(() => ({
    total: Number(document.body.dataset.simulateMs),
    integrate: Number(document.body.dataset.integrateMs),
  }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p = [];
const n = [];
// The first call in a fresh page runs V8's baseline code of the module; later calls its
// optimised code (tiered up in the background).
const cold = await inPage();
native();
for (let i = 0; i < runs; i++) {
  p.push(await inPage());
  n.push(native());
}
await browser.close();
server.stop();
const row = (what, key) => {
  const a = median(p.map((x) => x[key]));
  const b = median(n.map((x) => x[key]));
  console.log(`${what.padEnd(24)} page ${a.toFixed(1).padStart(8)} ms   native ${b.toFixed(1).padStart(8)} ms   ratio ${(a / b).toFixed(2)}`);
};
console.log(`pendulum, median of ${runs} runs (native: ${path.relative(ROOT, bin)}, one process a run)`);
row("flatten to results", "total");
row("integration alone", "integrate");
console.log(`first call in a fresh page: ${cold.total.toFixed(1)} ms (integration ${cold.integrate.toFixed(1)} ms)`);
