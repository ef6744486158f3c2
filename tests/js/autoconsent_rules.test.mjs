// The autoconsent vimgpt embeds is the package's, its rules read by JSON.parse (src/consent/rules_as_json.mjs): the
// same rules, every other byte the same; and data JSON cannot carry exactly is left as the package wrote it.
//   node --test autoconsent_rules.test.mjs   with VIMGPT_AUTOCONSENT_PACKAGE (the package's standalone build) and
//   VIMGPT_AUTOCONSENT_EMBEDDED (the build's generated/autoconsent.js)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

const script = new URL('../../src/consent/rules_as_json.mjs', import.meta.url).pathname;
const rulesLine = /^ *var compact_rules_default = .*$/m;
const rulesOf = (source) => JSON.stringify(runInNewContext(`${source.match(rulesLine)[0]}; compact_rules_default`));

test('the embedded script holds the package rules as JSON and is otherwise the package', () => {
  const packaged = readFileSync(process.env.VIMGPT_AUTOCONSENT_PACKAGE, 'utf8');
  const embedded = readFileSync(process.env.VIMGPT_AUTOCONSENT_EMBEDDED, 'utf8');
  assert.match(embedded.match(rulesLine)[0], /= JSON\.parse\("/);
  assert.equal(rulesOf(embedded), rulesOf(packaged));
  assert.equal(embedded.replace(rulesLine, ''), packaged.replace(rulesLine, ''));
});

test('rules JSON cannot carry exactly, or no rules at all, are left as they are', () => {
  const folder = mkdtempSync(join(tmpdir(), 'vimgpt-rules-'));
  for (const source of ['  var compact_rules_default = { a: [1, undefined] };\n',
                        '  var compact_rules_default = { r: /cookie/ };\n', 'var other = 1;\n']) {
    writeFileSync(join(folder, 'in.js'), source);
    execFileSync(process.execPath, [script, join(folder, 'in.js'), join(folder, 'out.js')], { stdio: 'ignore' });
    assert.equal(readFileSync(join(folder, 'out.js'), 'utf8'), source);
  }
});
