// Per-call latency with 1, 2 and 4 MCP sessions at once on one `vimgpt mcp --http` (each session its own
// browser): every session's client clicks a link between two loopback pages and looks, ROUNDS times, all at
// the same time; medians per session count, and each session's first call (its browser's launch). The counts
// alternate (1 2 4 4 2 1) so a change in the machine's load falls on each. Driven by the official MCP SDK client
// over Streamable HTTP; nothing leaves 127.0.0.1.
//   node bench/mcp/sessions.mjs VIMGPT_BINARY OUT.json
import {execFileSync} from 'node:child_process';
import {readFileSync, rmSync, writeFileSync} from 'node:fs';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {median, scratchWithChromium, startHttpServer, startSite, textOf} from './common.mjs';

const [binary, out] = process.argv.slice(2);
const kRounds = 10;
const kOrder = [1, 2, 4, 4, 2, 1];
const {scratch, chrome} = scratchWithChromium();
const {site, base} = await startSite(null);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const {server, exited, port} = await startHttpServer(binary, scratch, chrome);

const timed = async (work) => {
  const started = performance.now();
  const result = await work();
  return {ms: performance.now() - started, result};
};

// One session's part: its first call opens its browser; then click-and-look rounds.
async function oneSession(name) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
  const client = new Client({name, version: '1.0.0'});
  await client.connect(transport);
  const first = await timed(() => client.callTool({name: 'open', arguments: {url: `${base}/a`}}));
  let seen = await client.callTool({name: 'look', arguments: {}});
  const calls = [];
  for (let i = 0; i < kRounds; ++i) {
    const label = textOf(seen).match(/\[([A-Z]+)\] link "Go to/)[1];
    calls.push((await timed(() => client.callTool({name: 'click', arguments: {label}}))).ms);
    const look = await timed(() => client.callTool({name: 'look', arguments: {}}));
    calls.push(look.ms);
    seen = look.result;
  }
  await transport.terminateSession();
  await client.close();
  return {first: first.ms, calls};
}

const runs = [];
const startLoad = load();
for (const sessions of kOrder) {
  const results = await Promise.all(Array.from({length: sessions}, (_, i) => oneSession(`bench-${sessions}-${i}`)));
  runs.push({sessions, first: results.map((r) => r.first), calls: results.flatMap((r) => r.calls)});
  console.error(JSON.stringify({sessions, call_ms: median(runs.at(-1).calls), first_ms: median(runs.at(-1).first)}));
}
server.kill('SIGTERM');
await exited;
site.close();
rmSync(scratch, {recursive: true, force: true});

const summary = {};
for (const sessions of new Set(kOrder)) {
  const mine = runs.filter((run) => run.sessions === sessions);
  summary[sessions] = {
    call_ms: median(mine.flatMap((run) => run.calls)),
    first_call_ms: median(mine.flatMap((run) => run.first)),
    calls: mine.reduce((total, run) => total + run.calls.length, 0),
  };
}
for (const sessions of Object.keys(summary)) {
  summary[sessions].ratio_to_one = summary[sessions].call_ms / summary[1].call_ms;
}
const result = {date: new Date().toISOString(), load: `${startLoad} -> ${load()}`,
                cores: execFileSync('nproc').toString().trim(), rounds: kRounds, summary, runs};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify({summary, load: result.load, cores: result.cores}, null, 2));
