// Trunk post-build step (scripts/post-build.sh): write the interface's Russian into the build as
// `ru.json`: an array of the keys' fingerprint (8 hex digits), then the values of i18n/ru.json in
// the order of their sorted keys (UTF-8 byte order, as Rust sorts strings): the numbers `t!` gives
// its texts. The page fetches it only for a
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
// The keys' fingerprint, as core/build.rs computes it (FNV-1a, 32 bits, over each key's UTF-8
// bytes and a zero byte): the page refuses a file made from other keys.
let hash = 0x811c9dc5;
for (const k of keys) {
  for (const b of [...Buffer.from(k), 0]) hash = Math.imul(hash ^ b, 0x01000193) >>> 0;
}
writeFileSync(join(dir, 'ru.json'), JSON.stringify([hash.toString(16).padStart(8, '0'), ...keys.map((k) => map[k])]));
