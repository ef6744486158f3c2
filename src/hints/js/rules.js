// The hint library, part 1 (of rules.js, find.js, text.js, typing.js and act.js, joined in that order). CMake joins
// the parts into the body of one function whose value is the library (cmake/embed_js.cmake) and embeds it in vimgpt;
// it runs in an isolated world of each frame, so page scripts can neither see nor change it. This part: what is
// clickable by Vimium's rules and ours, roles and names. Nothing here needs layout, so tests/js/ runs it in Node.
// Vimium: https://github.com/philc/vimium/blob/master/content_scripts/link_hints.js

const VIMIUM_ROLES = new Set(['button', 'tab', 'link', 'checkbox', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'radio']);
const ROLES = new Set([...VIMIUM_ROLES, 'textbox', 'switch', 'option', 'treeitem', 'combobox', 'searchbox']);
const SKIP = new Set(['head', 'script', 'style', 'noscript', 'template', 'meta', 'link', 'title', 'br', 'wbr']);
const UNSELECTABLE = new Set(['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'reset', 'submit']);
const INPUT_ROLES = {button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
  checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
  email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox', password: 'textbox'};
// Reason codes: hints::Reason's values, in its order (tests/unit/hints_test.cpp checks that they agree).
const RULE = 0, CLASSNAME = 1, SCROLL = 2, TABINDEX = 3, POINTER = 4, LISTENER = 5, OPENS = 6, DELEGATED = 7;
const NG = [];
for (const p of ['', 'data-', 'x-']) for (const s of ['-', ':', '_']) NG.push(p + 'ng' + s + 'click');

function isSelectable(el) {
  const tag = el.localName;
  return (tag === 'input' && !UNSELECTABLE.has(el.type)) || tag === 'textarea' || el.isContentEditable;
}

// What says an element opens something when clicked (beyond Vimium): a pop-up it declares, a state it toggles, a
// Bootstrap toggle.
function opens(el) {
  const popup = el.getAttribute('aria-haspopup');
  if (popup !== null && popup.toLowerCase() !== 'false') return true;
  return el.hasAttribute('aria-expanded') || el.hasAttribute('aria-pressed') || el.hasAttribute('data-toggle') ||
      el.hasAttribute('data-bs-toggle');
}

// Vimium's cheap rules, and ours unless `vimium` (--hints vimium: exactly Vimium's set). Returns a reason code, or -1
// (not clickable), or -2 (aria-disabled: never).
function classify(el, tag, ng, vimium) {
  let clickable = false;
  // hasAttributes() allocates nothing (el.attributes would): this runs for every element of the page.
  const attributes = el.hasAttributes();
  if (attributes) {
    const ad = el.getAttribute('aria-disabled');
    if (ad !== null && (ad === '' || ad.toLowerCase() === 'true')) return -2;
  }
  // Links are most of a page's clickables and nothing below can change their answer.
  if (tag === 'a') return RULE;
  if (attributes) {
    if (ng) for (const a of NG) if (el.hasAttribute(a)) { clickable = true; break; }
    if (el.hasAttribute('onclick')) clickable = true;
    else {
      const role = el.getAttribute('role');
      if (role !== null && (vimium ? VIMIUM_ROLES : ROLES).has(role.toLowerCase())) clickable = true;
      else {
        const ce = el.getAttribute('contenteditable');
        if (ce !== null && (ce === '' || ce.toLowerCase() === 'true' || ce.toLowerCase() === 'contenteditable' ||
                            (!vimium && ce.toLowerCase() === 'plaintext-only'))) clickable = true;
      }
    }
    if (!clickable) {
      const js = el.getAttribute('jsaction');
      if (js) for (const rule of js.split(';')) {
        const parts = rule.trim().split(':');
        if (parts.length < 1 || parts.length > 2) continue;
        const [type, ns, action] = parts.length === 1 ? ['click', ...parts[0].trim().split('.'), '_']
                                                      : [parts[0], ...parts[1].trim().split('.'), '_'];
        if (type === 'click' && ns !== 'none' && action !== '_') { clickable = true; break; }
      }
    }
  }
  switch (tag) {
    case 'a': return RULE;
    case 'textarea': if (!el.disabled && !el.readOnly) return RULE; break;
    case 'input':
      if (!((el.getAttribute('type') || '').toLowerCase() === 'hidden' || el.disabled ||
            (el.readOnly && isSelectable(el)))) return RULE;
      // Ours: a read-only field is clicked to open what fills it (a date picker, a chooser), as a person would.
      if (!vimium && el.readOnly && !el.disabled && (el.getAttribute('type') || '').toLowerCase() !== 'hidden') {
        return OPENS;
      }
      break;
    case 'button': case 'select': if (!el.disabled) return RULE; break;
    case 'object': case 'embed': return RULE;
    // Vimium labels every <details>; ours labels its <summary>, where a click opens it, or a <details> without one.
    case 'summary': if (!vimium) return RULE; break;
    case 'details': if (vimium || !el.querySelector(':scope > summary')) return RULE; break;
    case 'label': {
      const c = el.control;
      if (c && !c.disabled && classify(c, c.localName, ng, vimium) !== RULE) return RULE;
      if (c && !c.disabled && !visibleRect(c, TOPF)) return RULE;
      break;
    }
    case 'img': if (['zoom-in', 'zoom-out'].includes(el.style.cursor)) return RULE; break;
    case 'div': case 'ol': case 'ul':
      if (!clickable && el.clientHeight < el.scrollHeight) {
        const o = getComputedStyle(el).overflowY;
        if (o === 'auto' || o === 'scroll' || o === 'overlay') return SCROLL;
      }
      break;
  }
  if (clickable) return RULE;
  if (attributes) {
    if (!vimium && opens(el)) return OPENS;
    const cls = el.getAttribute('class');
    if (cls) {
      const c = cls.toLowerCase();
      if (c.includes('button') || (!vimium && c.includes('btn'))) return CLASSNAME;
    }
    const ti = el.getAttribute('tabindex');
    if (ti !== null && ti !== '' && parseInt(ti, 10) >= 0) return TABINDEX;
  }
  return -1;
}

function ownText(el) {
  for (let n = el.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 3 && /\S/.test(n.data)) return true;
  return false;
}

function squash(s, max) {
  s = (s || '').replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '\u2026' : s;
}

function roleOf(el, tag) {
  const r = el.getAttribute('role');
  if (r) return r.split(' ')[0].toLowerCase();
  switch (tag) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'button': case 'summary': return 'button';
    case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'textarea': return 'textbox';
    case 'input': return INPUT_ROLES[el.type] || el.type || 'textbox';
    case 'details': return 'group';
    case 'img': return 'img';
    case 'label': return 'label';
    case 'object': case 'embed': return 'embed';
  }
  return el.isContentEditable ? 'textbox' : 'generic';
}

function nameOf(el, tag) {
  let s = el.getAttribute('aria-label');
  if (!s) {
    const ids = el.getAttribute('aria-labelledby');
    if (ids) {
      const root = el.getRootNode();
      s = ids.split(/\s+/).map((id) => {
        const n = (root.getElementById && root.getElementById(id)) || el.ownerDocument.getElementById(id);
        return n ? n.textContent : '';
      }).join(' ');
    }
  }
  if (!s && (tag === 'input' || tag === 'textarea' || tag === 'select')) {
    if (el.labels && el.labels.length) s = el.labels[0].textContent.replace(/:\s*$/, '');
    if (!s && tag === 'input' && ['submit', 'button', 'reset'].includes(el.type)) s = el.value;
    if (!s && tag === 'input' && el.type === 'image') s = el.alt;
    if (!s && tag === 'select' && el.selectedIndex >= 0) s = el.options[el.selectedIndex].text;
  } else if (!s && (tag === 'img' || tag === 'area')) s = el.alt;
  else if (!s) s = el.textContent;
  if (!s || !/\S/.test(s)) {
    const img = el.querySelector && el.querySelector('img[alt]');
    s = (img && img.alt) || el.getAttribute('title') || '';
  }
  return squash(s, 80);
}
