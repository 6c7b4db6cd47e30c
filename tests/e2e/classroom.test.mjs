// The classroom page: at every caption of every lesson, on a projector (1366×768 and 1920×1080,
// presenter mode), the caption, the cluster and what the caption names are on the screen; no
// text overlaps other text at three sizes, light and dark; the lesson follows a seek; in a
// lesson the tools wait behind one button.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openApp, shot, snap } from './helpers.mjs';

let server, url, browser;
before(async () => { ({ server, url } = await serve()); browser = await launch(); });
after(async () => { await browser.close(); server.close(); });

const lessonOf = (page) => page.evaluate(() => window.raftlock.lesson());
/// Next to the next caption's moment through the handle, revealing its question if it asks one.
const nextCaption = (page) => page.evaluate(() => {
  const r = window.raftlock;
  r.lessonNext();
  if (r.lesson()?.question?.state === 'asking') r.reveal();
});
/// The same with the button: a second click reveals the question in presenter mode; a student
/// answers with the first choice.
async function clickNext(page, pos) {
  await page.click('#lesson-next');
  await page.waitForFunction((p) => {
    const l = window.raftlock.lesson();
    return l.pos === p + 1 || l.question?.state === 'asking';
  }, pos);
  if ((await lessonOf(page)).question?.state === 'asking') {
    await page.click((await page.locator('#reveal').count()) ? '#lesson-next' : '#choice-0');
  }
}

/// The parts lesson().focus names, by selector, with whether each is fully visible: inside the
/// viewport and inside every scrolling box around it.
async function focusVisibility(page) {
  return page.evaluate(() => {
    const l = window.raftlock.lesson();
    const f = l.focus;
    const sel = [
      ...f.nodes.map((k) => `#node-${k} .body`),
      ...f.clients.map((c) => `#client-${c} rect`),
      ...(f.storage ? ['#storage-node rect', '#storage-panel'] : []),
      ...f.keys.map((k) => `#lock-row-${k}`),
      ...(f.log.length ? ['#log-focus'] : []),
      '#caption', 'svg.cluster',
      // A Break-it lesson's twin, beside the run.
      ...(document.querySelector('#half-twin') ? ['#half-run', '#half-twin'] : []),
    ];
    const visible = (el) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) return false;
      const box = { top: r.top + 1, bottom: r.bottom - 1, left: r.left + 1, right: r.right - 1 };
      if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth) return false;
      const bar = document.querySelector('header.bar').getBoundingClientRect();
      if (box.top < bar.bottom) return false;
      for (let p = el.parentElement; p; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX) && p !== document.body && p !== document.documentElement) {
          const c = p.getBoundingClientRect();
          if (box.top < c.top || box.bottom > c.bottom || box.left < c.left || box.right > c.right) return false;
        }
      }
      return true;
    };
    // A key's row is shown only while some node holds a lock on it.
    const missing = sel.filter((s) => { const el = document.querySelector(s); return el ? !visible(el) : !s.startsWith('#lock-row-'); });
    // The expected outcomes are readable whole; every table that shows has its header row on
    // the screen, not covered by anything.
    const outcomes = document.querySelector('.stage .checks-panel');
    if (outcomes && !visible(outcomes)) missing.push('expected outcomes');
    for (const table of document.querySelectorAll('.stage table')) {
      if (table.closest('details:not([open])')) continue;
      const r = table.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      // The header's cells (they stick to the top of a scrolled column; the row box does not).
      const cells = [...(table.tHead?.rows[0]?.cells ?? [])];
      if (!cells.length) continue;
      if (!cells.every(visible)) { missing.push(`${table.className || 'table'} header`); continue; }
      const covered = cells.some((c) => {
        const h = c.getBoundingClientRect();
        const top = document.elementFromPoint(h.left + h.width / 2, h.top + h.height / 2);
        return !top || !c.contains(top);
      });
      if (covered) missing.push(`${table.className || 'table'} header covered`);
    }
    return { pos: l.pos, missing };
  });
}

test('presenter mode: at every caption of every lesson, the caption, the cluster and what it names are on one screen', async () => {
  const { page, errors } = await openApp(browser.context, url);
  const names = await page.evaluate(() => [...document.querySelectorAll('#scenario option')].map((o) => o.value).filter((v) => v));
  let stops = 0;
  const off = [];
  for (const [w, h] of [[1366, 768], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const name of names) {
      await page.evaluate((n) => { location.hash = `#scenario=${n}`; }, name);
      await page.waitForFunction((n) => window.raftlock.snapshot().now_us === 0 && document.querySelector('#scenario').value === n, name);
      const l0 = await lessonOf(page);
      if (!l0 || l0.count === 0) continue;
      if (!(await page.evaluate(() => document.querySelector('.page.presenter')))) await page.click('#presenter');
      await page.waitForSelector('.page.presenter');
      for (let pos = 0; pos <= l0.count; pos++) {
        await page.waitForFunction((p) => window.raftlock.lesson().pos === p && document.querySelector('#lesson-step').textContent.startsWith(`step ${p + 1} `), pos)
          .catch((e) => { throw new Error(`${name} at ${w}×${h}: caption ${pos} never came (${e.message})`); });
        // The page brings the focus into view after it draws: wait for a frame.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const v = await focusVisibility(page);
        stops++;
        if (v.missing.length) off.push(`${name} at ${w}×${h}, caption ${pos}: ${v.missing.join(', ')}`);
        if (w === 1366 && ['gc-pause', 'ghost-lock'].includes(name) && pos === l0.count) console.log('screenshot', await shot(page, `projector-${name}-last`));
        if (pos < l0.count) await clickNext(page, pos);
      }
    }
  }
  console.log(`# ${stops} caption stops checked`);
  assert.deepEqual(off, [], 'off screen');
  assert.ok(stops > 200);
  assert.deepEqual(errors, []);
});

/// Pairs of text boxes that overlap by more than 2 px each way. Each text is measured by a
/// Range over its own text nodes, clipped to every box around it that clips (a scrolling
/// table, an ellipsis) and to between the bars that stay (the top one; a phone's compact one at
/// the bottom); messages in flight move across the
/// drawing on purpose and are left out.
async function overlaps(page) {
  return page.evaluate(() => {
    const boxes = [];
    // The bar sticks to the top with an opaque background: what scrolls under it is hidden.
    const bar = document.querySelector('header.bar');
    const barBottom = bar.getBoundingClientRect().bottom;
    // And a phone's compact bar at the bottom hides what scrolls under it.
    const low = document.querySelector('#phone-bar');
    const lowTop = low && getComputedStyle(low).display !== 'none' ? low.getBoundingClientRect().top : Infinity;
    const clip = (el, r) => {
      if (!bar.contains(el)) r = { left: r.left, right: r.right, top: Math.max(r.top, barBottom), bottom: r.bottom };
      if (low && !low.contains(el)) r = { left: r.left, right: r.right, top: r.top, bottom: Math.min(r.bottom, lowTop) };
      for (let p = el; p && p !== document.body; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (p !== el && !/(auto|scroll|hidden|clip)/.test(s.overflowX + s.overflowY)) continue;
        if (p === el && !/(hidden|clip)/.test(s.overflowX + s.overflowY)) continue;
        const c = p.getBoundingClientRect();
        r = { left: Math.max(r.left, c.left), right: Math.min(r.right, c.right), top: Math.max(r.top, c.top), bottom: Math.min(r.bottom, c.bottom) };
      }
      return r;
    };
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('.msgs, option, select, script, style, title, .overlay')) continue;
      // A folded panel's content is not drawn (its last layout may linger).
      if (el.closest('details:not([open]) > :not(summary)')) continue;
      const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
      if (!texts.length) continue;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || s.display === 'none') continue;
      for (const t of texts) {
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const rr of range.getClientRects()) {
          const r = clip(el, rr);
          if (r.right - r.left > 1 && r.bottom - r.top > 1) boxes.push({ el, r, text: t.textContent.trim().slice(0, 30) });
        }
      }
    }
    const bad = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.el === b.el) continue;
        const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (x > 2 && y > 2) bad.push(`"${a.text}" × "${b.text}"`);
      }
    }
    return bad.slice(0, 10);
  });
}

test('no text overlaps other text at 390×844, 1366×768 and 1920×1080, presenter on and off, light and dark', async () => {
  const { page, errors } = await openApp(browser.context, `${url}#scenario=gc-pause`);
  const found = [];
  for (const [name, moment] of [['gc-pause', 'last'], ['three-clients', 2_100_000], ['drift-and-jump', 4_200_000], ['playground', 3_000_000]]) {
    await page.evaluate((n) => { location.hash = `#scenario=${n}`; }, name);
    await page.waitForFunction((n) => document.querySelector('#scenario').value === n && window.raftlock.snapshot().now_us === 0, name);
    if (moment === 'last') {
      const n = (await lessonOf(page)).count;
      for (let i = 0; i < n; i++) await nextCaption(page);
      await page.waitForFunction((n) => window.raftlock.lesson().pos === n, n);
    } else {
      await page.evaluate((t) => window.raftlock.runTo(t), moment);
    }
    for (const [w, h] of [[390, 844], [1366, 768], [1920, 1080]]) {
      for (const presenter of [false, true]) {
        for (const scheme of ['light', 'dark']) {
          if (scheme === 'dark' && w !== 1366) continue;
          await page.setViewportSize({ width: w, height: h });
          await page.emulateMedia({ colorScheme: scheme });
          await page.evaluate((on) => window.raftlock.presenter(on), presenter);
          await page.waitForFunction((on) => !!document.querySelector('.page.presenter') === on, presenter);
          for (const y of [0, 700, 1400, 2100]) {
            await page.evaluate((y) => window.scrollTo(0, y), y);
            const bad = await overlaps(page);
            if (bad.length) found.push(`${name} at ${w}×${h}${presenter ? ' presenter' : ''} ${scheme}, scrolled to ${y}: ${bad.join(', ')}`);
          }
        }
      }
    }
  }
  assert.deepEqual(found, [], 'text over text');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => { window.raftlock.presenter(false); window.scrollTo(0, 0); });
  console.log('screenshot', await shot(page, 'phone-playground'));
  assert.deepEqual(errors, []);
});

test('the lesson follows time: runTo, seek, the scrubber and a step back put it at the caption of that moment', async () => {
  const { page, errors } = await openApp(browser.context, `${url}#scenario=gc-pause-no-fencing`);
  const l0 = await lessonOf(page);
  assert.equal(l0.pos, 0);
  await page.evaluate(() => window.raftlock.runTo(4_000_000));
  await page.waitForFunction(() => window.raftlock.lesson().pos > 0);
  const l1 = await lessonOf(page);
  assert.equal(await page.locator('#caption').innerText(), l1.caption);
  assert.match(await page.locator('#lesson-step').innerText(), new RegExp(`^step ${l1.pos + 1} of ${l1.count + 1}`));
  assert.notEqual(l1.caption, l0.caption);
  await page.evaluate(() => window.raftlock.seek(0));
  await page.waitForFunction(() => window.raftlock.lesson().pos === 0);
  assert.equal(await page.locator('#caption').innerText(), l0.caption);
  // The scrubber to the end of what was played: the same caption as after runTo.
  await page.locator('#scrubber').fill('4000000');
  await page.waitForFunction((p) => window.raftlock.lesson().pos === p, l1.pos);
  // Next from there goes on to the caption after it, and Back comes back.
  if (l1.pos < l1.count) {
    await clickNext(page, l1.pos);
    await page.waitForFunction((p) => window.raftlock.lesson().pos === p + 1, l1.pos);
    await page.click('#lesson-back');
    await page.waitForFunction((p) => window.raftlock.lesson().pos === p, l1.pos);
  }
  assert.deepEqual(errors, []);
});

test('in a lesson the tools wait behind one button; free play shows everything', async () => {
  const { page, errors } = await openApp(browser.context, `${url}#scenario=gc-pause`);
  for (const id of ['#play', '#speed', '#scrubber', '#lesson-next', '#lesson-back', '#tools']) assert.equal(await page.locator(id).count(), 1, id);
  for (const id of ['#new-seed', '#nodes', '#import', '#export-trace', '#switches-panel', '#hunt-start', '#raft-max_batch']) assert.equal(await page.locator(id).count(), 0, id);
  const buttons = await page.locator('header.bar button:visible, header.bar input:visible, header.bar select:visible').count();
  assert.ok(buttons <= 12, `the lesson's bar has ${buttons} controls`);
  await page.click('#tools');
  for (const id of ['#new-seed', '#nodes', '#import', '#switches-panel', '#hunt-start']) await page.waitForSelector(id);
  await page.click('#tools');
  await page.waitForFunction(() => !document.querySelector('#new-seed'));
  await page.evaluate(() => { location.hash = '#scenario=playground'; });
  await page.waitForSelector('#new-seed');
  assert.equal(await page.locator('#tools').count(), 0, 'free play has no Tools button: everything shows');
  assert.deepEqual(errors, []);
});

test('the lock view: one matrix, countdowns on each node\'s own clock, and the lease arcs on the cluster', async () => {
  const { page, errors } = await openApp(browser.context, `${url}#scenario=gc-pause`);
  await page.evaluate(() => window.raftlock.runTo(1_100_000));
  await page.waitForSelector('#lock-row-k');
  const cells = await page.locator('#lock-row-k td.held').count();
  assert.equal(cells, 5, 'every node holds k for A');
  assert.equal(await page.locator('svg.cluster .lease-arc').count(), 5, 'five countdown arcs');
  const digests = await page.locator('.lockview thead th small').allInnerTexts();
  assert.equal(new Set(digests).size, 1, `one digest: ${digests}`);
  // n3 runs at 2x in drift-and-jump: its countdown differs from the others while the tables agree.
  await page.evaluate(() => { location.hash = '#scenario=drift-and-jump'; });
  await page.waitForFunction(() => document.querySelector('#scenario').value === 'drift-and-jump');
  await page.evaluate(() => window.raftlock.runTo(3_000_000));
  await page.waitForSelector('#lock-row-k td.held');
  const left = await page.locator('#lock-row-k td.held .left').allInnerTexts();
  assert.ok(new Set(left).size > 1, `the countdowns differ: ${left}`);
  console.log('screenshot', await shot(page, 'lock-view-drift'));
  assert.deepEqual(errors, []);
});

test('a caption lists the facts it states, each checked against the run; an invariant the run cannot check says so', async () => {
  const { page, errors } = await openApp(browser.context, `${url}#scenario=gc-pause`);
  await page.evaluate(() => window.raftlock.presenter(false));
  const count = (await lessonOf(page)).count;
  let seen = 0;
  for (let pos = 1; pos <= count; pos++) {
    await nextCaption(page);
    await page.waitForFunction((p) => window.raftlock.lesson().pos === p, pos);
    const l = await lessonOf(page);
    if (!l.facts.length) {
      assert.equal(await page.locator('#caption-facts').count(), 0, `caption ${pos} states no facts`);
      continue;
    }
    await page.waitForFunction((n) => document.querySelectorAll('#caption-facts li').length === n, l.facts.length);
    const shown = await page.locator('#caption-facts li').allTextContents();
    assert.deepEqual(shown, l.facts.map((f) => `✓ ${f.what}`), `caption ${pos}: every fact true and listed`);
    assert.ok(l.facts.every((f) => f.ok));
    seen += l.facts.length;
  }
  assert.ok(seen >= 10, `gc-pause's captions state ${seen} facts`);
  // drift-and-jump: server clocks drift, so the invariants that assume bounded drift are not
  // checked, and the panel says so instead of a green tick.
  await page.evaluate(() => { location.hash = '#scenario=drift-and-jump'; });
  await page.waitForFunction(() => document.querySelector('#scenario').value === 'drift-and-jump');
  await page.evaluate(() => window.raftlock.runTo(4_200_000));
  await page.waitForFunction(() => window.raftlock.snapshot().now_us >= 4_200_000);
  await page.waitForSelector('#inv-one_believed_holder.unchecked');
  assert.match(await page.locator('#inv-one_believed_holder').textContent(), /not checked: server clocks drifted or jumped/);
  assert.equal(await page.locator('#inv-election_safety.ok').count(), 1, 'the others are checked as usual');
  assert.match(await page.locator('#checks').textContent(), /no invariant is violated \(not checked in this run: one client at a time believes it holds a key/);
  assert.deepEqual(errors, []);
});

test('a question is asked before its moment: a right and a wrong answer, the explanation, the score, Back, and Reveal in presenter mode', async () => {
  const { page, errors } = await openApp(browser.context, `${url}#scenario=gc-pause`);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.evaluate(() => window.raftlock.presenter(false));
  await page.waitForFunction(() => !document.querySelector('.page.presenter'));
  for (let i = 0; i < 3; i++) await page.evaluate(() => window.raftlock.lessonNext());
  await page.waitForFunction(() => window.raftlock.lesson().pos === 3);
  const t3 = await page.evaluate(() => window.raftlock.snapshot().now_us);
  // Next asks first and plays nothing.
  await page.click('#lesson-next');
  await page.waitForFunction(() => window.raftlock.lesson().question?.state === 'asking');
  assert.equal(await page.evaluate(() => window.raftlock.snapshot().now_us), t3);
  assert.equal((await lessonOf(page)).pos, 3);
  assert.equal(await page.locator('#question button.choice').count(), 3);
  assert.ok(await page.locator('#lesson-next').isDisabled(), 'a student answers; Next waits');
  // A wrong answer: the moment plays, with the verdict and the explanation.
  await page.click('#choice-0');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 4 && window.raftlock.lesson().question?.state === 'settled');
  assert.match(await page.locator('#question-verdict').textContent(), /^Not this time: you chose “It stays until A wakes/);
  assert.match(await page.locator('#question-explain').textContent(), /only when that entry commits/);
  assert.equal(await page.locator('#quiz-score').textContent(), '0 of 1 right on the first try · 3 questions');
  // Back over the question, then Next: straight to the moment, the score unchanged.
  await page.click('#lesson-back');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 3);
  await page.click('#lesson-next');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 4);
  assert.equal(await page.locator('#quiz-score').textContent(), '0 of 1 right on the first try · 3 questions');
  // Caption 5 asks nothing; caption 6 asks B's token, answered right with a key.
  await page.click('#lesson-next');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 5);
  await page.click('#lesson-next');
  await page.waitForFunction(() => window.raftlock.lesson().question?.state === 'asking' && window.raftlock.lesson().question.caption === 6);
  await page.keyboard.press('2');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 6);
  assert.match(await page.locator('#question-verdict').textContent(), /^Right: 4/);
  assert.equal(await page.locator('#quiz-score').textContent(), '1 of 2 right on the first try · 3 questions');
  const l6 = await lessonOf(page);
  assert.deepEqual([l6.question.answer, l6.question.picked, l6.question.checked], [1, 1, true]);
  // A stray answer() with no question open: a message, and the run stays.
  const t6 = await page.evaluate(() => window.raftlock.snapshot().now_us);
  await page.evaluate(() => window.raftlock.answer(99));
  await page.waitForSelector('#error');
  assert.match(await page.locator('#error').textContent(), /no question to answer/);
  assert.equal(await page.evaluate(() => window.raftlock.snapshot().now_us), t6);
  // Presenter mode: the room is asked, the teacher reveals.
  await page.evaluate(() => window.raftlock.presenter(true));
  await page.waitForSelector('.page.presenter');
  await page.click('#lesson-next');
  await page.waitForSelector('#reveal');
  assert.equal(await page.locator('#question button.choice').count(), 0, 'no answer buttons for the room');
  assert.equal(await page.locator('#question li.choice').count(), 3);
  assert.ok(await page.locator('#question').isVisible());
  console.log('screenshot', await shot(page, 'question-presenter'));
  await page.click('#reveal');
  await page.waitForFunction(() => window.raftlock.lesson().pos === 7 && window.raftlock.lesson().question?.state === 'settled');
  assert.match(await page.locator('#question-verdict').textContent(), /^The answer: Rejects it/);
  assert.equal(await page.locator('#quiz-score').textContent(), '1 of 2 right on the first try · 3 questions');
  // On a phone, a question asked.
  await page.evaluate(() => { window.raftlock.presenter(false); location.hash = '#scenario=late-expire'; });
  await page.waitForFunction(() => document.querySelector('#scenario').value === 'late-expire' && window.raftlock.snapshot().now_us === 0);
  await page.setViewportSize({ width: 390, height: 844 });
  for (let i = 0; i < 3; i++) await page.evaluate(() => window.raftlock.lessonNext());
  await page.evaluate(() => window.raftlock.lessonNext());
  await page.waitForFunction(() => window.raftlock.lesson().question?.state === 'asking');
  assert.equal((await lessonOf(page)).score.answered, 0, 'a new lesson starts a new score');
  await page.evaluate(() => document.querySelector('#question').scrollIntoView());
  console.log('screenshot', await shot(page, 'question-phone'));
  assert.deepEqual(errors, []);
});
