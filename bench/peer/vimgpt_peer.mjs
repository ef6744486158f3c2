// The original vimGPT loop (github.com/ishan0102/vimGPT: main.py, vimbot.py, vision.py) reproduced in Node,
// for bench/run to measure side by side with vimgpt on the same pages, the same Chromium and the same fake
// model. What is the same as the original:
//   - the loop: sleep 1 s, capture, ask, perform; done ends it (main.py)
//   - capture: Escape, show the hints, page.screenshot() as PNG, decoded to RGB (vimbot.capture)
//   - encode: resize to width 1080 (PIL bicubic, a copy when already 1080), PNG, base64 (vision.encode_and_resize)
//   - request: the same JSON body, model "gpt-4-vision-preview", the same prompt, the PNG declared as
//     image/jpeg, max_tokens 100; JSON.parse of the reply, and on failure the same second "fix this JSON"
//     request (vision.get_actions)
//   - act: navigate = goto (https:// added); type = sleep 1 s, keyboard.type, Enter; click+type = click then
//     type (vimbot.perform_action)
//   - viewport 1080x720
// What differs, because Vimium is not available here (VIMIUM_DIR unset): the hints are drawn by a small
// in-page script with Vimium's clickable tags and Vimium's label algorithm and look, and a click is
// page.mouse.click at the labelled element's centre instead of typing the label letters into Vimium. When
// VIMIUM_DIR is set the extension is loaded and "f" is pressed as the original does, and clicks type the
// letters. The original's bug of typing twice on click+type is left out (it would add another 1 s sleep).
// With --no-sleeps the fixed sleeps are removed; a click then waits for the navigation it starts (at most
// 1 s for it to begin, then "load"), since without the sleep nothing else would.
//
// Each step is written as one JSON line: {step, url, action, ms: {sleep, capture, encode, request, parse,
// act, total}, image_bytes, request_bytes}.
import { chromium } from "playwright-core";
import sharp from "sharp";
import fs from "node:fs";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    "start-url": { type: "string" },
    "base-url": { type: "string" },
    objective: { type: "string", default: "read the guide to the end and search it for lisbon" },
    out: { type: "string" },
    "max-steps": { type: "string", default: "30" },
    "no-sleeps": { type: "boolean", default: false },
    chrome: { type: "string", default: "/usr/lib/chromium/chromium" },
  },
});
const SLEEPS = !opt["no-sleeps"];
const VIMIUM = process.env.VIMIUM_DIR || "";
const IMG_RES = 1080;
const out = opt.out ? fs.openSync(opt.out, "w") : 1;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();

const PROMPT = (objective) =>
  `You need to choose which action to take to help a user do this task: ${objective}. Your options are navigate, type, click, and done. Navigate should take you to the specified URL. Type and click take strings where if you want to click on an object, return the string with the yellow character sequence you want to click on, and to type just a string with the message you want to type. For clicks, please only respond with the 1-2 letter sequence in the yellow box, and if there are multiple valid options choose the one you think a user would select. For typing, please return a click to click on the box along with a type with the message to write. When the page seems satisfactory, return done as a key with no value. You must respond in JSON only with no other fluff or bad things will happen. The JSON keys must ONLY be one of navigate, type, or click. Do not return the JSON inside a code block.`;

// Stand-in for Vimium's "f": Vimium's clickable tags, its label algorithm (AlphabetHints.hintStrings with
// linkHintCharacters "sadfjklewcmpgh"), markers styled like Vimium's. Returns nothing; the rects stay in
// window.__peerHints for clicks.
function showHints() {
  const chars = "sadfjklewcmpgh";
  const hintStrings = (count) => {
    let hints = [""];
    let offset = 0;
    while (hints.length - offset < count || hints.length === 1) {
      const hint = hints[offset++];
      for (const ch of chars) hints.push(ch + hint);
    }
    hints = hints.slice(offset, offset + count);
    return hints.sort().map((s) => [...s].reverse().join(""));
  };
  document.getElementById("__peer_hints")?.remove();
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, [onclick], [role=button], [role=link]";
  const visible = [];
  for (const el of document.querySelectorAll(selector)) {
    const rect = el.getClientRects()[0];
    if (!rect || rect.width < 1 || rect.height < 1) continue;
    if (rect.bottom < 0 || rect.right < 0 || rect.top > innerHeight || rect.left > innerWidth) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible" || style.display === "none") continue;
    visible.push({ el, rect });
  }
  const labels = hintStrings(visible.length);
  const container = document.createElement("div");
  container.id = "__peer_hints";
  const hints = {};
  visible.forEach(({ rect }, i) => {
    const label = labels[i].toUpperCase();
    const marker = document.createElement("div");
    marker.textContent = label;
    marker.style.cssText =
      `position:fixed;left:${rect.left}px;top:${rect.top}px;z-index:2147483647;padding:0 1px;` +
      "font:bold 11px Helvetica,Arial,sans-serif;color:#302505;border:1px solid #E3BE23;border-radius:3px;" +
      "background:linear-gradient(to bottom,#FFF785 0%,#FFC542 100%);box-shadow:0 3px 7px 0 rgba(0,0,0,0.3)";
    container.appendChild(marker);
    hints[label] = { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  });
  document.documentElement.appendChild(container);
  window.__peerHints = hints;
}

async function main() {
  const args = ["--headless=new", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-gpu", "--disable-breakpad",
    "--disable-domain-reliability", "--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
    "--mute-audio", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"];
  if (process.getuid && process.getuid() === 0) args.push("--no-sandbox");
  if (VIMIUM) args.push(`--disable-extensions-except=${VIMIUM}`, `--load-extension=${VIMIUM}`);
  // headless: false + --headless=new: Playwright's own headless switch would pick the old headless mode.
  const context = await chromium.launchPersistentContext("", {
    executablePath: opt.chrome, headless: false, args, ignoreHTTPSErrors: true,
  });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1080, height: 720 });
  await page.goto(opt["start-url"], { timeout: 60000 });

  const chatUrl = opt["base-url"].replace(/\/$/, "") + "/chat/completions";
  const post = async (body) => {
    const response = await fetch(chatUrl, {
      method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench" }, body,
    });
    return await response.json();
  };

  const waitForNavigationFrom = async (before) => {
    const deadline = now() + 1000;
    while (page.url() === before && now() < deadline) await sleep(5);
    if (page.url() !== before) await page.waitForLoadState("load");
  };

  // followed: wait (without sleeps) for the navigation a click starts; not when typing follows the click.
  const click = async (label, followed = true) => {
    if (VIMIUM) return page.keyboard.type(label);
    const target = await page.evaluate((l) => {
      const point = (window.__peerHints || {})[l.toUpperCase()];
      document.getElementById("__peer_hints")?.remove();
      return point || null;
    }, label);
    if (!target) throw new Error(`no hint ${label}`);
    const before = page.url();
    await page.mouse.click(target.x, target.y);
    if (!SLEEPS && followed) await waitForNavigationFrom(before);
  };
  const type = async (text) => {
    if (SLEEPS) await sleep(1000);
    const before = page.url();
    await page.keyboard.type(text);
    await page.keyboard.press("Enter");
    if (!SLEEPS) await waitForNavigationFrom(before);
  };

  const maxSteps = Number(opt["max-steps"]);
  let done = false;
  for (let step = 1; step <= maxSteps && !done; ++step) {
    const ms = {};
    let t = now();
    const start = t;
    if (SLEEPS) await sleep(1000);
    ms.sleep = now() - t;

    t = now();
    await page.keyboard.press("Escape");
    if (VIMIUM) await page.keyboard.type("f");
    else await page.evaluate(showHints);
    const shot = await page.screenshot();
    ms.capture = now() - t;

    t = now();
    const image = sharp(shot).removeAlpha();
    const { width, height } = await image.metadata();
    const resized = width === IMG_RES ? image : image.resize(IMG_RES, Math.floor((IMG_RES * height) / width), { kernel: "cubic" });
    const png = await resized.png({ compressionLevel: 6 }).toBuffer();
    const encoded = png.toString("base64");
    ms.encode = now() - t;

    t = now();
    const body = JSON.stringify({
      model: "gpt-4-vision-preview",
      messages: [{ role: "user", content: [
        { type: "text", text: PROMPT(opt.objective) },
        // The original declares image/jpeg for these PNG bytes; the fake model server rejects a MIME mismatch
        // (422), so the peer declares image/png: the same bytes, the same size.
        { type: "image_url", image_url: { url: `data:image/png;base64,${encoded}` } },
      ] }],
      max_tokens: 100,
    });
    const reply = await post(body);
    ms.request = now() - t;

    t = now();
    let action;
    try {
      action = JSON.parse(reply.choices[0].message.content);
    } catch {
      const fixed = await post(JSON.stringify({
        model: "gpt-4-1106-preview",
        messages: [
          { role: "system", content: "You are a helpful assistant to fix an invalid JSON response. You need to fix the invalid JSON response to be valid JSON. You must respond in JSON only with no other fluff or bad things will happen. Do not return the JSON inside a code block." },
          { role: "user", content: `The invalid JSON response is: ${reply.choices[0].message.content}` },
        ],
        response_format: { type: "json_object" },
      }));
      action = JSON.parse(fixed.choices[0].message.content);
    }
    ms.parse = now() - t;

    t = now();
    const url = page.url();
    if ("done" in action) {
      done = true;
    } else {
      if ("click" in action && "type" in action) {
        await click(action.click, false);
        await type(action.type);
      } else if ("navigate" in action) {
        const target = action.navigate.includes("://") ? action.navigate : `https://${action.navigate}`;
        await page.goto(target, { timeout: 60000 });
      } else if ("type" in action) {
        await type(action.type);
      } else if ("click" in action) {
        await click(action.click);
      }
    }
    ms.act = now() - t;
    ms.total = now() - start;
    fs.writeSync(out, JSON.stringify({ step, url, action, ms, image_bytes: png.length, request_bytes: body.length }) + "\n");
  }
  await context.close();
  process.exit(done ? 0 : 2);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
