// Which elements get labels on the 25 saved real pages (../shared/pages), under each rule set: `--hints vimium`
// (exactly Vimium's), and vimgpt's (Vimium's and what a person would click beyond them). Each page is served on
// 127.0.0.1 and read with `vimgpt hints URL --json`; an element is the same under both when its tag, text and box
// (to the pixel) are. Prints a table a page and the totals: labels under each, how many of Vimium's vimgpt keeps (it
// must keep every one), and vimgpt's extra labels by the reason it gave them.
//
//   node bench/hints/parity.mjs VIMGPT_BINARY [PAGES_DIR]
import {execFile} from 'node:child_process';
import {createReadStream, existsSync, readdirSync} from 'node:fs';
import {createServer} from 'node:http';
import {extname, join, resolve} from 'node:path';
import {promisify} from 'node:util';

const binary = process.argv[2];
const pages = resolve(process.argv[3] || new URL('../../../shared/pages', import.meta.url).pathname);
if (!binary || !existsSync(pages)) {
  console.error('usage: node bench/hints/parity.mjs VIMGPT_BINARY [PAGES_DIR] (the saved pages: ../shared/pages)');
  process.exit(64);
}
const types = {'.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.svg': 'image/svg+xml', '.gif': 'image/gif', '.webp': 'image/webp'};
const server = createServer((req, res) => {
  const path = join(pages, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!path.startsWith(pages) || !existsSync(path)) { res.writeHead(404).end(); return; }
  res.writeHead(200, {'content-type': types[extname(path)] || 'application/octet-stream'});
  createReadStream(path).on('error', () => res.end()).pipe(res);
});
await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
const base = `http://127.0.0.1:${server.address().port}/`;

const key = (h) => [h.tag, h.text, Math.round(h.rect.x), Math.round(h.rect.y), Math.round(h.rect.width),
  Math.round(h.rect.height)].join('|');
// Asynchronous: the pages are served by this same process while vimgpt reads them.
const hintsOf = async (page, rules) => JSON.parse((await promisify(execFile)(
    binary, ['hints', base + page, '--json', '--hints', rules], {encoding: 'utf8', maxBuffer: 64 << 20})).stdout);

const rows = [];
const total = {vimium: 0, vimgpt: 0, kept: 0, extra: {}};
for (const page of readdirSync(pages).filter((f) => f.endsWith('.html') && f !== 'README.md').sort()) {
  let vimium, vimgpt;
  try {
    vimium = await hintsOf(page, 'vimium');
    vimgpt = await hintsOf(page, 'vimgpt');
  } catch (error) {
    rows.push([page, 'failed: ' + String(error.message).split('\n')[0]]);
    continue;
  }
  const ours = new Set(vimgpt.map(key));
  const kept = vimium.filter((h) => ours.has(key(h))).length;
  const theirs = new Set(vimium.map(key));
  const extra = {};
  for (const h of vimgpt.filter((h) => !theirs.has(key(h)))) {
    const why = h.reason || 'rule';
    extra[why] = (extra[why] || 0) + 1;
    total.extra[why] = (total.extra[why] || 0) + 1;
  }
  total.vimium += vimium.length;
  total.vimgpt += vimgpt.length;
  total.kept += kept;
  rows.push([page, vimium.length, vimgpt.length, kept,
    Object.entries(extra).map(([why, n]) => `${why} ${n}`).join(', ') || '-']);
}
server.close();
console.log('| page | vimium | vimgpt | of Vimium\'s kept | vimgpt\'s extra, by reason |');
console.log('|---|---:|---:|---:|---|');
for (const row of rows) console.log('| ' + row.join(' | ') + ' |');
console.log(`| **all ${rows.length}** | **${total.vimium}** | **${total.vimgpt}** | **${total.kept}** | ` +
            Object.entries(total.extra).map(([why, n]) => `${why} ${n}`).join(', ') + ' |');
