// The size of one observation, and how long it takes: vimgpt mcp's `look` (the labelled frame, counted by
// OpenAI's and Anthropic's published image rules, plus the label list's text) against Playwright MCP's
// `browser_snapshot` (its accessibility-tree text), on each saved real page; text tokens counted with
// js-tiktoken's o200k_base (GPT-4o's). Then the latency of look and of click (act + the new frame), medians.
// Both servers are driven by the official MCP SDK client over stdio, on Debian's Chromium, which resolves no
// host but 127.0.0.1: nothing leaves the machine.
//   node bench/mcp/observation.mjs VIMGPT_BINARY PAGES_DIR OUT.json
import {execFileSync} from 'node:child_process';
import {readdirSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {getEncoding} from 'js-tiktoken';

import {environment, imageSize, imageTokens, kDenseLinks, median, scratchWithChromium, startSite, textOf} from
    './common.mjs';

const [binary, pagesDir, out] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const encoding = getEncoding('o200k_base');
const tokens = (text) => encoding.encode(text).length;

const {scratch, chrome} = scratchWithChromium();
const {site, base} = await startSite(pagesDir);

async function connect(command, args, name) {
  const client = new Client({name, version: '1.0.0'});
  // Playwright MCP writes its snapshots and logs under its working folder: the scratch one.
  await client.connect(new StdioClientTransport({command, args, env: environment, stderr: 'ignore', cwd: scratch}));
  return client;
}

const vimgpt = await connect(binary, ['mcp', '--chrome', chrome, '--observe-after', 'never'], 'bench-vimgpt');
// The same with no cap on look's label list (--max-labels 0), to show what the cap saves.
const uncapped = await connect(binary, ['mcp', '--chrome', chrome, '--observe-after', 'never', '--max-labels', '0'],
                               'bench-vimgpt-uncapped');
const playwright = await connect(process.execPath, [path.join(here, 'node_modules/@playwright/mcp/cli.js'),
  '--headless', '--isolated', '--no-sandbox', '--executable-path', chrome, '--viewport-size', '1080x720'],
                                 'bench-playwright');

const pages = readdirSync(pagesDir).filter((name) => name.endsWith('.html')).sort();
const rows = [];
const lookMs = [];
for (const page of pages) {
  const url = `${base}/${page}`;
  await vimgpt.callTool({name: 'open', arguments: {url}});
  const started = performance.now();
  const look = await vimgpt.callTool({name: 'look', arguments: {}});
  lookMs.push(performance.now() - started);
  const image = look.content.find((b) => b.type === 'image');
  const size = image ? imageSize(Buffer.from(image.data, 'base64')) : {width: 0, height: 0};
  const labels = tokens(textOf(look));
  await uncapped.callTool({name: 'open', arguments: {url}});
  const whole = await uncapped.callTool({name: 'look', arguments: {}});
  await playwright.callTool({name: 'browser_navigate', arguments: {url}});
  const snapshot = await playwright.callTool({name: 'browser_snapshot', arguments: {}});
  const row = {
    page,
    frame: `${size.width}x${size.height}`,
    label_lines: (textOf(look).match(/^\[[A-Z]+\]/gm) || []).length,
    vimgpt_text_tokens: labels,
    vimgpt_text_tokens_uncapped: tokens(textOf(whole)),
    vimgpt_openai_tokens: imageTokens(size).openai + labels,
    vimgpt_anthropic_tokens: imageTokens(size).anthropic + labels,
    playwright_snapshot_tokens: tokens(textOf(snapshot)),
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}

// The dense page (a news front page's worth of links on one screen): the capped list against the whole one, and
// what a find for one story costs instead.
const dense = {};
for (const [name, client] of [['capped', vimgpt], ['uncapped', uncapped]]) {
  await client.callTool({name: 'open', arguments: {url: `${base}/dense`}});
  const look = await client.callTool({name: 'look', arguments: {}});
  dense[`${name}_text_tokens`] = tokens(textOf(look));
  dense[`${name}_label_lines`] = (textOf(look).match(/^\[[A-Z]+\]/gm) || []).length;
}
dense.links = kDenseLinks;
dense.find_text_tokens = tokens(textOf(await vimgpt.callTool({name: 'find', arguments: {query: 'comments 17'}})));
console.error(JSON.stringify({dense}));

// Click: a link that loads the other page, and the new frame with it.
const clickMs = [];
await vimgpt.callTool({name: 'open', arguments: {url: `${base}/a`}});
let seen = await vimgpt.callTool({name: 'look', arguments: {}});
for (let i = 0; i < 12; ++i) {
  const label = textOf(seen).match(/\[([A-Z]+)\] link "Go to/)[1];
  const started = performance.now();
  await vimgpt.callTool({name: 'click', arguments: {label}});
  seen = await vimgpt.callTool({name: 'look', arguments: {}});
  clickMs.push(performance.now() - started);
}

await vimgpt.close();
await uncapped.close();
await playwright.close();
site.close();
rmSync(scratch, {recursive: true, force: true});

const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
const result = {
  date: new Date().toISOString(),
  load: execFileSync('cat', ['/proc/loadavg']).toString().trim(),
  pages: rows.length,
  median: {
    vimgpt_openai_tokens: median(rows.map((r) => r.vimgpt_openai_tokens)),
    vimgpt_anthropic_tokens: median(rows.map((r) => r.vimgpt_anthropic_tokens)),
    vimgpt_text_tokens: median(rows.map((r) => r.vimgpt_text_tokens)),
    vimgpt_text_tokens_uncapped: median(rows.map((r) => r.vimgpt_text_tokens_uncapped)),
    playwright_snapshot_tokens: median(rows.map((r) => r.playwright_snapshot_tokens)),
    look_ms: median(lookMs),
    click_and_frame_ms: median(clickMs),
  },
  biggest_text_tokens: Math.max(...rows.map((r) => r.vimgpt_text_tokens)),
  biggest_text_tokens_uncapped: Math.max(...rows.map((r) => r.vimgpt_text_tokens_uncapped)),
  dense,
  total: {
    vimgpt_openai_tokens: sum('vimgpt_openai_tokens'),
    vimgpt_anthropic_tokens: sum('vimgpt_anthropic_tokens'),
    playwright_snapshot_tokens: sum('playwright_snapshot_tokens'),
  },
  rows,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify({median: result.median, biggest_text_tokens: result.biggest_text_tokens,
                            biggest_text_tokens_uncapped: result.biggest_text_tokens_uncapped, dense,
                            total: result.total, load: result.load}, null, 2));
