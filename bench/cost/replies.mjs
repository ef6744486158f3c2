// Output tokens of each kind of reply (issue 29's target: a click at most 12 on every provider's structured mode,
// no action more than 12 beyond the text it carries), counted with a real tokenizer (js-tiktoken o200k_base,
// OpenAI's current one; Anthropic's is not public, so it stands in for Claude's). The replies come from
// replies_bench, which checks each against vimgpt's own schema.
//
//   node replies.mjs REPLIES_BENCH OUT.json
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { getEncoding } from 'js-tiktoken';

const [bench, out] = process.argv.slice(2);
const encoding = getEncoding('o200k_base');
const count = (text) => encoding.encode(text).length;
const lines = execFileSync(bench, { encoding: 'utf8' }).trim().split('\n').map((line) => JSON.parse(line));

// What an action carries (a label, typed text, a URL, an answer, a number, true or false) is the model's own
// content, the same in any format: what counts against the target is what the reply costs beyond it, the format.
const carried = (action) =>
  Object.values(action)
    .flat()
    .reduce((sum, value) => sum + count(typeof value === 'string' ? value : JSON.stringify(value)), 0);

const rows = lines.map((line) => {
  const action = JSON.parse(line.original);
  const structured = count(line.structured);
  return {
    kind: line.kind,
    original: count(line.original),
    structured,
    beyond_text: structured - carried(action),
    flat_strict: count(line.flat_strict),
    fits_schema: line.fits_schema,
  };
});
const pad = (text, width) => String(text).padEnd(width);
console.log(`${pad('action', 20)}${pad('original', 10)}${pad('vimgpt', 8)}${pad('its format', 12)}${pad('before (flat strict)', 22)}`);
for (const row of rows) {
  console.log(`${pad(row.kind, 20)}${pad(row.original, 10)}${pad(row.structured, 8)}${pad(row.beyond_text, 12)}${pad(row.flat_strict, 22)}`);
}
const worst = Math.max(...rows.map((row) => row.beyond_text));
const click = rows.find((row) => row.kind === 'click');
console.log(`click: ${click.structured} tokens (target <= 12); the most any action's format costs beyond what it carries: ${worst} (target <= 12)`);
writeFileSync(out, JSON.stringify({ tokenizer: 'o200k_base', rows }, null, 2));
if (rows.some((row) => !row.fits_schema)) process.exit(1);
