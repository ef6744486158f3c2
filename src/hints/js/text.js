// ---- The page as text (--observe text): what the viewport shows, block by block --------------------------

function blockOf(el) {
  for (let e = el; e; e = e.parentElement) {
    const d = getComputedStyle(e).display;
    if (d !== 'inline' && d !== 'inline-block' && d !== 'contents') return e;
  }
  return null;
}

// The text of the part of the page in the viewport: every visible text node whose box meets it, one line
// per block, at most P.max characters (cut says whether more was left out). Field values are not text
// nodes, so what was typed (a secret included) never appears; frames and shadow roots are left out.
function visibleText(P) {
  const max = P.max;
  const W = innerWidth;
  const H = innerHeight;
  const root = document.body || document.documentElement;
  if (!root) return {text: '', cut: false};
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const lines = [];
  let line = '';
  let block = null;
  let total = 0;
  let cut = false;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.data.replace(/\s+/g, ' ');
    const parent = n.parentElement;
    if (!text.trim() || !parent || ['script', 'style', 'noscript', 'template'].includes(parent.localName)) continue;
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.top >= H || r.right <= 0 || r.left >= W) continue;
    if (parent.checkVisibility && !parent.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const here = blockOf(parent);
    if (here !== block && line.trim()) {
      lines.push(line.trim());
      line = '';
    }
    block = here;
    line += text;
    total += text.length;
    if (total >= max) {
      cut = true;
      break;
    }
  }
  if (line.trim()) lines.push(line.trim());
  return {text: lines.join('\n').slice(0, max), cut};
}

