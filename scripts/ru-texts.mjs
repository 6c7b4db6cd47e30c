// Trunk post-build step (scripts/post-build.sh): write the interface's Russian into the build as
// `ru.json`, the values of i18n/ru.json in the order of their sorted keys (UTF-8 byte order, as
// Rust sorts strings): the numbers the `t!` macro gives its texts. The page fetches it only for a
// reader who wants Russian; core/build.rs compiles the same order into the CLI and the tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, src = '.'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/ru-texts.mjs STAGING_DIR [SOURCE_DIR]');
  process.exit(2);
}
const map = JSON.parse(readFileSync(join(src, 'i18n', 'ru.json'), 'utf8'));
const keys = Object.keys(map).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
writeFileSync(join(dir, 'ru.json'), JSON.stringify(keys.map((k) => map[k])));
