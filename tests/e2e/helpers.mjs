// Shared by the end-to-end tests: a static server for dist/ on 127.0.0.1 (a free port, stopped
// by the test) and Debian's Chromium driven by playwright-core.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };
export const DIST = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist');
export const SHOTS = process.env.RAFTLOCK_SHOTS || path.join(os.tmpdir(), 'raftlock-shots');

/// `prefix` serves the site under a sub-path (as a static host would), e.g. '/play/raftlock/'.
/// `gzip`: compress what the browser accepts compressed, as a real host does (the benchmark's loads).
/// `brotli`: the same with brotli where the browser accepts it (the benchmark's loads; every file
/// compressed before the server starts, as a host serves precompressed files).
/// `gate`: while `gate.down`, every request is counted in `gate.hits` and answered 503 (a host
/// that is gone: what a service worker's own requests meet when the network is off).
export function serve(root = DIST, prefix = '/', { gzip = false, brotli = false, gate = null } = {}) {
  const packed = new Map();
  const pack = (data) => zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } });
  if (brotli) {
    for (const f of fs.readdirSync(root, { recursive: true })) {
      const p = path.join(root, f);
      if (fs.statSync(p).isFile()) packed.set(p, pack(fs.readFileSync(p)));
    }
  }
  const brotlied = (p, data) => {
    if (!packed.has(p)) packed.set(p, pack(data));
    return packed.get(p);
  };
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      if (gate?.down) { gate.hits++; res.writeHead(503); res.end('down'); return; }
      const url = new URL(req.url, 'http://x');
      if (!url.pathname.startsWith(prefix)) { res.writeHead(404); res.end('not found'); return; }
      let p = path.normalize(path.join(root, decodeURIComponent(url.pathname.slice(prefix.length - 1))));
      if (!p.startsWith(root)) { res.writeHead(403); res.end(); return; }
      if (fs.existsSync(p) && fs.statSync(p).isDirectory()) p = path.join(p, 'index.html');
      fs.readFile(p, (err, data) => {
        if (err) { res.writeHead(404); res.end('not found'); return; }
        const headers = { 'content-type': MIME[path.extname(p)] || 'application/octet-stream' };
        if (brotli && /\bbr\b/.test(req.headers['accept-encoding'] || '')) {
          data = brotlied(p, data);
          headers['content-encoding'] = 'br';
        } else if (gzip && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
          data = zlib.gzipSync(data, { level: 9 });
          headers['content-encoding'] = 'gzip';
        }
        res.writeHead(200, headers);
        res.end(data);
      });
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}${prefix}` }));
  });
}

/// A fresh browser profile; `locale` ('ru-RU', …) is the browser's language (navigator.languages).
/// `serviceWorkers: 'block'` keeps the page's own worker out (so `page.route` sees every fetch).
export async function launch({ locale = 'en-US', serviceWorkers = 'allow' } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raftlock-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    locale,
    serviceWorkers,
    viewport: { width: 1280, height: 720 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return { context, close: async () => { await context.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

/// Open the app; collect console errors and page errors; wait for the handle.
export async function openApp(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  // A built-in the link names arrives as a file after the app starts (loading() is its name until then).
  await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && window.raftlock.loading() === null, null, { timeout: 30000 });
  // The bare address opens on the start screen (tests/e2e/start.test.mjs): these tests begin in free play.
  if (await page.$('#start-screen')) {
    await page.click('#start-free');
    await page.waitForSelector('#start-screen', { state: 'detached' });
  }
  return { page, errors };
}

export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

export const snap = (page) => page.evaluate(() => window.raftlock.snapshot());

/// Run to the end of the run: `runTo` pauses where an invariant turns red, so call it until time stops.
export async function runToEnd(page) {
  for (let before = -1, guard = 0; guard < 30; guard++) {
    await page.evaluate(() => window.raftlock.runTo(1e12));
    const now = (await snap(page)).now_us;
    if (now === before) return;
    before = now;
  }
}

/// Read panels with textContent, not innerText: a panel off screen is skipped by
/// content-visibility, and innerText reads only what is rendered (empty until it is).

/// In a lesson the tools (stepping, seed, files, switches, Raft settings, the hunt) sit behind
/// the Tools button: open them.
export async function openTools(page) {
  if (await page.locator('#tools[aria-pressed="false"]').count()) {
    await page.click('#tools');
    await page.waitForSelector('#tools[aria-pressed="true"]');
  }
}

/// *Check the clients' history* clicked, and the verdict once the page's worker has answered
/// (the click takes the last verdict away at once).
export async function checkHistory(page) {
  await page.click('#check-history');
  await page.waitForFunction(() => !window.raftlock.job().jobs.some((j) => j.kind === 'History') && document.querySelector('#history-verdict'), null, { timeout: 60000 });
  return page.locator('#history-verdict').textContent();
}

/// Start a 10 ms timer in the page; `maxGap` gives the longest gap between its ticks (ms) since
/// the last call: how long the page did not answer.
export async function startGaps(page) {
  await page.evaluate(() => {
    const g = (window.__gaps = { last: performance.now(), max: 0 });
    clearInterval(window.__gapTimer);
    window.__gapTimer = setInterval(() => {
      const t = performance.now();
      g.max = Math.max(g.max, t - g.last);
      g.last = t;
    }, 10);
  });
}
export const maxGap = (page) => page.evaluate(() => { const m = window.__gaps.max; window.__gaps.max = 0; window.__gaps.last = performance.now(); return m; });

/// A gap the page must never reach while it works: a real freeze, not a busy machine (a machine
/// running two busy loops beside the browser stretches gaps to a few hundred ms). How responsive
/// the page is on a quiet machine is `make bench`'s figure; a test asks that the work was split.
export const FREEZE_MS = 3000;
/// What a slice may take beyond its budget as the page's clock measures it: one batch of events
/// on a slow machine, and the page taken off the CPU mid-slice on a busy one.
export const SLICE_SLACK_MS = 250;

/// The work since the last call (or since `slices` was last read) was split: at least `min`
/// slices, each ending near its budget as the page's own clock measured it.
export async function assertSplit(page, what, min = 2) {
  const s = await page.evaluate(() => window.raftlock.slices());
  if (s.count < min) throw new Error(`${what}: ${s.count} slices of work, not split`);
  if (s.longestMs > s.budgetMs + SLICE_SLACK_MS) throw new Error(`${what}: a slice took ${s.longestMs.toFixed(0)} ms of a ${s.budgetMs} ms budget`);
  return s;
}

/// The `p` quantile (0..1) of some numbers: the value at that rank, no interpolation.
export const quantile = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

/// For a developer's measurement (scripts/frames.mjs, scripts/check-frames.mjs): the build in
/// `process.argv[2]` (default dist/) served and opened at width × height in a browser without
/// service workers, and the runs asked for in `process.argv[3]` (default 3).
export async function openBuild(width, height) {
  const srv = await serve(path.resolve(process.argv[2] || DIST), '/');
  const b = await launch({ serviceWorkers: 'block' });
  const { page } = await openApp(b.context, srv.url);
  await page.setViewportSize({ width, height });
  const close = async () => { await b.close(); srv.server.close(); };
  return { page, runs: Number(process.argv[3] || 3), close };
}

/// Next through the handle to the lesson's last caption, revealing each question on the way;
/// `each(pos)` runs after each step has settled (pos from 1).
export async function lessonToEnd(page, each = async () => {}) {
  const count = (await page.evaluate(() => window.raftlock.lesson())).count;
  for (let pos = 0; pos < count; pos++) {
    await page.evaluate(() => {
      const r = window.raftlock;
      r.lessonNext();
      if (r.lesson()?.question?.state === 'asking') r.reveal();
    });
    await page.waitForFunction((p) => window.raftlock.lesson().pos === p + 1 && !window.raftlock.job().busy, pos);
    await each(pos + 1);
  }
}
