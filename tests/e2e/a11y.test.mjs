// Everyone can operate it: axe-core (WCAG 2 A/AA and 2.1 A/AA) finds nothing on the start screen,
// free play (also with a node's controls open), a lesson, and a Break-it lesson's end beside its
// twin (also in presenter mode), in light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { serve, launch } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const AXE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../node_modules/axe-core/axe.min.js');

/// axe's violations on the page as it is: "rule: selector" lines.
async function violations(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  });
}

async function openLesson(page, name) {
  await page.evaluate((n) => { location.hash = `#scenario=${n}`; }, name);
  await page.waitForFunction((n) => window.raftlock.loading() === null && document.querySelector('#scenario').value === n && window.raftlock.lesson(), name);
}

for (const scheme of ['light', 'dark']) {
  test(`axe finds no WCAG 2.1 AA violation, ${scheme}: start screen, free play, a lesson, a Break-it end`, async () => {
    const page = await browser.context.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(url);
    await page.waitForSelector('#start-screen');
    assert.deepEqual(await violations(page), [], 'the start screen');
    await page.click('#start-free');
    await page.waitForSelector('#start-screen', { state: 'detached' });
    assert.deepEqual(await violations(page), [], 'free play');
    await page.click('#node-2');
    await page.waitForSelector('#node-controls');
    assert.deepEqual(await violations(page), [], "free play with a node's controls open");
    await page.keyboard.press('Escape');
    await page.waitForSelector('#node-controls', { state: 'detached' });
    await openLesson(page, 'gc-pause');
    await page.evaluate(() => window.raftlock.lessonNext());
    await page.waitForFunction(() => window.raftlock.lesson().pos >= 1 && !window.raftlock.job().busy);
    assert.deepEqual(await violations(page), [], 'a lesson');
    await openLesson(page, 'break-token-counter');
    const count = (await page.evaluate(() => window.raftlock.lesson())).count;
    for (let pos = 0; pos < count; pos++) {
      await page.evaluate(() => { const r = window.raftlock; r.lessonNext(); if (r.lesson()?.question?.state === 'asking') r.reveal(); });
      await page.waitForFunction((p) => window.raftlock.lesson().pos === p + 1 && !window.raftlock.job().busy, pos);
    }
    assert.deepEqual(await violations(page), [], 'a Break-it lesson at its end, beside its twin');
    await page.evaluate(() => window.raftlock.presenter(true));
    assert.deepEqual(await violations(page), [], 'the same in presenter mode');
    await page.close();
  });
}

test('sliders say their value in words; the event list is quiet while playing; dropdowns follow dark mode', async () => {
  const { openApp, openTools } = await import('./helpers.mjs');
  const { page, errors } = await openApp(browser.context, url);
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.match(await page.locator('#speed').getAttribute('aria-valuetext'), /^×1\/5$/);
  assert.equal(await page.locator('#scrubber').getAttribute('aria-valuetext'), '0.000 s');
  await openTools(page);
  assert.equal(await page.locator('#rate-1').getAttribute('aria-valuetext'), '×1');
  assert.equal(await page.locator('ol.events').getAttribute('aria-live'), 'polite');
  // (A panel off screen is not redrawn while playing: bring the list into view.)
  await page.locator('ol.events').scrollIntoViewIfNeeded();
  await page.evaluate(() => window.raftlock.play(true));
  await page.waitForFunction(() => document.querySelector('ol.events')?.getAttribute('aria-live') === 'off');
  await page.evaluate(() => window.raftlock.play(false));
  await page.waitForFunction(() => document.querySelector('ol.events')?.getAttribute('aria-live') === 'polite');
  assert.equal(await page.locator('#scenario').evaluate((s) => getComputedStyle(s).colorScheme), 'light dark');
  assert.deepEqual(errors, []);
  await page.close();
});
