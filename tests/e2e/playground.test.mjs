// End-to-end tests of the release build in Debian's Chromium. Each saves a screenshot (outside
// the repository, in $RAFTLOCK_SHOTS or the temp dir) for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openApp, shot, snap, DIST } from './helpers.mjs';

const ROOT = path.resolve(DIST, '..');
let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

async function open() {
  return openApp(browser.context, url);
}

test('the page renders the cluster, the log and the invariants, with no console errors, under a sub-path', async () => {
  const sub = await serve(DIST, '/play/raftlock/');
  const { page, errors } = await openApp(browser.context, sub.url);
  sub.server.close();
  await page.evaluate(() => window.raftlock.runTo(3_000_000));
  await page.waitForSelector('td.entry.grant');
  assert.equal(await page.locator('svg.cluster g.node').count(), 5);
  assert.match(await page.locator('h1').innerText(), /raftlock/);
  assert.equal(await page.locator('ul.invariants li.ok').count(), 16);
  const s = await snap(page);
  assert.ok(s.leader, 'a leader was elected');
  assert.ok(s.writes.length > 0, 'clients wrote to the storage');
  console.log('screenshot', await shot(page, 'page'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('cutting the leader\'s links elects a new leader and leaves the old leader\'s uncommitted tail', async () => {
  const { page, errors } = await open();
  // Check-quorum off, so the cut-off leader keeps taking requests it can never commit.
  const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios/playground.json'), 'utf8'));
  doc.raft = { check_quorum: false };
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(JSON.stringify(d)), doc), null);
  await page.evaluate(() => window.raftlock.runTo(1_500_000));
  const old = (await snap(page)).leader;
  for (let k = 1; k <= 5; k++) {
    if (k === old) continue;
    await page.click(`#link-${old}-${k}`);
    await page.click(`#link-${k}-${old}`);
  }
  await page.evaluate(() => window.raftlock.runTo(5_000_000));
  const s = await snap(page);
  assert.notEqual(s.leader, old, 'a new leader on the majority side');
  const o = s.nodes[old - 1];
  assert.equal(o.role, 'leader', 'the old leader still believes it leads');
  assert.ok(o.last_index > o.commit, `uncommitted tail: last ${o.last_index} > commit ${o.commit}`);
  assert.ok(await page.locator('td.entry.pending').count() > 0, 'drawn as not committed');
  assert.ok(await page.locator('g.link.cut').count() >= 8, 'the cut links are drawn cut');
  console.log('screenshot', await shot(page, 'isolated-leader'));
  await page.click('#heal-all');
  await page.evaluate(() => window.raftlock.runTo(8_000_000));
  const h = await snap(page);
  assert.ok(h.nodes.every((n) => n.last_index === h.nodes[0].last_index || Math.abs(n.last_index - h.nodes[0].last_index) <= 2), 'logs converge after healing');
  // Check-quorum is off: the liveness rule it exists for is the only one that broke.
  assert.deepEqual(h.invariants.filter((i) => !i.ok).map((i) => i.name), ['isolated_leader_steps_down']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a drift slider makes the countdowns disagree while the lock tables stay equal', async () => {
  const { page, errors } = await open();
  await page.evaluate(() => window.raftlock.runTo(300_000));
  await page.locator('#rate-2').fill('20');   // 4x (the top stop: the browser clamps)
  await page.locator('#rate-3').fill('-20');  // 0.25x
  let s;
  for (let t = 600_000; t < 8_000_000; t += 100_000) {
    await page.evaluate((t) => window.raftlock.runTo(t), t);
    s = await snap(page);
    if (s.nodes.every((n) => n.leases.length > 0)) break;
  }
  assert.equal(s.nodes[1].rate_ppm, 4000000);
  assert.equal(s.nodes[2].rate_ppm, 250000);
  const rem = s.nodes.map((n) => n.leases[0].remaining_local_us / (n.rate_ppm / 1e6));
  assert.ok(new Set(rem.map((r) => Math.round(r / 1000))).size > 1, `countdowns differ: ${rem}`);
  const digests = new Set(s.nodes.filter((n) => n.applied === s.nodes[0].applied).map((n) => n.table_digest));
  assert.equal(digests.size, 1, 'tables equal at equal applied indexes');
  assert.equal(await page.locator('#rate-2').getAttribute('aria-valuetext'), '×4');
  console.log('screenshot', await shot(page, 'drift'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a client paused past its lease has its late write rejected by the fenced storage', async () => {
  const { page, errors } = await open();
  const doc = fs.readFileSync(path.join(ROOT, 'scenarios/gc-pause.json'), 'utf8');
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), doc), null);
  await page.evaluate(() => window.raftlock.runTo(6_000_000));
  const s = await snap(page);
  assert.deepEqual(s.writes.map((w) => [w.client, w.token, w.accepted]), [['B', 4, true], ['A', 2, false]]);
  assert.match(await page.locator('.storage-writes').textContent(), /rejected \(stale token\)/);
  console.log('screenshot', await shot(page, 'gc-pause'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('step, seek back and take over', async () => {
  const { page, errors } = await open();
  await page.click('#step-apply');
  await page.click('#step');
  await page.click('#step');
  const t1 = (await snap(page)).now_us;
  assert.ok(t1 > 0);
  await page.evaluate(() => window.raftlock.runTo(4_000_000));
  const hashAt4 = (await snap(page)).trace_hash;
  await page.evaluate(() => window.raftlock.seek(1_000_000));
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 1_000_000);
  assert.equal(await page.locator('#now').innerText(), '1.000 s');
  await page.evaluate(() => window.raftlock.seek(4_000_000));
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 4_000_000);
  assert.equal((await snap(page)).trace_hash, hashAt4, 'seeking back and forth reproduces the same run');
  await page.keyboard.press('ArrowLeft');
  assert.ok((await snap(page)).now_us < 4_000_000, '← steps back');
  await page.evaluate(() => window.raftlock.seek(2_000_000));
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 2_000_000);
  assert.equal(await page.locator('#take-over').isEnabled(), true);
  await page.click('#take-over');
  assert.equal(await page.locator('#take-over').isEnabled(), false, 'the future is gone');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => window.raftlock.snapshot().now_us > 2_000_000, null, { timeout: 10000 });
  await page.keyboard.press('Space');
  console.log('screenshot', await shot(page, 'take-over'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('crash and restart a node from its button', async () => {
  const { page, errors } = await open();
  await page.evaluate(() => window.raftlock.runTo(2_000_000));
  await page.click('#crash-2');
  let s = await snap(page);
  assert.equal(s.nodes[1].up, false);
  assert.equal(await page.locator('#node-2.crashed').count(), 1);
  console.log('screenshot', await shot(page, 'crashed'));
  await page.evaluate(() => window.raftlock.runTo(4_000_000));
  await page.click('#crash-2');
  await page.evaluate(() => window.raftlock.runTo(6_000_000));
  s = await snap(page);
  assert.equal(s.nodes[1].up, true);
  assert.ok(s.nodes[1].applied > 0, 'it applied its log again');
  assert.deepEqual(errors, []);
  await page.close();
});

test('bad input gets a clear message and leaves the state intact', async () => {
  const { page, errors } = await open();
  await page.evaluate(() => window.raftlock.runTo(1_000_000));
  const before = await snap(page);
  const r1 = await page.evaluate(() => window.raftlock.act('{"do":"crash","node":99}'));
  assert.match(r1, /node/);
  assert.match(await page.locator('#error').innerText(), /refused/);
  const r2 = await page.evaluate(() => window.raftlock.loadScenario('{"version":1,"seed":1,"nodes":3,"clients":[{"name":"A","script":[{"acquire":{"key":"k","lease_ms":0}}]}]}'));
  assert.match(r2, /lease_ms/);
  const r3 = await page.evaluate(() => window.raftlock.act('garbage'));
  assert.match(r3, /not an action/);
  assert.match(await page.locator('#error').innerText(), /not an action/, 'shown in the page too');
  const after = await snap(page);
  assert.equal(after.trace_hash, before.trace_hash);
  assert.equal(after.nodes.length, 5);
  console.log('screenshot', await shot(page, 'bad-input'));
  assert.deepEqual(errors, []);
  await page.close();
});
