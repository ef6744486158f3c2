#include "common/url.h"

#include "common/text.h"

namespace vimgpt {

std::string_view url_origin(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  return url.substr(0, url.find_first_of("/?#", scheme_end + 3));
}

std::string url_host(std::string_view url) {
  std::string_view authority = url_origin(url);
  if (authority.empty()) return "";
  authority.remove_prefix(authority.find("://") + 3);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    return ascii_lower(authority.substr(0, authority.find(']') + 1));  // IPv6
  }
  return ascii_lower(authority.substr(0, authority.find(':')));
}

}  // namespace vimgpt
