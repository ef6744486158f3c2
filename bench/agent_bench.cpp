// The loopback world for the per-step agent benchmark (figure 5) and its peer: a multi-page site and fake
// OpenAI-compatible model servers (one instant, one answering after 2 s, and two that take as long as a current
// model would: see LatencyProfile) that play the same task for whoever asks. bench/run starts `agent_bench --serve`,
// reads the URLs from its first stdout line, runs the vimgpt binary and bench/peer against them one at a time, and
// closes stdin to stop it.
//
// The task: /step/1 .. /step/N-1 each have 20 topic links and a "Next" link (click it); /step/N has a
// search form (click the field and type); /results is the end (done). The model decides from the last page
// the site served: runs are sequential, so that is the page the agent is looking at. The label to click is
// read from the hint list when the request carries one (vimgpt --observe hybrid), else it is the Vimium
// label of the element's position among the page's links, buttons and fields (what the peer labels).
//
// The form task (bench/ab/run --form, bench/hands/run): /form's fields filled one action at a time without leaving
// the page (three text fields, a drop-down, a checkbox that enables the button), then sent; /sent is the end. A
// prompt that offers {"actions": [...]} gets the six actions as one list.
//
// bench/replay/run changes part 3 between runs (GET /bench/part3?as=renamed|gone|recorded): its "Next" link
// renamed and moved above the topics, or gone; the model finds the link to part 4 by its text either way.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "hint_text.h"
#include "hints/hints.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace {

using vimgpt::bench::label_in_hint_text;
using vimgpt::test::FakeModelServer;
using vimgpt::test::ReceivedRequest;
using vimgpt::test::ScriptedReply;
using vimgpt::test::SiteServer;

constexpr int kSteps = 6;    // pages in the chain; the last has the search form
constexpr int kTopics = 20;  // topic links before the target on every page

std::string topics() {
  std::string html = "<nav><ul>";
  for (int i = 0; i < kTopics; ++i)
    html += "<li><a href=\"/topic/" + std::to_string(i) + "\">Topic " + std::to_string(i) + "</a></li>";
  return html + "</ul></nav>";
}

std::string page(const std::string& title, const std::string& body) {
  return "<!doctype html><html><head><title>" + title +
         "</title><style>body{font:15px sans-serif;margin:16px}li{display:inline-block;margin:3px 8px}"
         "p{max-width:900px}</style></head><body><h1>" +
         title + "</h1>" + body + "</body></html>";
}

// How part 3 looks (bench/replay/run): as recorded, its link renamed and moved, or without it.
enum class Part3 { Recorded, Renamed, Gone };
std::atomic<Part3> g_part3{Part3::Recorded};

const std::string kProse =
    "<p>The guide walks through the city's neighbourhoods one at a time, with opening hours, prices and the "
    "quickest way between them. Each part ends with a link to the next one.</p>";

void routes(httplib::Server& server) {
  server.Get(R"(/step/(\d+))", [](const httplib::Request& request, httplib::Response& response) {
    const int step = std::stoi(request.matches[1]);
    std::string body = topics() + kProse;
    const Part3 variant = step == 3 ? g_part3.load() : Part3::Recorded;
    if (variant == Part3::Renamed) {
      body = "<p><a id=\"next\" href=\"/step/4\">Continue to part 4</a></p>" + topics() + kProse;
    } else if (variant == Part3::Gone) {
      body += "<p>Part 4 is not written yet.</p>";
    } else if (step < kSteps) {
      body += "<p><a id=\"next\" href=\"/step/" + std::to_string(step + 1) + "\">Next: part " +
              std::to_string(step + 1) + "</a></p>";
    } else {
      body +=
          "<form action=\"/results\" method=\"get\"><input name=\"q\" placeholder=\"Search the guide\" "
          "aria-label=\"Search the guide\" style=\"width:300px\"> <button type=\"submit\">Search</button>"
          "</form>";
    }
    response.set_content(page("Guide, part " + std::to_string(step), body), "text/html");
  });
  server.Get("/bench/part3", [](const httplib::Request& request, httplib::Response& response) {
    const std::string as = request.get_param_value("as");
    g_part3 = as == "renamed" ? Part3::Renamed : as == "gone" ? Part3::Gone : Part3::Recorded;
    response.set_content("part 3 is " + as + "\n", "text/plain");
  });
  server.Get("/results", [](const httplib::Request& request, httplib::Response& response) {
    response.set_content(page("Results", "<p>3 results for " + request.get_param_value("q") + "</p>" + topics()),
                         "text/html");
  });
  server.Get("/form", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(
        page("Join the guide",
             "<form action=\"/sent\" method=\"get\"><p><input name=\"first\" aria-label=\"First name\"></p>"
             "<p><input name=\"last\" aria-label=\"Last name\"></p><p><input name=\"email\" type=\"email\" "
             "aria-label=\"Email\"></p><p><select name=\"country\" aria-label=\"Country\"><option>Chile</option>"
             "<option>Portugal</option><option>Spain</option></select></p><p><label><input type=\"checkbox\" "
             "id=\"agree\"> I agree to the terms</label></p><p><button id=\"send\" disabled>Send</button></p>"
             "</form><script>document.getElementById('agree').addEventListener('change', (e) => "
             "{ document.getElementById('send').disabled = !e.target.checked; });</script>"),
        "text/html");
  });
  server.Get("/sent", [](const httplib::Request& request, httplib::Response& response) {
    response.set_content(page("Sent", "<p>Welcome, " + request.get_param_value("first") + "</p>"), "text/html");
  });
  server.Get(R"(/topic/(\d+))", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(page("Topic", "<p>A topic.</p>"), "text/html");
  });
}

std::string vimium_label(std::size_t count, std::size_t index) {
  std::string label = vimgpt::hints::label_strings(count).at(index);
  for (auto& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return label;
}

// The page the agent is on, and the number of the site's request that served it.
std::pair<std::string, std::size_t> current_page(const SiteServer& site) {
  const auto requests = site.requests();
  for (std::size_t i = requests.size(); i-- > 0;) {
    const std::string& path = requests[i].path;
    if (path.starts_with("/step/") || path == "/results" || path == "/form" || path == "/sent") return {path, i};
  }
  return {};
}

// The form's actions in order; the nth request since /form was served gets the nth.
std::string decide_form(const ReceivedRequest& request, std::size_t nth) {
  const auto label = [&](const char* name) { return label_in_hint_text(request.text, name); };
  switch (nth) {
    case 0: return R"({"click": ")" + label("\"First name\"") + R"(", "type": "Ada", "enter": false})";
    case 1: return R"({"click": ")" + label("\"Last name\"") + R"(", "type": "Lovelace", "enter": false})";
    case 2: return R"({"click": ")" + label("\"Email\"") + R"(", "type": "ada@example.test", "enter": false})";
    case 3: return R"({"select": ")" + label("\"Country\"") + R"(", "option": "Portugal"})";
    case 4: return R"({"click": ")" + label("I agree") + R"("})";
    default: return R"({"click": ")" + label("\"Send\"") + R"("})";
  }
}

// The form in as few replies as a person would plan, when the prompt offers {"actions": [...]} (vimgpt without
// --max-actions 1): the fields and the checkbox as one list (Send is disabled, so it has no label yet), then Send.
std::string decide_form_at_once(const ReceivedRequest& request) {
  if (!label_in_hint_text(request.text, "\"Send\"").empty()) return decide_form(request, 5);
  std::string list;
  for (std::size_t nth = 0; nth < 5; ++nth) list += (nth == 0 ? "" : ", ") + decide_form(request, nth);
  return R"({"actions": [)" + list + "]}";
}

std::string decide(const SiteServer& site, const ReceivedRequest& request) {
  const auto [path, served] = current_page(site);
  static std::size_t form_served = 0, form_requests = 0;
  if (path == "/form") {
    if (request.text.find(R"({"actions": [A1, A2, ...]})") != std::string::npos) return decide_form_at_once(request);
    if (served != form_served) form_served = served, form_requests = 0;
    return decide_form(request, form_requests++);
  }
  if (path == "/sent") return R"({"done": "sent"})";
  if (path == "/results") return R"({"done": "3 results"})";
  const int step = path.starts_with("/step/") ? std::stoi(path.substr(6)) : 0;
  if (step <= 0) return R"({"done": null})";
  if (step < kSteps) {
    std::string label = label_in_hint_text(request.text, "part " + std::to_string(step + 1) + "\"");
    if (label.empty()) label = vimium_label(kTopics + 1, kTopics);
    return R"({"click": ")" + label + R"("})";
  }
  std::string label = label_in_hint_text(request.text, "Search the guide");
  if (label.empty()) label = vimium_label(kTopics + 2, kTopics);
  return R"({"click": ")" + label + R"(", "type": "lisbon"})";
}

// How long a current hosted model takes to answer, from published figures: a time to first token, plus a time
// per uncached input token (prefill), plus a time per output token (decode).
//   912 ms to the first token and 44.8 tokens a second (22.3 ms a token): GPT-5.4's medians in hourly probes
//   through OpenRouter, jonathanwrede.de/en/blog/ttft-varies-13x-across-llm-providers (2026; a "Hi" prompt, so
//   the time to first token holds no prefill).
//   0.04 to 0.24 ms a prompt token: the range nirmalya.net/posts/2026/02/prompt-size-impact-on-llm-response gives
//   (dedicated infrastructure to a shared API's P95); both ends are served, as two models.
// Tokens as the fake counts them (text a token per 4 bytes, images by OpenAI's tile rule); cached prompt tokens
// cost no prefill time. Output: the reply's bytes / 4 (the reply as the request's schema has it sent).
struct LatencyProfile {
  double first_token_ms = 912;
  double per_input_token_ms = 0.24;
  double per_output_token_ms = 1000.0 / 44.8;
};

std::chrono::milliseconds profiled_delay(const LatencyProfile& profile, const ReceivedRequest& request,
                                         const std::string& reply) {
  std::size_t output_bytes = reply.size();
  if (request.structured) {
    const auto parsed = nlohmann::json::parse(reply, nullptr, false);
    if (parsed.is_object()) output_bytes = nlohmann::json{{"action", parsed}}.dump().size();
  }
  const int uncached = request.cache.prompt_tokens - request.cache.read;
  const double ms = profile.first_token_ms + profile.per_input_token_ms * uncached +
                    profile.per_output_token_ms * static_cast<double>((output_bytes + 3) / 4);
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "--serve") {
    std::fprintf(stderr,
                 "usage: agent_bench --serve\n"
                 "Serves the per-step benchmark task on 127.0.0.1 until stdin closes; bench/run drives it.\n");
    return 64;
  }
  SiteServer site(routes);
  // The model's own time is not the agent's overhead: the fake reads each image's size from its header
  // instead of decoding it (4-20 ms a request, more for the peer's PNGs than for vimgpt's JPEGs).
  vimgpt::test::Expectations cheap;
  cheap.decode_images = false;
  FakeModelServer instant(cheap);
  FakeModelServer slow(cheap);
  instant.set_responder([&](const ReceivedRequest& request) { return ScriptedReply::text(decide(site, request)); });
  slow.set_responder([&](const ReceivedRequest& request) {
    return ScriptedReply::slow(std::chrono::milliseconds(2000), decide(site, request));
  });
  FakeModelServer profiled_shared(cheap);
  FakeModelServer profiled_dedicated(cheap);
  for (const auto& entry : {std::pair{&profiled_shared, LatencyProfile{}},
                            std::pair{&profiled_dedicated, LatencyProfile{912, 0.04, 1000.0 / 44.8}}}) {
    // A copy, not the structured binding: clang 14 cannot capture a binding in a lambda.
    entry.first->set_responder([&site, profile = entry.second](const ReceivedRequest& request) {
      const std::string reply = decide(site, request);
      return ScriptedReply::slow(profiled_delay(profile, request, reply), reply);
    });
  }
  std::cout << R"({"start_url": ")" << site.url("/step/1") << R"(", "form_url": ")" << site.url("/form")
            << R"(", "model_instant": ")" << instant.url() << R"(", "model_slow": ")" << slow.url()
            << R"(", "model_profiled_shared": ")" << profiled_shared.url() << R"(", "model_profiled_dedicated": ")"
            << profiled_dedicated.url() << R"(", "model_delay_ms": 2000, "steps_per_run": )" << kSteps + 1 << "}"
            << std::endl;
  for (std::string line; std::getline(std::cin, line);) {
  }
  std::fprintf(stderr, "agent_bench: %zu requests to the instant model, %zu to the slow one\n", instant.request_count(),
               slow.request_count());
  return 0;
}
