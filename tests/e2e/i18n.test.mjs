// Russian and English: the browser's language opens the page in it, a switch changes it at once
// without losing the run, the choice is remembered, a `lang` in a link wins, and every built-in
// lesson plays in Russian.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openApp, openTools, shot, snap, checkHistory, DIST } from './helpers.mjs';

let srv, ru, en;
before(async () => {
  srv = await serve();
  ru = await launch({ locale: 'ru-RU' });
  en = await launch({ locale: 'en-US' });
});
after(async () => { await ru.close(); await en.close(); srv.server.close(); });

const lang = (page) => page.evaluate(() => window.raftlock.lang());

// Words that stay as they are in Russian: identifiers (commands, results, messages, switches,
// settings named in code), names, and the language menu's own names.
const IDENTIFIERS = new Set(`raftlock Raft Grant Grants Release Expire Granted Expired Released NotHeld Busy Refused
  Rejected Ok GC JSON JSONL URL CLI API AppendEntries RequestVote InstallSnapshot PreVote check-quorum pre-vote
  Figure Kleppmann Redlock English seed fencing heartbeat append vote snap iframe Language Tab Esc Space Enter
  Shift Home End PageUp PageDown true false existed ppm etcd Chubby ZooKeeper zxid Ongaro MaxSizePerMsg fencing- playground Noop How distributed locking votedFor nextIndex`.split(/\s+/));

/// Every word a reader meets: the text (panels off screen too), accessible names, tooltips, and
/// the placeholders and labels of inputs; minus identifiers, numbers and names.
async function englishLeft(page) {
  const text = await page.evaluate(() => {
    const parts = [document.title];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.parentElement.closest('script,style,noscript') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let n = walk.nextNode(); n; n = walk.nextNode()) parts.push(n.nodeValue);
    for (const el of document.querySelectorAll('[aria-label],[title],[placeholder],optgroup[label]')) {
      for (const a of ['aria-label', 'title', 'placeholder', 'label']) if (el.hasAttribute(a)) parts.push(el.getAttribute(a));
    }
    return parts.join(' \n ');
  });
  const words = text
    .replace(/\b[\w.-]*_[\w.-]*\b/g, ' ') // snake_case identifiers (invariants, actions, fields)
    .replace(/\b[a-z0-9]+(-[a-z0-9]+)+\b/g, ' ') // kebab-case names (scenarios, check-quorum, pre-vote)
    .replace(/[A-Z][a-z]+\{[^}]*\}/g, ' ') // Granted{41}, Expired{true}
    .replace(/https?:\/\/\S+|#v1\.\S+|#\S+/g, ' ')
    .match(/[A-Za-z][A-Za-z'-]{2,}/g) || [];
  return [...new Set(words.filter((w) => !IDENTIFIERS.has(w) && !/^(n\d|c\d|k\d)/.test(w)))];
}

test('a browser in ru-RU opens the page in Russian, with no English word left outside identifiers', async () => {
  const { page, errors } = await openApp(ru.context, srv.url);
  assert.equal(await lang(page), 'ru');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ru');
  await page.evaluate(() => window.raftlock.runTo(3_000_000));
  await checkHistory(page);
  const free = await englishLeft(page);
  // A lesson with a question, and the help dialog.
  await page.goto(`${srv.url}#scenario=gc-pause`);
  // A hash change: the lesson in view stays until the new one's file has come.
  await page.waitForFunction(() => window.raftlock && window.raftlock.loading() === null && document.querySelector('#scenario').value === 'gc-pause');
  await openTools(page);
  const lesson = await englishLeft(page);
  await page.click('#help');
  await page.waitForSelector('[role=dialog]');
  const help = await englishLeft(page);
    assert.match(await page.locator('#caption').innerText(), /[а-яё]/i);
  await page.keyboard.press('Escape');
  console.log('screenshot', await shot(page, 'ru-lesson'));
  // A break-it lesson at its violation: the event line and its detail.
  await page.goto(`${srv.url}#scenario=break-token-counter`);
  // A hash change: the lesson in view stays until the new one's file has come.
  await page.waitForFunction(() => window.raftlock && window.raftlock.loading() === null && document.querySelector('#scenario').value === 'break-token-counter');
  await page.evaluate(() => window.raftlock.runTo(1e12));
  await page.waitForFunction(() => /НАРУШЕНИЕ/.test(document.querySelector('ol.events').textContent));
  const broken = await englishLeft(page);
  assert.deepEqual({ free, lesson, help, broken }, { free: [], lesson: [], help: [], broken: [] }, 'English words left in the Russian page');
  assert.deepEqual(errors, []);
  await page.close();
});

test('switching the language mid-run keeps the run, its moment and its hash, and is remembered', async () => {
  const { page, errors } = await openApp(en.context, `${srv.url}#scenario=gc-pause`);
  assert.equal(await lang(page), 'en');
  await page.click('#lesson-next');
  await page.waitForFunction(() => window.raftlock.lesson().pos >= 1 && !window.raftlock.job().busy);
  const before = await snap(page);
  const captionEn = await page.locator('#caption').innerText();
  await page.selectOption('#lang', 'ru');
  await page.waitForFunction(() => window.raftlock.lang() === 'ru');
  const after = await snap(page);
  assert.equal(after.trace_hash, before.trace_hash, 'the same run');
  assert.equal(after.now_us, before.now_us, 'at the same moment');
  assert.equal((await page.evaluate(() => window.raftlock.lesson())).pos, 1);
  const captionRu = await page.locator('#caption').innerText();
  assert.notEqual(captionRu, captionEn);
  assert.match(captionRu, /[а-яё]/i);
  assert.match(await page.evaluate(() => location.hash), /[#&]lang=ru/, 'the address carries the language');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ru');
  // A share link made now opens in Russian elsewhere.
  await page.click('#share');
  const link = await page.locator('#share-url').inputValue();
  assert.match(link, /&lang=ru$/);
  // The choice is remembered: a new tab of this browser opens in Russian without `lang`.
  const { page: p2 } = await openApp(en.context, `${srv.url}#scenario=three-clients`);
  assert.equal(await lang(p2), 'ru');
  await p2.selectOption('#lang', 'en');
  await p2.waitForFunction(() => window.raftlock.lang() === 'en');
  assert.doesNotMatch(await p2.evaluate(() => location.hash), /lang=/, 'English links carry no language');
  await p2.close();
  // A bad language through the handle is refused with a message and changes nothing.
  const r = await page.evaluate(() => window.raftlock.setLang('xx'));
  assert.ok(r === null || typeof r === 'string');
  assert.equal(await lang(page), 'ru');
  assert.match(await page.locator('#error').innerText(), /xx/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the Russian texts are a file of their own: an English page never asks for it, a switch asks once, a failure says so', async () => {
  // No service worker: it would answer before page.route could.
  const b = await launch({ locale: 'en-US', serviceWorkers: 'block' });
  try {
    const page = await b.context.newPage();
    const asked = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(`${srv.url}#scenario=gc-pause`);
    await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && window.raftlock.loading() === null);
    await page.click('#lesson-next');
    await page.waitForFunction(() => window.raftlock.lesson().pos >= 1 && !window.raftlock.job().busy);
    assert.deepEqual(asked.filter((p) => p.endsWith('/ru.json')), [], 'an English page loads no Russian');
    const before = await snap(page);
    // Held back at first: the page stays English and says why; the run stays.
    await page.route('**/ru.json', (route) => route.fulfill({ status: 404, body: 'not found' }));
    await page.selectOption('#lang', 'ru');
    await page.waitForFunction(() => /Russian texts could not be loaded: the host answered HTTP 404/.test(document.querySelector('#russian-error')?.textContent || ''));
    assert.equal(await lang(page), 'en');
    assert.equal(await page.inputValue('#lang'), 'en', 'the menu shows the language the page is in');
    assert.match(await page.locator('#russian-error').innerText(), /Русские тексты страницы не загрузились/);
    assert.equal((await snap(page)).trace_hash, before.trace_hash);
    // A file of another version is refused the same way.
    await page.unroute('**/ru.json');
    await page.route('**/ru.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '["один"]' }));
    await page.selectOption('#lang', 'ru');
    await page.waitForFunction(() => /not this version's texts/.test(document.querySelector('#russian-error')?.textContent || ''));
    assert.equal(await lang(page), 'en');
    // Served: the page switches, with the caption in Russian, at the same moment.
    await page.unroute('**/ru.json');
    await page.selectOption('#lang', 'ru');
    await page.waitForFunction(() => window.raftlock.lang() === 'ru');
    assert.equal(await page.locator('#russian-error').count(), 0, 'the message goes when Russian comes');
    assert.match(await page.locator('#caption').innerText(), /[а-яё]/i);
    assert.match(await page.locator('#play').innerText(), /Пуск/);
    assert.equal((await snap(page)).trace_hash, before.trace_hash);
    assert.equal(asked.filter((p) => p.endsWith('/ru.json')).length, 3, 'one request a choice');
    // Back and forth now asks for nothing.
    await page.selectOption('#lang', 'en');
    await page.waitForFunction(() => window.raftlock.lang() === 'en');
    await page.selectOption('#lang', 'ru');
    await page.waitForFunction(() => window.raftlock.lang() === 'ru');
    assert.equal(asked.filter((p) => p.endsWith('/ru.json')).length, 3);
    // A Russian page whose texts do not come opens in English and says why (never a blank).
    await page.route('**/ru.json', (route) => route.abort());
    await page.goto(`${srv.url}#scenario=gc-pause&lang=ru`);
    await page.reload();
    await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster') && window.raftlock.loading() === null);
    assert.equal(await lang(page), 'en');
    assert.match(await page.locator('#russian-error').innerText(), /Russian texts could not be loaded: the host could not be reached/);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en', 'the document says English');
    // Its ✕ closes it.
    await page.click('#russian-error button');
    assert.equal(await page.locator('#russian-error').count(), 0);
    await page.close();
  } finally {
    await b.close();
  }
});

test('a hand-made #lang=ru opens the default page in Russian, and a link that arrives later switches it', async () => {
  const fresh = await launch({ locale: 'en-US' });
  try {
    const { page, errors } = await openApp(fresh.context, `${srv.url}#lang=ru`);
    assert.equal(await lang(page), 'ru');
    assert.equal(await page.locator('#error').count(), 0, 'no error');
    // A link pasted into the open page carries its language to the document too.
    await page.evaluate(() => { location.hash = '#scenario=gc-pause&lang=en'; });
    await page.waitForFunction(() => window.raftlock.lang() === 'en' && document.documentElement.lang === 'en');
    assert.equal(await page.evaluate(() => document.title), 'raftlock — Raft, leases and fencing tokens, in your browser');
    assert.deepEqual(errors, []);
    await page.close();
  } finally { await fresh.close(); }
});

test('a lang in the link wins over the browser\'s language', async () => {
  const fresh = await launch({ locale: 'ru-RU' });
  try {
    const { page } = await openApp(fresh.context, `${srv.url}#scenario=ghost-lock&lang=en`);
    assert.equal(await lang(page), 'en');
    assert.doesNotMatch(await page.locator('#caption').innerText(), /[а-яё]/i);
    await page.close();
  } finally { await fresh.close(); }
  const fresh2 = await launch({ locale: 'en-US' });
  try {
    // A share link (#v1.…) with `&lang=ru`, in an English browser.
    const doc = { version: 1, name: 'mine', seed: 3, nodes: 3, until_ms: 3000 };
    const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc))).toString('base64url');
    const { page, errors } = await openApp(fresh2.context, `${srv.url}#v1.${packed}.1500000&lang=ru`);
    assert.equal(await lang(page), 'ru');
    await page.waitForFunction(() => window.raftlock.snapshot().now_us === 1500000);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'ru');
    assert.deepEqual(errors, []);
    await page.close();
  } finally { await fresh2.close(); }
});

test('a broken link is refused in Russian, and the default scenario stays', async () => {
  const { page, errors } = await openApp(ru.context, `${srv.url}#v7.abc.0`);
  const e = await page.locator('#error').innerText();
  assert.match(e, /ссылка в формате v7/);
  assert.doesNotMatch(e, /this link|could not/);
  assert.equal((await snap(page)).nodes.length, 5);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a student\'s trace is checked in Russian: the finding and the seed\'s rule in the reader\'s words', async () => {
  const CLI = path.resolve(DIST, '../target/release/raftlock');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'raftlock-ru-trace-')), 'stale.jsonl');
  execFileSync(CLI, ['run', '--builtin', 'gc-pause', '--trace', file]);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"accepted":false', '"accepted":true'));
  const { page, errors } = await openApp(ru.context, srv.url);
  await openTools(page);
  await page.setInputFiles('#open-trace', file);
  await page.waitForFunction(() => window.raftlock.trace()?.check === 'done');
  const findings = await page.textContent('#trace-panel, .trace-panel, main, body');
  assert.match(findings, /хранилище приняло токен 2 для k после того, как приняло токен 4/);
  assert.match(findings, /Fencing: хранилище принимает запись только с токеном/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the hunt reports in Russian and opens its find as a Russian lesson', async () => {
  const { page, errors } = await openApp(ru.context, srv.url);
  await page.uncheck('#switch-no_check_quorum');
  await page.click('#hunt-start');
  await page.waitForFunction(() => /^Найдено/.test(document.querySelector('#hunt-status')?.textContent || ''), null, { timeout: 60000 });
  const status = await page.locator('#hunt-status').textContent();
  assert.match(status, /в прогоне 2 нарушен инвариант «отрезанный лидер слагает полномочия \(живучесть\)» \(n\d всё ещё лидер терма/);
  await page.waitForFunction(() => window.raftlock.lesson() !== null);
  assert.equal(await page.locator('#lesson-untranslated').count(), 0, 'the found lesson has its Russian');
  assert.match((await page.evaluate(() => window.raftlock.lesson())).caption, /Найдено поиском/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lesson without Russian falls back to English and says so', async () => {
  const doc = {
    version: 1, name: 'english-only', seed: 7, nodes: 3, until_ms: 3000,
    lesson: { title: 'Only English', captions: [{ at_ms: 1000, text: 'A caption in English only.' }] },
  };
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc))).toString('base64url');
  const { page, errors } = await openApp(ru.context, `${srv.url}#v1.${packed}.0`);
  assert.equal(await lang(page), 'ru');
  await page.waitForSelector('#lesson-untranslated');
  assert.match(await page.locator('#lesson-untranslated').innerText(), /[а-яё]/i);
  assert.deepEqual(errors, []);
  await page.close();
});

test('every built-in lesson plays in Russian, caption by caption', async () => {
  const page = await ru.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(srv.url);
  await page.waitForFunction(() => window.raftlock && document.querySelector('svg.cluster'));
  const names = await page.evaluate(() => [...document.querySelectorAll('#scenario option')].map((o) => o.value).filter(Boolean));
  assert.ok(names.length >= 20, `${names.length} built-in scenarios`);
  for (const name of names) {
    await page.goto(`${srv.url}#scenario=${name}`);
    await page.waitForFunction((n) => window.raftlock && window.raftlock.snapshot() && document.querySelector('#scenario').value === n, name);
    const first = await page.evaluate(() => window.raftlock.lesson());
    if (!first) continue; // free play
    assert.equal(await page.locator('#lesson-untranslated').count(), 0, `${name}: every text has Russian`);
    const settled = (p) => page.waitForFunction((p) => {
      const x = window.raftlock.lesson();
      return (x.pos > p || x.question?.state === 'asking') && !window.raftlock.job().busy;
    }, p, { timeout: 60000 });
    for (let guard = 0; guard < 40; guard++) {
      const l = await page.evaluate(() => window.raftlock.lesson());
      assert.match(l.caption, /[а-яё]/i, `${name} caption ${l.pos}: Russian`);
      if (l.pos >= l.count) break;
      await page.evaluate(() => window.raftlock.lessonNext());
      await settled(l.pos);
      const q = (await page.evaluate(() => window.raftlock.lesson())).question;
      if (q && q.state === 'asking') {
        assert.match(q.prompt, /[а-яё]/i, `${name}: a Russian question`);
        await page.evaluate(() => window.raftlock.answer(0));
        await page.waitForFunction((p) => {
          const x = window.raftlock.lesson();
          return x.pos > p && x.question?.state !== 'asking' && !window.raftlock.job().busy;
        }, l.pos, { timeout: 60000 });
      }
    }
    const done = await page.evaluate(() => window.raftlock.lesson());
    assert.equal(done.pos, done.count, `${name}: reaches its last caption in Russian`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
