// Shared by the end-to-end test and the benchmark: serves web/dist with the documented command
// (python3 -m http.server), opens it in Debian's headless Chromium, finds the native minimo.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT = path.resolve(WEB, "..");
export const DIST = path.join(WEB, "dist");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

/// The flags of a headless run that reaches nothing but the page's own server.
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/// Fails with the reason when the page is not built or Chromium is missing: never a silent pass.
export function requireSetup() {
  if (!existsSync(path.join(DIST, "index.html")) || !existsSync(path.join(DIST, "pkg"))) {
    throw new Error(`the playground is not built (no ${DIST}/index.html or pkg/): run web/build.sh`);
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium, or ` +
        `web/install-tools.sh) or set CHROMIUM to its path`,
    );
  }
}

/// The native minimo to compare with: MINIMO_BIN, else the newest of target/{release,debug}.
export function nativeMinimo() {
  if (process.env.MINIMO_BIN) return process.env.MINIMO_BIN;
  const found = ["release", "debug"]
    .map((p) => path.join(ROOT, "target", p, "minimo"))
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!found.length) {
    throw new Error("no native minimo in target/release or target/debug: run cargo build (or set MINIMO_BIN)");
  }
  return found[0];
}

/// Starts `python3 -m http.server -d web/dist` on a free loopback port; resolves to its URL.
export function serve() {
  return new Promise((resolve, reject) => {
    const server = spawn("python3", ["-u", "-m", "http.server", "--bind", "127.0.0.1", "-d", DIST, "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const timer = setTimeout(() => {
      server.kill();
      reject(new Error(`the static server did not start within 20 s: ${out}`));
    }, 20000);
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}/`, stop: () => server.kill() });
      }
    });
    server.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the static server exited (${code}): ${out}`));
    });
  });
}

/// Opens the page; every request must go to the page's own server (no network at run time).
export async function openPage(url) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  await page.route("**/*", (route) => {
    const u = new URL(route.request().url());
    if (u.origin === new URL(url).origin) return route.continue();
    problems.push(`request outside the page's server: ${u.href}`);
    return route.abort();
  });
  await page.goto(url);
  await page.waitForSelector('body[data-state="ready"]', { timeout: 60000 });
  return { browser, page, problems };
}

/// Replaces the editor's text by typing it, key by key, as a student would.
export async function typeModel(page, text) {
  await page.fill("#source", "");
  await page.focus("#source");
  await page.keyboard.type(text);
}

/// Clicks a button and waits for the page to finish the request; returns its final state.
export async function run(page, button) {
  await page.click(button);
  await page.waitForFunction(() => ["done", "error"].includes(document.body.dataset.state), null, {
    timeout: 120000,
  });
  return page.evaluate(() => document.body.dataset.state);
}
