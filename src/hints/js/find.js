// The hint library, part 2 (see rules.js): visibility and occlusion, where to click an element, and
// find(), which walks the document (open shadow roots and same-origin frames included) and records this
// pass's elements.

// The pass's elements, kept in this world's own globals: page scripts cannot see them, the DOM is untouched.
const state = {pass: 0, els: [], overlay: null, secrets: new Set(), watcher: null, changed: false,
  onChange: null, words: null};

// A frame context: offset of its viewport in the top viewport, its clip there, and the iframe chain.
const TOPF = {doc: document, ox: 0, oy: 0, clip: [0, 0, innerWidth, innerHeight], frames: []};

function crop(r, F) {
  const l = Math.max(r.left + F.ox, F.clip[0]), t = Math.max(r.top + F.oy, F.clip[1]);
  const rr = Math.min(r.right + F.ox, F.clip[2]), b = Math.min(r.bottom + F.oy, F.clip[3]);
  return (rr - l >= 3 && b - t >= 3) ? [l, t, rr - l, b - t] : null;
}

// Vimium's getVisibleClientRect(el, testChildren = true), with the rect cropped on all four sides.
function visibleRect(el, F) {
  const rects = el.getClientRects();
  for (let k = 0; k < rects.length; k++) {
    const r = rects[k];
    if (r.width === 0 || r.height === 0) {
      // A zero-size link may still wrap visible floated or positioned children.
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        const cs = getComputedStyle(c);
        if (cs.float === 'none' && cs.position !== 'absolute' && cs.position !== 'fixed') continue;
        const cr = visibleRect(c, F);
        if (cr) return cr;
      }
      continue;
    }
    const v = crop(r, F);
    if (!v) continue;
    if (getComputedStyle(el).visibility !== 'visible') continue;
    return v;
  }
  return null;
}

// The element drawn at a top-viewport point of frame F, descending into open shadow roots.
function hit(F, x, y) {
  let el = F.doc.elementFromPoint(x - F.ox, y - F.oy);
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(x - F.ox, y - F.oy);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

function deepContains(a, b) {
  for (let n = b; n; n = n.parentNode || n.host) if (n === a) return true;
  return false;
}

function frameShows(F, x, y) {
  for (const fr of F.frames) if (!deepContains(fr.el, hit(fr.parent, x, y))) return false;
  return true;
}

// Whether a point reaches el: what is drawn there is el, inside it, or (for labelling, as Vimium counts it) one of
// its ancestors. `strict` (for acting) refuses the ancestors: a point where only a container is drawn, such as one
// outside a scrolled list's box for an item clipped by it, would click the container.
function reaches(el, F, x, y, image, strict) {
  const h = hit(F, x, y);
  if (!h) return false;
  if (!(deepContains(el, h) || (!strict && deepContains(h, el)) || (image && h === image))) return false;
  return frameShows(F, x, y);
}

// Vimium's occlusion test: the centre, then the four corners; returns the first point that reaches el.
function unoccluded(el, v, F, image) {
  const cx = v[0] + v[2] / 2, cy = v[1] + v[3] / 2;
  if (reaches(el, F, cx, cy, image)) return [cx, cy];
  for (const y of [v[1] + 0.1, v[1] + v[3] - 0.1])
    for (const x of [v[0] + 0.1, v[0] + v[2] - 0.1])
      if (reaches(el, F, x, y, image)) return [x, y];
  return null;
}

// A denser search for acting: inset corners and a grid, so a partly covered element is still clicked.
function clickPoint(el, F, image) {
  // Vimium's visible rect first (it also finds floated children of a zero-size link), then every other
  // box of the element (a link wrapped over lines).
  const boxes = [];
  if (image) {
    const ir = image.getClientRects()[0];
    const box = ir && areaRect(el, ir);
    if (box) boxes.push(crop(box, F));
  } else {
    boxes.push(visibleRect(el, F));
    for (const r of el.getClientRects()) boxes.push(crop(r, F));
  }
  for (const v of boxes) {
    if (!v) continue;
    const cx = v[0] + v[2] / 2, cy = v[1] + v[3] / 2;
    if (reaches(el, F, cx, cy, image, true)) return [cx, cy];
    for (const fy of [0.25, 0.75, 0.1, 0.9, 0.5])
      for (const fx of [0.5, 0.25, 0.75, 0.1, 0.9])
        if (reaches(el, F, v[0] + v[2] * fx, v[1] + v[3] * fy, image, true)) return [v[0] + v[2] * fx, v[1] + v[3] * fy];
  }
  return null;
}

// Vimium's getClientRectsForAreas: an image-map area's rect from its coords, in the image's frame.
function areaRect(area, ir) {
  const c = area.coords.split(',').map((n) => parseInt(n, 10));
  const shape = (area.shape || 'rect').toLowerCase();
  let x1, y1, x2, y2;
  if ((shape === 'rect' || shape === 'rectangle') && c.length === 4) [x1, y1, x2, y2] = c;
  else if ((shape === 'circle' || shape === 'circ') && c.length === 3) {
    const d = c[2] / Math.sqrt(2);
    [x1, y1, x2, y2] = [c[0] - d, c[1] - d, c[0] + d, c[1] + d];
  } else if (shape === 'default') [x1, y1, x2, y2] = [0, 0, ir.width, ir.height];
  else if (c.length >= 4) [x1, y1, x2, y2] = c;
  if ([x1, y1, x2, y2].some((n) => n === undefined || isNaN(n))) return null;
  return {left: ir.left + x1, top: ir.top + y1, right: ir.left + x2, bottom: ir.top + y2};
}

function mapImage(area) {
  const map = area.closest('map');
  if (!map || !map.name) return null;
  return [...area.ownerDocument.querySelectorAll('img[usemap]')]
      .find((img) => img.getAttribute('usemap').replace(/^#/, '') === map.name) || null;
}

function record(el, tag, v, reason, index, order) {
  const rec = {i: index, o: order, x: v[0], y: v[1], w: v[2], h: v[3], tag, role: roleOf(el, tag),
               text: nameOf(el, tag), r: reason};
  const href = typeof el.href === 'string' ? el.href : (el.getAttribute('href') || '');
  if (href) rec.href = href.length > 500 ? href.slice(0, 500) : href;
  if (tag === 'input' || tag === 'textarea' || tag === 'select' || el.isContentEditable) {
    rec.type = tag === 'input' ? el.type : (tag === 'select' ? 'select' : tag === 'textarea' ? 'textarea' : 'contenteditable');
    rec.ph = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '';
    rec.name = el.getAttribute('name') || '';
    const val = tag === 'select' ? el.value : (el.isContentEditable && tag !== 'input' && tag !== 'textarea')
                                                ? el.textContent : el.value;
    rec.empty = !val || (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio') && !el.checked);
  }
  return rec;
}

// A path from the top document for a main-world lookup (listener probing): child indices, -1 for an open
// shadow root, -2 for a same-origin iframe's document.
function pathOf(el) {
  const path = [];
  let n = el;
  for (;;) {
    const p = n.parentNode;
    if (!p) return null;
    path.push(Array.prototype.indexOf.call(p.children, n));
    if (p.nodeType === 11) { path.push(-1); n = p.host; continue; }
    if (p.nodeType === 9) {
      const fe = p.defaultView && p.defaultView.frameElement;
      if (!fe) break;
      path.push(-2);
      n = fe;
      continue;
    }
    n = p;
  }
  return path.reverse();
}

// What responds to a click without any script (Chromium's snapshot says so of them too), and the document's own
// elements: the rules decide about these (a label whose control is visible is not a target), a listener does not.
const CLICKS_BY_ITSELF = new Set(['html', 'body', 'a', 'area', 'label', 'summary', 'details', 'button', 'input',
                                  'select', 'textarea', 'option', 'video', 'audio']);

// What a person clicks inside a row or a card: a row that holds one is not itself the target.
const TARGETS = 'a[href], button, input, select, textarea';

// The element a path names (pathOf's: element indexes, -1 into an open shadow root, -2 into a frame's document).
function elementAt(path) {
  let n = document;
  for (const k of path) {
    if (!n) return null;
    n = k === -1 ? n.shadowRoot : k === -2 ? n.contentDocument : (n.children ? n.children[k] : null);
  }
  return n && n.nodeType === 1 ? n : null;
}

// The largest group of an element's children alike (the same tag and class) when it has two or more: the rows of a
// list, the buttons of a bar, which a handler on their parent acts for.
function alikeChildren(el) {
  const groups = new Map();
  for (const kid of el.children) {
    const key = kid.localName + '.' + kid.className;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(kid);
  }
  let best = null;
  for (const group of groups.values()) if (group.length >= 2 && (!best || group.length > best.length)) best = group;
  return best;
}

// P.watch: the capture is taken in a quiet window; the document is watched for changes from here on
// (finishCapture asks), in this call rather than one of its own.
// P.listening: the paths of the elements a page script gave a click listener (Tab::click_listening: the engine says
// in one question for the whole document). Without it, doubtful candidates are reported for a probe (P.maxDoubt).
function find(P) {
  if (P.watch) watch();
  state.pass = P.pass;
  state.els = [];
  removeOverlay();
  const els = state.els, recs = [], doubts = [], maxDoubt = P.maxDoubt | 0;
  const listen = Array.isArray(P.listening) ? new Set(P.listening.map(elementAt).filter(Boolean)) : null;
  const vw = innerWidth, vh = innerHeight;
  TOPF.clip = [0, 0, vw, vh];
  const ng = document.getElementsByClassName('ng-scope').length > 0;
  const bodyPointer = document.body ? getComputedStyle(document.body).cursor === 'pointer' : false;
  const vimium = !!P.vimium;
  let order = 0;

  const add = (el, tag, v, reason, F) => {
    const pt = unoccluded(el, v, F, null);
    if (!pt) return null;
    const rec = record(el, tag, v, reason, els.length, order++);
    els.push(el);
    recs.push(rec);
    return rec;
  };

  const areas = (img, F) => {
    let name = img.getAttribute('usemap');
    if (!name) return;
    name = name.replace(/^#/, '');
    const map = [...F.doc.getElementsByTagName('map')].find((m) => m.name === name);
    const ir = img.getClientRects()[0];
    if (!map || !ir) return;
    for (const area of map.getElementsByTagName('area')) {
      const box = areaRect(area, ir);
      const v = box && crop(box, F);
      if (!v) continue;
      const pt = unoccluded(area, v, F, img);
      if (!pt) continue;
      recs.push(record(area, 'area', v, RULE, els.length, order++));
      els.push(area);
    }
  };

  // Depth-first in document order (shadow content before light children, as Vimium's getAllElements).
  // Returns whether anything in the subtree got a hint. `covered`: inside a rule-clickable element, so
  // its descendants' cursor or listeners are not separate targets. `inPointer`: inside a pointer hint.
  const walk = (root, F, covered, inImage, inPointer) => {
    let any = false;
    for (let el = root.firstElementChild; el; el = el.nextElementSibling) {
      const tag = el.localName;
      if (SKIP.has(tag) || el === state.overlay) continue;
      let reason = classify(el, tag, ng, vimium);
      let rec = null, fp = false;
      if (tag === 'img' && el.hasAttribute('usemap')) {
        // Vimium hints an image map's areas, not the image.
        areas(el, F);
      } else if (reason === RULE || reason === SCROLL) {
        const v = visibleRect(el, F);
        if (v) rec = add(el, tag, v, reason, F);
      } else if (reason === CLASSNAME || reason === TABINDEX || reason === OPENS) {
        fp = true;
      } else if (reason === -1 && !covered && !inImage && !vimium) {
        // Ours: a cursor: pointer element with its own text or image, else a doubtful candidate whose
        // click listeners CDP is asked about.
        const text = ownText(el);
        const image = tag === 'img' || tag === 'svg';
        if (text || image || !el.firstElementChild) {
          const v = visibleRect(el, F);
          if (v) {
            const leafIcon = !text && !image && v[2] <= 64 && v[3] <= 64 && v[2] >= 8 && v[3] >= 8;
            const iconOnly = image && !/\S/.test(el.parentElement ? el.parentElement.textContent : '');
            const cs = (text || iconOnly || leafIcon) && !bodyPointer ? getComputedStyle(el) : null;
            if (cs && cs.cursor === 'pointer') {
              // Inline text inside a hinted pointer element is part of its line; a block (the next item
              // of a clickable tree) is a target of its own.
              if (!(inPointer && cs.display.startsWith('inline'))) {
                rec = add(el, tag, v, POINTER, F);
                if (rec) {
                  reason = POINTER;
                  if (text) rec.text = squash([...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join(' '), 80);
                }
              }
            } else if (!inPointer && maxDoubt > 0 && doubts.length < maxDoubt && (text || image || leafIcon) &&
                       v[2] * v[3] <= vw * vh / 4 && (!text || el.textContent.length <= 80)) {
              const pt = unoccluded(el, v, F, null);
              if (pt) {
                const drec = record(el, tag, v, LISTENER, els.length, order++);
                drec.p = pathOf(el);
                els.push(el);
                if (drec.p) doubts.push(drec);
              }
            }
          }
        }
      }
      const listens = listen !== null && rec === null && reason === -1 && !covered && !inImage && !vimium &&
          listen.has(el) && !CLICKS_BY_ITSELF.has(tag);
      // A rule-clickable element covers its descendants even when it is not visible itself.
      const coversKids = reason === RULE || reason === -2;
      const pointerKids = inPointer || (reason === POINTER && rec !== null);
      let sub = false;
      const kidsImage = inImage || tag === 'svg';
      if (el.shadowRoot) sub = walk(el.shadowRoot, F, covered || coversKids, kidsImage, pointerKids) || sub;
      if (el.firstElementChild) sub = walk(el, F, covered || coversKids, kidsImage, pointerKids) || sub;
      if ((tag === 'iframe' || tag === 'frame') && !covered) {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.documentElement) {
          const r = el.getBoundingClientRect();
          const ox = F.ox + r.left + el.clientLeft, oy = F.oy + r.top + el.clientTop;
          const clip = [Math.max(F.clip[0], ox), Math.max(F.clip[1], oy),
                        Math.min(F.clip[2], ox + el.clientWidth), Math.min(F.clip[3], oy + el.clientHeight)];
          if (clip[2] - clip[0] >= 3 && clip[3] - clip[1] >= 3) {
            const child = {doc, ox, oy, clip, frames: [...F.frames, {el, parent: F}]};
            sub = walk(doc, child, false, false, false) || sub;
          }
        }
      }
      // Vimium's false positives: a "button"/"btn" class or a bare tabindex that wraps hinted things (and ours: what
      // says it opens something, when something inside it is the target).
      if (fp && !sub) {
        const v = visibleRect(el, F);
        if (v) rec = add(el, tag, v, reason, F);
      }
      // A page script's own click listener makes the element a target, as a person sees it: where nothing inside it
      // is one already, its alike children when it has them (a handler delegated from a list to its rows), else the
      // element itself (a card); where something inside it is (a row's star and trash icons), it too only when it has
      // words of its own beside them (the row's subject), never a container of targets alone (a list of replies).
      if (listens) {
        const small = (v) => v && v[2] * v[3] <= vw * vh / 4;
        if (!sub) {
          for (const kid of alikeChildren(el) || []) {
            if (kid.querySelector(TARGETS)) continue;
            const kv = visibleRect(kid, F);
            if (small(kv) && add(kid, kid.localName, kv, DELEGATED, F)) sub = true;
          }
        }
        if (!sub || ownText(el)) {
          const v = visibleRect(el, F);
          if (small(v)) rec = add(el, tag, v, LISTENER, F);
        }
      }
      any = any || sub || rec !== null;
    }
    return any;
  };
  walk(document, TOPF, false, false, false);
  return {pass: P.pass, vw, vh, ch: contentBottom(), hints: recs, doubts, redact: secretRects(), st: pageState(els)};
}

// How far down the viewport the page's content reaches (CSS px): below it, on a page shorter than the viewport, is the
// page's background alone. The viewport's height when the page scrolls or is scrolled, when its root fills the
// viewport, or when any element (fixed, absolutely placed, overflowing; in an open shadow root too) reaches further.
function contentBottom() {
  const root = document.documentElement;
  if (!root || root.scrollHeight > innerHeight || scrollY > 0) return innerHeight;
  let bottom = root.getBoundingClientRect().bottom;
  const reach = (scope) => {
    for (const el of scope.querySelectorAll('*')) {
      if (bottom >= innerHeight) return;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) bottom = Math.max(bottom, r.bottom);
      if (el.shadowRoot) reach(el.shadowRoot);
    }
  };
  reach(root);
  return Math.min(innerHeight, Math.ceil(bottom));
}

// A fingerprint of what the model can see change without the labels changing: the page's rendered text (a date
// picker's month, a counter: a click that changes only words is progress), where the page and each labelled element
// are scrolled, what each field holds (hashed with the rest: no value leaves the page), what is checked, expanded or
// open. Two steps with the same labels and the same state saw the same page.
function pageState(els) {
  let h = 2166136261;
  const mix = (s) => {
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  };
  mix(document.body ? document.body.innerText : '');
  mix(scrollX + ',' + scrollY);
  els.forEach((el, i) => {
    let s = '';
    if (el.scrollTop || el.scrollLeft) s += 's' + Math.round(el.scrollTop) + ',' + Math.round(el.scrollLeft);
    if (typeof el.value === 'string' && (el.localName === 'input' || el.localName === 'textarea' ||
                                         el.localName === 'select')) s += 'v' + el.value;
    if (el.checked) s += 'c';
    if (el.open) s += 'o';
    const expanded = el.getAttribute('aria-expanded');
    if (expanded !== null) s += 'e' + expanded;
    if (s) mix(i + s);
  });
  return (h >>> 0).toString(16);
}

// Doubtful candidates whose click listener is on an ancestor (P.picks: [the doubt's index, the ancestor's path, the
// path of its child the candidate is in, the doubt's place in document order]): the ancestor acts for them. When that
// child is one of several alike (the rows of a list, the buttons of a bar: a handler delegated from their parent),
// the child is the target; otherwise the ancestor is one thing (a card, a custom select) and is the target. A target
// that holds a link, a button or a field is left out (that is what a person clicks), and so is one larger than a
// quarter of the viewport.
function adopt(P) {
  if (P.pass !== state.pass) return {hints: []};
  const recs = [], taken = new Set(), vw = innerWidth, vh = innerHeight;
  for (const [index, ancestorPath, childPath, order] of P.picks) {
    const doubt = state.els[index], ancestor = elementAt(ancestorPath), child = elementAt(childPath);
    if (!doubt || !ancestor || !child) continue;
    const alike = [...ancestor.children].filter((c) => c.localName === child.localName &&
                                                       c.className === child.className).length;
    const target = alike >= 2 ? child : ancestor;
    if (taken.has(target) || target.querySelector(TARGETS)) continue;
    taken.add(target);
    const F = frameOf(target);
    const v = visibleRect(target, F);
    if (!v || v[2] * v[3] > vw * vh / 4 || !unoccluded(target, v, F, null)) continue;
    const rec = record(target, target.localName, v, DELEGATED, state.els.length, order);
    state.els.push(target);
    recs.push(rec);
  }
  return {hints: recs};
}
