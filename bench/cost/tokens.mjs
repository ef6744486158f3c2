// Tokens per step of the benchmark's agent task with each cost setting, against the original vimGPT's request
// on the same task. The model is agent_bench's fake (nothing leaves 127.0.0.1), so the tokens are counted here:
// text with a real tokenizer (js-tiktoken o200k_base, GPT-4o's; Anthropic's is not public, so it stands in),
// images by each provider's published rule from the sizes actually sent. A recording proxy sits between
// vimgpt and the fake and keeps every request body.
//
//   node tokens.mjs VIMGPT AGENT_BENCH CHROME OUT.json
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { getEncoding } from 'js-tiktoken';

const [vimgpt, agentBench, chrome, out] = process.argv.slice(2);
const encoding = getEncoding('o200k_base');
const tokens = (text) => encoding.encode(text);
const OBJECTIVE = 'read the guide to the end and search it for lisbon';

// The original's request (its documentation, vision.py): one user message, its prompt with the objective,
// and the 1080x720 screenshot at the default detail (auto, counted as high).
const ORIGINAL_PROMPT = `You need to choose which action to take to help a user do this task: ${OBJECTIVE}. Your options are navigate, type, click, and done. Navigate should take you to the specified URL. Type and click take strings where if you want to click on an object, return the string with the yellow character sequence you want to click on, and to type just a string with the message you want to type. For clicks, please only respond with the 1-2 letter sequence in the yellow box, and if there are multiple valid options choose the one you think a user would select. For typing, please return a click to click on the box along with a type with the message to write. When the page seems satisfactory, return done as a key with no value. You must respond in JSON only with no other fluff or bad things will happen. The JSON keys must ONLY be one of navigate, type, or click. Do not return the JSON inside a code block.`;

// https://platform.openai.com/docs/guides/vision#calculating-costs (auto counted as high)
function openaiImage(width, height) {
  let w = width, h = height;
  if (Math.max(w, h) > 2048) { const s = 2048 / Math.max(w, h); w *= s; h *= s; }
  if (Math.min(w, h) > 768) { const s = 768 / Math.min(w, h); w *= s; h *= s; }
  return 170 * Math.ceil(w / 512) * Math.ceil(h / 512) + 85;
}
// https://docs.anthropic.com/en/docs/build-with-claude/vision#calculate-image-costs
function anthropicImage(width, height) {
  let w = width, h = height;
  if (Math.max(w, h) > 1568) { const s = 1568 / Math.max(w, h); w *= s; h *= s; }
  return Math.round(w * h / 750);
}

// Width and height from a JPEG's start-of-frame marker, or a PNG's header.
function imageSize(bytes) {
  if (bytes[0] === 0x89) return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  for (let i = 2; i < bytes.length;) {
    const marker = bytes[i + 1];
    const length = bytes.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return [bytes.readUInt16BE(i + 7), bytes.readUInt16BE(i + 5)];
    i += 2 + length;
  }
  throw new Error('no image size');
}

// A request as the provider reads it: a list of parts (tools or schema, system, each user block, each image),
// each a run of tokens; an image is a run of one repeated token per image token, distinct per picture.
function parts(body, anthropic) {
  const list = [];
  const text = (t) => list.push({ kind: 'text', tokens: tokens(t) });
  const image = (b64) => {
    const bytes = Buffer.from(b64, 'base64');
    const [w, h] = imageSize(bytes);
    const n = anthropic ? anthropicImage(w, h) : openaiImage(w, h);
    const id = -1 - parseInt(createHash('sha1').update(bytes).digest('hex').slice(0, 8), 16);
    list.push({ kind: 'image', tokens: new Array(n).fill(id), width: w, height: h });
  };
  if (body.tools) text(JSON.stringify(body.tools));
  if (body.response_format) text(JSON.stringify(body.response_format));
  if (body.output_config) text(JSON.stringify(body.output_config));  // Anthropic's structured output, as OpenAI's
  if (typeof body.system === 'string') text(body.system);
  if (Array.isArray(body.system)) body.system.forEach((b) => text(b.text));
  for (const message of body.messages) {
    if (typeof message.content === 'string') { text(message.content); continue; }
    for (const part of message.content) {
      if (part.type === 'text') text(part.text);
      if (part.type === 'image_url') image(part.image_url.url.split(',')[1]);
      if (part.type === 'image') image(part.source.data);
    }
  }
  return list;
}

function commonPrefix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) ++n;
  return n;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// What the provider bills at the cached rate: OpenAI, the identical prefix from 1,024 tokens in steps of 128;
// Anthropic, the identical prefix up to the breakpoint before this step's page (its last stable block).
function cachedTokens(prefix, anthropic) {
  if (prefix < 1024) return 0;
  return anthropic ? prefix : 1024 + Math.floor((prefix - 1024) / 128) * 128;
}

async function world() {
  const child = spawn(agentBench, ['--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return { child, ...JSON.parse(line) };
}

// A proxy on 127.0.0.1 that keeps each request body and the reply's text before passing them on.
function recorder(target) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(target + req.url.replace(/^\/v1/, ''));
      // Uncompressed replies, so the proxy can read them.
      const headers = { ...req.headers, host: url.host };
      delete headers['accept-encoding'];
      const forward = http.request(url, { method: req.method, headers }, (reply) => {
        const back = [];
        reply.on('data', (c) => back.push(c));
        reply.on('end', () => {
          const answer = Buffer.concat(back);
          seen.push({ path: req.url, body: JSON.parse(body), reply: JSON.parse(answer) });
          res.writeHead(reply.statusCode, reply.headers);
          res.end(answer);
        });
      });
      forward.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, seen, url: `http://127.0.0.1:${server.address().port}/v1` })));
}

function replyText(reply) {
  if (reply.choices) return reply.choices[0].message.content ?? '';
  const block = reply.content.find((b) => b.type === 'tool_use' || b.type === 'text');
  return block.type === 'tool_use' ? JSON.stringify(block.input) : block.text;
}

async function run(w, name, flags) {
  const proxy = await recorder(w.model_instant);
  const anthropic = flags.some((flag) => flag.startsWith('claude-'));
  // A budget far above the task's cost, so that each step's bound is computed (and recorded) but never binds (its
  // prices are the budget's alone: a retired model has none in the catalogue; this bench prices each run itself).
  const record = mkdtempSync(path.join(tmpdir(), 'vimgpt-cost-'));
  const args = [OBJECTIVE, '--base-url', proxy.url, '--api-key', 'sk-bench', '--start-url', w.start_url, '--max-steps', '12',
    '--json', '-q', '--chrome', chrome, '--prompt-cache', 'on', '--max-cost', '1000', '--price-in', '1', '--price-out', '1',
    '--record', record, ...flags];
  const code = await new Promise((resolve) => spawn(vimgpt, args, { stdio: ['ignore', 'ignore', 'inherit'] }).on('exit', resolve));
  proxy.server.close();
  // What the budget's bound said each request could take, before it was sent (steps.jsonl's "bound").
  const bounds = readFileSync(path.join(record, 'steps.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((line) => JSON.parse(line).bound);
  rmSync(record, { recursive: true, force: true });
  const steps = [];
  let previous = null;
  for (const request of proxy.seen) {
    const list = parts(request.body, anthropic);
    const all = list.flatMap((p) => p.tokens);
    const imageTokens = list.filter((p) => p.kind === 'image').reduce((n, p) => n + p.tokens.length, 0);
    const prefix = previous ? commonPrefix(previous, all) : 0;
    const completion = tokens(replyText(request.reply)).length;
    const bound = bounds[steps.length];
    steps.push({
      input: all.length, text: all.length - imageTokens, image: imageTokens, completion, prefix,
      // The bound against what is billed: its prompt tokens against the request's, and the whole (its reply cap
      // against the reply's tokens).
      bound_prompt_vs_billed: bound ? bound.prompt_tokens / all.length : null,
      bound_vs_billed: bound ? (bound.prompt_tokens + bound.completion_tokens) / (all.length + completion) : null,
      cached: cachedTokens(prefix, anthropic),
      sizes: list.filter((p) => p.kind === 'image').map((p) => `${p.width}x${p.height}`),
    });
    previous = all;
  }
  // The original on the same steps: its prompt, one 1080x720 frame, the same reply.
  const originalText = tokens(ORIGINAL_PROMPT).length;
  const originalImage = anthropic ? anthropicImage(1080, 720) : openaiImage(1080, 720);
  const price = anthropic ? { in: 3, cached: 0.3, write: 3.75, out: 15 } : { in: 2.5, cached: 1.25, write: 2.5, out: 10 };
  const cost = (s) => (s.input - s.cached) * price.in / 1e6 + s.cached * price.cached / 1e6 + s.completion * price.out / 1e6;
  const originalCost = (s) => (originalText + originalImage) * price.in / 1e6 + s.completion * price.out / 1e6;
  const later = steps.slice(1);
  const summary = {
    name, flags: flags.join(' '), exit: code, steps: steps.length,
    provider: anthropic ? 'anthropic ($3/M in, $15/M out)' : 'openai (gpt-4o prices)',
    image_sizes: [...new Set(steps.flatMap((s) => s.sizes))],
    median_input: median(steps.map((s) => s.input)),
    median_text: median(steps.map((s) => s.text)),
    median_image: median(steps.map((s) => s.image)),
    median_completion: median(steps.map((s) => s.completion)),
    median_uncached_input_from_step_2: median(later.map((s) => s.input - s.cached)),
    median_prefix_share_from_step_2: median(later.map((s) => s.prefix / s.input)),
    original_input: originalText + originalImage,
    original_text: originalText,
    original_image: originalImage,
    // The budget's bound of each request against what it was billed (1.00: exact; under 1: not a bound).
    bound_prompt_vs_billed_worst: Math.max(...steps.map((s) => s.bound_prompt_vs_billed ?? 0)),
    bound_prompt_vs_billed_least: Math.min(...steps.map((s) => s.bound_prompt_vs_billed ?? Infinity)),
    bound_vs_billed_worst: Math.max(...steps.map((s) => s.bound_vs_billed ?? 0)),
    cost_per_step_usd: median(steps.map(cost)),
    original_cost_per_step_usd: median(steps.map(originalCost)),
  };
  summary.input_vs_original = summary.median_input / summary.original_input;
  summary.uncached_vs_original = summary.median_uncached_input_from_step_2 / summary.original_input;
  summary.cost_vs_original = summary.cost_per_step_usd / summary.original_cost_per_step_usd;
  return summary;
}

const settings = [
  ['default (--img-res medium)', ['--model', 'gpt-4o']],
  ['--img-res original (1080)', ['--model', 'gpt-4o', '--img-res', 'original']],
  ['--img-res high (1024)', ['--model', 'gpt-4o', '--img-res', 'high']],
  ['--img-res low (512)', ['--model', 'gpt-4o', '--img-res', 'low']],
  ['--observe hybrid', ['--model', 'gpt-4o', '--observe', 'hybrid']],
  ['--observe text', ['--model', 'gpt-4o', '--observe', 'text']],
  ['--frames 2', ['--model', 'gpt-4o', '--frames', '2']],
  ['--history 2', ['--model', 'gpt-4o', '--history', '2']],
  ['anthropic default', ['--model', 'claude-sonnet-5-5']],
];

const w = await world();
const results = [];
for (const [name, flags] of settings) {
  const summary = await run(w, name, flags);
  results.push(summary);
  const pct = (x) => `${Math.round(100 * x)}%`;
  console.log(`${name.padEnd(28)} exit ${summary.exit}, ${summary.steps} steps, ${summary.image_sizes.join(' ') || 'no image'}: ` +
    `input ${summary.median_input} (text ${summary.median_text}, image ${summary.median_image}) = ${pct(summary.input_vs_original)} ` +
    `of the original's ${summary.original_input}; uncached ${summary.median_uncached_input_from_step_2} = ${pct(summary.uncached_vs_original)}; ` +
    `prefix ${pct(summary.median_prefix_share_from_step_2)}; $${summary.cost_per_step_usd.toFixed(5)}/step = ${pct(summary.cost_vs_original)}; ` +
    `bound / billed: prompt ${summary.bound_prompt_vs_billed_least.toFixed(2)}-${summary.bound_prompt_vs_billed_worst.toFixed(2)}, ` +
    `with the reply cap ${summary.bound_vs_billed_worst.toFixed(2)} at worst`);
}
w.child.stdin.end();
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), tokenizer: 'o200k_base (js-tiktoken 1.0.21)', results }, null, 2));
