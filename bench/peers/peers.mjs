// vimgpt beside the tools an agent would pick instead, each driven through its own official interface: vimgpt mcp,
// Playwright MCP and Chrome DevTools MCP by the MCP SDK's client over stdio, Vercel's agent-browser by its CLI (its
// Linux binary, as an agent runs it). All on the same Chromium (Debian's, through a wrapper that resolves no host
// but 127.0.0.1), headless, on one loopback site.
//
// The task, as an agent does it: open the shop, look, type a search and submit it, look, click a result, look (and
// agent-browser a second time waiting, as its guide says, for the page its action leads to). Rounds
// alternate tool by tool; each call's wall time and each answer's size are kept (text tokens with js-tiktoken's
// o200k_base, image bytes and their tokens under OpenAI's and Anthropic's published image rules). Then one
// observation of each saved real page by each tool.
//   node bench/peers/peers.mjs VIMGPT_BINARY OUT.json [PAGES_DIR] [ROUNDS]
import {execFile} from 'node:child_process';
import {chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {getEncoding} from 'js-tiktoken';

import {environment, imageSize, imageTokens, median, scratchWithChromium, textOf} from '../mcp/common.mjs';

const [binary, out, pagesDir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 7);
const here = path.dirname(fileURLToPath(import.meta.url));
const encoding = getEncoding('o200k_base');
const tokens = (text) => encoding.encode(text).length;
const run = promisify(execFile);

// One answer's size: its text in tokens, its image (if any) in bytes and in tokens.
function measure(text, imageBase64) {
  const bytes = imageBase64 ? Buffer.from(imageBase64, 'base64') : null;
  const image = bytes ? imageTokens(imageSize(bytes)) : {openai: 0, anthropic: 0};
  return {text, text_tokens: tokens(text), image_bytes: bytes ? bytes.length : 0, image_openai: image.openai,
          image_anthropic: image.anthropic};
}

// The shop: a search form, a results page of products (each a link, its price and its stock; a header and footer of
// links, as real shops have) and a product page. Nothing on it waits or animates: what a tool waits for after an action is its own.
const kProducts = ['Walnut desk lamp', 'Oak bookshelf', 'Linen armchair', 'Brass floor lamp', 'Pine side table',
                   'Wool rug', 'Ceramic table lamp', 'Steel shelf', 'Velvet sofa', 'Paper pendant lamp',
                   'Cedar bench', 'Glass vase'];
// Each product's price and stock, as a results page lists them beside its link.
const price = (i) => `$${40 + i * 7}.00`;
const stock = (i) => (i % 4 === 3 ? 'Out of stock' : `${3 + i * 2} in stock`);
const chrome = (title, body) => `<!doctype html><html lang="en"><title>${title} - Loopback Home</title>
<header><a href="/">Loopback Home</a> <nav><a href="/c/living">Living room</a> <a href="/c/bedroom">Bedroom</a>
<a href="/c/office">Office</a> <a href="/cart">Cart (0)</a> <a href="/account">Sign in</a></nav></header>
<main>${body}</main><footer><a href="/help">Help</a> <a href="/returns">Returns</a> <a href="/about">About us</a>
</footer></html>`;
const searchForm = (q = '') => `<form action="/search" role="search"><label>Search products
<input name="q" value="${q}" placeholder="lamps, shelves..."></label> <button>Search</button></form>`;
async function startShop(pages) {
  const site = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://x');
    let body;
    if (url.pathname === '/') {
      body = chrome('Shop', `<h1>Furniture for every room</h1>${searchForm()}<p>Free delivery over $50.</p>`);
    } else if (url.pathname === '/search') {
      const q = (url.searchParams.get('q') || '').toLowerCase();
      const found = kProducts.map((name, i) => ({name, i})).filter(({name}) => name.toLowerCase().includes(q));
      body = chrome(`Search: ${q}`, `${searchForm(q)}<h1>${found.length} results for "${q}"</h1><ol>${
        found.map(({name, i}) => `<li><a href="/product/${i + 1}">${name}</a> <span>${price(i)}</span> <span>${
          stock(i)}</span></li>`).join('')}</ol>`);
    } else if (url.pathname.startsWith('/product/')) {
      const i = Number(url.pathname.split('/')[2]) - 1;
      const name = kProducts[i] || 'Unknown';
      body = chrome(name, `<h1>${name}</h1><p>${price(i)}. ${stock(i)}.</p><button>Add to cart</button>`);
    } else if (pages && url.pathname.endsWith('.html')) {
      try {
        response.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'});
        response.end(readFileSync(path.join(pages, path.basename(url.pathname))));
      } catch {
        response.end();
      }
      return;
    } else {
      body = chrome('Not here', '<h1>Nothing here</h1>');
    }
    response.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'});
    response.end(body);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {site, base: `http://127.0.0.1:${site.address().port}`};
}

// The reference each tool's observation gives the element whose line holds `role` and `name`.
function refIn(text, role, name, pattern) {
  for (const line of text.split('\n')) {
    if (line.includes(role) && line.includes(name)) {
      const found = line.match(pattern);
      if (found) return found[1];
    }
  }
  throw new Error(`no ${role} "${name}" in:\n${text}`);
}

const {scratch, chrome: browser} = scratchWithChromium();

async function mcpClient(command, args, name, env = environment) {
  const client = new Client({name, version: '1.0.0'});
  await client.connect(new StdioClientTransport({command, args, env, stderr: 'ignore', cwd: scratch}));
  return client;
}
const callMcp = async (client, name, args) => {
  const result = await client.callTool({name, arguments: args});
  if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${textOf(result)}`);
  const image = result.content.find((b) => b.type === 'image');
  return measure(textOf(result), image?.data);
};

// Each tool: how it starts, and the four call kinds of the task in its own words. `type` fills the field and submits
// it; where a tool takes two calls for that (fill, then press Enter), their times and sizes are summed.
// vimgpt as it is by default (an acting tool shows the page when it changed, and the look after it answers in a line),
// and with each acting call's look: false (the action's words alone, as agent-browser answers; the look after it
// shows the page).
const vimgpt = (extra) => ({
  async start() {
    this.client = await mcpClient(binary, ['mcp', '--chrome', browser], 'bench-vimgpt');
  },
  open(url) { return callMcp(this.client, 'open', {url, ...extra}); },
  look() { return callMcp(this.client, 'look', {}); },
  observe() { return callMcp(this.client, 'look', {again: true}); },  // the whole page, even when shown already
  type(seen, text) {
    return callMcp(this.client, 'type', {label: refIn(seen, 'textbox', 'Search', /^\[([A-Z]+)\]/), text,
                                         enter: true, ...extra});
  },
  click(seen, name) {
    return callMcp(this.client, 'click', {label: refIn(seen, 'link', name, /^\[([A-Z]+)\]/), ...extra});
  },
  stop() { return this.client.close(); },
});
// agent-browser by its CLI. Its click, fill and press return once the input is sent; its guide tells the agent to wait
// after a page-changing action for the result it needs (a URL, then a load event). `untilLoaded` does so in the same
// call, with batch: the action and `wait --url`, `wait --load load` for the page it leads to, in one process.
const agentBrowser = (untilLoaded) => ({
  async start() {
    this.binary = path.join(here, 'node_modules/agent-browser/bin/agent-browser-linux-x64');
    chmodSync(this.binary, 0o755);  // npm installed it with scripts off (.npmrc), so without its postinstall's chmod
    const home = path.join(scratch, 'agent-browser-home');
    mkdirSync(home, {recursive: true});
    this.env = {...environment, HOME: home, AGENT_BROWSER_EXECUTABLE_PATH: browser, AGENT_BROWSER_NO_VERSION_CHECK: '1',
                AGENT_BROWSER_SESSION: `bench-${process.pid}${untilLoaded ? '-waiting' : ''}`};
  },
  async cli(...args) {
    const {stdout} = await run(this.binary, args, {env: this.env, cwd: scratch});
    return measure(stdout.trim());
  },
  // The commands one action takes, then (untilLoaded) the waits for the page `to` in the same call.
  act(commands, to) {
    if (!untilLoaded) return commands.reduce(async (done, command) => sum(await done, await this.cli(...command)), null);
    return this.cli('batch', ...commands.map((command) => command.join(' ')), `wait --url ${to}`, 'wait --load load');
  },
  async open(url) {
    const opened = await this.cli('open', url);
    if (!this.sized) {  // the same viewport as the others, once the browser is up
      await this.cli('set', 'viewport', '1080', '720');
      this.sized = true;
    }
    return opened;
  },
  look() { return this.cli('snapshot', '-i'); },
  type(seen, text) {
    const ref = refIn(seen, 'textbox', 'Search', /\[ref=(\w+)\]/);
    return this.act([['fill', `@${ref}`, text], ['press', 'Enter']], '**/search*');
  },
  click(seen, name) {
    return this.act([['click', `@${refIn(seen, 'link', name, /\[ref=(\w+)\]/)}`]], '**/product/*');
  },
  async stop() { await this.cli('close'); },
});
const everyTool = {
  vimgpt: vimgpt({}),
  vimgpt_look_false: vimgpt({look: false}),
  playwright_mcp: {
    async start() {
      this.client = await mcpClient(process.execPath, [
        path.join(here, 'node_modules/@playwright/mcp/cli.js'), '--headless', '--isolated', '--no-sandbox',
        '--executable-path', browser, '--viewport-size', '1080x720'], 'bench-playwright');
    },
    open(url) { return callMcp(this.client, 'browser_navigate', {url}); },
    look() { return callMcp(this.client, 'browser_snapshot', {}); },
    type(seen, text) {
      return callMcp(this.client, 'browser_type', {target: refIn(seen, 'textbox', 'Search', /\[ref=(\w+)\]/), text,
                                                    submit: true});
    },
    click(seen, name) {
      return callMcp(this.client, 'browser_click', {target: refIn(seen, 'link', name, /\[ref=(\w+)\]/)});
    },
    stop() { return this.client.close(); },
  },
  chrome_devtools_mcp: {
    async start() {
      this.client = await mcpClient(process.execPath, [
        path.join(here, 'node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'), '--headless',
        '--isolated', '--executablePath', browser, '--viewport', '1080x720', '--no-usage-statistics',
        '--no-performance-crux', '--no-page-id-routing', '--chromeArg=--no-sandbox'], 'bench-devtools',
      {...environment, CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1', CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY: '1'});
    },
    open(url) { return callMcp(this.client, 'navigate_page', {type: 'url', url}); },
    look() { return callMcp(this.client, 'take_snapshot', {}); },
    async type(seen, text) {
      const uid = refIn(seen, 'textbox', 'Search', /uid=(\S+)/);
      return sum(await callMcp(this.client, 'fill', {uid, value: text}),
                 await callMcp(this.client, 'press_key', {key: 'Enter'}));
    },
    click(seen, name) { return callMcp(this.client, 'click', {uid: refIn(seen, 'link', name, /uid=(\S+)/)}); },
    stop() { return this.client.close(); },
  },
  agent_browser: agentBrowser(false),
  agent_browser_until_loaded: agentBrowser(true),
};
// PEERS_TOOLS=vimgpt,agent_browser runs only those (to look at one tool's calls alone); by default all of them.
const chosen = (process.env.PEERS_TOOLS || '').split(',').filter(Boolean);
for (const name of chosen) if (!everyTool[name]) throw new Error(`PEERS_TOOLS: no tool ${name}`);
const tools = Object.fromEntries(Object.entries(everyTool).filter(([name]) => !chosen.length || chosen.includes(name)));
function sum(a, b) {
  if (!a) return b;
  const both = {...a};
  for (const key of Object.keys(b)) both[key] = key === 'text' ? `${a.text}\n${b.text}` : a[key] + b[key];
  return both;
}
const timed = async (work) => {
  const started = performance.now();
  const answer = await work();
  return {...answer, ms: performance.now() - started};
};

const {site, base} = await startShop(pagesDir);
const samples = Object.fromEntries(Object.keys(tools).map((name) => [name, []]));
const startup = {};
for (const [name, tool] of Object.entries(tools)) {
  const started = performance.now();
  await tool.start();
  await tool.open(`${base}/help`);  // not the page each round starts on, which would be the page already shown
  startup[name] = performance.now() - started;
  console.error(`${name}: up in ${Math.round(startup[name])} ms`);
}

for (let round = 0; round < rounds; ++round) {
  for (const [name, tool] of Object.entries(tools)) {
    const query = ['lamp', 'shelf', 'table'][round % 3];
    const steps = {};
    steps.navigate = await timed(() => tool.open(`${base}/`));
    steps.look_shop = await timed(() => tool.look());
    // The labels or references the client last had: the look's, or (where a look said the page was as an earlier
    // answer showed it) that answer's, newest first.
    const seen = () => Object.values(steps).reverse().map((answer) => answer.text).join('\n');
    steps.type = await timed(() => tool.type(seen(), query));
    steps.look_results = await timed(() => tool.look());
    const first = kProducts.find((product) => product.toLowerCase().includes(query));
    steps.click = await timed(() => tool.click(seen(), first));
    steps.look_product = await timed(() => tool.look());
    if (!`${steps.look_product.text}\n${steps.click.text}`.includes(first)) {
      throw new Error(`${name}: the product page is not shown`);
    }
    samples[name].push(steps);
  }
}

const loadAfterTask = readFileSync('/proc/loadavg', 'utf8').trim();

// One observation of each saved page by each tool, and of the shop's own pages: the task's three and a results page
// with every product on it.
const saved = [...(pagesDir ? readdirSync(pagesDir).filter((name) => name.endsWith('.html')).sort() : []),
               '', 'search?q=lamp', 'product/1', 'search?q='];
const savedRows = [];
for (const page of saved) {
  const row = {page};
  for (const [name, tool] of Object.entries(tools)) {
    if (name === 'vimgpt_look_false' || name === 'agent_browser_until_loaded') continue;  // the same look as another's
    await tool.open(`${base}/${page}`);
    const seen = await (tool.observe || tool.look).call(tool);
    row[name] = {text_tokens: seen.text_tokens, image_openai: seen.image_openai};
    if (!page.endsWith('.html')) row[name].text = seen.text;  // the shop's own pages: short enough to keep
  }
  savedRows.push(row);
  console.error(JSON.stringify(row));
}

for (const tool of Object.values(tools)) await tool.stop();
site.close();
rmSync(scratch, {recursive: true, force: true});

const kinds = ['navigate', 'look_shop', 'type', 'look_results', 'click', 'look_product'];
const table = {};
for (const [name, runs] of Object.entries(samples)) {
  const row = {startup_ms: Math.round(startup[name])};
  for (const kind of kinds) {
    row[`${kind}_ms`] = Math.round(median(runs.map((r) => r[kind].ms)));
    row[`${kind}_text_tokens`] = median(runs.map((r) => r[kind].text_tokens));
    row[`${kind}_image_openai`] = median(runs.map((r) => r[kind].image_openai));
    row[`${kind}_image_bytes`] = median(runs.map((r) => r[kind].image_bytes));
  }
  row.task_ms = Math.round(median(runs.map((r) => kinds.reduce((total, kind) => total + r[kind].ms, 0))));
  row.task_tokens_openai = median(runs.map((r) => kinds.reduce((total, kind) =>
    total + r[kind].text_tokens + r[kind].image_openai, 0)));
  const savedPages = savedRows.filter((r) => r.page.endsWith('.html') && r[name]);
  if (savedPages.length) {
    row.saved_pages_median_text_tokens = median(savedPages.map((r) => r[name].text_tokens));
    row.saved_pages_median_text_and_image_openai = median(savedPages.map((r) => r[name].text_tokens +
                                                                          r[name].image_openai));
    row.saved_pages_total_text_tokens = savedPages.reduce((total, r) => total + r[name].text_tokens, 0);
  }
  table[name] = row;
}
const examples = Object.fromEntries(Object.entries(samples).map(([name, runs]) => [name,
  Object.fromEntries(kinds.map((kind) => [kind, runs[0][kind].text]))]));
const result = {date: new Date().toISOString(), load_after_task: loadAfterTask,
                load: readFileSync('/proc/loadavg', 'utf8').trim(), rounds, table,
                saved_pages: savedRows, examples};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify({load_after_task: loadAfterTask, load: result.load, table}, null, 2));
