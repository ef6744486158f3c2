// Every line of tests/engine_expectations.txt names a test that exists: a test renamed or removed leaves no line
// behind (a known-gap line whose test passes fails that test's run itself, tests/support/test_main.cpp).
//   node --test engine_expectations.test.mjs   with VIMGPT_ENGINE_EXPECTATIONS (the file) and VIMGPT_TEST_EXECUTABLES
//   (the browser and end-to-end test executables, separated by ':')
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const file = process.env.VIMGPT_ENGINE_EXPECTATIONS;
const executables = (process.env.VIMGPT_TEST_EXECUTABLES ?? '').split(':').filter(Boolean);

// Suite.Test names as --gtest_filter sees them ("Pages/HintsRealPages.HintMapAndClicks/aclu").
function test_names(executable) {
  const names = [];
  let suite = '';
  for (const line of execFileSync(executable, ['--gtest_list_tests'], { encoding: 'utf8' }).split('\n')) {
    if (!line.trim()) continue;
    if (!line.startsWith(' ')) suite = line.split(/\s/)[0].replace(/\.$/, '');
    else names.push(`${suite}.${line.trim().split(/\s/)[0]}`);
  }
  return names;
}

// gtest's filter patterns: * any run of characters, ? one.
function pattern_regexp(pattern) {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

test('every line of the engine expectations names a test', () => {
  assert.ok(file, 'VIMGPT_ENGINE_EXPECTATIONS names the file');
  assert.ok(executables.length > 0, 'VIMGPT_TEST_EXECUTABLES names the test executables');
  const names = executables.flatMap(test_names);
  const stale = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const line = text.trim();
      if (!line || line.startsWith('#')) return;
      const pattern = line.split(/\s+/)[2];
      if (!names.some((name) => pattern_regexp(pattern).test(name))) stale.push(`line ${index + 1}: ${pattern}`);
    });
  assert.deepEqual(stale, [], 'lines that name no test: remove or correct them');
});
