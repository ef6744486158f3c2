// --secret, --secrets-file and --http-credentials: the run's secrets by name, and the sites' credentials drawn from
// them (src/cli/options.h).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>

#include "agent/agent.h"
#include "browser/browser.h"
#include "cli/options.h"
#include "common/text.h"
#include "common/totp.h"
#include "common/url.h"

namespace vimgpt::cli {

namespace {

// One --secret NAME=VALUE, or NAME@HOST[,HOST...]=VALUE: a secret typed only into pages of those hosts.
struct SecretEntry {
  std::string name;
  std::vector<std::string> hosts;
  std::string value;
};

Result<std::vector<SecretEntry>> secret_entries(const Options& o) {
  std::vector<std::string> lines = o.secrets;
  if (!o.secrets_file.empty()) {
    std::ifstream in(o.secrets_file);
    if (!in) return usage_error("--secrets-file: cannot read " + o.secrets_file);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line[0] != '#') lines.push_back(line);
    }
  }
  const auto is_name = [](std::string_view name) {  // [A-Za-z_][A-Za-z0-9_]*
    return !name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) == 0 &&
           std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) != 0 || c == '_'; });
  };
  std::vector<SecretEntry> entries;
  for (const auto& line : lines) {
    const auto equals = line.find('=');
    const std::string key = line.substr(0, equals);
    const auto at = key.find('@');
    SecretEntry entry{key.substr(0, at), {}, equals == std::string::npos ? "" : line.substr(equals + 1)};
    if (equals == std::string::npos || !is_name(entry.name)) {
      return usage_error(
          "--secret takes NAME=VALUE (or NAME@HOST=VALUE to type it only on HOST) with a name of letters, digits "
          "and _");
    }
    if (at != std::string::npos) {
      for (std::string_view rest = std::string_view(key).substr(at + 1); !rest.empty();) {
        const auto comma = std::min(rest.find(','), rest.size());
        entry.hosts.emplace_back(trim(rest.substr(0, comma)));
        rest.remove_prefix(std::min(comma + 1, rest.size()));
      }
      if (entry.hosts.empty() || std::any_of(entry.hosts.begin(), entry.hosts.end(), [](const std::string& host) {
            return host.empty() || host.find_first_of("/:@ ") != std::string::npos;
          })) {
        return usage_error("--secret " + entry.name +
                           "@...: give the hosts it is for as host names, comma-separated (example.com, "
                           "*.example.com for its subdomains too), not " +
                           key.substr(at + 1));
      }
    }
    if (is_totp(entry.value)) {
      if (auto key_bytes = totp_key(entry.value); !key_bytes) {
        return usage_error("--secret " + entry.name + ": " + key_bytes.error().message);
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace

Result<Secrets> secrets(const Options& o) {
  VIMGPT_TRY(auto entries, secret_entries(o));
  Secrets read;
  for (auto& entry : entries) {
    read.sites.erase(entry.name);  // a later line for the same name stands alone, as its value does
    if (!entry.hosts.empty()) {
      auto policy = agent::NavigationPolicy::create(entry.hosts, {});
      if (!policy) return usage_error("--secret " + entry.name + "@...: " + policy.error().message);
      read.sites.emplace(entry.name, std::move(*policy));
    }
    read.values[entry.name] = std::move(entry.value);
  }
  return read;
}

namespace {

// One --http-credentials HOST=NAME: the host, and the user name and password of the secret NAME ("user:password").
Result<std::pair<std::string, browser::HttpCredentials>> site_credentials(
    const std::string& entry, const std::map<std::string, std::string>& secret_values) {
  const auto equals = entry.find('=');
  std::string host = ascii_lower(entry.substr(0, equals));
  if (equals == std::string::npos || host.empty() || host.find_first_of("/:@") != std::string::npos) {
    return usage_error("--http-credentials takes HOST=NAME (a host name alone, and the name of a --secret), not " +
                       entry);
  }
  const std::string name = entry.substr(equals + 1);
  const auto secret = secret_values.find(name);
  if (secret == secret_values.end()) {
    return usage_error("--http-credentials " + entry + ": there is no secret named " + name +
                       " (set it with --secret " + name + "=user:password, or in --secrets-file)");
  }
  const auto colon = secret->second.find(':');
  if (colon == std::string::npos || is_totp(secret->second)) {
    return usage_error("--http-credentials " + entry + ": the secret " + name +
                       " must be user:password (the user name, a colon, then the password)");
  }
  return std::pair{std::move(host),
                   browser::HttpCredentials{secret->second.substr(0, colon), secret->second.substr(colon + 1)}};
}

}  // namespace

Result<browser::CredentialsLookup> credentials_lookup(const Options& o) {
  if (o.http_credentials.empty()) return browser::CredentialsLookup();
  VIMGPT_TRY(auto read, secrets(o));
  std::map<std::string, browser::HttpCredentials> by_host;
  for (const auto& entry : o.http_credentials) {
    VIMGPT_TRY(auto site, site_credentials(entry, read.values));
    by_host.insert_or_assign(std::move(site.first), std::move(site.second));
  }
  return browser::CredentialsLookup([by_host](const std::string& url) -> std::optional<browser::HttpCredentials> {
    const auto found = by_host.find(url_host(url));
    if (found == by_host.end()) return std::nullopt;
    return found->second;
  });
}

}  // namespace vimgpt::cli
