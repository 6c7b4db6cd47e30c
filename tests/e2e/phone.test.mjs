// A phone (390×844) and the keyboard: the compact bar keeps Play, the time and the lesson's Back
// and Next on screen; the cluster's words read at 12 px or more; the clocks table wraps instead of
// scrolling sideways; a node's own controls open from the node; and Tab never leaves the focused
// control under a bar that stays (the phone's at the bottom, the wide page's at the top).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openApp, snap, shot } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

async function phone() {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => document.querySelector('svg.cluster.narrow'));
  return { page, errors };
}

async function openLesson(page, name) {
  await page.evaluate((n) => { location.hash = `#scenario=${n}`; }, name);
  await page.waitForFunction((n) => window.raftlock.loading() === null && document.querySelector('#scenario').value === n && window.raftlock.lesson(), name);
}

test('a phone keeps Play, the time and Back/Next in a bar of at most 15% of the height', async () => {
  const { page, errors } = await phone();
  await openLesson(page, 'gc-pause');
  const bar = page.locator('#phone-bar');
  const box = await bar.boundingBox();
  assert.ok(box.height <= 0.15 * 844, `the bar is ${box.height} px high`);
  assert.ok(Math.abs(box.y + box.height - 844) <= 1, 'at the bottom of the screen');
  // Scrolled to the clocks, the bar is still there, and its Next moves the lesson.
  await page.locator('#clocks-panel').scrollIntoViewIfNeeded();
  const after = await bar.boundingBox();
  assert.ok(Math.abs(after.y + after.height - 844) <= 1, 'it stays while the page scrolls');
  assert.equal(await page.locator('#phone-step').innerText(), '1/' + (await page.evaluate(() => window.raftlock.lesson().count + 1)));
  await page.click('#phone-next');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 1 && !window.raftlock.job().busy);
  assert.equal(await page.locator('#phone-step').innerText(), '2/' + (await page.evaluate(() => window.raftlock.lesson().count + 1)));
  assert.equal(await page.locator('#phone-now').innerText(), await page.locator('#now').innerText());
  await page.click('#phone-back');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 0 && !window.raftlock.job().busy);
  await page.click('#phone-play');
  await page.waitForFunction(() => window.raftlock.snapshot().now_us > 0);
  await page.click('#phone-play');
  await page.waitForFunction(() => document.querySelector('#phone-play').getAttribute('aria-pressed') === 'false');
  // Wider than a phone, the bar is not shown (the full bar at the top has it all).
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.waitForFunction(() => !document.querySelector('svg.cluster.narrow'));
  assert.equal(await bar.isVisible(), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone the nodes read at 12 px or more and the clocks table needs no sideways scroll', async () => {
  const { page, errors } = await phone();
  await page.evaluate(() => window.raftlock.runTo(1_000_000));
  const sizes = await page.evaluate(() => [...document.querySelectorAll('#cluster .node text.name, #cluster .node text.role, #cluster .node text.term')]
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a));
  assert.equal(sizes.length, 15, 'a name, a role and a term on each of 5 nodes');
  assert.ok(sizes.every((s) => s >= 12), `rendered sizes ${sizes.map((s) => s.toFixed(1))}`);
  await page.locator('#clocks-panel').scrollIntoViewIfNeeded();
  const wide = await page.evaluate(() => { const e = document.querySelector('#clocks-panel'); return [e.scrollWidth, e.clientWidth]; });
  assert.ok(wide[0] <= wide[1], `the clocks panel scrolls sideways: ${wide}`);
  for (const id of ['#rate-5', '#crash-5', '#pause-5']) {
    const b = await page.locator(id).boundingBox();
    assert.ok(b.x >= 0 && b.x + b.width <= 390, `${id} is within the screen's width`);
  }
  console.log('screenshot', await shot(page, 'phone-clocks'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a click on a node opens its controls: its clock snaps to ×2, Esc gives the focus back, Space opens them', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.evaluate(() => window.raftlock.runTo(500_000));
  await page.click('#node-3');
  await page.waitForSelector('#node-controls');
  assert.match(await page.locator('#node-controls-title').innerText(), /^n3 · (follower|leader|candidate) · local clock 0\.500 s$/);
  // The controls take the focus (not the slider: the arrow keys still step the run), and Tab
  // reaches the slider.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'node-controls');
  assert.equal(await page.locator('#node-3').getAttribute('aria-expanded'), 'true');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'node-rate');
  // The slider snaps: one step down from ×4 is ×2, and it says so (its ppm in the tooltip).
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.raftlock.snapshot().nodes[2].rate_ppm === 4_000_000);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => window.raftlock.snapshot().nodes[2].rate_ppm === 2_000_000);
  assert.equal(await page.locator('#node-controls output').innerText(), '×2');
  assert.equal(await page.locator('#node-rate').getAttribute('aria-valuetext'), '×2');
  assert.match(await page.locator('#node-rate').getAttribute('title'), /^2000000 ppm of true time \(\+1000000 ppm drift\)$/);
  assert.equal(await page.locator('#rate-3').getAttribute('aria-valuetext'), '×2', 'the clocks table says the same');
  await page.click('#node-crash-3');
  await page.waitForFunction(() => window.raftlock.snapshot().nodes[2].up === false);
  assert.equal(await page.locator('#node-crash-3').innerText(), 'Restart');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#node-controls', { state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'node-3', 'the focus goes back to the node');
  assert.equal(await page.locator('#node-3').getAttribute('aria-expanded'), 'false');
  // By keyboard alone: Space on the focused node opens them again, and does not also play.
  const before = (await snap(page)).now_us;
  await page.keyboard.press(' ');
  await page.waitForSelector('#node-controls');
  assert.equal(await page.locator('#play').getAttribute('aria-pressed'), 'false', 'Space on a node does not play');
  assert.equal((await snap(page)).now_us, before);
  assert.deepEqual(errors, []);
  await page.close();
});

/// Tab (or Shift+Tab) `n` times; after each, the focused element is visible and not under `bar`.
async function tabAround(page, bar, n, key) {
  const covered = [];
  for (let i = 0; i < n; i++) {
    await page.keyboard.press(key);
    const c = await page.evaluate((sel) => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const b = document.querySelector(sel).getBoundingClientRect();
      const r = el.getBoundingClientRect();
      if (r.width === 0 || el.closest(sel)) return null;
      const under = r.bottom > b.top && r.top < b.bottom;
      const off = r.bottom <= 0 || r.top >= innerHeight;
      return under || off ? `${el.id || el.tagName}: ${r.top.toFixed(0)}–${r.bottom.toFixed(0)}, bar ${b.top.toFixed(0)}–${b.bottom.toFixed(0)}` : null;
    }, bar);
    if (c) covered.push(c);
  }
  return covered;
}

test('Tab and Shift+Tab never leave the focused control under a bar that stays', async () => {
  const { page, errors } = await openApp(browser.context, url);
  await page.setViewportSize({ width: 1366, height: 768 });
  await openLesson(page, 'gc-pause');
  await page.evaluate(() => window.raftlock.lessonNext());
  await page.waitForFunction(() => window.raftlock.lesson().pos === 1 && !window.raftlock.job().busy);
  await page.evaluate(() => document.activeElement?.blur());
  assert.deepEqual(await tabAround(page, 'header.bar', 120, 'Tab'), [], 'Tab on a wide screen');
  assert.deepEqual(await tabAround(page, 'header.bar', 120, 'Shift+Tab'), [], 'Shift+Tab on a wide screen');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => document.querySelector('svg.cluster.narrow'));
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  assert.deepEqual(await tabAround(page, '#phone-bar', 120, 'Tab'), [], 'Tab on a phone');
  assert.deepEqual(await tabAround(page, '#phone-bar', 120, 'Shift+Tab'), [], 'Shift+Tab on a phone');
  assert.deepEqual(errors, []);
  await page.close();
});
