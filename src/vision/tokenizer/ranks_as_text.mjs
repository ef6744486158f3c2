// A build step (CMakeLists.txt): OpenAI's o200k_base, as js-tiktoken ships it, in the form vimgpt embeds and reads
// (src/vision/tokenizer/tokenizer.cpp): the pre-tokenizing pattern on the first line, then one line per rank from 0,
// the token's bytes in base64 (an empty line for a rank no token has).
//   node ranks_as_text.mjs RANKS.js OUT
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [input, output] = process.argv.slice(2);
const ranks = (await import(pathToFileURL(input).href)).default;
const tokens = [];
for (const line of ranks.bpe_ranks.split('\n')) {
  if (!line) continue;
  // "! OFFSET TOKEN TOKEN ...": consecutive ranks from OFFSET (js-tiktoken's own reading of it).
  const [, offset, ...run] = line.split(' ');
  run.forEach((token, i) => { tokens[Number.parseInt(offset, 10) + i] = token; });
}
const lines = [ranks.pat_str];
for (let rank = 0; rank < tokens.length; ++rank) lines.push(tokens[rank] ?? '');
writeFileSync(output, lines.join('\n') + '\n');
