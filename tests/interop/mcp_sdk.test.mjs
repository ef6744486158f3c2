// `vimgpt mcp` driven by the official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned by
// package-lock.json), over stdio and over Streamable HTTP, against a page served here on 127.0.0.1:
// connect (the SDK negotiates the version), list the tools, open, look, click.
//   VIMGPT_BINARY=build/vimgpt VIMGPT_FIXTURES=tests/fixtures/site node --test tests/interop/
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {readFile} from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import {after, before, test} from 'node:test';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const binary = process.env.VIMGPT_BINARY;
const fixtures = process.env.VIMGPT_FIXTURES;
// No model of the environment's: these tests never need one, and must send nothing anywhere.
const environment = Object.fromEntries(Object.entries(process.env).filter(
    ([name]) => !/^(OPENAI|ANTHROPIC)_(API_KEY|BASE_URL)$|^VIMGPT_MODEL$/.test(name)));

let site;
let siteUrl;
before(async () => {
  site = http.createServer(async (request, response) => {
    let page;
    try {
      page = await readFile(path.join(fixtures, path.normalize(new URL(request.url, 'http://x').pathname)));
    } catch {
      response.writeHead(404, {'Content-Type': 'text/html'});
      response.end('<!doctype html><title>Not found</title>');
      return;
    }
    response.writeHead(200, {'Content-Type': 'text/html'});
    response.end(page);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${site.address().port}`;
});
after(() => site.close());

const textOf = (result) => result.content.filter((block) => block.type === 'text').map((block) => block.text).join('');
const labelOf = (result, name) => (textOf(result).match(new RegExp(`\\[([A-Z]+)\\][^\\n]*${name}`)) || [])[1];

// The same session over either transport: what a client model would do.
async function lookAndClick(client) {
  assert.equal(client.getServerVersion().name, 'vimgpt');
  const {tools} = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ['open', 'look', 'click', 'type', 'browse']) assert.ok(names.includes(name), name);
  assert.equal(tools.find((tool) => tool.name === 'look').annotations.readOnlyHint, true);

  const opened = await client.callTool({name: 'open', arguments: {url: `${siteUrl}/item.html`}});
  assert.equal(opened.isError, false, textOf(opened));
  // open showed the page: a look at the same page answers in a line; again: true shows it anyway.
  const same = await client.callTool({name: 'look', arguments: {}});
  assert.equal(same.content.some((block) => block.type === 'image'), false);
  assert.match(textOf(same), /Unchanged since the page was last shown/);
  const look = await client.callTool({name: 'look', arguments: {again: true}});
  const image = look.content.find((block) => block.type === 'image');
  assert.equal(image.mimeType, 'image/jpeg');
  const jpeg = Buffer.from(image.data, 'base64');
  assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  assert.match(textOf(look), /Title: Blue Widget/);
  const label = labelOf(look, 'Back to the shop');
  assert.ok(label, textOf(look));

  const clicked = await client.callTool({name: 'click', arguments: {label}});
  assert.equal(clicked.isError, false, textOf(clicked));
  assert.match(textOf(clicked), new RegExp(`URL: ${siteUrl}/\\n`));
  const missing = await client.callTool({name: 'click', arguments: {label: 'ZZ'}});
  assert.equal(missing.isError, true);
}

test('the official SDK client over stdio', async () => {
  const transport = new StdioClientTransport({
    command: binary, args: ['mcp', '--allow-domain', '127.0.0.1'], env: environment, stderr: 'ignore'});
  const client = new Client({name: 'interop-stdio', version: '1.0.0'});
  await client.connect(transport);
  try {
    await lookAndClick(client);
  } finally {
    await client.close();
  }
});

test('the official SDK client over Streamable HTTP', async () => {
  const server = spawn(binary, ['mcp', '--http', '127.0.0.1:0', '--allow-domain', '127.0.0.1'],
                       {env: environment, stdio: ['ignore', 'ignore', 'pipe']});
  try {
    const port = await new Promise((resolve, reject) => {
      let seen = '';
      server.stderr.on('data', (chunk) => {
        seen += chunk;
        const found = seen.match(/MCP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
        if (found) resolve(Number(found[1]));
      });
      server.on('exit', (code) => reject(new Error(`vimgpt mcp exited (${code}): ${seen}`)));
    });
    const client = new Client({name: 'interop-http', version: '1.0.0'});
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      await lookAndClick(client);
    } finally {
      await client.close();
    }
  } finally {
    const exited = new Promise((resolve) => server.on('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
});
