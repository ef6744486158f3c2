// Reads bench/replay/run's raw folder and prints the replay table: model calls, time per step and per run,
// medians over the runs of each kind.
//   node bench/replay/summarize.mjs RAW_DIR OUT.json
import fs from 'node:fs';
import path from 'node:path';

const [raw, out] = process.argv.slice(2);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

// One run: its exit, wall time, steps, the model calls it made, how its steps were found, and per-step times.
function run(name) {
  const proc = readJson(path.join(raw, `${name}.proc.json`));
  const events = lines(path.join(raw, `${name}.events.jsonl`));
  const end = events.find((event) => event.event === 'end') ?? {};
  const steps = fs.existsSync(path.join(raw, name, 'steps.jsonl')) ? lines(path.join(raw, name, 'steps.jsonl')) : [];
  return {
    name,
    exit: proc.exit,
    wall_ms: proc.wall_ms,
    outcome: end.outcome,
    steps: steps.length,
    model_calls: end.usage?.requests ?? 0,
    marks: steps.map((step) => step.replay?.mark ?? 'model'),
    step_ms: median(steps.map((step) => step.timings_ms.total)),
  };
}

const kinds = {recorded: [], replayed: [], recorded_slow: [], healed: [], diverged: []};
for (const file of fs.readdirSync(raw)) {
  const match = file.match(/^(recorded|replayed|recorded_slow|healed|diverged)-(\d+)\.proc\.json$/);
  if (match) kinds[match[1]].push(run(`${match[1]}-${match[2]}`));
}
const summary = {machine: readJson(path.join(raw, 'machine.json'))};
for (const [kind, runs] of Object.entries(kinds)) {
  summary[kind] = {
    runs: runs.length,
    exits: [...new Set(runs.map((r) => r.exit))],
    model_calls: median(runs.map((r) => r.model_calls)),
    steps: median(runs.map((r) => r.steps)),
    step_ms: median(runs.map((r) => r.step_ms)),
    wall_ms: median(runs.map((r) => r.wall_ms)),
    marks: runs[0]?.marks ?? [],
  };
}
const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);
summary.replay_vs_recorded_step = ratio(summary.recorded.step_ms, summary.replayed.step_ms);
summary.replay_vs_recorded_wall = ratio(summary.recorded.wall_ms, summary.replayed.wall_ms);
summary.replay_vs_recorded_slow_wall = ratio(summary.recorded_slow.wall_ms, summary.replayed.wall_ms);
fs.writeFileSync(out, JSON.stringify(summary, null, 2) + '\n');

const row = (kind) => {
  const s = summary[kind];
  return `| ${kind} | ${s.runs} | ${s.exits.join(', ')} | ${s.model_calls} | ${s.steps} | ${s.step_ms} | ${s.wall_ms} | ${s.marks.join(' ')} |`;
};
console.log(`load ${summary.machine.load_before} -> ${summary.machine.load_after}, ${summary.machine.nproc} cores`);
console.log('| run | n | exit | model calls | steps | ms/step (median) | wall ms (median) | steps found by |');
console.log('|---|---:|---|---:|---:|---:|---:|---|');
for (const kind of Object.keys(kinds)) console.log(row(kind));
console.log(`replayed vs recorded: ${summary.replay_vs_recorded_step}x per step, ${summary.replay_vs_recorded_wall}x wall` +
            ` (instant model); ${summary.replay_vs_recorded_slow_wall}x wall against the 2 s model`);
