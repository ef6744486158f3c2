// Firefox over WebDriver BiDi: what the hint pass asks beyond the page's own document. Cross-origin frames are child
// browsing contexts (the sandbox realm cannot read their documents from the parent), placed through their owner
// <iframe>, whose contentWindow BiDi serializes as that context. Listeners are recorded by a preload script in the page
// realm, since BiDi has no listing of them (read 2026-12-02 against Firefox ESR 153.8 and
// https://w3c.github.io/webdriver-bidi/: script.addPreloadScript, the "window" remote value, browsingContext.getTree).
#include <random>

#include "browser/bidi/state.h"
#include "common/url.h"

namespace vimgpt::browser {

using bidi::kSandbox;

namespace {

// Every <iframe> and <frame> of the document, those in open shadow roots too, in document order.
constexpr std::string_view kFrameOwners =
    "(() => { const owners = []; const walk = (root) => { for (const e of root.querySelectorAll('*')) {"
    " if (e.localName === 'iframe' || e.localName === 'frame') owners.push(e);"
    " if (e.shadowRoot) walk(e.shadowRoot); } }; walk(document); return owners; })()";

// An address's origin as far as telling frames apart needs: about:blank and srcdoc documents share their parent's,
// a blob: address its creator's, an address without a host (data:) is an origin of its own.
std::string origin_of(std::string_view url, const std::string& parent_origin) {
  if (url.starts_with("about:")) return parent_origin;
  if (url.starts_with("blob:")) url.remove_prefix(5);
  const std::string_view origin = url_origin(url);
  return std::string(origin.empty() ? url : origin);
}

// The child contexts under `node` (a browsingContext.getTree entry) whose documents the parent's realm cannot read.
void collect_cross_origin(const Json& node, const std::string& parent_origin, std::vector<ChildFrame>& out) {
  if (!node.contains("children") || !node["children"].is_array()) return;
  for (const auto& child : node["children"]) {
    const std::string url = child.value("url", "");
    const std::string origin = origin_of(url, parent_origin);
    if (origin != parent_origin) {
      const std::string id = child.value("context", "");
      out.push_back({id, id, url});
    }
    collect_cross_origin(child, origin, out);
  }
}

// How many of the page's fetch and XMLHttpRequest calls are still waiting for their response, and a wait for none to
// be: window[name](capMs) is false when none is, else resolves true once none is or the cap passes.
// Firefox tells a request from its parent process, a little after the page made it: a fetch a load handler starts
// can reach us after the network looked quiet (the browser suite's late-content test on a cold Firefox). The page
// itself knows at once. A fetch ends for the count when its response (or failure) comes, by when the request's own
// network event has reached us, so the network is waited for again after it.
std::string request_counter(const std::string& name) {
  return " { let pending = 0; const waiters = [];"
         " const ended = () => { if (--pending === 0) waiters.splice(0).forEach((resolve) => resolve(true)); };"
         " const fetch = window.fetch;"
         " if (fetch) window.fetch = { fetch(...args) { ++pending; let answer;"
         " try { answer = fetch.apply(this, args); } catch (e) { ended(); throw e; }"
         " answer.then(ended, ended); return answer; } }.fetch;"
         " const send = XMLHttpRequest.prototype.send;"
         " XMLHttpRequest.prototype.send = { send(...args) { ++pending;"
         " add.call(this, 'loadend', ended, { once: true });"
         " try { return send.apply(this, args); } catch (e) { ended(); throw e; } } }.send;"
         " Object.defineProperty(window, " +
         Json(name).dump() +
         ", { value: (cap) => pending > 0 && new Promise((resolve) => {"
         " waiters.push(resolve); setTimeout(() => resolve(true), cap); }) }); }";
}

// Which page-realm listeners an element has: EventTarget's add/removeEventListener wrapped before any page script
// runs, the listeners kept per element and type in the preload's closure, read through a window property under a
// name drawn for each browser (non-enumerable, not writable). Property handlers (onclick = ...) are read directly.
// The elements given a click-like listener are kept too (weakly, in the order they got one), so that the page's
// listening elements can be listed at once (window[key + 'Clickable']), as Chromium's DOMSnapshot lists them; their
// onclick, onmousedown and onmouseup properties are noted as they are set.
std::string listener_recorder(const std::string& key) {
  return "() => { const kept = new WeakMap(); const proto = EventTarget.prototype;"
         " const add = proto.addEventListener, remove = proto.removeEventListener;"
         " const clicks = ['click', 'mousedown', 'mouseup'], noted = new WeakSet(), clickable = [];"
         " const note = (target, type) => { if (clicks.includes(type) && target instanceof Element &&"
         " !noted.has(target)) { noted.add(target); clickable.push(new WeakRef(target)); } };"
         " for (const type of clicks) { const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'on' + type);"
         " if (d && d.set) Object.defineProperty(HTMLElement.prototype, 'on' + type, { ...d,"
         " set(value) { if (typeof value === 'function') note(this, type); return d.set.call(this, value); } }); }"
         " const listeners = (target, type) => { let types = kept.get(target);"
         " if (!types) { types = new Map(); kept.set(target, types); }"
         " if (!types.has(type)) types.set(type, new Set()); return types.get(type); };"
         " const wrapped = { addEventListener(type, listener, options) {"
         " try { if (listener) { listeners(this || window, String(type)).add(listener); note(this, String(type)); } }"
         " catch (e) {}"
         " return add.call(this, type, listener, options); },"
         " removeEventListener(type, listener, options) {"
         " try { listeners(this || window, String(type)).delete(listener); } catch (e) {}"
         " return remove.call(this, type, listener, options); } };"
         " proto.addEventListener = wrapped.addEventListener; proto.removeEventListener = wrapped.removeEventListener;"
         " Object.defineProperty(window, " +
         Json(key).dump() +
         ", { value: (target) => { const types = kept.get(target); return types ?"
         " [...types].filter(([, set]) => set.size > 0).map(([type]) => type) : []; } });"
         " Object.defineProperty(window, " +
         Json(key + "Clickable").dump() +
         ", { value: () => { let live = 0; for (const ref of clickable) if (ref.deref()) clickable[live++] = ref;"
         // References to elements collected since are dropped: the list holds no more than the living elements.
         " clickable.length = live;"
         " return clickable.map((ref) => ref.deref()).filter((el) => el && el.isConnected &&"
         " (clicks.some((type) => typeof el['on' + type] === 'function') ||"
         " (kept.get(el) && clicks.some((type) => kept.get(el).has(type) && kept.get(el).get(type).size > 0)))); } "
         "});" +
         request_counter(key + "Requests") + " }";
}

}  // namespace

bool BidiTab::State::wait_page_requests(milliseconds cap) {
  if (listener_key.empty() || cap <= milliseconds{0}) return false;
  const std::string wait = "((wait) => wait ? wait(" + std::to_string(cap.count()) + ") : false)(window[" +
                           Json(listener_key + "Requests").dump() + "])";
  const auto waited = evaluate({{"context", current()}}, wait, cap + bidi::kReplySlack);
  return waited && waited->is_boolean() && waited->get<bool>();
}

void BidiTab::State::install_listener_recorder() {
  if (listener_key.empty()) {
    std::random_device random;
    listener_key = "__vimgptListeners" + std::to_string(random()) + std::to_string(random());
  }
  // A failure only means no listener probes: the pass goes on without them, as on Chromium.
  (void)call("script.addPreloadScript", in_user_context({{"functionDeclaration", listener_recorder(listener_key)}}));
}

std::vector<ChildFrame> BidiTab::child_frames() const {
  const std::string top = s_->current();
  auto tree = s_->call("browsingContext.getTree", {{"root", top}});
  std::vector<ChildFrame> frames;
  if (!tree || !(*tree)["contexts"].is_array() || (*tree)["contexts"].empty()) return frames;
  const Json& root = (*tree)["contexts"][0];
  collect_cross_origin(root, origin_of(root.value("url", ""), ""), frames);
  // A frame whose load failed shows Firefox's error page under the address that failed (about:neterror, with a "Try
  // Again" button): nothing of the page's to hint (Chromium gives such a frame no target), and one pass less.
  std::erase_if(frames, [this](const ChildFrame& frame) {
    auto document = s_->evaluate({{"context", frame.frame_id}, {"sandbox", kSandbox}}, "document.documentURI");
    return !document || !document->is_string() || bidi::is_error_page(document->get<std::string>());
  });
  return frames;
}

// Where `frame_id`'s owner element is in its parent's viewport, and its index among kFrameOwners there.
struct BidiTab::State::Owner {
  std::string parent;
  std::size_t index = 0;
  FrameBox box;
};

Result<BidiTab::State::Owner> BidiTab::State::owner_of(std::string_view frame_id) {
  Owner owner;
  {
    std::scoped_lock lock(mutex);
    const auto parent = frames.find(std::string(frame_id));
    if (parent == frames.end()) return fail(ErrorKind::NotFound, "the frame is gone");
    owner.parent = parent->second;
  }
  const std::string boxes =
      std::string(kFrameOwners) +
      ".map((f) => { const r = f.getBoundingClientRect(), s = getComputedStyle(f), px = (v) => parseFloat(v) || 0;"
      " const left = px(s.borderLeftWidth) + px(s.paddingLeft), top = px(s.borderTopWidth) + px(s.paddingTop);"
      " return [r.left + left, r.top + top, r.width - left - px(s.borderRightWidth) - px(s.paddingRight),"
      " r.height - top - px(s.borderBottomWidth) - px(s.paddingBottom), f.contentWindow]; })";
  VIMGPT_TRY(Json answer, call("script.evaluate", {{"expression", boxes},
                                                   {"target", {{"context", owner.parent}, {"sandbox", kSandbox}}},
                                                   {"awaitPromise", false},
                                                   {"resultOwnership", "none"}}));
  const Json& list = answer["result"]["value"];
  for (std::size_t i = 0; list.is_array() && i < list.size(); ++i) {
    const Json& entry = list[i]["value"];
    if (!entry.is_array() || entry.size() != 5 || entry[4].value("type", "") != "window") continue;
    if (entry[4]["value"].value("context", "") != frame_id) continue;
    owner.index = i;
    owner.box = {entry[0].value("value", 0.0), entry[1].value("value", 0.0), entry[2].value("value", 0.0),
                 entry[3].value("value", 0.0)};
    return owner;
  }
  return fail(ErrorKind::NotFound, "the frame's <iframe> is no longer in its page");
}

Result<FrameBox> BidiTab::frame_box(std::string_view frame_id) {
  VIMGPT_TRY(State::Owner owner, s_->owner_of(frame_id));
  if (owner.parent == s_->current()) return owner.box;
  // A frame inside another frame: that frame's place in the main viewport, plus this one's in it.
  VIMGPT_TRY(FrameBox outer, frame_box(owner.parent));
  owner.box.x += outer.x;
  owner.box.y += outer.y;
  return owner.box;
}

Status BidiTab::scroll_frame_into_view(std::string_view frame_id) {
  VIMGPT_TRY(State::Owner owner, s_->owner_of(frame_id));
  if (owner.parent != s_->current()) VIMGPT_TRY_VOID(scroll_frame_into_view(owner.parent));
  VIMGPT_TRY_VOID(s_->evaluate({{"context", owner.parent}, {"sandbox", kSandbox}},
                               std::string(kFrameOwners) + "[" + std::to_string(owner.index) +
                                   "].scrollIntoView({block: 'nearest', inline: 'nearest'})"));
  return ok();
}

Result<Json> BidiTab::evaluate_with_command_line_api(std::string_view, const ChildFrame*) {
  return fail(ErrorKind::Unsupported, "Firefox has no DevTools command-line API over WebDriver BiDi");
}

Result<std::vector<std::vector<std::string>>> BidiTab::listener_types(std::string_view elements,
                                                                      const ChildFrame* frame) {
  // Each element is read in its own document's window (a same-origin frame's element has that frame's recorder).
  const std::string read =
      "((list) => Array.from(list, (n) => { if (!n || !n.ownerDocument) return [];"
      " const view = n.ownerDocument.defaultView, recorded = view && view[" +
      Json(s_->listener_key).dump() +
      "]; const types = typeof recorded === 'function' ? recorded(n) : [];"
      " for (const key in n) if (key.startsWith('on') && typeof n[key] === 'function' && !types.includes(key.slice(2)))"
      " types.push(key.slice(2)); return types; }))(" +
      std::string(elements) + ")";
  VIMGPT_TRY(Json answer, s_->evaluate({{"context", frame != nullptr ? frame->frame_id : s_->current()}}, read));
  std::vector<std::vector<std::string>> types;
  for (const auto& entry : answer) {
    auto& element = types.emplace_back();
    for (const auto& type : entry)
      if (type.is_string()) element.push_back(type.get<std::string>());
  }
  return types;
}

// What the listener recorder noted in the document and in each same-origin frame's (each frame has its own recorder),
// as the hint library's paths (its pathOf, written again here in the page's realm, where the elements are).
Result<Json> BidiTab::click_listening(const ChildFrame* frame) {
  if (s_->listener_key.empty()) return fail(ErrorKind::Unsupported, "the listener recorder is not installed");
  const std::string read =
      "((key) => { const paths = [];"
      " const pathOf = (el) => { const path = []; let n = el; for (;;) { const p = n.parentNode; if (!p) return null;"
      " path.push(Array.prototype.indexOf.call(p.children, n));"
      " if (p.nodeType === 11) { if (!p.host || p.host.shadowRoot !== p) return null; path.push(-1); n = p.host;"
      " continue; }"
      " if (p.nodeType === 9) { if (p === document) break; const owner = p.defaultView && p.defaultView.frameElement;"
      " if (!owner) return null; path.push(-2); n = owner; continue; } n = p; } return path.reverse(); };"
      " const visit = (view) => { const list = view[key + 'Clickable'];"
      " if (typeof list === 'function') for (const el of list()) { const path = pathOf(el); if (path) "
      "paths.push(path); }"
      " for (const owner of view.document.querySelectorAll('iframe, frame')) {"
      " try { if (owner.contentDocument && owner.contentWindow) visit(owner.contentWindow); } catch (e) {} } };"
      " visit(window); return paths; })(" +
      Json(s_->listener_key).dump() + ")";
  return s_->evaluate({{"context", frame != nullptr ? frame->frame_id : s_->current()}}, read);
}

}  // namespace vimgpt::browser
