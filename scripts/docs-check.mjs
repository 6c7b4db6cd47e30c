// `make docs-check`: runs every command the README and docs/ show in a ```sh block, as written, and
// fails on the first that does not exit as the docs say. A command the docs show with a placeholder
// (SCENARIO.json, mine.jsonl, a link) or at a size meant for a long run is run with the stand-in
// below, which keeps its flags; `make serve` and `make test` are not run here (`make test` is the
// CI itself; `make serve` serves until stopped).
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const files = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const bin = 'target/release/raftlock';

// What a placeholder or a long run stands for here: [as the docs write it, as it is run, why].
const standIns = [
  ['SCENARIO.json', 'scenarios/gc-pause.json', 'a placeholder for any scenario'],
  ['mine.jsonl', '/tmp/gc.jsonl', 'a placeholder for one\'s own trace: the one `run --trace` wrote above'],
  ['soak --seeds 100000', 'soak --seeds 300', 'the same command, fewer seeds'],
  ['bench --hours 1 --runs 3 --scaling 2,5,10,20,60,120', 'bench --minutes 1 --runs 1 --scaling 1', 'the same command, a small run'],
  ['--control --runs 10000', '--control --runs 300', 'the same command, fewer runs'],
];
// Not run here: `make test` is the CI itself, `make serve` serves until stopped.
const skip = [/^make (serve|test)\b/];

let link = null;
let ran = 0;
for (const file of files) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  for (const block of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)) {
    for (const raw of block[1].split('\n')) {
      let cmd = raw.replace(/\s+#\s.*$/, '').trim();
      if (!cmd || skip.some((r) => r.test(cmd))) continue;
      const shown = cmd;
      cmd = cmd.replaceAll('cargo run --release --', bin);
      for (const [from, to] of standIns) cmd = cmd.replaceAll(from, to);
      // The link the `link` command printed above stands for the one the docs abbreviate.
      cmd = cmd.replace(/'http:\/\/127\.0\.0\.1:8080\/#v1\.\.\.\.'/, () => `'${link}'`);
      process.stdout.write(`${file}: ${shown}\n`);
      let out;
      try {
        out = execSync(cmd, { cwd: root, shell: '/bin/bash', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 }).toString();
      } catch (e) {
        console.error(`FAILED (exit ${e.status}): ${cmd}\n${e.stdout}${e.stderr}`);
        process.exit(1);
      }
      if (/ link /.test(` ${cmd} `)) link = out.trim().split('\n').pop();
      ran++;
    }
  }
}
if (ran === 0) {
  console.error('no command found in the docs');
  process.exit(1);
}
console.log(`docs-check: ${ran} commands from the docs ran and exited 0`);
