// The test servers on 127.0.0.1 as a program, for checks that run vimgpt as a user does, outside the test
// executables (scripts/package.sh runs the installed package in a Debian root against them): the fake model of the
// doctor tests, which answers like a vision model, and the fixture site.
//
// Prints one line when both are listening, "ready MODEL_URL SITE_URL", then serves until its standard input ends
// (the caller closes it: no pid to signal, nothing to wait for). Then it prints what they received, a line per site
// request ("site GET /index.html") and "model requests N", and a line per failed check of the fake model ("model
// problem: ..."); the exit status is 1 when there was any.
#include <iostream>
#include <string>

#include "support/fake_model_server.h"
#include "support/site_server.h"
#include "support/vision_model.h"

int main() {
  using namespace vimgpt::test;
  Expectations want;
  want.api_key = "k";
  want.images = 1;
  FakeModelServer model(want);
  answer_like_a_vision_model(model);
  SiteServer site;
  site.mount("/", VIMGPT_FIXTURES_DIR "/site");
  std::cout << "ready " << model.url() << " " << site.url("") << std::endl;

  std::string line;
  while (std::getline(std::cin, line)) {
  }
  for (const auto& request : site.requests()) std::cout << "site " << request.method << " " << request.path << "\n";
  std::cout << "model requests " << model.request_count() << "\n";
  const auto problems = model.problems();
  for (const auto& problem : problems) std::cout << "model problem: " << problem << "\n";
  return problems.empty() ? 0 : 1;
}
