// The hint library's rules that need no page (src/hints/js), in Node: the library as vimgpt embeds it
// ($VIMGPT_HINT_LIBRARY, the joined script the build writes), run in a context of its own, on stand-in
// elements that answer the DOM calls the rules make. The browser tests cover everything that needs layout.
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {test} from 'node:test';
import vm from 'node:vm';

const source = readFileSync(process.env.VIMGPT_HINT_LIBRARY, 'utf8');
const library = vm.runInNewContext(source, {document: {}, innerWidth: 1080, innerHeight: 720});
const {classify, isSelectable, roleOf, nameOf, squash, choiceKind, pickOption} = library.internals;

// Reason codes (hints::Reason): a Vimium rule, a button-like class name, a tabindex; -1 not clickable,
// -2 never (aria-disabled).
const RULE = 0, CLASSNAME = 1, TABINDEX = 3;

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
  assert.equal(classify(element('input', {}, {type: 'text', readOnly: true}), 'input', false), -1);
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
