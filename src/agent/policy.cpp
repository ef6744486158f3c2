#include <libpsl.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "agent/agent.h"
#include "common/text.h"
#include "common/url.h"

namespace vimgpt::agent {
namespace {

bool host_matches(const std::string& host, const std::string& pattern) {
  if (pattern.rfind("*.", 0) == 0) {
    const std::string base = pattern.substr(2);
    return host == base || (host.size() > base.size() && host.ends_with("." + base));
  }
  return host == pattern;
}

bool is_ip_address(const std::string& host) {
  return host.starts_with('[') || host.find_first_not_of("0123456789.") == std::string::npos;
}

// The Public Suffix List: Debian's publicsuffix file when it is newer than the copy built into libpsl.
const psl_ctx_t* suffix_list() {
  static const psl_ctx_t* const kList = [] {
    const psl_ctx_t* latest = psl_latest(nullptr);
    return latest != nullptr ? latest : psl_builtin();
  }();
  return kList;
}

// The same site: one registrable domain by the Public Suffix List (shop.example.co.uk and pay.example.co.uk; not
// alice.github.io and bob.github.io, nor example.co.uk and other.co.uk). A host with none (an IP address, localhost, a
// suffix itself) is only itself; without a list, one host or a subdomain of the other.
bool same_site(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (is_ip_address(a) || is_ip_address(b)) return false;
  if (const psl_ctx_t* list = suffix_list(); list != nullptr) {
    const char* site_a = psl_registrable_domain(list, a.c_str());
    const char* site_b = psl_registrable_domain(list, b.c_str());
    return site_a != nullptr && site_b != nullptr && std::strcmp(site_a, site_b) == 0;
  }
  return (a.size() > b.size() && a.ends_with("." + b)) || (b.size() > a.size() && b.ends_with("." + a));
}

std::optional<Risk> leaving(const std::string& url, const std::vector<std::string>& task_hosts) {
  const std::string host = url_host(url);
  if (host.empty()) return std::nullopt;
  const auto on_task = [&host](const std::string& task_host) { return same_site(host, task_host); };
  if (std::any_of(task_hosts.begin(), task_hosts.end(), on_task)) return std::nullopt;
  return Risk{"it leaves the task's sites for " + host, host};
}

}  // namespace

std::optional<Risk> risk_of(const Action& action, const hints::HintMap& map, int frame_width,
                            const std::vector<std::string>& task_hosts) {
  switch (action.kind) {
    case ActionKind::Actions:
      for (const auto& inner : action.actions) {
        if (auto risk = risk_of(inner, map, frame_width, task_hosts)) return risk;
      }
      return std::nullopt;
    case ActionKind::Navigate: return leaving(action.text, task_hosts);
    case ActionKind::Upload: return Risk{"it gives the page the file " + action.text, ""};
    case ActionKind::Type:
    case ActionKind::ClickType:
      if (const auto secret = next_secret_placeholder(action.text))
        return Risk{"it types the secret " + secret->name, ""};
      return std::nullopt;
    case ActionKind::Click:
    case ActionKind::DoubleClick:
    case ActionKind::TripleClick:
    case ActionKind::RightClick:
    case ActionKind::ClickAt: {
      // A link named by its label, or the one a point lands on (a computer tool's or an open model's click).
      const auto* hint = action.label.empty() ? hint_at_point(action, map, frame_width) : map.find(action.label);
      if (hint != nullptr && hint->role == "link") return leaving(hint->href, task_hosts);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::string describe(const browser::AuthChallenge& challenge) {
  const std::string host = url_host(challenge.url);
  const std::string asked = challenge.url + " asked for a user name and password" +
                            (challenge.realm.empty() ? std::string() : " for \"" + challenge.realm + "\"");
  switch (challenge.answer) {
    case browser::AuthAnswer::Given: return asked + ", and got the ones the user set for " + host;
    case browser::AuthAnswer::Refused:
      return asked + ", and refused the ones the user set for " + host + ": the page shows the refusal";
    case browser::AuthAnswer::NotGiven: break;
  }
  return asked + "; the user set none for " + host + ", so the page shows the refusal: ask the user for them (vimgpt " +
         "takes them as --http-credentials " + host + "=SECRET) or try another way";
}

Result<NavigationPolicy> NavigationPolicy::create(std::vector<std::string> allow, std::vector<std::string> block) {
  NavigationPolicy policy;
  for (auto* list : {&allow, &block}) {
    for (auto& pattern : *list) {
      pattern = ascii_lower(pattern);
      const std::string host = pattern.rfind("*.", 0) == 0 ? pattern.substr(2) : pattern;
      if (host.empty() || host.find_first_of("*/:@ ") != std::string::npos) {
        return fail(ErrorKind::InvalidArgument,
                    "--allow-domain/--block-domain take a host such as example.com or "
                    "*.example.com, not '" +
                        pattern + "'");
      }
    }
  }
  policy.allow_ = std::move(allow);
  policy.block_ = std::move(block);
  return policy;
}

std::optional<std::string> NavigationPolicy::refusal(const std::string& url) const {
  const std::string scheme = ascii_lower(url.substr(0, url.find(':')));
  if (scheme != "http" && scheme != "https") return "only http and https pages may load";
  const std::string host = url_host(url);
  const auto blocking = std::find_if(block_.begin(), block_.end(),
                                     [&](const std::string& pattern) { return host_matches(host, pattern); });
  if (blocking != block_.end()) return host + " is blocked by --block-domain " + *blocking;
  if (allow_.empty()) return std::nullopt;
  for (const auto& pattern : allow_) {
    if (host_matches(host, pattern)) return std::nullopt;
  }
  return host + " is not in the allowed domains (--allow-domain)";
}

std::string NavigationPolicy::allowed_text() const {
  std::string text;
  for (const auto& pattern : allow_) text += (text.empty() ? "" : ", ") + pattern;
  return text;
}

std::optional<Confirmation> read_confirmation(std::string_view answer, const Json& proposed) {
  const std::string said = ascii_lower(trim(answer));
  if (said.empty() || said == "y" || said == "yes") return Confirmation{Verdict::Run, proposed};
  if (said == "n" || said == "no") return Confirmation{Verdict::Skip, {}};
  if (said == "q" || said == "quit") return Confirmation{Verdict::Quit, {}};
  auto edited = Json::parse(trim(answer), nullptr, false);
  if (edited.is_object()) return Confirmation{Verdict::Run, std::move(edited)};
  return std::nullopt;
}

}  // namespace vimgpt::agent
