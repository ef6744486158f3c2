// The MCP part of the soak (issue 50, bench/soak/run): one `vimgpt mcp --http` serving SESSIONS sessions at once (a
// browser each) for CALLS calls in all, each session clicking between two loopback pages and looking; the server's
// resident memory, open files, threads and the processes under it (the sessions' browsers) sampled every 200 calls.
// Driven by the official MCP SDK client over Streamable HTTP; nothing leaves 127.0.0.1.
//   node bench/mcp/soak.mjs VIMGPT_BINARY OUT.json [SESSIONS] [CALLS]
import {readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {scratchWithChromium, startHttpServer, startSite, textOf} from './common.mjs';

const [binary, out, sessionsArg, callsArg] = process.argv.slice(2);
const kSessions = Number(sessionsArg || 8);
const kCalls = Number(callsArg || 2000);
const kEvery = 200;
const {scratch, chrome} = scratchWithChromium();
const {site, base} = await startSite(null);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// VIMGPT_TEST_ENGINE=firefox (bench/soak/run passes it on): the sessions on Firefox.
const firefox = process.env.VIMGPT_TEST_ENGINE === 'firefox';
const {server, exited, port} = await startHttpServer(binary, scratch, firefox ? null : chrome,
                                                     ['--max-sessions', String(kSessions),
                                                      ...(firefox ? ['--engine', 'firefox'] : [])]);

// /proc/PID/status's field, in its unit (kB for memory); 0 when the process is gone.
const statusField = (pid, field) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(field));
    return line ? Number(line.slice(field.length).trim().split(/\s+/)[0]) : 0;
  } catch {
    return 0;
  }
};

function sample(pid, at) {
  let fds = 0;
  try {
    fds = readdirSync(`/proc/${pid}/fd`).length;
  } catch {}
  const parents = new Map();
  const zombie = new Map();  // pid -> its name, for the processes that ended and were never waited for
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(fields[1]));
      if (fields[0] === 'Z') zombie.set(Number(name), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {}
  }
  let children = 0;
  let childrenRss = 0;
  const zombies = [];
  for (const [process] of parents) {
    for (let up = parents.get(process); up > 1; up = parents.get(up) ?? 0) {
      if (up !== pid) continue;
      ++children;
      childrenRss += statusField(process, 'VmRSS:');
      if (zombie.has(process)) zombies.push(zombie.get(process));
      break;
    }
  }
  return {at, rss_mb: statusField(pid, 'VmRSS:') / 1024, fds, threads: statusField(pid, 'Threads:'), children,
          children_rss_mb: childrenRss / 1024, zombies};
}

let done = 0;
let failed = 0;
const errors = [];  // the first few failed calls' words
let nextSample = 0;
const samples = [];
const counted = () => {
  ++done;
  if (done >= nextSample) {
    samples.push(sample(server.pid, done));
    nextSample = (Math.floor(done / kEvery) + 1) * kEvery;
  }
};

// One session: open, then click-and-look until its share of the calls is made.
async function oneSession(index, share) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
  const client = new Client({name: `soak-${index}`, version: '1.0.0'});
  await client.connect(transport);
  const call = async (name, args) => {
    const result = await client.callTool({name, arguments: args});
    if (result.isError) {
      ++failed;
      if (errors.length < 5) errors.push(`${name}: ${textOf(result).slice(0, 300)}`);
    }
    counted();
    return result;
  };
  await call('open', {url: `${base}/a`});
  let seen = await call('look', {});
  for (let made = 2; made < share; made += 2) {
    const label = textOf(seen).match(/\[([A-Z]+)\] link "Go to/)?.[1] ?? 'A';
    await call('click', {label});
    seen = await call('look', {});
  }
  await transport.terminateSession();
  await client.close();
}

const loadBefore = load();
samples.push(sample(server.pid, 0));
const started = performance.now();
await Promise.all(Array.from({length: kSessions}, (_, i) => oneSession(i, Math.ceil(kCalls / kSessions))));
const seconds = (performance.now() - started) / 1000;
// Every session closed (DELETE): what is still under the server is what it failed to stop.
const afterClose = sample(server.pid, done);
server.kill('SIGTERM');
const code = await exited;
site.close();
rmSync(scratch, {recursive: true, force: true});

const warm = samples.find((s) => s.at >= kEvery) ?? samples[0];
const end = samples.at(-1);
const result = {
  sessions: kSessions, calls: done, failed, errors, seconds, exit: code, load: `${loadBefore} -> ${load()}`,
  warm, end, after_close: afterClose, rss_growth_after_warm_pct: 100 * (end.rss_mb - warm.rss_mb) / warm.rss_mb,
  more_fds: end.fds - warm.fds, more_threads: end.threads - warm.threads, samples,
};
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify({...result, samples: undefined}, null, 2));
