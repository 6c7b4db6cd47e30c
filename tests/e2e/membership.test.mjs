// Membership change in free play (Raft dissertation ch. 4): Add a node joins a learner that is
// promoted once caught up; Remove from the cluster takes a node out, the leader too; a change
// while another is in flight is refused with the reason. State is read through window.raftlock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openApp, snap, shot, lessonToEnd } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const runBy = (page, us) => page.evaluate((us) => window.raftlock.runTo(window.raftlock.snapshot().now_us + us), us);

test('Add a node grows the cluster with a learner, then a voter; Remove takes the leader out', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.equal(await page.locator('#config').count(), 0, 'no configuration heading before any change');
  await page.evaluate(() => window.raftlock.runTo(2_000_000));
  await page.waitForSelector('#add-node:not([disabled])');
  const n = (await snap(page)).nodes.length;
  await page.click('#add-node');
  await page.waitForFunction((k) => window.raftlock.snapshot().membership.learners.includes(k), n + 1);
  await page.waitForSelector(`#node-${n + 1}.learner`);
  assert.match(await page.locator('#config').textContent(), new RegExp(`learners n${n + 1}.*in flight: add n${n + 1}`));
  await runBy(page, 1_000_000);
  await page.waitForFunction((k) => window.raftlock.snapshot().membership.voters.includes(k), n + 1);
  await page.waitForSelector(`#node-${n + 1}:not(.learner)`);
  assert.doesNotMatch(await page.locator('#config').textContent(), /in flight/);

  // The leader removes itself; while that change is in flight another is refused, with the reason.
  const leader = (await snap(page)).leader;
  await page.click(`#node-${leader}`);
  await page.waitForSelector('#node-remove:not([disabled])');
  await page.click('#node-remove');
  await page.waitForFunction((k) => !window.raftlock.snapshot().membership.voters.includes(k), leader);
  const other = leader === 1 ? 2 : 1;
  await page.click(`#node-${other}`);
  await page.waitForSelector('#node-remove[disabled]');
  assert.match(await page.locator('#node-remove').getAttribute('title'), /in flight/);
  console.log('screenshot', await shot(page, 'membership-in-flight'));
  await runBy(page, 2_000_000);
  await page.waitForFunction((k) => { const s = window.raftlock.snapshot(); return s.leader !== null && s.leader !== k; }, leader);
  await page.waitForSelector(`#node-${leader}.removed`);
  const s = await snap(page);
  assert.equal(s.membership.voters.length, n);
  assert.ok(s.invariants.every((i) => i.ok), JSON.stringify(s.invariants.filter((i) => !i.ok)));
  console.log('screenshot', await shot(page, 'membership-removed'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the lesson "one server at a time" steps to its outcome: four voters, the old leader removed, every fact true', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.evaluate(() => { location.hash = '#scenario=membership-one-at-a-time'; });
  await page.waitForFunction(() => window.raftlock.snapshot().now_us === 0 && document.querySelector('#scenario').value === 'membership-one-at-a-time' && window.raftlock.loading() === null);
  await lessonToEnd(page, async (pos) => {
    const l = await page.evaluate(() => window.raftlock.lesson());
    assert.ok(l.facts.every((f) => f.ok), `caption ${pos}: ${JSON.stringify(l.facts)}`);
  });
  const s = await snap(page);
  assert.deepEqual(s.membership, { voters: [1, 3, 4, 5], learners: [] });
  assert.ok(s.invariants.every((i) => i.ok));
  await page.waitForSelector('#node-2.removed');
  assert.match(await page.locator('#config').textContent(), /voters n1 n3 n4 n5/);
  assert.deepEqual(errors, []);
  await page.close();
});
