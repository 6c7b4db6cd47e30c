// Open a trace: a file from any implementation, read-only, scrubbed, its findings each a
// "go to"; a malformed file is refused and the run stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openApp, shot, startGaps, assertSplit, FREEZE_MS, DIST } from './helpers.mjs';

let srv, br;
before(async () => { srv = await serve(); br = await launch(); });
after(async () => { await br.close(); srv.server.close(); });

const CLI = path.resolve(DIST, '../target/release/raftlock');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raftlock-trace-'));

function traceFile(name, edit = (t) => t) {
  const p = path.join(dir, `${name}.jsonl`);
  execFileSync(CLI, ['run', '--builtin', 'gc-pause', '--trace', p]);
  fs.writeFileSync(p, edit(fs.readFileSync(p, 'utf8')));
  return p;
}

test('a large trace is read in slices: the page answers, shows how far it is, and opens it whole', async () => {
  // 5 nodes, 10 clients on 10 keys for 25 s: about 14 MB of trace.
  const clients = Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, repeat: true, start_ms: 300 + 7 * i,
    script: [{ acquire: { key: `k${i}`, lease_ms: 2000 } }, { release: { key: `k${i}` } }, { sleep: { ms: 5 } }] }));
  const doc = path.join(dir, 'big.json');
  fs.writeFileSync(doc, JSON.stringify({ version: 1, name: 'big', seed: 3, nodes: 5, clients, until_ms: 25_000 }));
  const p = path.join(dir, 'big.jsonl');
  execFileSync(CLI, ['run', doc, '--trace', p]);
  const lines = fs.readFileSync(p, 'utf8').trimEnd().split('\n').length;
  const { page, errors } = await openApp(br.context, srv.url);
  await startGaps(page);
  // Each frame: which jobs show, and the longest gap of the page's timer while the file is read
  // (counted from the first frame that shows the reading to the last: this callback runs before
  // the app's in a frame, so the frame that ends the reading and draws the trace is not counted).
  await page.evaluate(() => {
    window.__kinds = new Set();
    const look = () => {
      const jobs = window.raftlock.job().jobs.map((j) => j.kind);
      for (const k of jobs) window.__kinds.add(k);
      if (jobs.includes('TraceRead')) {
        if (window.__reading === undefined) {
          window.__gaps.max = 0;
          window.__gaps.last = performance.now();
        }
        window.__reading = window.__gaps.max;
      }
      window.__look = requestAnimationFrame(look);
    };
    look();
  });
  await page.evaluate(() => window.raftlock.slices());
  await page.setInputFiles('#open-trace', p);
  await page.waitForFunction(() => window.raftlock.trace()?.check === 'done', null, { timeout: 60000 });
  const [kinds, gap] = await page.evaluate(() => { cancelAnimationFrame(window.__look); return [[...window.__kinds], window.__reading]; });
  assert.ok(kinds.includes('TraceRead'), `the reading showed its progress: ${kinds}`);
  assert.equal(typeof gap, 'number');
  assert.ok(gap < FREEZE_MS, `while the file was read the page froze for ${gap.toFixed(0)} ms`);
  await assertSplit(page, 'the reading');
  const t = await page.evaluate(() => window.raftlock.trace());
  assert.equal(t.lines, lines);
  assert.equal(t.ok, true);
  assert.deepEqual(await page.evaluate(() => window.raftlock.job().jobs), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a trace opens read-only, scrubs, and each finding goes to its line, as raftlock check reports it', async () => {
  // A storage that took a stale token: the checker's finding.
  const bad = traceFile('stale', (t) => t.replace('"accepted":false', '"accepted":true'));
  const cli = JSON.parse((() => { try { return execFileSync(CLI, ['check', bad, '--json']).toString(); } catch (e) { return e.stdout.toString(); } })());
  const { page, errors } = await openApp(br.context, srv.url);
  const before = await page.evaluate(() => window.raftlock.snapshot().trace_hash);
  await page.setInputFiles('#open-trace', bad);
  await page.waitForFunction(() => window.raftlock.trace()?.check === 'done');
  const t = await page.evaluate(() => window.raftlock.trace());
  assert.equal(t.name, 'stale.jsonl');
  assert.equal(t.at, t.lines, 'opened at its end');
  assert.deepEqual(t.findings, cli.findings.map((f) => ({ line: f.line, rule: f.rule })), 'the page and the CLI agree');
  assert.equal(t.findings[0].rule, 'storage_rejects_stale_tokens');
  assert.match(await page.textContent('#trace-verdict'), /finds 1 problem/);
  // Scrub to the start: no lock anywhere; then go to the finding.
  await page.evaluate(() => {
    const s = document.querySelector('#trace-scrubber');
    s.value = '0';
    s.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction(() => window.raftlock.trace().at === 0);
  assert.equal(await page.locator('#trace-diagram .tmark').count(), 0, 'nothing before the first line');
  assert.match(await page.textContent('#trace-log'), /No entry applied yet/);
  // The finding's red mark on the timeline goes to its line; the diagram marks it in red.
  assert.equal(await page.locator('#trace-timeline .finding-mark').count(), 1);
  await page.click('#trace-timeline .finding-mark');
  await page.waitForFunction((l) => window.raftlock.trace().line === l, t.findings[0].line);
  assert.equal(await page.locator('#trace-diagram .tmark.finding').count(), 1);
  assert.ok(await page.locator('#trace-diagram .tmark.accepted').count() >= 1, 'the storage lane');
  assert.match(await page.getAttribute('#trace-diagram', 'aria-label'), /1 finding/);
  // The log grid: the latest indexes, each node's command and result.
  assert.match(await page.textContent('#trace-log'), /Grant\{k, \d+ ms\}\s*Granted\{\d+\}/);
  assert.equal(await page.locator('#trace-log tr.differs').count(), 0);
  // A mark on the diagram goes to its line too.
  const markLine = await page.evaluate(() => Number(document.querySelector('#trace-diagram .tmark.grant title').textContent.match(/^line (\d+)/)[1]));
  await page.locator('#trace-diagram .tmark.grant').first().dispatchEvent('click');
  await page.waitForFunction((l) => window.raftlock.trace().line === l, markLine);
  await page.evaluate(() => {
    const s = document.querySelector('#trace-scrubber');
    s.value = '0';
    s.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction(() => window.raftlock.trace().at === 0);
  await page.click('#trace-findings .goto');
  await page.waitForFunction((l) => window.raftlock.trace().line === l, t.findings[0].line);
  assert.match(await page.textContent('#trace-findings'), /Fencing: the storage accepts a write only with a token at least as high/);
  await shot(page, 'trace-finding');
  // Mid-trace, n1 holds k for A with token 2 in its own table.
  const grants = fs.readFileSync(bad, 'utf8').split('\n').findIndex((l) => l.includes('"ev":"apply","node":1,') && l.includes('"granted","token":2'));
  await page.evaluate((n) => {
    const s = document.querySelector('#trace-scrubber');
    s.value = String(n + 1);
    s.dispatchEvent(new Event('input', { bubbles: true }));
  }, grants);
  await page.waitForFunction(() => window.raftlock.trace().nodes['1'].locks.k?.[1] === 2);
  // Close: the run is as it was.
  await page.click('#close-trace');
  await page.waitForFunction(() => window.raftlock.trace() === null);
  assert.equal(await page.evaluate(() => window.raftlock.snapshot().trace_hash), before);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an entry that differs between nodes is red in the trace\'s log grid, and the checker names it', async () => {
  // n3 applies a Grant with another lease than the others at the same index.
  const p = traceFile('differs', (t) => {
    const lines = t.split('\n');
    const i = lines.findIndex((l) => l.includes('"ev":"apply","node":3,') && l.includes('"op":"grant"'));
    lines[i] = lines[i].replace('"lease_ms":', '"lease_ms":9');
    return lines.join('\n');
  });
  const { page, errors } = await openApp(br.context, srv.url);
  await page.setInputFiles('#open-trace', p);
  await page.waitForFunction(() => window.raftlock.trace()?.check === 'done');
  const t = await page.evaluate(() => window.raftlock.trace());
  assert.ok(t.findings.some((f) => f.rule === 'same_entry_on_every_node'), JSON.stringify(t.findings));
  const first = t.findings.find((f) => f.rule === 'same_entry_on_every_node');
  await page.click(`#trace-findings li:has-text("same_entry_on_every_node") .goto`);
  await page.waitForFunction((l) => window.raftlock.trace().line === l, first.line);
  assert.ok(await page.locator('#trace-log tr.differs td.differs').count() >= 2, 'the row where they disagree is red');
  await shot(page, 'trace-differs');
  assert.deepEqual(errors, []);
  await page.close();
});

/// A browser (no service worker, so the route sees the worker's fetch) in which the worker's wasm
/// waits until `release()`; `askedFor` resolves when the worker asked for it.
async function heldWorker() {
  const b = await launch({ serviceWorkers: 'block' });
  let release, asked;
  const held = new Promise((r) => { release = r; });
  const askedFor = new Promise((r) => { asked = r; });
  await b.context.route('**/raftlock-worker_bg.wasm', async (route) => { asked(); await held; await route.continue(); });
  return { b, release, askedFor };
}

test('the check runs in the page\'s worker: the trace reads at once, the verdict comes when the worker answers', async () => {
  // The worker's wasm is held back until the trace is shown: the page reads the trace without it,
  // says the check is running, and draws the verdict when the worker's answer comes.
  const bad = traceFile('held', (t) => t.replace('"accepted":false', '"accepted":true'));
  const { b, release, askedFor } = await heldWorker();
  try {
    const { page, errors } = await openApp(b.context, srv.url);
    await page.setInputFiles('#open-trace', bad);
    await page.waitForFunction(() => window.raftlock.trace()?.check === 'running');
    assert.match(await page.textContent('#trace-verdict'), /Checking the trace against the seed's rules/);
    assert.equal(await page.locator('#trace-findings li').count(), 0);
    // Readable meanwhile: scrub to the start.
    await page.evaluate(() => {
      const s = document.querySelector('#trace-scrubber');
      s.value = '0';
      s.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => window.raftlock.trace().at === 0);
    await askedFor; // the worker asked for its module's wasm
    assert.equal((await page.evaluate(() => window.raftlock.trace())).check, 'running');
    release();
    await page.waitForFunction(() => window.raftlock.trace()?.check === 'done');
    const t = await page.evaluate(() => window.raftlock.trace());
    assert.equal(t.ok, false);
    assert.equal(t.findings[0].rule, 'storage_rejects_stale_tokens');
    assert.match(await page.textContent('#trace-verdict'), /finds 1 problem\(s\); 0 of them at or before this line/);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    release();
    await b.close();
  }
});

test('a check that cannot run says why and leaves the trace to read; a line the checker refuses refuses the file', async () => {
  const b = await launch({ serviceWorkers: 'block' });
  await b.context.route('**/raftlock-worker.js', (route) => route.abort());
  try {
    const { page } = await openApp(b.context, srv.url);
    await page.setInputFiles('#open-trace', traceFile('unchecked'));
    await page.waitForFunction(() => window.raftlock.trace()?.check === 'failed');
    assert.match(await page.textContent('#trace-verdict'), /The check could not run: .+\. The trace can still be read\./);
    const t = await page.evaluate(() => window.raftlock.trace());
    assert.equal(t.ok, null);
    assert.ok(t.lines > 10 && Object.keys(t.nodes).length === 5, `the trace is shown: ${JSON.stringify(t).slice(0, 300)}`);
    await page.close();
  } finally {
    await b.close();
  }
  // Every line is JSON, but line 2 is an apply without its node: the page shows the trace, then the
  // worker's checker refuses that line, and the file with it.
  const p = path.join(dir, 'nodeless.jsonl');
  fs.writeFileSync(p, '{"ev":"role","node":1,"role":"leader","term":1}\n{"ev":"apply"}\n');
  const { b: c, release } = await heldWorker();
  try {
    const { page, errors } = await openApp(c.context, srv.url);
    const before = await page.evaluate(() => window.raftlock.snapshot().trace_hash);
    await page.setInputFiles('#open-trace', p);
    await page.waitForFunction(() => window.raftlock.trace()?.check === 'running');
    release();
    await page.waitForSelector('#error');
    assert.match(await page.textContent('#error'), /That trace file was refused: line 2: /);
    await page.waitForFunction(() => window.raftlock.trace() === null);
    assert.ok(await page.locator('svg.cluster').count() > 0, 'the run is still shown');
    assert.equal(await page.evaluate(() => window.raftlock.snapshot().trace_hash), before);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    release();
    await c.close();
  }
});

test('a malformed trace file is refused with its line, and the run stays', async () => {
  const p = path.join(dir, 'broken.jsonl');
  fs.writeFileSync(p, '{"ev":"role","node":1,"role":"leader","term":1}\n{"ev": oops}\n');
  const { page } = await openApp(br.context, srv.url);
  await page.setInputFiles('#open-trace', p);
  await page.waitForSelector('#error');
  assert.match(await page.textContent('#error'), /That trace file was refused: line 2: not a trace event/);
  assert.equal(await page.evaluate(() => window.raftlock.trace()), null);
  assert.ok(await page.locator('svg.cluster').count() > 0, 'the run is still shown');
  await page.close();
});
