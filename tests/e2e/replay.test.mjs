// No link can freeze the page: a far link, a lesson's Next and a seek replay in slices, with a
// progress bar, Cancel, and an announcement when the replay would take long. The page answers
// throughout: a timer in the page measures the longest gap between its ticks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { serve, launch, openApp, shot, snap, startGaps, maxGap, assertSplit, FREEZE_MS, DIST } from './helpers.mjs';

let srv, br;
before(async () => { srv = await serve(); br = await launch(); });
after(async () => { await br.close(); srv.server.close(); });

const CLI = path.resolve(DIST, '../target/release/raftlock');

/// The benchmark's cluster at the limits a user meets: 7 nodes, 16 clients on 4 keys, 1 s leases.
function cluster(untilMs, lesson) {
  const clients = Array.from({ length: 16 }, (_, i) => ({
    name: `c${i}`,
    script: [
      { acquire: { key: `k${i % 4}`, lease_ms: 1000 } },
      { work: { key: `k${i % 4}`, ms: 100 } },
      { release: { key: `k${i % 4}` } },
      { sleep: { ms: 200 } },
    ],
    repeat: true,
    start_ms: 500 + 37 * i,
  }));
  const doc = { version: 1, name: 'busy-day', seed: 1, nodes: 7, clients, until_ms: untilMs };
  if (lesson) doc.lesson = lesson;
  return doc;
}

function link(doc, momentUs) {
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 }).toString('base64url');
  return `${srv.url}#v1.${packed}.${momentUs}`;
}

const job = (page) => page.evaluate(() => window.raftlock.job());

test('a 24 h link opens at once, is announced, shows progress, and Cancel leaves a working page', async () => {
  const url = link(cluster(86_400_000), 86_400_000_000);
  assert.ok(url.length - srv.url.length < 1000, `the link is ${url.length} characters`);
  const t0 = Date.now();
  const { page, errors } = await openApp(br.context, url);
  await startGaps(page);
  assert.ok(Date.now() - t0 < 15000);
  // Answers at once, and announces the replay with an estimate.
  const t1 = Date.now();
  await job(page);
  assert.ok(Date.now() - t1 < FREEZE_MS, 'the page answers, not frozen');
  await page.waitForSelector('#announce', { timeout: 20000 });
  const a = await job(page);
  assert.match(a.announcement, /^This link replays 24 h of a 7-node cluster with 16 clients: about .+ here\.$/);
  await shot(page, 'replay-announced');
  await page.click('#job-go');
  await page.waitForFunction(() => window.raftlock.job().jobs[0]?.leftMs > 0, null, { timeout: 20000 });
  const p1 = (await job(page)).jobs[0];
  await page.waitForFunction((f) => window.raftlock.job().jobs[0]?.fraction > f, p1.fraction, { timeout: 20000 });
  const p2 = (await job(page)).jobs[0];
  assert.equal(p2.kind, 'Link');
  assert.ok(p2.eventsPerS > 10000, `${p2.eventsPerS} events/s`);
  assert.match(await page.textContent('#job-progress'), /Opening the link: .+ of 24 h · [\d,]+ events\/s/);
  // Input is answered throughout: over the next 200,000 events, in slices.
  await maxGap(page);
  await page.evaluate(() => window.raftlock.slices());
  await page.evaluate(() => window.raftlock.frameWork());
  const from = (await job(page)).jobs[0].events;
  // (A small question: Playwright turning a big snapshot() into an object holds the page.)
  for (let i = 0; i < 10; i++) {
    const t = Date.now();
    await page.evaluate(() => window.raftlock.job().jobs[0].fraction);
    assert.ok(Date.now() - t < FREEZE_MS);
  }
  await page.waitForFunction((e) => window.raftlock.job().jobs[0].events > e + 200_000, from, { timeout: 30000 });
  const gap = await maxGap(page);
  const frames = await page.evaluate(() => window.raftlock.frameWork());
  const worst = frames.map((f) => f[2]).sort((a, b) => b - a).slice(0, 5);
  console.log(`frames ${frames.length}, the longest main-thread work ${worst.map((x) => x.toFixed(1)).join(', ')} ms, gap ${gap.toFixed(0)} ms`);
  assert.ok(gap < FREEZE_MS, `the page froze ${gap.toFixed(0)} ms between two ticks`);
  await assertSplit(page, 'the link replay');
  await shot(page, 'replay-progress');
  // Cancel: a working page at the moment reached.
  await page.click('#job-progress .job-cancel');
  await page.waitForSelector('#job-stopped');
  const stopped = await snap(page);
  assert.ok(stopped.now_us > 0 && stopped.now_us < 86_400_000_000);
  assert.equal((await snap(page)).now_us, stopped.now_us, 'a cancelled replay stays where it stopped');
  await page.click('#step');
  await page.waitForFunction((e) => window.raftlock.snapshot().events > e, stopped.events, { timeout: 10000 });
  assert.equal(await page.locator('#job-stopped').count(), 0, 'stepping dismisses the stopped replay');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link replayed in slices, cancelled and gone on with, ends with the CLI\'s trace hash', async () => {
  const doc = cluster(150_000);
  const url = link(doc, 150_000_000);
  const { page, errors } = await openApp(br.context, url);
  await page.waitForFunction(() => window.raftlock.job().jobs.length > 0 || !window.raftlock.job().busy);
  if ((await job(page)).announcement) await page.click('#job-go');
  await page.waitForFunction(() => window.raftlock.job().jobs[0]?.fraction > 0.2, null, { timeout: 60000 });
  await page.click('#job-progress .job-cancel');
  await page.waitForSelector('#job-stopped');
  await page.click('#job-go');
  await page.waitForFunction(() => !window.raftlock.job().busy && window.raftlock.job().jobs.length === 0, null, { timeout: 120000 });
  const s = await snap(page);
  assert.equal(s.now_us, 150_000_000);
  const cli = execFileSync(CLI, ['run', '--link', url]).toString();
  const hash = cli.match(/trace hash\s+(\w+)/)[1];
  assert.equal(s.trace_hash, hash, 'the page and the CLI replay the same run');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lesson\'s Next and a seek that need a long replay show progress and stay responsive', async () => {
  const lesson = {
    title: 'A busy ten minutes',
    captions: [
      { at_ms: 1000, text: 'The cluster at one second.' },
      { at_ms: 600_000, text: 'Ten minutes later.' },
    ],
  };
  const { page, errors } = await openApp(br.context, srv.url);
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), JSON.stringify(cluster(610_000, lesson))), null);
  await page.keyboard.press('n');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 1 && !window.raftlock.job().busy);
  await startGaps(page);
  await page.evaluate(() => window.raftlock.slices());
  // Next: from 1 s to 10 min, in slices.
  await page.keyboard.press('n');
  await page.waitForFunction(() => window.raftlock.job().jobs[0]?.kind === 'LessonNext', null, { timeout: 10000 });
  await page.waitForSelector('#job-progress');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 2 && !window.raftlock.job().busy, null, { timeout: 60000 });
  let gap = await maxGap(page);
  assert.ok(gap < FREEZE_MS, `Next froze the page ${gap.toFixed(0)} ms`);
  await assertSplit(page, "Next's replay");
  const atNext = await snap(page);
  assert.equal(atNext.now_us, 600_000_000);
  // The same moment reached in one go (the handle's synchronous call) is the same run.
  const { page: other } = await openApp(br.context, srv.url);
  await other.evaluate((d) => window.raftlock.loadScenario(d), JSON.stringify(cluster(610_000, lesson)));
  await other.evaluate(() => { window.raftlock.lessonNext(); window.raftlock.lessonNext(); });
  assert.equal((await snap(other)).trace_hash, atNext.trace_hash);
  await other.close();
  // A seek through the scrubber that replays from a snapshot: in slices, to the same state.
  const scrub = async (t) => page.evaluate((t) => {
    const s = document.querySelector('#scrubber');
    s.value = String(t);
    s.dispatchEvent(new Event('input', { bubbles: true }));
  }, t);
  await scrub(0);
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 0 && !window.raftlock.job().busy);
  await maxGap(page);
  // Just before a snapshot: the seek replays from the one before, the longest replay there is.
  const snaps = (await job(page)).snapshots;
  const target = snaps[snaps.length - 2] - 1000;
  assert.ok(snaps[snaps.length - 2] - snaps[snaps.length - 3] >= 8_000_000, `snapshots ${snaps.slice(-3)}`);
  // What the page shows at each frame, recorded in the page.
  await page.evaluate(() => {
    window.__kinds = new Set();
    const look = () => {
      for (const j of window.raftlock.job().jobs) window.__kinds.add(j.kind);
      window.__look = requestAnimationFrame(look);
    };
    look();
  });
  await page.evaluate(() => window.raftlock.slices());
  await scrub(target);
  await page.waitForFunction(() => !window.raftlock.job().busy, null, { timeout: 60000 });
  const kinds = await page.evaluate(() => { cancelAnimationFrame(window.__look); return [...window.__kinds]; });
  gap = await maxGap(page);
  assert.ok(gap < FREEZE_MS, `the seek froze the page ${gap.toFixed(0)} ms`);
  await assertSplit(page, 'the seek');
  assert.deepEqual(kinds, ['Seek'], 'the seek showed its progress');
  const sought = await snap(page);
  assert.equal(sought.now_us, target);
  await page.evaluate(() => window.raftlock.seek(0));
  await page.evaluate((t) => window.raftlock.seek(t), target);
  assert.equal((await snap(page)).trace_hash, sought.trace_hash, 'the sliced seek lands where a seek in one go does');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the history check runs in the page\'s worker while the page answers, and gives its verdict', async () => {
  const { page, errors } = await openApp(br.context, srv.url);
  await page.evaluate((d) => window.raftlock.loadScenario(d), JSON.stringify(cluster(60_000)));
  await page.evaluate(() => window.raftlock.runTo(60_000_000));
  await startGaps(page);
  await page.evaluate(() => window.raftlock.slices());
  // The check is under way as soon as it is asked for, and the page's frames do not carry it.
  const job = await page.evaluate(() => { window.raftlock.checkHistory(); return window.raftlock.job(); });
  assert.deepEqual(job.jobs.map((j) => j.kind), ['History']);
  assert.equal(job.busy, false);
  await page.waitForSelector('#history-verdict', { timeout: 60000 });
  const gap = await maxGap(page);
  assert.ok(gap < FREEZE_MS, `the check froze the page ${gap.toFixed(0)} ms`);
  // The check is the worker's: the page's own frames did no slice of it.
  assert.equal((await page.evaluate(() => window.raftlock.slices())).count, 0, 'the page did the check itself');
  assert.match(await page.textContent('#history-verdict'), /✓ At 60\.000 s: what the clients saw is linearizable/);
  assert.deepEqual((await page.evaluate(() => window.raftlock.job())).jobs, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the run goes on while the worker checks, the verdict is of the moment asked, and a worker that cannot start says why', async () => {
  const b = await launch({ serviceWorkers: 'block' });
  let release, asked;
  const held = new Promise((r) => { release = r; });
  const askedFor = new Promise((r) => { asked = r; });
  try {
    const { page, errors } = await openApp(b.context, srv.url);
    await page.evaluate((d) => window.raftlock.loadScenario(d), JSON.stringify(cluster(60_000)));
    await page.evaluate(() => window.raftlock.runTo(20_000_000));
    const before = await snap(page);
    // The worker's module cannot be had: the page says why, and the run is as it was.
    await b.context.route('**/raftlock-worker.js', (route) => route.abort());
    await page.click('#check-history');
    await page.waitForSelector('#error');
    assert.match(await page.textContent('#error'), /The clients' history could not be checked: /);
    assert.equal((await snap(page)).trace_hash, before.trace_hash);
    assert.deepEqual((await page.evaluate(() => window.raftlock.job())).jobs, []);
    assert.equal(await page.isEnabled('#check-history'), true);
    await b.context.unroute('**/raftlock-worker.js');
    // Its wasm held back: the check waits in the worker while the run goes on to 30 s.
    await b.context.route('**/raftlock-worker_bg.wasm', async (route) => { asked(); await held; await route.continue(); });
    await page.evaluate(() => window.raftlock.checkHistory());
    await askedFor;
    assert.equal(await page.isDisabled('#check-history'), true);
    await page.evaluate(() => window.raftlock.runTo(30_000_000));
    assert.equal((await snap(page)).now_us, 30_000_000);
    assert.deepEqual((await page.evaluate(() => window.raftlock.job())).jobs.map((j) => j.kind), ['History']);
    release();
    await page.waitForFunction(() => window.raftlock.job().jobs.length === 0, null, { timeout: 60000 });
    assert.match(await page.textContent('#history-verdict'), /✓ At 20\.000 s: what the clients saw is linearizable/);
    // (The browser may log the module's load that was made to fail; nothing else.)
    assert.deepEqual(errors.filter((e) => !/ERR_FAILED|Failed to load/.test(e)), []);
    await page.close();
  } finally {
    release();
    await b.close();
  }
});

/// A small seeded generator (the fuzz is the same on every run).
function rng(seed) {
  let s = BigInt(seed);
  return (n) => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number((s >> 33n) % BigInt(n));
  };
}

/// A link at the limits of work: 7 nodes, 16 clients, as many timeline actions as a link holds,
/// a day-long run and a far moment.
function heavyLink(seed) {
  const r = rng(seed);
  const doc = cluster(86_400_000);
  const node = () => 1 + r(7);
  const client = () => `c${r(16)}`;
  const make = [
    () => ({ do: 'crash', node: node() }), () => ({ do: 'restart', node: node() }),
    () => ({ do: 'pause', node: node() }), () => ({ do: 'resume', node: node() }),
    () => ({ do: 'isolate', node: node() }), () => ({ do: 'heal_all' }),
    () => ({ do: 'set_rate', node: node(), rate_ppm: 500_000 + r(1_500_000) }),
    () => ({ do: 'jump', node: node(), ms: r(2000) - 1000 }),
    () => ({ do: 'client_pause', client: client() }), () => ({ do: 'client_resume', client: client() }),
    () => ({ do: 'client_disconnect', client: client() }), () => ({ do: 'client_reconnect', client: client() }),
  ];
  let actions = Array.from({ length: 10_000 }, () => ({ at_ms: r(86_400_000), ...make[r(make.length)]() }))
    .sort((a, b) => a.at_ms - b.at_ms);
  const moment = (43_200 + r(43_200)) * 1_000_000;
  for (;;) {
    doc.timeline = actions;
    const url = link(doc, moment);
    if (url.length - srv.url.length <= 64 * 1024) return { url, actions: actions.length };
    actions = actions.slice(0, Math.floor(actions.length * 0.9));
  }
}

test('links that ask for the most work open and replay in slices, the page never frozen', async () => {
  for (const seed of [1, 2, 3]) {
    const { url, actions } = heavyLink(seed);
    const { page, errors } = await openApp(br.context, url);
    await startGaps(page);
    await page.waitForFunction(() => window.raftlock.job().announcement || window.raftlock.job().jobs.length === 0 || !window.raftlock.job().busy, null, { timeout: 20000 });
    if ((await job(page)).announcement) await page.click('#job-go');
    const from = (await job(page)).jobs[0]?.events ?? 0;
    await page.waitForFunction((e) => !window.raftlock.job().busy || window.raftlock.job().jobs[0].events > e + 150_000, from, { timeout: 60000 });
    const gap = await maxGap(page);
    console.log(`link ${seed}: ${url.length} characters, ${actions} actions, longest gap ${gap.toFixed(0)} ms`);
    assert.ok(gap < FREEZE_MS, `link ${seed} (${actions} actions): the page froze ${gap.toFixed(0)} ms`);
    await assertSplit(page, `link ${seed}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a lesson link whose caption never comes: its moments are looked for in slices, and the page says so', async () => {
  const lesson = {
    title: 'Waiting for a violation that never comes',
    captions: [
      { on: 'leader_elected', text: 'A leader.' },
      { on: 'violation', text: 'An invariant breaks (it never does: the design is safe).' },
    ],
  };
  const url = link(cluster(86_400_000, lesson), 0);
  const { page, errors } = await openApp(br.context, url);
  await startGaps(page);
  await page.waitForSelector('#lesson-progress', { timeout: 10000 });
  const j = (await job(page)).jobs[0];
  assert.equal(j.kind, 'Lesson');
  assert.equal(await page.locator('#lesson-progress button').count(), 0, 'the walk has no Cancel');
  assert.match(await page.textContent('#lesson-progress'), /Finding the lesson's moments: 1 of 2 captions \([\d,]+ events replayed\)/);
  // The walk gives up at its limit of 3,000,000 events, in slices.
  await page.waitForFunction(() => !window.raftlock.job().busy, null, { timeout: 120000 });
  const gap = await maxGap(page);
  assert.ok(gap < FREEZE_MS, `the walk froze the page ${gap.toFixed(0)} ms`);
  await assertSplit(page, "the lesson's walk");
  const l = await page.evaluate(() => window.raftlock.lesson());
  assert.equal(l.count, 2);
  await page.keyboard.press('n');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 1 && !window.raftlock.job().busy);
  assert.deepEqual(errors, []);
  await page.close();
});
