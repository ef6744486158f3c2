// The hint library's rules that need no page (src/hints/js), in Node: the library as vimgpt embeds it
// ($VIMGPT_HINT_LIBRARY, the joined script the build writes), run in a context of its own, on stand-in
// elements that answer the DOM calls the rules make. The browser tests cover everything that needs layout.
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {test} from 'node:test';
import vm from 'node:vm';

const source = readFileSync(process.env.VIMGPT_HINT_LIBRARY, 'utf8');
const library = vm.runInNewContext(source, {document: {}, innerWidth: 1080, innerHeight: 720});
const {classify, opens, isSelectable, roleOf, nameOf, squash, choiceKind, pickOption, datePlan} = library.internals;

// Reason codes (hints::Reason): a Vimium rule, a button-like class name, a tabindex; -1 not clickable,
// -2 never (aria-disabled).
const RULE = 0, CLASSNAME = 1, TABINDEX = 3, OPENS = 6;

function element(tag, attributes = {}, properties = {}) {
  const own = Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, String(v)]));
  return {
    localName: tag, textContent: '', style: {}, clientHeight: 0, scrollHeight: 0, ...properties,
    hasAttributes: () => Object.keys(own).length > 0,
    hasAttribute: (name) => name in own,
    getAttribute: (name) => (name in own ? own[name] : null),
    querySelector: () => null,
  };
}

test('Vimium rules: links, form controls, roles, handlers', () => {
  assert.equal(classify(element('a', {href: '/x'}), 'a', false), RULE);
  assert.equal(classify(element('a', {'aria-disabled': 'true', href: '/x'}), 'a', false), -2);
  assert.equal(classify(element('button'), 'button', false), RULE);
  assert.equal(classify(element('button', {}, {disabled: true}), 'button', false), -1);
  assert.equal(classify(element('div', {onclick: 'go()'}), 'div', false), RULE);
  assert.equal(classify(element('span', {role: 'Button'}), 'span', false), RULE);
  assert.equal(classify(element('span', {role: 'presentation'}), 'span', false), -1);
  assert.equal(classify(element('div', {contenteditable: ''}), 'div', false), RULE);
  assert.equal(classify(element('div', {contenteditable: 'false'}), 'div', false), -1);
  assert.equal(classify(element('input', {type: 'hidden'}, {type: 'hidden'}), 'input', false), -1);
  assert.equal(classify(element('input', {}, {type: 'text', readOnly: true}), 'input', false, true), -1);
  assert.equal(classify(element('input', {}, {type: 'checkbox', readOnly: true}), 'input', false), RULE);
  assert.equal(classify(element('textarea', {}, {readOnly: true}), 'textarea', false), -1);
});

test('jsaction and ng-click count only where Vimium counts them', () => {
  assert.equal(classify(element('div', {jsaction: 'click:menu.open'}), 'div', false), RULE);
  assert.equal(classify(element('div', {jsaction: 'menu.open'}), 'div', false), RULE);  // click by default
  assert.equal(classify(element('div', {jsaction: 'click:none.open'}), 'div', false), -1);
  assert.equal(classify(element('div', {jsaction: 'mouseover:menu.open'}), 'div', false), -1);
  assert.equal(classify(element('div', {'ng-click': 'go()'}), 'div', true), RULE);
  assert.equal(classify(element('div', {'ng-click': 'go()'}), 'div', false), -1);  // no Angular on the page
});

test('our rules: button-like class names and tabindex', () => {
  assert.equal(classify(element('div', {class: 'Big-BTN'}), 'div', false), CLASSNAME);
  assert.equal(classify(element('div', {tabindex: '0'}), 'div', false), TABINDEX);
  assert.equal(classify(element('div', {tabindex: '-1'}), 'div', false), -1);
  assert.equal(classify(element('div'), 'div', false), -1);
});

test('roles: explicit first, else implicit', () => {
  assert.equal(roleOf(element('a', {href: '/'}), 'a'), 'link');
  assert.equal(roleOf(element('a'), 'a'), 'generic');
  assert.equal(roleOf(element('span', {role: 'Tab selected'}), 'span'), 'tab');
  assert.equal(roleOf(element('input', {}, {type: 'email'}), 'input'), 'textbox');
  assert.equal(roleOf(element('input', {}, {type: 'range'}), 'input'), 'slider');
  assert.equal(roleOf(element('select', {}, {multiple: true}), 'select'), 'listbox');
  assert.equal(roleOf(element('select', {}, {size: 1}), 'select'), 'combobox');
  assert.equal(roleOf(element('div', {}, {isContentEditable: true}), 'div'), 'textbox');
});

test('names: aria-label, then the element\'s own words, squashed to 80 characters', () => {
  assert.equal(nameOf(element('button', {'aria-label': '  Close   dialog '}), 'button'), 'Close dialog');
  assert.equal(nameOf(element('input', {}, {type: 'submit', value: 'Send'}), 'input'), 'Send');
  assert.equal(nameOf(element('img', {}, {alt: 'Logo'}), 'img'), 'Logo');
  assert.equal(nameOf(element('a', {title: 'Home'}, {textContent: ' '}), 'a'), 'Home');
  const long = nameOf(element('a', {}, {textContent: 'word '.repeat(40)}), 'a');
  assert.equal(long.length, 80);
  assert.ok(long.endsWith('\u2026'));
  assert.equal(squash('a\n\t b', 10), 'a b');
});

test('typing boxes and drop-downs', () => {
  assert.ok(isSelectable(element('input', {}, {type: 'search'})));
  assert.ok(!isSelectable(element('input', {}, {type: 'checkbox'})));
  assert.equal(choiceKind(element('select')), 'select');
  assert.equal(choiceKind(element('span', {role: 'combobox'})), 'aria');
  assert.equal(choiceKind(element('ul', {role: 'listbox'})), 'aria');
  assert.equal(choiceKind(element('button', {'aria-haspopup': 'listbox'})), 'aria');
  // A combobox one types into (a search box with suggestions) is a text field.
  assert.equal(choiceKind(element('input', {role: 'combobox'}, {type: 'text'})), null);
  assert.equal(choiceKind(element('div')), null);
});

test('an option is chosen as typing its name would choose it', () => {
  const options = ['Rex', 'Zsa Zsa', 'Zorro', 'Light blue', 'Blue'].map(
      (text) => element('option', {}, {text, value: text.toLowerCase().replace(' ', '-')}));
  const text = (found) => (found.pick ? found.pick.text : undefined);
  const value = (o) => o.value;
  assert.equal(text(pickOption(options, 'Zsa Zsa', value)), 'Zsa Zsa');        // exact
  assert.equal(text(pickOption(options, 'blue', value)), 'Blue');               // ignoring case, over contains
  assert.equal(text(pickOption(options, 'light-blue', value)), 'Light blue');   // by value
  assert.equal(text(pickOption(options, 're', value)), 'Rex');                  // the only one starting so
  assert.equal(text(pickOption(options, 'sa z', value)), 'Zsa Zsa');           // the only one containing it
  assert.deepEqual(Array.from(pickOption(options, 'z', value).candidates), ['Zsa Zsa', 'Zorro']);
  assert.deepEqual(Array.from(pickOption(options, 'lu', value).candidates), ['Light blue', 'Blue']);
  assert.equal(pickOption(options, 'Purple', value).pick, undefined);
  assert.equal(pickOption(options, 'Purple', value).candidates, undefined);
});

test('beyond Vimium: what opens something, read-only pickers; --hints vimium keeps exactly Vimium\'s set', () => {
  const vimium = true;
  // Says it opens something: a pop-up, a state it toggles, a Bootstrap toggle.
  assert.equal(classify(element('div', {'aria-haspopup': 'listbox'}), 'div', false), OPENS);
  assert.equal(classify(element('div', {'aria-haspopup': 'false'}), 'div', false), -1);
  assert.equal(classify(element('li', {'aria-expanded': 'false'}), 'li', false), OPENS);
  assert.equal(classify(element('span', {'aria-pressed': 'true'}), 'span', false), OPENS);
  assert.equal(classify(element('span', {'data-bs-toggle': 'dropdown'}), 'span', false), OPENS);
  assert.ok(opens(element('a', {'data-toggle': 'modal'})));
  assert.equal(classify(element('div', {'aria-haspopup': 'listbox'}), 'div', false, vimium), -1);
  // A read-only field opens what fills it (a date picker): ours labels it, Vimium does not.
  const picker = element('input', {readonly: ''}, {type: 'text', readOnly: true});
  assert.equal(classify(picker, 'input', false), OPENS);
  assert.equal(classify(picker, 'input', false, vimium), -1);
  assert.equal(classify(element('input', {}, {type: 'text', readOnly: true, disabled: true}), 'input', false), -1);
  // Vimium's own roles, contenteditable values and class names only.
  assert.equal(classify(element('div', {role: 'switch'}), 'div', false), RULE);
  assert.equal(classify(element('div', {role: 'switch'}), 'div', false, vimium), -1);
  assert.equal(classify(element('div', {role: 'tab'}), 'div', false, vimium), RULE);
  assert.equal(classify(element('div', {contenteditable: 'plaintext-only'}), 'div', false, vimium), -1);
  assert.equal(classify(element('div', {class: 'btn'}), 'div', false), CLASSNAME);
  assert.equal(classify(element('div', {class: 'btn'}), 'div', false, vimium), -1);
  assert.equal(classify(element('div', {class: 'big-button'}), 'div', false, vimium), CLASSNAME);
  // Vimium labels a <details> itself; ours its <summary>, where the click opens it.
  const details = {...element('details'), querySelector: () => element('summary')};
  assert.equal(classify(details, 'details', false), -1);
  assert.equal(classify(details, 'details', false, vimium), RULE);
  assert.equal(classify(element('summary'), 'summary', false), RULE);
  assert.equal(classify(element('summary'), 'summary', false, vimium), -1);
});

test('a date or time is typed as the field shows it, segment by segment (this process\'s locale)', () => {
  // The order the field shows its segments in, as the page's locale gives it.
  const order = new Intl.DateTimeFormat(undefined, {year: 'numeric', month: '2-digit', day: '2-digit'})
      .formatToParts(new Date(2011, 11, 15)).map((p) => p.type).filter((p) => p !== 'literal');
  const keys = (plan) => plan.segments.map((s) => s.keys + (s.advance ? '>' : '')).join(' ');
  const byPart = {year: '2011', month: '12', day: '15'};
  const date = datePlan('date', '2011-12-15');
  assert.equal(date.value, '2011-12-15');
  assert.equal(date.segments.map((s) => s.keys).join(' '), order.map((p) => byPart[p]).join(' '));
  // A year that is not last needs ArrowRight after it; the last segment never does.
  assert.equal(date.segments.filter((s) => s.advance).length, order.indexOf('year') === 2 ? 0 : 1);
  // As the field shows it: the same date.
  const shown = order.map((p) => byPart[p]).join('/');
  assert.equal(datePlan('date', shown).value, '2011-12-15');
  // The digits alone, in the order the field shows: as a person types them.
  assert.equal(datePlan('date', shown.replaceAll('/', '')).value, '2011-12-15');
  assert.equal(datePlan('time', '0145PM').value, '13:45');
  assert.equal(datePlan('time', '1345').value, '13:45');
  assert.equal(datePlan('time', '1:45 PM').value, '13:45');
  assert.equal(datePlan('time', '13:45').value, '13:45');
  assert.equal(datePlan('time', '12:05 am').value, '00:05');
  assert.equal(datePlan('month', '2027-04').value, '2027-04');
  assert.equal(datePlan('week', '2011-W50').value, '2011-W50');
  assert.equal(datePlan('datetime-local', '2012-01-02T09:30').value, '2012-01-02T09:30');
  assert.equal(datePlan('datetime-local', '2012-01-02 9:30 PM').value, '2012-01-02T21:30');
  assert.ok(keys(datePlan('datetime-local', '2012-01-02T09:30')).includes('2012>'));
  // Not a date of the field's kind: typed as written.
  assert.equal(datePlan('date', 'next friday'), null);
  assert.equal(datePlan('date', '2011-13-01'), null);
  assert.equal(datePlan('date', '1215201'), null);  // seven digits are no date
  assert.equal(datePlan('time', '25:00'), null);
});
