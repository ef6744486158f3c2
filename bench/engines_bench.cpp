// The hint map on both engines (issue 34): each of the 25 saved real pages is opened in Chromium and in Firefox
// (served from 127.0.0.1, nothing but loopback resolved), and their hint maps are compared: how many hints, how
// many elements both found (the same tag, role and text), how many labels name the same element on both, and the
// elements only one of them found, for explaining. Also the hint pass's time on each (median of 5).
//
//   engines_bench [OUT.json]      prints a table; writes every page's figures and differences to OUT.json
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "browser/browser.h"
#include "hints/hints.h"
#include "support/browser_options.h"
#include "support/saved_pages.h"
#include "support/site_server.h"

namespace {

using namespace vimgpt;
using Json = nlohmann::json;

struct Element {
  std::string label;
  std::string key;  // tag, role and text: what an element is called on either engine
};

struct PageMap {
  std::vector<Element> elements;
  double pass_ms = 0;
  std::string error;
};

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

PageMap hint_map(browser::Tab& tab, const std::string& url) {
  PageMap page;
  if (auto opened = tab.navigate(url); !opened) {
    page.error = opened.error().describe();
    return page;
  }
  std::vector<double> passes;
  Result<hints::HintMap> map = fail(ErrorKind::Internal, "no pass");
  for (int pass = 0; pass < 5; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    map = hints::find_hints(tab);
    passes.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!map) {
      page.error = map.error().describe();
      return page;
    }
  }
  page.pass_ms = median(passes);
  for (const auto& hint : map->hints())
    page.elements.push_back({hint.label, hint.tag + "|" + hint.role + "|" + hint.text});
  return page;
}

std::map<std::string, PageMap> all_maps(launch::Engine engine, const std::vector<std::string>& names,
                                        const std::string& base) {
  auto tab = browser::Tab::launch(test::loopback_only_launch(engine));
  if (!tab) throw std::runtime_error(tab.error().describe());
  std::map<std::string, PageMap> maps;
  for (const auto& name : names) {
    maps[name] = hint_map(**tab, base + name);
    std::fprintf(stderr, "  %s %s: %zu hints\n", std::string(launch::to_string(engine)).c_str(), name.c_str(),
                 maps[name].elements.size());
  }
  return maps;
}

// Elements in `from` that `other` lacks (as many times as they are missing), at most `limit` of them.
std::vector<std::string> missing_from(const PageMap& from, const PageMap& other, std::size_t limit = 8) {
  std::map<std::string, int> count;
  for (const auto& element : other.elements) ++count[element.key];
  std::vector<std::string> missing;
  for (const auto& element : from.elements) {
    if (count[element.key]-- <= 0 && missing.size() < limit) missing.push_back(element.key);
  }
  return missing;
}

}  // namespace

int main(int argc, char** argv) {
  const auto names = test::saved_page_names();
  if (names.empty()) {
    std::fprintf(stderr, "%s\n", test::kNoSavedPages);
    return 1;
  }
  test::SiteServer server;
  server.mount("/pages", test::saved_pages_dir()->string());
  const std::string base = server.url("/pages/");

  int status = 0;
  Json report = Json::array();
  try {
    const auto chromium = all_maps(launch::Engine::Chromium, names, base);
    const auto firefox = all_maps(launch::Engine::Firefox, names, base);
    std::printf("%-24s %8s %8s %8s %8s %10s %10s\n", "page", "chromium", "firefox", "both", "labels=", "pass_c_ms",
                "pass_f_ms");
    std::size_t total_c = 0, total_f = 0, total_both = 0, total_same = 0;
    std::vector<double> ratios;
    for (const auto& name : names) {
      const auto& c = chromium.at(name);
      const auto& f = firefox.at(name);
      std::map<std::string, int> in_c;
      for (const auto& element : c.elements) ++in_c[element.key];
      std::size_t both = 0;
      for (const auto& element : f.elements) {
        if (in_c[element.key]-- > 0) ++both;
      }
      std::map<std::string, std::string> label_c;
      for (const auto& element : c.elements) label_c[element.label] = element.key;
      std::size_t same = 0;
      for (const auto& element : f.elements) {
        if (auto it = label_c.find(element.label); it != label_c.end() && it->second == element.key) ++same;
      }
      std::printf("%-24s %8zu %8zu %8zu %8zu %10.1f %10.1f\n", name.c_str(), c.elements.size(), f.elements.size(), both,
                  same, c.pass_ms, f.pass_ms);
      total_c += c.elements.size();
      total_f += f.elements.size();
      total_both += both;
      total_same += same;
      if (c.pass_ms > 0) ratios.push_back(f.pass_ms / c.pass_ms);
      report.push_back({{"page", name},
                        {"chromium", c.elements.size()},
                        {"firefox", f.elements.size()},
                        {"both", both},
                        {"same_labels", same},
                        {"pass_ms", {{"chromium", c.pass_ms}, {"firefox", f.pass_ms}}},
                        {"only_chromium", missing_from(c, f)},
                        {"only_firefox", missing_from(f, c)},
                        {"errors", {{"chromium", c.error}, {"firefox", f.error}}}});
      if (!c.error.empty() || !f.error.empty()) status = 1;
    }
    std::printf("%-24s %8zu %8zu %8zu %8zu   firefox/chromium hint pass, median over pages: %.2fx\n", "all", total_c,
                total_f, total_both, total_same, median(ratios));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engines_bench: %s\n", e.what());
    status = 1;
  }
  if (argc > 1) std::ofstream(argv[1]) << report.dump(2) << '\n';
  return status;
}
