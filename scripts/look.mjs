// Screenshots of a lesson stepped with Next (a developer's look; not a test):
// node scripts/look.mjs NAME WIDTH HEIGHT presenter|plain [dark]   (LOOK_LANG=ru: the Russian page)
import { serve, launch, openApp } from '../tests/e2e/helpers.mjs';
const [name = 'gc-pause', w = '1366', h = '768', mode = 'presenter', scheme = 'light'] = process.argv.slice(2);
const { server, url } = await serve();
const lang = process.env.LOOK_LANG || 'en';
const b = await launch({ locale: lang === 'ru' ? 'ru-RU' : 'en-US' });
const { page, errors } = await openApp(b.context, `${url}#scenario=${name}`);
await page.setViewportSize({ width: +w, height: +h });
await page.emulateMedia({ colorScheme: scheme });
if (mode === 'presenter') await page.evaluate(() => window.raftlock.presenter(true));
const out = process.env.OUT || '/tmp/shots';
for (let i = 0; ; i++) {
  await page.screenshot({ path: `${out}/${name}-${lang}-${w}-${mode}-${i}.png` });
  const l = await page.evaluate(() => window.raftlock.lesson());
  console.log(i, JSON.stringify(l && { pos: l.pos, focus: l.focus }), (await page.evaluate(() => document.documentElement.scrollHeight)));
  if (!l || l.pos >= l.count) break;
  await page.evaluate(() => window.raftlock.lessonNext());
  if ((await page.evaluate(() => window.raftlock.lesson().question?.state)) === 'asking') {
    await page.screenshot({ path: `${out}/${name}-${lang}-${w}-${mode}-${i}-question.png` });
    await page.evaluate(() => window.raftlock.reveal());
  }
  await page.waitForFunction((p) => window.raftlock.lesson().pos > p, l.pos);
}
console.log('errors', errors);
await b.close(); server.close();
