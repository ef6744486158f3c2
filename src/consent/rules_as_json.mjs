// A build step (CMakeLists.txt): autoconsent's standalone build with its rules read by JSON.parse from a string instead
// of built from a 274 KB object literal. The same rules and the same code; a browser runs the script in every document,
// and running that literal is most of its cost on Firefox: a navigation of the benchmark's pages took 190-201 ms with
// it against 141-154 with JSON.parse, 55-58 without autoconsent (Firefox ESR 153, 2026-12-05, docs/benchmarks.md).
// A layout this does not know, or rules JSON cannot carry exactly, are embedded as they are.
//   node rules_as_json.mjs IN OUT
import { readFileSync, writeFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';

const [input, output] = process.argv.slice(2);
const source = readFileSync(input, 'utf8');
const declaration = /^( *var compact_rules_default = )(\{.*\});$/m;
const found = source.match(declaration);
// Whether JSON holds the value exactly: strings, finite numbers (not -0), booleans, null, arrays and plain objects.
const exact = (value) => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every((item, i) => i in value && exact(item));
  if (typeof value !== 'object' || Object.prototype.toString.call(value) !== '[object Object]') return false;
  return Object.values(value).every(exact);
};
let rewritten = null;
if (found) {
  const rules = runInNewContext(`(${found[2]})`);
  if (exact(rules)) {
    rewritten = source.replace(declaration, () => `${found[1]}JSON.parse(${JSON.stringify(JSON.stringify(rules))});`);
  }
}
if (rewritten === null) console.warn(`rules_as_json: ${input} has no rules literal JSON can carry; embedded as it is`);
writeFileSync(output, rewritten ?? source);
