// Open a trace: a file from any implementation, read-only, scrubbed, its findings each a
// "go to"; a malformed file is refused and the run stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openApp, shot, DIST } from './helpers.mjs';

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

test('a trace opens read-only, scrubs, and each finding goes to its line, as raftlock check reports it', async () => {
  // A storage that took a stale token: the checker's finding.
  const bad = traceFile('stale', (t) => t.replace('"accepted":false', '"accepted":true'));
  const cli = JSON.parse((() => { try { return execFileSync(CLI, ['check', bad, '--json']).toString(); } catch (e) { return e.stdout.toString(); } })());
  const { page, errors } = await openApp(br.context, srv.url);
  const before = await page.evaluate(() => window.raftlock.snapshot().trace_hash);
  await page.setInputFiles('#open-trace', bad);
  await page.waitForFunction(() => window.raftlock.trace() !== null);
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
