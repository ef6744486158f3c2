// The hint library, part 5 (see rules.js): secrets, the overlay, whether the page changed during a
// capture, finding a pass's element again to act on it, drop-downs, and the focused field.

// The field that has the focus (through open shadow roots and same-origin frames) holds a secret from now
// on: its box is painted over in every frame. Inside a cross-origin frame that is the whole frame.
function markSecret() {
  const e = deepActive();
  if (!e) return false;
  state.secrets.add(e);
  return true;
}

// The element that has the focus, through open shadow roots and same-origin frames (inside a cross-origin
// frame: that frame's element); null when nothing but the page itself has it.
function deepActive() {
  let e = document.activeElement;
  for (;;) {
    if (e && e.shadowRoot && e.shadowRoot.activeElement) { e = e.shadowRoot.activeElement; continue; }
    if (e && (e.localName === 'iframe' || e.localName === 'frame')) {
      let d = null;
      try { d = e.contentDocument; } catch (x) { d = null; }
      if (d && d.activeElement && d.activeElement !== d.body) { e = d.activeElement; continue; }
    }
    break;
  }
  return !e || e === document.body || e === document.documentElement ? null : e;
}

function secretRects() {
  const out = [];
  for (const el of state.secrets) {
    if (!el.isConnected) { state.secrets.delete(el); continue; }
    const F = frameOf(el);
    for (const r of el.getClientRects()) { const v = crop(r, F); if (v) out.push(v); }
  }
  return out;
}

function overlay(P) {
  removeOverlay();
  const host = document.createElement('vimgpt-hints');
  // Inline !important beats any page stylesheet; the closed shadow root keeps the page's CSS out.
  host.setAttribute('style', 'all:initial!important;position:fixed!important;left:0!important;top:0!important;' +
    'width:100vw!important;height:100vh!important;margin:0!important;padding:0!important;border:0!important;' +
    'background:transparent!important;overflow:visible!important;pointer-events:none!important;' +
    'display:block!important;z-index:2147483647!important;opacity:1!important;visibility:visible!important;' +
    'transform:none!important;filter:none!important;clip-path:none!important;inset:0!important');
  const root = host.attachShadow({mode: 'closed'});
  // One parse for every marker (labels are letters, positions numbers): hundreds of createElement calls
  // cost more than the rest of the pass. Later markers paint over earlier ones in document order, as
  // Vimium's rising z-indexes make them. Vimium's blurred box-shadow and text-shadow are left out: they
  // cost the capture ~25 ms of rasterising on a page of a few hundred hints, and the blur smudges what
  // the model should read next to each label.
  const css = 'div.m { position: absolute; display: block; white-space: nowrap; overflow: hidden;' +
    ' padding: 1px 3px 0px 3px; background: linear-gradient(to bottom, #fff785 0%, #ffc542 100%);' +
    ' border: solid 1px #c38a22; border-radius: 3px;' +
    ' line-height: 100%; box-sizing: content-box; margin: 0; color: #302505;' +
    ' font-family: Helvetica, Arial, sans-serif; font-weight: bold; font-size: 11px;' +
    // Larger labels for a frame scaled down (CaptureOptions::label_scale): the box grows from its corner.
    (P.scale > 1 ? ' transform-origin: 0 0; transform: scale(' + Number(P.scale) + ');' : '') + ' }';
  const html = ['<style>', css, '</style>'];
  for (const m of P.markers) {
    html.push('<div class=m style="left:', +m.x, 'px;top:', +m.y, 'px">', String(m.l).replace(/[^A-Za-z]/g, ''),
              '</div>');
  }
  try {
    root.innerHTML = html.join('');
  } catch (e) {
    // A page that enforces Trusted Types refuses the string: build the same markers node by node.
    const style = document.createElement('style');
    style.textContent = css;
    root.appendChild(style);
    for (const m of P.markers) {
      const d = document.createElement('div');
      d.className = 'm';
      d.style.left = m.x + 'px';
      d.style.top = m.y + 'px';
      d.textContent = m.l;
      root.appendChild(d);
    }
  }
  (document.documentElement || document).appendChild(host);
  // The top layer puts the markers above modal dialogs and fullscreen elements, as Vimium does.
  try { host.popover = 'manual'; host.showPopover(); } catch (e) {}
  state.overlay = host;
  // Page.captureScreenshot renders a fresh frame, so there is no need to wait for one here.
  return P.markers.length;
}

function removeOverlay() {
  if (state.overlay) { try { state.overlay.remove(); } catch (e) {} }
  state.overlay = null;
  return true;
}

// After a capture: the markers out, and (when it was taken in a quiet window) whether the page changed
// meanwhile, in one call. With P.quietMs, what is left of a DOM-quiet window is waited out here, and a change
// ends the wait at once.
function finishCapture(P) {
  removeOverlay();
  if (!P.watched) return false;
  if (!(P.quietMs > 0) || !state.watcher) return changed();
  if (state.changed || foreign(state.watcher.takeRecords())) return changed(true);
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); state.onChange = null; resolve(changed()); };
    const timer = setTimeout(done, P.quietMs);
    state.onChange = done;
  });
}

// Whether the page changed while a capture was taken in a quiet window: any mutation of the document but the
// overlay's own coming and going.
function ours(n) { return n.localName === 'vimgpt-hints'; }
function foreign(records) {
  return records.some((r) => !ours(r.target) &&
    !(r.type === 'childList' && [...r.addedNodes, ...r.removedNodes].every(ours)));
}
function watch() {
  if (state.watcher) state.watcher.disconnect();
  state.changed = false;
  state.onChange = null;
  state.watcher = new MutationObserver((records) => {
    if (state.changed || !foreign(records)) return;
    state.changed = true;
    if (state.onChange) state.onChange();
  });
  state.watcher.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  return true;
}
function changed(seenAlready) {
  if (!state.watcher) return true;
  const seen = seenAlready || state.changed || foreign(state.watcher.takeRecords());
  state.watcher.disconnect();
  state.watcher = null;
  return seen;
}

function element(P) {
  if (P.pass !== state.pass) return {error: 'stale'};
  const el = state.els[P.index];
  if (!el || !el.isConnected) return {error: 'gone'};
  return {el};
}

// The frame chain of an element in this world (same-origin iframes), as find() builds it.
function frameOf(el) {
  const chain = [];
  for (let doc = el.ownerDocument; doc && doc.defaultView && doc.defaultView.frameElement;) {
    const fe = doc.defaultView.frameElement;
    chain.unshift(fe);
    doc = fe.ownerDocument;
  }
  let F = {doc: document, ox: 0, oy: 0, clip: [0, 0, innerWidth, innerHeight], frames: []};
  for (const fe of chain) {
    const r = fe.getBoundingClientRect();
    const ox = F.ox + r.left + fe.clientLeft, oy = F.oy + r.top + fe.clientTop;
    F = {doc: fe.contentDocument, ox, oy,
         clip: [Math.max(F.clip[0], ox), Math.max(F.clip[1], oy), Math.min(F.clip[2], ox + fe.clientWidth),
                Math.min(F.clip[3], oy + fe.clientHeight)],
         frames: [...F.frames, {el: fe, parent: F}]};
  }
  return F;
}

function locate(P) {
  const got = element(P);
  if (got.error) return got;
  const el = got.el, tag = el.localName;
  const image = tag === 'area' ? mapImage(el) : null;
  const target = image || el;
  let pt = clickPoint(el, frameOf(el), image);
  let scrolled = false;
  if (!pt) {
    target.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    scrolled = true;
    pt = clickPoint(el, frameOf(el), image);
  }
  const choice = choiceKind(el);
  const kind = choice === 'select' ? 'select' : choice ? 'choice' : isSelectable(el) ? 'text' : 'click';
  return {x: pt ? pt[0] : null, y: pt ? pt[1] : null, scrolled, kind, vw: innerWidth, vh: innerHeight};
}

function caretToEnd(P) {
  const got = element(P);
  if (got.error) return got;
  const el = got.el;
  if (el.ownerDocument.activeElement !== el && !el.contains(el.ownerDocument.activeElement)) el.focus();
  if (el.localName === 'input' || el.localName === 'textarea') {
    try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) {}
  } else if (el.isContentEditable) {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    const sel = el.ownerDocument.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  return {focused: el.ownerDocument.activeElement === el || el.contains(el.ownerDocument.activeElement)};
}

// ---- Gestures beyond a click: scrolling an element, covering, words to select ------------------------------

// An element's scroll position (an iframe's: its document's, when it is same-origin), for telling whether a
// wheel over it moved it.
function scrollState(P) {
  const got = element(P);
  if (got.error) return got;
  let el = got.el;
  if (el.localName === 'iframe' || el.localName === 'frame') {
    try { el = el.contentDocument.scrollingElement; } catch (e) { return {top: null, left: null}; }
    if (!el) return {top: null, left: null};
  }
  return {top: el.scrollTop, left: el.scrollLeft, height: el.clientHeight, scrollHeight: el.scrollHeight,
          scrolls: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1};
}

// What a wheel turned at (P.x, P.y) of the viewport scrolls: the elements under the point that can scroll, innermost
// first (into open shadow roots), then the page, as a person's mouse wheel would try them. Kept for scrolledAt, which
// reads where each is after the wheel turned. `frame`: the point is over a frame, which scrolls on its own.
function scrollablesAt(P) {
  let el = document.elementFromPoint(P.x, P.y);
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(P.x, P.y);
    if (!inner || inner === el) break;
    el = inner;
  }
  const page = document.scrollingElement || document.documentElement;
  const frame = !!el && (el.localName === 'iframe' || el.localName === 'frame');
  const chain = [];
  for (let e = el; e; e = e.parentElement || (e.getRootNode().host || null)) {
    if (e === page || e === document.body) continue;
    const overflow = getComputedStyle(e).overflowY;
    if (/(auto|scroll|overlay)/.test(overflow) && e.scrollHeight > e.clientHeight + 1) chain.push(e);
  }
  chain.push(page);
  state.scrolledAt = chain;
  const names = chain.map((e) => {
    if (e === page) return 'the page';
    const tag = e.localName;
    const name = squash(nameOf(e, tag) || e.textContent, 40);
    return roleOf(e, tag) + (name ? ' "' + name + '"' : '');
  });
  return {frame, names, tops: chain.map((e) => e.scrollTop),
          height: chain[0] === page ? innerHeight : chain[0].clientHeight};
}

function scrolledAt() {
  return {tops: (state.scrolledAt || []).map((e) => e.scrollTop)};
}

// Whether the element acted on is still there and still the one under its click point: a dialog or a layer
// the action opened over it, or the page it went to, means what was planned next may no longer apply.
function uncovered(P) {
  const got = element(P);
  if (got.error) return {gone: true};
  return {visible: !!clickPoint(got.el, frameOf(got.el), got.el.localName === 'area' ? mapImage(got.el) : null)};
}

// The first place the words show in the text under `root`, as a Range: whitespace runs match any whitespace;
// case must match unless no match does.
function findWords(root, words) {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let text = '';
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (parent && /^(script|style|noscript|template)$/.test(parent.localName)) continue;
    nodes.push({node: n, start: text.length});
    text += n.data;
  }
  const pattern = words.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  if (!pattern) return null;
  const match = new RegExp(pattern).exec(text) || new RegExp(pattern, 'i').exec(text);
  if (!match) return null;
  const at = (offset, end) => {
    for (let i = nodes.length - 1; i >= 0; i--) {
      const n = nodes[i];
      if (offset > n.start || (!end && offset === n.start)) return {node: n.node, offset: offset - n.start};
    }
    return {node: nodes[0].node, offset: 0};
  };
  const range = root.ownerDocument.createRange();
  const from = at(match.index, false), to = at(match.index + match[0].length, true);
  range.setStart(from.node, from.offset);
  range.setEnd(to.node, to.offset);
  return range;
}

// One character's box at a boundary of the range: where a person's drag starts (the first character's left
// edge) or ends (the last one's right edge).
function charBox(range, first) {
  const r = range.cloneRange();
  if (first) r.setEnd(r.startContainer, Math.min(r.startOffset + 1, r.startContainer.length));
  else r.setStart(r.endContainer, Math.max(r.endOffset - 1, 0));
  const rects = r.getClientRects();
  return rects.length ? rects[first ? 0 : rects.length - 1] : null;
}

// Where a person would press and release to select the words (in this frame's viewport px), scrolled into
// view first when needed; P.pass/P.index name the element to look in, else the whole document.
function wordsAt(P) {
  let root = document.body || document.documentElement;
  if (P.index !== undefined) {
    const got = element(P);
    if (got.error) return got;
    root = got.el;
  }
  const range = findWords(root, P.text);
  if (!range) return {error: 'no-text'};
  state.words = range;
  let a = charBox(range, true), b = charBox(range, false);
  if (!a || !b || a.top < 0 || b.bottom > innerHeight || a.left < 0 || b.right > innerWidth) {
    range.startContainer.parentElement.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
    a = charBox(range, true);
    b = charBox(range, false);
  }
  if (!a || !b) return {error: 'not-visible'};
  return {from: [a.left + 1, a.top + a.height / 2], to: [b.right - 1, b.top + b.height / 2], text: squash(range.toString(), 400)};
}

// What the page has selected now; `exact` puts the selection on the words found last, as the Selection API
// would (selectionchange fires), when a drag did not land on them exactly.
function selection(P) {
  const sel = document.getSelection();
  if (P.exact && state.words) {
    sel.removeAllRanges();
    sel.addRange(state.words);
  }
  return {text: sel ? sel.toString() : ''};
}

// ---- Drop-downs: a <select>, or an ARIA listbox (itself, or the one a combobox controls) -------------------

function roleAttr(el) { return (el.getAttribute('role') || '').toLowerCase(); }

// 'select', 'aria' for a listbox or a combobox one chooses from (not one typed into: that is a text field),
// or null.
function choiceKind(el) {
  if (el.localName === 'select') return 'select';
  if (isSelectable(el)) return null;
  const role = roleAttr(el);
  if (role === 'combobox' || role === 'listbox') return 'aria';
  return (el.getAttribute('aria-haspopup') || '').toLowerCase() === 'listbox' ? 'aria' : null;
}

function listOptions(el) {
  return [...el.options].map((o) => ({text: squash(o.text, 120), value: o.value, selected: o.selected,
                                      disabled: o.disabled || (o.parentElement && o.parentElement.disabled) || false}));
}

// The visible, enabled options of the listboxes an ARIA element shows: itself, those aria-controls or
// aria-owns name, and those inside it.
function ariaOptions(el) {
  const boxes = new Set();
  if (roleAttr(el) === 'listbox') boxes.add(el);
  const root = el.getRootNode();
  for (const attr of ['aria-controls', 'aria-owns']) {
    for (const id of (el.getAttribute(attr) || '').split(/\s+/)) {
      const box = id && (root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id));
      if (box) boxes.add(box);
    }
  }
  for (const box of el.querySelectorAll('[role=listbox]')) boxes.add(box);
  const out = [];
  for (const box of boxes) {
    const opts = roleAttr(box) === 'option' ? [box] : box.querySelectorAll('[role=option]');
    for (const o of opts) {
      const off = (o.getAttribute('aria-disabled') || '').toLowerCase() === 'true';
      if (!off && o.getClientRects().length > 0 && !out.includes(o)) out.push(o);
    }
  }
  return out;
}

function optionText(o) { return squash(o.localName === 'option' ? o.text : (o.getAttribute('aria-label') || o.textContent), 120); }
function listAria(opts) { return opts.map((o) => ({text: optionText(o), value: o.getAttribute('data-value') || '',
  selected: (o.getAttribute('aria-selected') || '') === 'true', disabled: false})); }

// As typing into a focused drop-down does for a person: the option whose text is exactly `want`, else the
// one that matches case-insensitively (or by value), else the only one that starts with it, else the only
// one that contains it. Several candidates at the last two stages: ambiguous.
function pickOption(opts, want, valueOf) {
  const w = squash(want, 1000), lw = w.toLowerCase();
  const text = (o) => optionText(o);
  let found = opts.filter((o) => text(o) === w);
  if (!found.length) found = opts.filter((o) => text(o).toLowerCase() === lw);
  if (!found.length) found = opts.filter((o) => (valueOf(o) || '').toLowerCase() === lw && lw !== '');
  if (found.length) return {pick: found[0]};
  for (const test of [(t) => t.startsWith(lw), (t) => t.includes(lw)]) {
    found = opts.filter((o) => test(text(o).toLowerCase()));
    if (found.length === 1) return {pick: found[0]};
    if (found.length > 1) return {candidates: found.map(text)};
  }
  return {};
}

// The element a choice acts on: the labelled one, or (P.focused) the one that has the focus.
function choiceTarget(P) {
  if (!P.focused) return element(P);
  const el = deepActive();
  return el ? {el} : {error: 'not-select'};
}

// Waits (on mutations, at most `ms`) until the element shows options.
function optionsShown(el, ms) {
  if (ariaOptions(el).length) return Promise.resolve(true);
  return new Promise((resolve) => {
    const seen = new MutationObserver(() => {
      if (ariaOptions(el).length) { seen.disconnect(); clearTimeout(timer); resolve(true); }
    });
    const timer = setTimeout(() => { seen.disconnect(); resolve(false); }, ms);
    seen.observe(el.ownerDocument, {subtree: true, childList: true, attributes: true});
  });
}

// A drop-down's options; a <select> is focused (a click would open Chromium's own popup, which swallows the
// next input). An ARIA one was just clicked open: its options may take a moment (P.wait ms) to appear.
function options(P) {
  const got = choiceTarget(P);
  if (got.error) return got;
  const el = got.el, kind = choiceKind(el);
  if (kind === 'select') { el.focus(); return {options: listOptions(el)}; }
  if (kind !== 'aria') return {error: 'not-select'};
  return optionsShown(el, P.wait || 0).then(() => ({options: listAria(ariaOptions(el))}));
}

function choose(P) {
  const got = choiceTarget(P);
  if (got.error) return got;
  const el = got.el, kind = choiceKind(el);
  if (kind === 'select') {
    const opts = [...el.options].filter((o) => !o.disabled && !(o.parentElement && o.parentElement.disabled));
    const found = pickOption(opts, P.option, (o) => o.value);
    if (!found.pick) return {error: found.candidates ? 'ambiguous' : 'no-option', candidates: found.candidates,
                             options: listOptions(el)};
    el.focus();
    found.pick.selected = true;
    el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
    return {selected: optionText(found.pick), options: listOptions(el)};
  }
  if (kind !== 'aria') return {error: 'not-select'};
  const chooseShown = () => {
    const opts = ariaOptions(el);
    if (!opts.length) return {error: 'no-options'};
    const found = pickOption(opts, P.option, (o) => o.getAttribute('data-value'));
    if (!found.pick) return {error: found.candidates ? 'ambiguous' : 'no-option', candidates: found.candidates,
                             options: listAria(opts)};
    // A person clicks the option: the page's own handlers decide what choosing means.
    let pt = clickPoint(found.pick, frameOf(found.pick), null);
    if (!pt) {
      found.pick.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
      pt = clickPoint(found.pick, frameOf(found.pick), null);
    }
    if (!pt) return {error: 'covered', selected: optionText(found.pick)};
    return {x: pt[0], y: pt[1], selected: optionText(found.pick), options: listAria(opts)};
  };
  return P.wait ? optionsShown(el, P.wait).then(chooseShown) : chooseShown();
}

// ---- Typing: what has the focus, and whether Enter would submit a form that still has empty fields ----------

const TEXTLIKE = new Set(['text', 'email', 'password', 'tel', 'number', 'search', 'url']);

function fieldName(f) {
  const labelled = f.labels && f.labels.length ? f.labels[0].textContent : '';
  return squash(f.getAttribute('aria-label') || labelled || f.placeholder || f.name || f.type, 60);
}

function shown(f) {
  if (!f.getClientRects().length) return false;
  const s = getComputedStyle(f);
  return s.visibility !== 'hidden' && s.display !== 'none';
}

// kind: 'text' (a field, contenteditable or a frame's document to type into), 'choice' (a drop-down), or
// 'none'; empty: the other visible, enabled, empty text-like fields of the same form, by name.
function focusedField() {
  const el = deepActive();
  if (!el) return {kind: 'none', empty: []};
  if (choiceKind(el)) return {kind: 'choice', empty: []};
  const tag = el.localName;
  const typable = tag === 'iframe' || tag === 'frame' || (isSelectable(el) && !el.disabled && !el.readOnly);
  if (!typable) return {kind: 'none', empty: []};
  const empty = [];
  if (el.form) {
    for (const f of el.form.elements) {
      if (f === el || f.localName !== 'input' || !TEXTLIKE.has(f.type) || f.disabled || f.readOnly) continue;
      if (f.value === '' && shown(f)) empty.push(fieldName(f));
    }
  }
  return {kind: 'text', empty};
}

// The entry points vimgpt calls (as __vimgptHints.NAME(args), hint_script.cpp), and the parts that need no
// page, for the Node tests.
const library = {find, adopt, overlay, removeOverlay, finishCapture, locate, caretToEnd, options, choose,
  markSecret, visibleText, scrollState, scrollablesAt, scrolledAt, uncovered, wordsAt, selection, typingStart, typingEnd, setTypedValue,
  internals: {classify, opens, isSelectable, roleOf, nameOf, squash, choiceKind, pickOption, datePlan}};
