// What moves while a run plays (src/model/motion.rs) is drawn as snapshot() says: the lock view's countdown bars
// after a pause, a step, a clock set to another rate and a jump, and while playing; the messages in flight.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openApp, snap } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const LEASE_MS = 4000;
// Three nodes, one client holding k on a 4 s lease, links of 20–30 ms (a message flies for many frames at ×1/100);
// no lesson.
const scenario = JSON.stringify({
  version: 1, seed: 11, nodes: 3, until_ms: 60000, network: { latency_us: [20000, 30000] },
  clients: [{ name: 'A', script: [{ acquire: { key: 'k', lease_ms: LEASE_MS } }, { sleep: { ms: 50000 } }] }],
});

// Read in one task: the bars as drawn (their width over their track's) and the run's time and countdowns.
const read = (page) => page.evaluate(() => {
  const s = window.raftlock.snapshot();
  const bars = [...document.querySelectorAll('#locks-panel table.lockview tbody tr')].find((tr) => tr.querySelector('th')?.textContent === 'k');
  const drawn = bars ? [...bars.querySelectorAll('td')].map((td) => {
    const bar = td.querySelector('.bar span');
    const track = td.querySelector('.bar');
    return bar && track ? bar.getBoundingClientRect().width / track.getBoundingClientRect().width : null;
  }) : [];
  return { now: s.now_us, nodes: s.nodes.map((n) => n.leases.find((l) => l.key === 'k')?.remaining_local_us ?? null), drawn };
});

// Each node's bar is its countdown's fraction left, within `slack` (a share of the whole bar).
function assertBars(r, slack, what) {
  assert.equal(r.drawn.length, r.nodes.length, `${what}: a bar per node (${JSON.stringify(r)})`);
  r.nodes.forEach((left, i) => {
    const want = left === null ? 0 : Math.min(1, Math.max(0, left / (LEASE_MS * 1000)));
    assert.ok(Math.abs(r.drawn[i] - want) <= slack, `${what}: n${i + 1} drawn ${r.drawn[i].toFixed(4)}, snapshot ${want.toFixed(4)} at ${r.now} µs`);
  });
}

test('the countdown a reader sees is the snapshot after a pause, a step, a clock change and a jump', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), scenario), null);
  await page.evaluate(() => window.raftlock.runTo(1_500_000));
  await page.waitForFunction(() => !window.raftlock.job().busy);
  const exact = 0.005; // half a percent of the bar: a pixel or so
  let r = await read(page);
  assert.ok(r.nodes.every((x) => x !== null && x > 0), `every node counts down: ${JSON.stringify(r)}`);
  assertBars(r, exact, 'after a seek');

  // Playing at ×1 the bars shrink.
  await page.evaluate(() => { window.raftlock.setSpeed(6); window.raftlock.play(true); });
  await page.waitForFunction((t) => window.raftlock.snapshot().now_us > t + 300_000, r.now);
  const before = await read(page);
  // The lock view draws a few times a second while playing: the bar is drawn shorter at one of them.
  await page.waitForFunction((w) => {
    const bar = document.querySelector('#locks-panel table.lockview tbody td .bar span');
    return bar && bar.getBoundingClientRect().width / bar.parentElement.getBoundingClientRect().width < w;
  }, before.drawn[0]);

  await page.evaluate(() => window.raftlock.play(false));
  assertBars(await read(page), exact, 'after a pause');

  await page.evaluate(() => window.raftlock.step());
  assertBars(await read(page), exact, 'after a step');

  assert.equal(await page.evaluate(() => window.raftlock.act(JSON.stringify({ do: 'set_rate', node: 2, rate_ppm: 2_000_000 }))), null);
  assertBars(await read(page), exact, 'after n2 runs at ×2');
  const t = (await read(page)).now;
  await page.evaluate((t) => window.raftlock.runTo(t + 400_000), t);
  await page.waitForFunction(() => !window.raftlock.job().busy);
  r = await read(page);
  assertBars(r, exact, '0.4 s later');
  assert.ok(r.drawn[1] < r.drawn[0] - 0.05, `n2's countdown runs twice as fast: ${r.drawn}`);

  assert.equal(await page.evaluate(() => window.raftlock.act(JSON.stringify({ do: 'jump', node: 3, ms: 1000 }))), null);
  r = await read(page);
  assertBars(r, exact, 'after n3 jumps 1 s ahead');
  assert.ok(r.drawn[2] < r.drawn[0] - 0.2, `n3's countdown lost a second: ${r.drawn}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the messages drawn are the messages in flight, and move on while playing', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.equal(await page.evaluate((d) => window.raftlock.loadScenario(d), scenario), null);
  const drawn = () => page.evaluate(() => {
    const view = document.querySelector('#cluster').viewBox.baseVal;
    const msgs = [...document.querySelectorAll('#cluster g.msgs g.msg:not(.landed)')].map((g) => {
      const m = g.transform.baseVal.consolidate()?.matrix;
      return m ? [m.e, m.f] : null;
    });
    return { inFlight: window.raftlock.snapshot().in_flight, msgs, w: view.width, h: view.height };
  });
  let seen = 0;
  for (let t = 1_000_000; t < 1_400_000 && seen < 3; t += 7_000) {
    await page.evaluate((t) => window.raftlock.runTo(t), t);
    const r = await drawn();
    assert.equal(r.msgs.length, r.inFlight, `every message in flight is drawn, and only those, at ${t} µs`);
    for (const at of r.msgs) assert.ok(at && at[0] >= 0 && at[0] <= r.w && at[1] >= 0 && at[1] <= r.h, `a message is drawn in the cluster: ${at}`);
    if (r.msgs.length > 0) seen++;
  }
  assert.ok(seen >= 3, `messages were in flight at three moments: ${seen}`);
  // Played at ×1/100, a message in its place moves on a little at each frame.
  await page.evaluate(() => { window.raftlock.setSpeed(0); window.raftlock.play(true); });
  const moved = await page.evaluate(() => new Promise((resolve) => {
    let before = null; let frames = 0; let moves = 0;
    const tick = () => {
      const now = [...document.querySelectorAll('#cluster g.msgs g.msg')].map((g) => ({ kind: g.getAttribute('class'), at: [g.transform.baseVal.consolidate()?.matrix.e, g.transform.baseVal.consolidate()?.matrix.f] }));
      if (before) now.forEach((m, i) => {
        const b = before[i];
        const d = b && b.kind === m.kind && !m.kind.includes('landed') ? Math.hypot(m.at[0] - b.at[0], m.at[1] - b.at[1]) : 0;
        if (d > 0 && d < 20) moves++;
      });
      before = now;
      // Up to 600 frames (about 100 ms of the run: two rounds of heartbeats at least).
      if (++frames < 600 && moves < 5) requestAnimationFrame(tick); else resolve(moves);
    };
    requestAnimationFrame(tick);
  }));
  await page.evaluate(() => window.raftlock.play(false));
  assert.ok(moved >= 5, `messages moved on, a little at a frame: ${moved}`);
  assert.deepEqual(errors, []);
  await page.close();
});
