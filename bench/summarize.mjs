// Reads what bench/run collected (Google Benchmark JSON, recorded vimgpt runs, peer step logs), prints the
// one table and writes bench/results/latest.json.  usage: node bench/summarize.mjs RAW_DIR OUT_JSON
import fs from "node:fs";
import path from "node:path";

const [raw, outFile] = process.argv.slice(2);
// Google Benchmark writes NaN / inf for counters without a value (e.g. the stddev of a constant): not JSON.
const read = (file) =>
  JSON.parse(fs.readFileSync(path.join(raw, file), "utf8").replace(/(:\s*)-?(nan|NaN|inf|Infinity)\b/g, "$1null"));
const exists = (file) => fs.existsSync(path.join(raw, file));
const machine = read("machine.json");

// ---- statistics -----------------------------------------------------------------------------------------
const percentile = (values, p) => {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
};
const stats = (values) => ({ median: percentile(values, 0.5), p90: percentile(values, 0.9), n: values.length });
const round = (x, digits = 1) => (x == null ? null : Number(x.toFixed(digits)));
const fmt = (x, digits = 1) => (x == null || Number.isNaN(x) ? "—" : x.toFixed(digits));

// ---- Google Benchmark results -----------------------------------------------------------------------------
// One row per benchmark: the "median" aggregate when it was repeated, else its single run. p50_ms/p90_ms are
// per-iteration percentiles (bench/iteration_times.h); real_time is the mean of a run (or median of means).
function gbench(file) {
  if (!exists(file)) return new Map();
  const rows = new Map();
  for (const b of read(file).benchmarks) {
    const name = b.run_name || b.name;
    if (b.run_type === "aggregate" && b.aggregate_name !== "median") continue;
    if (b.run_type === "iteration" && rows.has(name) && rows.get(name).run_type === "aggregate") continue;
    if (b.error_occurred) {
      rows.set(name, { ...b, error: b.error_message });
      continue;
    }
    rows.set(name, b);
  }
  return rows;
}
const toMs = (b) => {
  const scale = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 }[b.time_unit || "ns"];
  return b.real_time * scale;
};
const timing = (b) =>
  b && !b.error ? { median_ms: round(b.p50_ms ?? toMs(b), 2), p90_ms: round(b.p90_ms ?? null, 2), mean_ms: round(toMs(b), 2) } : { error: b?.error ?? "not run" };
const find = (rows, prefix) => [...rows.entries()].filter(([name]) => name.startsWith(prefix));

const browser = gbench("browser.json");
const hints = gbench("hints.json");
const vision = gbench("vision.json");
const figures = {};

figures.launch_to_first_screenshot = timing(find(browser, "BM_LaunchToFirstScreenshot")[0]?.[1]);
figures.screenshot_1080x720 = {};
for (const [, b] of find(browser, "BM_Screenshot/")) {
  figures.screenshot_1080x720[(b.label || "?").toLowerCase()] = { ...timing(b), bytes: b.bytes };
}

figures.navigate_with_frame = {};
for (const [, b] of find(browser, "BM_NavigateWithFrame/")) figures.navigate_with_frame[b.label || "?"] = timing(b);

figures.click_load_capture = timing(find(browser, "BM_ClickLoadCapture")[0]?.[1]);
figures.hint_pass = { generated: {}, real_pages: {} };
for (const [kind, prefix] of [["overlay", "BM_HintPassOverlay/"], ["image", "BM_HintPassImage/"], ["find_only", "BM_FindOnly/"]]) {
  for (const [name, b] of find(hints, prefix)) {
    const links = name.slice(prefix.length).split("/")[0];
    (figures.hint_pass.generated[links] ??= {})[kind] = { ...timing(b), hints: b.hints, elements: b.elements,
      us_per_element: b.per_element != null ? round(b.per_element * 1e6, 2) : undefined,
      render_ms: b.remove_ms != null ? round(b.remove_ms, 1) : undefined };
  }
}
for (const [name, b] of find(hints, "BM_RealPage/")) {
  const page = name.slice("BM_RealPage/".length).split("/")[0];
  figures.hint_pass.real_pages[page] = { ...timing(b), hints: b.hints, elements: b.elements,
    us_per_element: b.per_element != null ? round(b.per_element * 1e6, 2) : undefined };
}

figures.frame_to_request = {};
for (const [name, b] of [...find(vision, "BM_FrameToRequest/"), ...find(vision, "BM_Captured")]) {
  let variant = name;
  const m = name.match(/png0_jpeg1:(\d)\/width:(\d+)/);
  if (m) variant = `decoded frame → ${m[1] === "1" ? "JPEG" : "PNG"} ${m[2]}w`;
  else if (name.startsWith("BM_CapturedJpegPassThrough")) variant = "captured JPEG 1080w, pass-through";
  else if (name.startsWith("BM_CapturedPngToJpeg")) variant = `captured PNG → JPEG ${name.match(/width:(\d+)/)?.[1]}w`;
  figures.frame_to_request[variant] = { ...timing(b), image_bytes: b.image_bytes, request_bytes: b.request_bytes,
    est_tokens_openai: b.est_tokens_openai, est_tokens_anthropic: b.est_tokens_anthropic };
}
const repair = find(vision, "BM_RepairCorpus")[0]?.[1];
figures.reply_repair = repair ? { replies_per_s: Math.round(repair.items_per_second), mb_per_s: round(repair.bytes_per_second / 1e6, 1) } : { error: "not run" };

// ---- the agent task ---------------------------------------------------------------------------------------
const world = exists("agent/world.json") ? read("agent/world.json") : { model_delay_ms: 2000 };
const agentFiles = fs.existsSync(path.join(raw, "agent")) ? fs.readdirSync(path.join(raw, "agent")) : [];
const runsOf = (prefix) => agentFiles.filter((f) => f.startsWith(prefix) && f.endsWith(".proc.json")).map((f) => f.slice(0, -".proc.json".length));
const jsonl = (file) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

function vimgptRuns(prefix, delay) {
  const fine = ["hints", "screenshot", "draw", "check", "encode", "request"];
  const phases = { capture: [], model: [], act: [], settle: [], total: [], overhead: [], ...Object.fromEntries(fine.map((k) => [k, []])) };
  const runs = [];
  for (const run of runsOf(prefix)) {
    const proc = read(`agent/${run}.proc.json`);
    const stepsFile = path.join(raw, "agent", run, "steps.jsonl");
    const steps = fs.existsSync(stepsFile) ? jsonl(stepsFile) : [];
    const runJson = path.join(raw, "agent", run, "run.json");
    const outcome = fs.existsSync(runJson) ? JSON.parse(fs.readFileSync(runJson, "utf8")).outcome : "?";
    for (const s of steps) {
      const t = s.timings_ms;
      for (const k of ["capture", "model", "act", "settle", "total"]) phases[k].push(t[k]);
      for (const k of fine) if (t[k] != null) phases[k].push(t[k]);
      phases.overhead.push(t.total - delay);
    }
    runs.push({ run, exit: proc.exit, outcome, steps: steps.length, vmhwm_mb: round(proc.vmhwm_kb / 1024, 1) });
  }
  return { runs, phases: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stats(v)])) };
}
function peerRuns(prefix, delay) {
  const phases = { sleep: [], capture: [], encode: [], request: [], parse: [], act: [], total: [], overhead: [], model_call: [] };
  const runs = [];
  for (const run of runsOf(prefix)) {
    const proc = read(`agent/${run}.proc.json`);
    const file = path.join(raw, "agent", `${run}.jsonl`);
    const steps = fs.existsSync(file) ? jsonl(file) : [];
    for (const s of steps) {
      for (const k of ["sleep", "capture", "encode", "request", "parse", "act", "total"]) phases[k].push(s.ms[k]);
      phases.model_call.push(s.ms.encode + s.ms.request + s.ms.parse);
      phases.overhead.push(s.ms.total - delay);
    }
    runs.push({ run, exit: proc.exit, steps: steps.length, last_action: steps.at(-1)?.action });
  }
  return { runs, phases: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stats(v)])) };
}
const delay = world.model_delay_ms ?? 2000;
const agent = {
  task: `${world.steps_per_run ?? "?"} steps: 5 × click "Next", click+type into a search field, done`,
  vimgpt_instant: vimgptRuns("vimgpt-instant-", 0),
  vimgpt_slow: vimgptRuns("vimgpt-slow-", delay),
  peer_nosleep_instant: peerRuns("peer-nosleep-instant-", 0),
  peer_sleep_instant: peerRuns("peer-sleep-instant-", 0),
  peer_sleep_slow: peerRuns("peer-sleep-slow-", delay),
};
figures.agent_step = agent;
const hwms = [...agent.vimgpt_instant.runs, ...agent.vimgpt_slow.runs].map((r) => r.vmhwm_mb).filter((x) => x > 0);
figures.vimgpt_peak_rss_mb = { median: percentile(hwms, 0.5), max: hwms.length ? Math.max(...hwms) : null, runs: hwms.length };

// ---- targets ------------------------------------------------------------------------------------------------
const med = (s) => s?.median ?? null;
const V = agent.vimgpt_instant.phases, PS = agent.peer_sleep_instant.phases, PN = agent.peer_nosleep_instant.phases;
const ratio = (a, b) => (a > 0 && b != null ? b / a : null);
const jpegCapture = figures.screenshot_1080x720.jpeg?.median_ms;
const jpegRequest = figures.frame_to_request["decoded frame → JPEG 1080w"]?.median_ms;
// Issue 20's targets for the step, the ratios to the peer and the launch.
const targets = [
  ["per-step overhead, median (instant model)", med(V.overhead), "ms", "≤ 100", (x) => x <= 100],
  ["peer (with sleeps) / vimgpt per-step overhead", ratio(med(V.overhead), med(PS.overhead)), "x", "≥ 12", (x) => x >= 12],
  ["peer (no sleeps) / vimgpt per-step overhead", ratio(med(V.overhead), med(PN.overhead)), "x", "≥ 3", (x) => x >= 3],
  ["hint pass, 1,000 links (overlay), median", figures.hint_pass.generated["1000"]?.overlay?.median_ms, "ms", "≤ 30", (x) => x <= 30],
  ["hint pass, 10,000 links (overlay), median", figures.hint_pass.generated["10000"]?.overlay?.median_ms, "ms", "≤ 150", (x) => x <= 150],
  ["hint pass, 1,000 links (image), median", figures.hint_pass.generated["1000"]?.image?.median_ms, "ms", "≤ 30", (x) => x <= 30],
  ["hint pass, 10,000 links (image), median", figures.hint_pass.generated["10000"]?.image?.median_ms, "ms", "≤ 150", (x) => x <= 150],
  ["launch to first screenshot, median", figures.launch_to_first_screenshot.median_ms, "ms", "≤ 500", (x) => x <= 500],
  ["JPEG capture 1080x720, median", jpegCapture, "ms", "≤ 60", (x) => x <= 60],
  ["frame → request, JPEG 1080w, median", jpegRequest, "ms", "≤ 15", (x) => x <= 15],
  ["vimgpt peak RSS (max over runs)", figures.vimgpt_peak_rss_mb.max, "MB", "≤ 40", (x) => x <= 40],
].map(([what, value, unit, target, ok]) => ({ what, value: round(value, 1), unit, target, met: value == null ? null : ok(value) }));

// ---- the table ----------------------------------------------------------------------------------------------
const lines = [];
const table = (header, rows) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  lines.push("| " + header.map((h, i) => h.padEnd(widths[i])).join(" | ") + " |");
  lines.push("|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
  for (const r of rows) lines.push("| " + r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(" | ") + " |");
  lines.push("");
};
lines.push(`Machine: ${machine.cpu}, ${machine.nproc} cores, ${Math.round(machine.mem_total_kb / 1048576)} GB; ${machine.chromium}; Node ${machine.node}`);
lines.push(`Date: ${machine.date}; load average before ${machine.load_before}, after ${machine.load_after}; run took ${machine.seconds ?? "?"} s`);
lines.push(machine.vimium ? `Peer: Vimium loaded from ${machine.vimium}` :
  "Peer: Vimium not available (VIMIUM_DIR unset): the peer draws Vimium-style hints with its own in-page script and clicks with page.mouse at the element instead of typing the label");
lines.push("");

lines.push("Targets");
table(["figure", "measured", "target", "met"], targets.map((t) => [t.what, `${fmt(t.value)} ${t.unit}`, `${t.target} ${t.unit}`, t.met == null ? "n/a" : t.met ? "yes" : "NO"]));

lines.push("1-2. Browser");
table(["figure", "median ms", "p90 ms", "bytes"], [
  ["launch → first screenshot (JPEG)", fmt(figures.launch_to_first_screenshot.median_ms), fmt(figures.launch_to_first_screenshot.p90_ms), ""],
  ...Object.entries(figures.screenshot_1080x720).map(([f, s]) => [`screenshot 1080x720 ${f.toUpperCase()}`, fmt(s.median_ms), fmt(s.p90_ms), s.bytes ?? ""]),
  ...Object.entries(figures.navigate_with_frame).map(([kind, s]) => [`navigate to a page with a ${kind}`, fmt(s.median_ms), fmt(s.p90_ms), ""]),
  ["click a link → next page loaded → JPEG (the browser's share of an agent step)", fmt(figures.click_load_capture.median_ms), fmt(figures.click_load_capture.p90_ms), ""],
]);

lines.push("3. Hint pass (find + label + draw; overlay = markers into the page, then Chromium renders them (timed apart); image = drawn onto a JPEG frame)");
table(["page", "hints", "elements", "overlay median ms", "overlay p90 ms", "µs/element", "overlay render ms", "image median ms", "find only median ms"],
  Object.entries(figures.hint_pass.generated).sort((a, b) => Number(a[0]) - Number(b[0])).map(([links, r]) => [
    `generated, ${Number(links).toLocaleString("en")} links`, r.overlay?.hints ?? "", r.overlay?.elements ?? "", fmt(r.overlay?.median_ms),
    fmt(r.overlay?.p90_ms), fmt(r.overlay?.us_per_element, 2), fmt(r.overlay?.render_ms), fmt(r.image?.median_ms), fmt(r.find_only?.median_ms)]));
const real = Object.entries(figures.hint_pass.real_pages);
table(["real page (overlay pass)", "hints", "elements", "median ms", "p90 ms", "µs/element"], [
  ...real.map(([page, r]) => [page, r.hints ?? "", r.elements ?? "", fmt(r.median_ms), fmt(r.p90_ms), fmt(r.us_per_element, 2)]),
  ["median of the pages", "", "", fmt(percentile(real.map(([, r]) => r.median_ms).filter((x) => x != null), 0.5)),
    fmt(percentile(real.map(([, r]) => r.p90_ms).filter((x) => x != null), 0.5)),
    fmt(percentile(real.map(([, r]) => r.us_per_element).filter((x) => x != null), 0.5), 2)],
]);

lines.push("4. Frame → request bytes (scale, encode, base64, JSON), from a 1080x720 frame");
table(["variant", "median ms", "p90 ms", "image bytes", "request bytes", "est. tokens OpenAI", "est. tokens Anthropic"],
  Object.entries(figures.frame_to_request).map(([v, r]) => [v, fmt(r.median_ms, 2), fmt(r.p90_ms, 2), r.image_bytes ?? "", r.request_bytes ?? "",
    r.est_tokens_openai ?? "", r.est_tokens_anthropic ?? ""]));

lines.push(`5. Per-step agent overhead: ${agent.task}; overhead = step total − the fake model's own delay`);
const vs = agent.vimgpt_slow.phases;
const ms = (s) => (s && s.n ? `${fmt(s.median, 0)} / ${fmt(s.p90, 0)}` : "—");
const rx = (v, p) => { const r = ratio(med(v), med(p)); return r == null ? "—" : `${r.toFixed(1)}x`; };
const zero = { median: 0, p90: 0, n: 1 };
table(["phase (median / p90 ms)", "vimgpt", "peer no sleeps", "peer with sleeps", "peer÷vimgpt (no sleeps)", "peer÷vimgpt (sleeps)", "vimgpt, 2 s model"], [
  ["fixed sleep", "0 / 0", ms(PN.sleep), ms(PS.sleep), "", "", "0 / 0"],
  ["capture (hints + screenshot + draw + check)", ms(V.capture), ms(PN.capture), ms(PS.capture), rx(V.capture, PN.capture), rx(V.capture, PS.capture), ms(vs.capture)],
  ["  hints (find + label)", ms(V.hints), "", "", "", "", ms(vs.hints)],
  ["  screenshot", ms(V.screenshot), "", "", "", "", ms(vs.screenshot)],
  ["  draw (markers in and out)", ms(V.draw), "", "", "", "", ms(vs.draw)],
  ["  check (did the page hold still)", ms(V.check), "", "", "", "", ms(vs.check)],
  ["model call (encode + request + parse)", ms(V.model), ms(PN.model_call), ms(PS.model_call), rx(V.model, PN.model_call), rx(V.model, PS.model_call), ms(vs.model)],
  ["  encode", ms(V.encode), "", "", "", "", ms(vs.encode)],
  ["  request (fake model's own time included)", ms(V.request), "", "", "", "", ms(vs.request)],
  ["act + settle", ms({ median: med(V.act) + med(V.settle), p90: V.act.p90 + V.settle.p90, n: 1 }), ms(PN.act), ms(PS.act), "", "", ms({ median: med(vs.act) + med(vs.settle), p90: vs.act.p90 + vs.settle.p90, n: 1 })],
  ["  act", ms(V.act), "", "", "", "", ms(vs.act)],
  ["  settle", ms(V.settle), "", "", "", "", ms(vs.settle)],
  ["step total", ms(V.total), ms(PN.total), ms(PS.total), rx(V.total, PN.total), rx(V.total, PS.total), ms(vs.total)],
  ["overhead per step", ms(V.overhead), ms(PN.overhead), ms(PS.overhead), rx(V.overhead, PN.overhead), rx(V.overhead, PS.overhead), ms(vs.overhead)],
  ["steps measured", V.total.n, PN.total.n, PS.total.n, "", "", vs.total.n],
]);
if (agent.peer_sleep_slow.phases.total.n) {
  lines.push(`With the 2 s model the peer (with sleeps) takes ${ms(agent.peer_sleep_slow.phases.total)} ms per step, overhead ${ms(agent.peer_sleep_slow.phases.overhead)} ms; vimgpt ${ms(vs.total)} ms, overhead ${ms(vs.overhead)} ms.`);
}
const runSummary = (r) => r.runs.map((x) => `${x.exit}${x.outcome ? "/" + x.outcome : ""}(${x.steps})`).join(" ");
lines.push(`Runs (exit/outcome(steps)): vimgpt instant ${runSummary(agent.vimgpt_instant)}; vimgpt 2 s ${runSummary(agent.vimgpt_slow)}; peer no sleeps ${runSummary(agent.peer_nosleep_instant)}; peer sleeps ${runSummary(agent.peer_sleep_instant)}; peer sleeps 2 s ${runSummary(agent.peer_sleep_slow)}`);
lines.push("");
lines.push(`6. vimgpt peak RSS (VmHWM of the vimgpt process, Chromium excluded): median ${fmt(figures.vimgpt_peak_rss_mb.median)} MB, max ${fmt(figures.vimgpt_peak_rss_mb.max)} MB over ${figures.vimgpt_peak_rss_mb.runs} runs`);
lines.push(`7. Reply repair: ${figures.reply_repair.replies_per_s?.toLocaleString("en") ?? "—"} replies/s (${fmt(figures.reply_repair.mb_per_s)} MB/s) over tests/fixtures/replies/corpus.json`);

if (exists("batch.json")) {
  figures.batch = read("batch.json");
  lines.push("");
  lines.push(`8. Batch: ${figures.batch.tasks} two-step tasks (instant model) through \`vimgpt batch\` on one Chromium over WebSocket`);
  table(["workers", "seconds", "tasks/min", "mean task s", "browser MB per task", "vimgpt peak RSS MB"],
    figures.batch.runs.map((r) => [r.parallel, fmt(r.seconds), fmt(r.tasks_per_min), fmt(r.mean_task_s), r.browser_mb_per_task, r.vimgpt_peak_rss_mb]));
}

const text = lines.join("\n");
console.log(text);
fs.writeFileSync(outFile, JSON.stringify({ machine, targets, figures, table: text }, null, 2) + "\n");
console.error(`wrote ${outFile}`);
