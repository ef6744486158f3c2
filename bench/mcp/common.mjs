// What the MCP benchmarks share: an image's tokens, medians, Debian's Chromium resolving no host but 127.0.0.1, an
// environment with no model's keys, and the loopback site (the saved pages, two pages that link to each other, a dense
// page).
import {spawn} from 'node:child_process';
import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

// An image's tokens. OpenAI by a current model's rule (gpt-5.4's and gpt-5.5's: models.json's openai-gpt5x family,
// from OpenAI's vision guide): 32-px patches, an image of more than 2,500 shrunk to fit, times 1.2. Anthropic: long
// edge down to 1568, then width * height / 750. (As vision::estimate_image_tokens counts them.)
export function imageTokens({width, height}) {
  if (!width) return {openai: 0, anthropic: 0};
  const size = 32, budget = 2500;
  let patches = Math.ceil(width / size) * Math.ceil(height / size);
  if (patches > budget) {
    const shrink = Math.sqrt(size * size * budget / (width * height));
    const sw = width * shrink / size, sh = height * shrink / size;
    const snap = Math.min(Math.floor(sw) / sw, Math.floor(sh) / sh);
    patches = Math.ceil(width * shrink * snap / size) * Math.ceil(height * shrink * snap / size);
  }
  const long = Math.min(1, 1568 / Math.max(width, height));
  return {openai: Math.ceil(patches * 1.2), anthropic: Math.round(width * long * height * long / 750)};
}
// A PNG's or JPEG's size, from its header.
export function imageSize(bytes) {
  if (bytes[0] === 0x89) return {width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20)};  // PNG's IHDR
  for (let at = 2; at + 9 < bytes.length;) {  // a JPEG's start-of-frame marker
    const marker = bytes[at + 1];
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return {width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5)};
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return {width: 0, height: 0};
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export const textOf = (result) => result.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');

// A scratch folder with a Chromium wrapper in it: a saved page's external resources fail at once.
export function scratchWithChromium() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'vgbench-'));
  const chrome = path.join(scratch, 'chromium');
  writeFileSync(chrome, '#!/bin/sh\nexec /usr/lib/chromium/chromium ' +
                        '"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" "$@"\n');
  chmodSync(chrome, 0o755);
  return {scratch, chrome};
}

export const environment = Object.fromEntries(Object.entries(process.env).filter(
    ([name]) => !/^(OPENAI|ANTHROPIC)_(API_KEY|BASE_URL)$/.test(name)));

// The dense page: as many links on one screen as a news site's front page (30 stories, 6 links each).
export const kDenseLinks = 180;

// Serves the saved pages of `pagesDir` (when given) at /NAME.html, /a and /b, and /dense; resolves to its base URL.
export async function startSite(pagesDir) {
  const site = http.createServer(async (request, response) => {
    const url = new URL(request.url, 'http://x');
    if (url.pathname === '/a' || url.pathname === '/b') {
      const other = url.pathname === '/a' ? '/b' : '/a';
      response.writeHead(200, {'Content-Type': 'text/html'});
      response.end(`<!doctype html><title>Page ${url.pathname}</title><h1>${url.pathname}</h1>` +
                   `<p><a href="${other}">Go to ${other}</a></p><p>${'Some text. '.repeat(50)}</p>`);
      return;
    }
    if (url.pathname === '/dense') {
      let links = '';
      for (let i = 1; i <= kDenseLinks; ++i) {
        links += `<a href="/story/${Math.ceil(i / 6)}/${i % 6}">${['Story', 'by user', 'hide', 'past', 'discuss',
                                                                    'comments'][i % 6]} ${Math.ceil(i / 6)}</a> `;
      }
      response.writeHead(200, {'Content-Type': 'text/html'});
      response.end(`<!doctype html><title>Dense</title><style>body{font:10px sans-serif;columns:3}</style>${links}`);
      return;
    }
    try {
      const page = await readFile(path.join(pagesDir, path.basename(url.pathname)));
      response.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'});
      response.end(page);
    } catch {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {site, base: `http://127.0.0.1:${site.address().port}`};
}

// Starts `vimgpt mcp --http 127.0.0.1:0 EXTRA...` in `scratch` on `chrome` (null: the browser EXTRA names, e.g.
// --engine firefox); resolves once it says where it listens, to the process, a promise of its exit code and its port.
export async function startHttpServer(binary, scratch, chrome, extra = []) {
  const browser = chrome ? ['--chrome', chrome] : [];
  const server = spawn(binary, ['mcp', '--http', '127.0.0.1:0', ...browser, '--observe-after', 'never', ...extra],
                       {env: environment, stdio: ['ignore', 'ignore', 'pipe'], cwd: scratch});
  const exited = new Promise((resolve) => server.on('exit', resolve));
  const port = await new Promise((resolve) => {
    let seen = '';
    server.stderr.on('data', (chunk) => {
      seen += chunk;
      const found = seen.match(/MCP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
      if (found) resolve(Number(found[1]));
    });
  });
  return {server, exited, port};
}
