// The two parts of an address vimgpt compares: its origin and its host. Not a URL parser: addresses here come from
// the browser, already resolved and normalised.
#pragma once

#include <string>
#include <string_view>

namespace vimgpt {

// "https://a.example:8443/x?y#z" is "https://a.example:8443": scheme and authority as written; empty when the
// address has no "://" (about:blank, data:).
std::string_view url_origin(std::string_view url);

// The host of an address, lowercased, without user, password or port ("[::1]" keeps its brackets); empty when there
// is none.
std::string url_host(std::string_view url);

}  // namespace vimgpt
