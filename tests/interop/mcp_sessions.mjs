// Two agents on one `vimgpt mcp --http --max-sessions 2`, each with the official MCP SDK client
// (@modelcontextprotocol/sdk, pinned by package-lock.json): A signs in on the loopback site, B does not see A's
// cookie; A's browse and B's looks run at once (B is answered while A's run waits on the model); a third session
// is refused; ending A's session closes A's browser and leaves B's page as it was. Run by mcp_sessions_test.cpp,
// which serves the site and the fake model:
//   VIMGPT_BINARY=... SITE_URL=http://127.0.0.1:P MODEL_URL=http://127.0.0.1:Q/v1 node tests/interop/mcp_sessions.mjs
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {readFileSync, readdirSync} from 'node:fs';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const {VIMGPT_BINARY: binary, SITE_URL: site, MODEL_URL: model} = process.env;
const environment = Object.fromEntries(Object.entries(process.env).filter(
    ([name]) => !/^(OPENAI|ANTHROPIC)_(API_KEY|BASE_URL)$|^VIMGPT_MODEL$/.test(name)));

const textOf = (result) => result.content.filter((block) => block.type === 'text').map((block) => block.text).join('');
const labelOf = (result, name) => (textOf(result).match(new RegExp(`\\[([A-Z]+)\\][^\\n]*${name}`)) || [])[1];
const titleOf = (result) => (textOf(result).match(/^Title: (.*)$/m) || [])[1];

// The browsers the server runs: Chromium processes whose parent is the server.
function browsersOf(pid) {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid && /chrom/.test(readFileSync(`/proc/${entry}/comm`, 'utf8'))) ++count;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}
const server = spawn(binary, ['mcp', '--http', '127.0.0.1:0', '--max-sessions', '2', '--allow-domain', '127.0.0.1',
                              '--base-url', model, '--api-key', 'k', '--max-retries', '0'],
                     {env: environment, stdio: ['ignore', 'ignore', 'pipe']});
let log = '';
const exited = new Promise((resolve) => server.on('exit', resolve));
const port = await new Promise((resolve, reject) => {
  server.stderr.on('data', (chunk) => {
    log += chunk;
    const found = log.match(/MCP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
    if (found) resolve(Number(found[1]));
  });
  server.on('exit', (code) => reject(new Error(`vimgpt mcp exited (${code}): ${log}`)));
});
const endpoint = new URL(`http://127.0.0.1:${port}/mcp`);
async function connect(name) {
  const transport = new StreamableHTTPClientTransport(endpoint);
  const client = new Client({name, version: '1.0.0'});
  await client.connect(transport);
  return {client, transport};
}

try {
  const a = await connect('agent-a');
  const b = await connect('agent-b');
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);

  // A signs in; B, on the same site, is not signed in.
  const login = await a.client.callTool({name: 'open', arguments: {url: `${site}/fx/login.html`}});
  await a.client.callTool({name: 'type', arguments: {label: labelOf(login, 'Email'), text: 'ada@example.com', enter: false}});
  const signedIn = await a.client.callTool({name: 'type', arguments: {label: labelOf(login, 'Password'),
                                                                       text: 'hunter2'}});
  assert.equal(titleOf(signedIn), 'Signed in as ada@example.com', textOf(signedIn));
  const other = await b.client.callTool({name: 'open', arguments: {url: `${site}/account`}});
  assert.equal(titleOf(other), 'Not signed in', 'B sees none of A\'s cookies');
  assert.equal(browsersOf(server.pid), 2, 'a browser per session');

  // A's browse waits on the model until B has looked three times: B is answered meanwhile.
  let browseEnded = false;
  const browse = a.client.callTool({name: 'browse', arguments: {objective: 'say who is signed in',
                                                                 start_url: `${site}/account`}})
                     .finally(() => { browseEnded = true; });
  assert.equal(await (await fetch(`${site}/asked`)).text(), 'yes', 'A\'s browse asked the model');
  for (let i = 0; i < 3; ++i) {
    const look = await b.client.callTool({name: 'look', arguments: {again: true}});
    assert.equal(titleOf(look), 'Not signed in');
    assert.equal(browseEnded, false, 'B was answered while A\'s browse ran');
  }
  await fetch(`${site}/release`);
  const browsed = await browse;
  assert.equal(browsed.isError, false, textOf(browsed));
  assert.equal(browsed.structuredContent.answer, 'ada is signed in');

  // A third session is refused while two are open.
  await assert.rejects(connect('agent-c'), /--max-sessions 2/);

  // Ending A's session closes A's browser; B's page is as it was, and a new session may begin.
  await a.transport.terminateSession();
  await a.client.close();
  assert.equal(browsersOf(server.pid), 1, 'DELETE is answered once A\'s browser is closed');
  const still = await b.client.callTool({name: 'look', arguments: {again: true}});
  assert.equal(titleOf(still), 'Not signed in');
  assert.match(textOf(still), new RegExp(`URL: ${site}/account`));
  const c = await connect('agent-c');
  await c.client.close();
  await b.client.close();
} finally {
  server.kill('SIGTERM');
}
assert.equal(await exited, 0, log);
console.log('ok: two isolated sessions in parallel, the third refused');
