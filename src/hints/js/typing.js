// ---- Typing: what the keys will reach, and afterwards whether anything took them ---------------------------

// Fields whose value is typed segment by segment (month, day, year, hour...) in the order the browser's locale
// shows them, and whose value (an ISO date or time) is no secret.
const DATELIKE = new Set(['date', 'time', 'datetime-local', 'month', 'week']);

// What typing changes in `el`: a field's value, an editable element's text; null for anything else.
function typedValue(el) {
  if (!el) return null;
  if (el.localName === 'input' || el.localName === 'textarea') return el.value;
  return el.isContentEditable ? el.textContent : null;
}

// Before typing: what has the focus (focusedField's answer), its input type and a path to it (for asking the
// page's world whether anything listens for keys there), and a watch on the document from here on. A date-like
// field gets the keys that type P.text into it (datePlan) and is focused again at its first segment, wherever the
// click put the caret. It starts a task later: input the browser has queued (Firefox hands a click to the page
// asynchronously, from its parent process) runs first, so a calendar the click opens is not taken for the keys' work.
function typingStart(P) {
  return new Promise((resolve) => setTimeout(resolve, 0)).then(() => startWatchingTyping(P));
}
function startWatchingTyping(P) {
  if (state.typing) state.typing.observer.disconnect();
  state.typing = null;
  const out = focusedField();
  if (out.kind === 'choice') return out;  // an option is chosen, not typed: nothing to watch
  const el = deepActive();
  const typing = {el, value: typedValue(el), mutated: false};
  // Records reach the callback a microtask after each change: kept there, and what is still queued taken at the end.
  typing.observer = new MutationObserver((records) => { typing.mutated = typing.mutated || foreign(records); });
  typing.observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  state.typing = typing;
  if (!el) return out;
  if (el.readOnly || el.disabled) out.readOnly = true;
  out.path = pathOf(el);
  if (el.localName === 'iframe' || el.localName === 'frame') out.frame = true;
  if (el.localName === 'input' && DATELIKE.has(el.type)) {
    out.type = el.type;
    const plan = datePlan(el.type, String(P.text || ''));
    if (plan) {
      out.plan = plan;
      el.blur();
      el.focus();
    }
  }
  return out;
}

// After typing: whether the focused element's value changed, whether anything else in the document did, and
// where the focus is now. A date-like field's value is returned (an ISO string); no other value ever is.
function typingEnd() {
  const t = state.typing;
  if (!t) return {lost: true};
  state.typing = null;
  const mutated = foreign(t.observer.takeRecords()) || t.mutated;
  t.observer.disconnect();
  const out = {valueChanged: typedValue(t.el) !== t.value, mutated, focusMoved: deepActive() !== t.el};
  if (t.el && t.el.localName === 'input' && DATELIKE.has(t.el.type)) out.value = t.el.value;
  state.typed = t.el;
  return out;
}

// A date-like field the keys did not fill: its value set as a script sets it (the page's own setter, then input
// and change events, as a framework listens for them). Only for the field just typed into, and only a value the
// field accepts.
function setTypedValue(P) {
  const el = state.typed;
  if (!el || !el.isConnected || el.localName !== 'input' || !DATELIKE.has(el.type)) return {set: false};
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, String(P.value));
  if (el.value !== String(P.value)) return {set: false, value: el.value};
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {set: true, value: el.value};
}

const pad = (n, width) => String(n).padStart(width, '0');

// The parts of a date or time as the model wrote it: the field's own value format (2011-12-15, 13:45, 2011-12,
// 2011-W50, 2011-12-15T13:45), or the order the field shows (12/15/2011 where it shows mm/dd/yyyy; 1:45 PM).
function dateParts(type, text, order) {
  const t = text.trim();
  let m;
  const time = (s) => {
    // 13:45, 1:45 PM, or the digits alone as a person types them into the field (1345, 0145PM).
    const tm = /^(\d{1,2}):?(\d{2})(?::(\d{2}))?\s*([AaPp])?\.?[Mm]?\.?$/.exec(s.trim());
    if (!tm) return null;
    let hour = +tm[1];
    if (tm[4]) hour = (hour % 12) + (/[Pp]/.test(tm[4]) ? 12 : 0);
    return hour < 24 && +tm[2] < 60 ? {hour, minute: +tm[2]} : null;
  };
  const date = (s) => {
    const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
    if (iso) return {year: +iso[1], month: +iso[2], day: +iso[3]};
    const shown = order.filter((p) => p !== 'hour' && p !== 'minute' && p !== 'dayPeriod');
    let digits = s.split(/[^0-9]+/).filter(Boolean);
    // The digits alone, as a person types them segment by segment in the order the field shows (12152011 where it
    // shows mm/dd/yyyy): two for the month and the day, four for the year.
    if (/^\d{8}$/.test(s)) {
      let at = 0;
      digits = shown.map((p) => s.slice(at, at += p === 'year' ? 4 : 2));
    }
    if (digits.length !== 3) return null;
    const named = {};
    shown.forEach((p, i) => { named[p] = +digits[i]; });
    return named.year >= 1000 ? named : null;
  };
  if (type === 'date') return date(t);
  if (type === 'time') return time(t);
  if (type === 'month') {
    if ((m = /^(\d{4})-(\d{1,2})$/.exec(t)) || (m = /^(\d{1,2})[/.\s-](\d{4})$/.exec(t))) {
      const [year, month] = m[1].length === 4 ? [+m[1], +m[2]] : [+m[2], +m[1]];
      return {year, month};
    }
    return null;
  }
  if (type === 'week') {
    if ((m = /^(\d{4})-?W(\d{1,2})$/i.exec(t))) return {year: +m[1], week: +m[2]};
    return null;
  }
  // datetime-local: a date, then T or a space (or a comma), then a time.
  if ((m = /^(.+?)(?:T|,?\s+)(\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp]\.?[Mm]?\.?)?)$/.exec(t))) {
    const d = date(m[1].trim()), tm = time(m[2]);
    return d && tm ? Object.assign(d, tm) : null;
  }
  return null;
}

// The keys a person types to put `text` into a date-like field, segment by segment in the order the field shows
// them (its locale's): two digits a numeric segment, which moves on by itself, four for a year and a month's name
// (type=month), after which ArrowRight moves on (but for Firefox's year); A or P for the half of the day. Null when the text is not a date
// or time of the field's kind: it is typed as written.
function datePlan(type, text) {
  const hour12 = new Intl.DateTimeFormat(undefined, {hour: 'numeric'}).resolvedOptions().hourCycle;
  const twelve = hour12 === 'h12' || hour12 === 'h11';
  const fields = type === 'time' ? {} : type === 'month' ? {year: 'numeric', month: 'long'}
                                                            : {year: 'numeric', month: '2-digit', day: '2-digit'};
  if (type === 'time' || type === 'datetime-local') Object.assign(fields, {hour: '2-digit', minute: '2-digit'});
  const order = type === 'week' ? ['week', 'year']
      : new Intl.DateTimeFormat(undefined, fields).formatToParts(new Date(2011, 11, 15, 13, 45))
          .map((p) => p.type).filter((p) => p !== 'literal');
  const parts = dateParts(type, text, order);
  if (!parts) return null;
  if (parts.month !== undefined && !(parts.month >= 1 && parts.month <= 12)) return null;
  if (parts.day !== undefined && !(parts.day >= 1 && parts.day <= 31)) return null;
  if (parts.week !== undefined && !(parts.week >= 1 && parts.week <= 53)) return null;
  // Firefox's year segment moves on by itself after four digits; Chromium's takes up to six, so ArrowRight moves on.
  const yearMovesOn = typeof CSS !== 'undefined' && CSS.supports('-moz-appearance', 'none');
  const segments = [];
  for (const p of order) {
    if (p === 'year') segments.push({keys: pad(parts.year, 4), advance: !yearMovesOn});
    else if (p === 'month') segments.push({keys: pad(parts.month, 2), advance: type === 'month'});
    else if (p === 'day') segments.push({keys: pad(parts.day, 2)});
    else if (p === 'week') segments.push({keys: pad(parts.week, 2)});
    else if (p === 'hour') segments.push({keys: pad(twelve ? ((parts.hour + 11) % 12) + 1 : parts.hour, 2)});
    else if (p === 'minute') segments.push({keys: pad(parts.minute, 2)});
    else if (p === 'dayPeriod') segments.push({keys: parts.hour >= 12 ? 'P' : 'A'});
  }
  if (segments.length && segments[segments.length - 1].advance) delete segments[segments.length - 1].advance;
  const value = type === 'time' ? pad(parts.hour, 2) + ':' + pad(parts.minute, 2)
      : type === 'month' ? pad(parts.year, 4) + '-' + pad(parts.month, 2)
      : type === 'week' ? pad(parts.year, 4) + '-W' + pad(parts.week, 2)
      : pad(parts.year, 4) + '-' + pad(parts.month, 2) + '-' + pad(parts.day, 2) +
        (type === 'datetime-local' ? 'T' + pad(parts.hour, 2) + ':' + pad(parts.minute, 2) : '');
  return {segments, value};
}
