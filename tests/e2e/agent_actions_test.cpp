// The action layer through the real vimgpt binary: the original's documented replies, drop-downs, forms with
// several fields, uploads, tabs and questions for the person, on loopback pages with the fake model.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "support/assertions.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"
#include "vision/vision.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::CliRun;
using test::FakeModelServer;
using test::label_in_prompt;
using test::read_steps;
using test::run_vimgpt;
using test::ScriptedReply;

class AgentActions : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = std::make_unique<test::SiteServer>([](httplib::Server& s) {
      s.Get("/search", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content("<!doctype html><title>Results for " + req.get_param_value("q") + "</title><p>3 papers",
                        "text/html");
      });
      // A page that asks before it acts: confirm() before deleting, prompt() for a new name.
      s.Get("/dialogs", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<!doctype html><title>Draft</title>"
            "<button onclick=\"if (confirm('Delete the draft?')) location.href = '/deleted'\">Delete</button>"
            "<button onclick=\"const n = prompt('New name?', 'Untitled'); if (n !== null) "
            "location.href = '/renamed?name=' + encodeURIComponent(n)\">Rename</button>",
            "text/html");
      });
      for (const char* path : {"/deleted", "/renamed"}) {
        s.Get(path, [](const httplib::Request&, httplib::Response& res) {
          res.set_content("<!doctype html><title>Done</title><a href='/dialogs'>Back to the draft</a>", "text/html");
        });
      }
      // A button that does nothing, and a link that goes somewhere.
      s.Get("/inert", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<!doctype html><title>Inert</title><button>Nothing</button> <a href='/deleted'>Onward</a>",
                        "text/html");
      });
      s.Post("/login", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<!doctype html><title>Welcome</title><p>Signed in", "text/html");
      });
    });
    site_->mount("/fx", VIMGPT_FIXTURES_DIR "/site");
    scratch_ = fs::temp_directory_path() / ("vimgpt-actions-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  [[nodiscard]] fs::path record() const { return scratch_ / "record"; }

  CliRun run(const std::string& start_page, std::vector<std::string> extra = {}, const std::string& input = {}) {
    std::vector<std::string> args = {"do the task", "--base-url",      model_.url(),
                                     "--api-key",   "test-key",        "--observe",
                                     "hybrid",      "--start-url",     site_->url(start_page),
                                     "--record",    record().string(), "--max-retries",
                                     "0",           "--max-steps",     "8"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_vimgpt(args, {}, input);
  }

  // Replies in order; past the end, {"done": true}.
  void script(std::vector<std::function<std::string(const std::string& prompt)>> replies) {
    model_.set_responder([this, replies = std::move(replies)](const test::ReceivedRequest& request) {
      const std::size_t step = answered_++;
      return ScriptedReply::text(step < replies.size() ? replies[step](request.text) : R"({"done": true})");
    });
  }
  static std::function<std::string(const std::string&)> reply(std::string text) {
    return [text = std::move(text)](const std::string&) { return text; };
  }
  // {"click": <label of name>, ...rest}
  static std::function<std::string(const std::string&)> on(std::string name, std::string rest) {
    return [name = std::move(name), rest = std::move(rest)](const std::string& prompt) {
      return R"({"click": ")" + label_in_prompt(prompt, name) + "\"" + rest + "}";
    };
  }

  std::unique_ptr<test::SiteServer> site_;
  FakeModelServer model_{test::Expectations{"test-key", std::string(vision::kDefaultModel), test::default_frame_width(),
                                            1, test::Requirement::Any}};
  std::size_t answered_ = 0;
  fs::path scratch_;
};

// ---- The original's replies -------------------------------------------------------------------------------

// Each completion reply the original documents, bare, fenced and with words around it, ends the run: with
// structured output on (the default) and off.
TEST_F(AgentActions, EveryDocumentedDoneReplyEndsTheRun) {
  const std::vector<std::pair<std::string, std::string>> replies = {
      {R"({"done": null})", ""},
      {R"({"done": true})", "true"},
      {R"({"done": "3 papers"})", "3 papers"},
      {"```json\n{\"done\": null}\n```", ""},
      {"The page shows the answer. {\"done\": true}", "true"},
  };
  for (const std::string structured : {"auto", "off"}) {
    for (const auto& [text, printed] : replies) {
      if (structured == "off" && text != replies[0].first) continue;  // the same parse, without the schema
      model_.set_default_reply(text);
      const CliRun result = run("/fx/search.html", {"--structured", structured});
      EXPECT_EQ(result.exit_code, 0) << structured << " " << text << "\n" << result.err;
      EXPECT_EQ(result.out, printed + "\n") << text;
      const auto steps = read_steps(record());
      ASSERT_EQ(steps.size(), 1U) << text;  // ended at the first step, not when the budget ran out
      EXPECT_TRUE(steps[0]["ok"].get<bool>());
      fs::remove_all(record());
    }
  }
  EXPECT_TRUE(model_.problems().empty()) << model_.problems().front();
}

// A server that answers in the flat form earlier versions asked for: every key, unused ones null, "done" false
// until done.
TEST_F(AgentActions, AStrictStructuredReplyActsOnlyOnWhatWasChosen) {
  auto strict = [](const nlohmann::json& chosen) {
    nlohmann::json reply = nlohmann::json::object();
    for (const auto& key : vision::action_keys()) reply[key] = key == "done" ? nlohmann::json(false) : nullptr;
    reply.update(chosen);
    return reply.dump();
  };
  script({[&](const std::string& prompt) {
            return strict({{"click", label_in_prompt(prompt, "Search papers")}, {"type", "quantum computing"}});
          },
          reply(strict({{"done", "found"}}))});
  const CliRun result = run("/fx/search.html", {"--structured", "on"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "found\n");
  EXPECT_EQ(site_->count("GET", "/search"), 1);
  EXPECT_TRUE(model_.requests()[0].structured);
}

// The original's own examples, verbatim: {"click": "F", "type": "quantum computing"} on a page whose search
// box carries F, {"navigate": "https://arxiv.org"} (no host resolves here: the model sees it fail), then
// {"done": null}.
TEST_F(AgentActions, TheOriginalsExampleRepliesThroughTheWholeLoop) {
  const fs::path wrapper = scratch_ / "chromium";
  std::ofstream(wrapper) << "#!/bin/sh\nexec /usr/lib/chromium/chromium "
                            "'--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  std::string first_prompt;
  script({[&](const std::string& prompt) {
            first_prompt = prompt;
            return std::string(R"({"click": "F", "type": "quantum computing"})");
          },
          reply(R"({"navigate": "https://arxiv.org"})"), reply(R"({"done": null})")});
  const CliRun result = run("/fx/search.html", {"--chrome", wrapper.string(), "--allow-domain", "127.0.0.1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(label_in_prompt(first_prompt, "Search papers"), "F") << first_prompt;
  EXPECT_EQ(site_->count("GET", "/search"), 1);  // typed once, Enter once
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_TRUE(steps[0]["ok"].get<bool>()) << steps[0]["result"];
  EXPECT_NE(steps[0]["result"].get<std::string>().find("typed 17 characters and pressed Enter"), std::string::npos)
      << steps[0]["result"];
  EXPECT_EQ(steps[1]["title"], "Results for quantum computing");
  EXPECT_EQ(steps[1]["action"], (nlohmann::json{{"navigate", "https://arxiv.org"}}));
  EXPECT_FALSE(steps[1]["ok"].get<bool>());
  EXPECT_NE(model_.requests()[2].text.find("https://arxiv.org"), std::string::npos);  // the model saw it fail
}

// ---- Drop-downs -------------------------------------------------------------------------------------------

// A click that changes nothing on the page is not told as if it had done something: the model's next look says the
// page did not change, and the step's record says so; a click that changes the page is told as before.
TEST_F(AgentActions, AClickThatChangesNothingIsToldSo) {
  script({on("Nothing", ""), on("Onward", "")});
  const auto result = run("/inert");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_NE(requests[1].text.find("clicked button \"Nothing\"; the page did not change"), std::string::npos)
      << requests[1].text;
  EXPECT_EQ(requests[2].text.find("clicked link \"Onward\"; the page did not change"), std::string::npos)
      << requests[2].text;
  EXPECT_NE(requests[2].text.find("clicked link \"Onward\""), std::string::npos) << requests[2].text;
  const auto steps = test::read_steps(record());
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_FALSE(steps[0].contains("last_action_changed_nothing"));
  EXPECT_EQ(steps[1].value("last_action_changed_nothing", false), true) << steps[1];
  EXPECT_FALSE(steps[2].contains("last_action_changed_nothing")) << steps[2];
}

TEST_F(AgentActions, TypingIntoADropDownChoosesTheOptionItNames) {
  script({
      on("Dog", R"(, "type": "zsa zsa")"),   // case-insensitive
      on("Dog", R"(, "type": "Z")"),         // starts two options: ambiguous
      on("Dog", R"(, "type": "Purple")"),    // none
      reply(R"({"type": "fid"})"),           // the select still has the focus: the only option starting so
      on("Color", R"(, "type": "blue")"),    // ARIA: "Blue" over "Light blue", clicked once it shows
      on("Color", R"(, "type": "Orange")"),  // ARIA, none
  });
  const CliRun result = run("/fx/choices.html");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 7U);
  EXPECT_TRUE(steps[0]["ok"].get<bool>()) << steps[0]["result"];
  EXPECT_EQ(steps[0]["result"], "selected \"Zsa Zsa\"");
  EXPECT_EQ(steps[1]["title"], "Dog Zsa Zsa");  // the page's change event fired
  EXPECT_FALSE(steps[1]["ok"].get<bool>());
  EXPECT_NE(steps[1]["result"].get<std::string>().find(R"("Zsa Zsa", "Zorro")"), std::string::npos)
      << steps[1]["result"];
  EXPECT_FALSE(steps[2]["ok"].get<bool>());
  EXPECT_NE(steps[2]["result"].get<std::string>().find(
                R"(no option "Purple"; its options: "Rex", "Zsa Zsa", "Zorro", "Fido")"),
            std::string::npos)
      << steps[2]["result"];
  EXPECT_TRUE(steps[3]["ok"].get<bool>()) << steps[3]["result"];
  EXPECT_EQ(steps[4]["title"], "Dog Fido");
  EXPECT_TRUE(steps[4]["ok"].get<bool>()) << steps[4]["result"];
  EXPECT_EQ(steps[4]["result"], "selected \"Blue\"");
  EXPECT_EQ(steps[5]["title"], "Color Blue");
  EXPECT_FALSE(steps[5]["ok"].get<bool>());
  EXPECT_NE(steps[5]["result"].get<std::string>().find(R"("Red", "Light blue", "Blue", "Green")"), std::string::npos)
      << steps[5]["result"];
}

// ---- Forms with several fields ----------------------------------------------------------------------------

TEST_F(AgentActions, ALoginFormIsSubmittedOnceWithBothFields) {
  script({on("Email", R"(, "type": "ada@example.test")"), on("Password", R"(, "type": "<secret:PW>")")});
  const CliRun result = run("/fx/login.html", {"--secret", "PW=correct horse"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(site_->count("POST", "/login"), 1);
  for (const auto& request : site_->requests()) {
    if (request.path == "/login") {
      EXPECT_EQ(request.body, "email=ada%40example.test&password=correct+horse&nickname=");
    }
  }
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 3U);
  // The hidden field does not count: a person cannot fill it.
  EXPECT_NE(steps[0]["result"].get<std::string>().find(
                "typed 16 characters; did not press Enter: 1 empty field left in this form (Password)"),
            std::string::npos)
      << steps[0]["result"];
  EXPECT_NE(steps[1]["result"].get<std::string>().find("and pressed Enter"), std::string::npos) << steps[1]["result"];
  EXPECT_EQ(steps[2]["title"], "Welcome");
}

TEST_F(AgentActions, EnterCanBeForcedOrHeldBack) {
  script({on("Search papers", R"(, "type": "qubits", "enter": false)")});
  const CliRun result = run("/fx/search.html");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_NE(steps[0]["result"].get<std::string>().find("did not press Enter (\"enter\": false)"), std::string::npos)
      << steps[0]["result"];
  EXPECT_EQ(site_->count("GET", "/search"), 0);
  fs::remove_all(record());
  answered_ = 0;
  script({on("Email", R"(, "type": "ada@example.test", "enter": true)")});
  const CliRun forced = run("/fx/login.html");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(site_->count("POST", "/login"), 1);  // submitted with the password empty, as told
}

// ---- Files ------------------------------------------------------------------------------------------------

TEST_F(AgentActions, UploadsGiveTheFileChooserOnlyFilesFromTheUploadFolder) {
  const fs::path uploads = scratch_ / "uploads";
  fs::create_directories(uploads);
  std::ofstream(uploads / "cv.pdf") << "%PDF-1.4 a short CV";
  std::ofstream(uploads / "me.jpg") << "not really a photo";
  std::ofstream(scratch_ / "secret.txt") << "never uploaded";
  std::string prompt_seen;
  script({[&](const std::string& prompt) {
            prompt_seen = prompt;
            return R"({"upload": ")" + label_in_prompt(prompt, "Attach CV") + R"(", "file": "cv.pdf"})";
          },
          [](const std::string& prompt) {
            return R"({"upload": ")" + label_in_prompt(prompt, "Choose photo") + R"(", "file": "me.jpg"})";
          },
          [](const std::string& prompt) {
            return R"({"upload": ")" + label_in_prompt(prompt, "Choose photo") + R"(", "file": "../secret.txt"})";
          },
          [](const std::string& prompt) {
            return R"({"upload": ")" + label_in_prompt(prompt, "Does nothing") + R"(", "file": "cv.pdf"})";
          },
          reply(R"({"upload": "ZZ", "file": "cv.pdf"})")});
  const CliRun result = run("/fx/upload.html", {"--upload-dir", uploads.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(prompt_seen.find("Files you can upload with {\"upload\": \"AB\", \"file\": NAME}: cv.pdf me.jpg."),
            std::string::npos)
      << prompt_seen;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 6U);
  EXPECT_TRUE(steps[0]["ok"].get<bool>()) << steps[0]["result"];
  EXPECT_EQ(steps[1]["title"], "Chosen cv cv.pdf 19");  // through its label
  EXPECT_TRUE(steps[1]["ok"].get<bool>()) << steps[1]["result"];
  EXPECT_EQ(steps[2]["title"], "Chosen photo me.jpg 18");  // through a button that opens the chooser
  EXPECT_FALSE(steps[2]["ok"].get<bool>());
  EXPECT_NE(steps[2]["result"].get<std::string>().find("not in the upload folder"), std::string::npos);
  EXPECT_FALSE(steps[3]["ok"].get<bool>());
  EXPECT_NE(steps[3]["result"].get<std::string>().find("opened no file chooser"), std::string::npos)
      << steps[3]["result"];
  EXPECT_FALSE(steps[4]["ok"].get<bool>());
  EXPECT_NE(steps[4]["result"].get<std::string>().find("no hint labelled \"ZZ\""), std::string::npos);
  // The model got names, never contents.
  for (const auto& request : model_.requests()) EXPECT_EQ(request.text.find("short CV"), std::string::npos);
}

TEST_F(AgentActions, UploadsAreRefusedWithoutAnUploadFolder) {
  script({[](const std::string& prompt) {
    return R"({"upload": ")" + label_in_prompt(prompt, "Attach CV") + R"(", "file": "cv.pdf"})";
  }});
  const CliRun result = run("/fx/upload.html");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_NE(steps[0]["result"].get<std::string>().find("--upload-dir"), std::string::npos) << steps[0]["result"];
  EXPECT_EQ(steps[1]["title"], "Upload");
  EXPECT_EQ(model_.requests()[0].text.find("Files you can upload"), std::string::npos);

  const CliRun usage = run("/fx/upload.html", {"--upload-dir", (scratch_ / "missing").string()});
  EXPECT_EQ(usage.exit_code, 64);
  EXPECT_NE(usage.err.find("--upload-dir"), std::string::npos) << usage.err;
}

// ---- Tabs -------------------------------------------------------------------------------------------------

TEST_F(AgentActions, AConfirmIsDismissedAndToldThenAcceptedWhenTheModelSaysSo) {
  script({on("Delete", ""), reply(R"({"dialog": "accept"})"), on("Delete", "")});
  const auto result = run("/dialogs");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 4U);
  EXPECT_TRUE(test::has(steps[0]["result"],
                        "the page asked \"Delete the draft?\" (a confirm) and it was dismissed: to "
                        "accept it, reply {\"dialog\": \"accept\"}, then do this again"))
      << steps[0]["result"];
  EXPECT_NE(model_.requests()[1].text.find("Delete the draft?"), std::string::npos);
  EXPECT_TRUE(steps[1]["ok"].get<bool>()) << steps[1];
  EXPECT_TRUE(test::has(steps[2]["result"], "(a confirm) and it was accepted, as you said")) << steps[2]["result"];
  EXPECT_EQ(site_->count("GET", "/deleted"), 1);  // only after the accepted one
}

TEST_F(AgentActions, APromptIsAnsweredForTheNextActionOnly) {
  script({[](const std::string& prompt) {
            return R"({"actions": [{"dialog": "accept", "dialog_text": "Q3 report"}, {"click": ")" +
                   label_in_prompt(prompt, "Rename") + R"("}]})";
          },
          on("Back to the draft", ""), on("Rename", "")});
  const auto result = run("/dialogs");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 4U);
  EXPECT_TRUE(test::has(steps[0]["result"], "(a prompt) and it was answered \"Q3 report\", as you said"))
      << steps[0]["result"];
  // The answer held for that action only: the next prompt got the default, and the page did not go on.
  EXPECT_TRUE(test::has(steps[2]["result"], "(a prompt) and it was dismissed: to answer it, reply"))
      << steps[2]["result"];
  const auto requests = site_->requests();
  const auto renamed =
      std::count_if(requests.begin(), requests.end(), [](const auto& r) { return r.path == "/renamed"; });
  EXPECT_EQ(renamed, 1);
  for (const auto& request : requests)
    if (request.path == "/renamed") EXPECT_EQ(request.query, "name=Q3 report");
}

TEST_F(AgentActions, TabsAreListedSwitchedAndClosed) {
  script({on("Open the item", ""), reply(R"({"tab": 1})"), reply(R"({"tab": 3})"), reply(R"({"close_tab": true})"),
          reply(R"({"close_tab": true})")});
  const CliRun result = run("/fx/tabs.html");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 6U);
  const auto requests = model_.requests();
  EXPECT_EQ(requests[0].text.find("Open tabs"), std::string::npos);  // one tab: nothing listed
  EXPECT_EQ(steps[1]["url"], site_->url("/fx/item.html"));           // followed into the new tab
  // The titles are the pages' words: inside the run's page-data fence.
  const std::regex tab_list(
      "Open tabs \\(switch with \\{\"tab\": N\\}\\):\n<<<page-data ([0-9]{15})>>>\n1\\. Tabs - 127\\.0\\.0\\.1\n"
      "2\\. Blue Widget - 127\\.0\\.0\\.1 \\(this tab\\)\n<<<end-page-data \\1>>>");
  EXPECT_TRUE(std::regex_search(requests[1].text, tab_list)) << requests[1].text;
  EXPECT_EQ(steps[1]["result"], "switched to tab 1");
  EXPECT_EQ(steps[2]["url"], site_->url("/fx/tabs.html"));  // {"tab": 1}
  EXPECT_FALSE(steps[2]["ok"].get<bool>());                 // {"tab": 3}
  EXPECT_NE(steps[2]["result"].get<std::string>().find("there is no tab 3: 2 tabs are open"), std::string::npos)
      << steps[2]["result"];
  EXPECT_EQ(steps[3]["result"], "closed the tab; back in the one before it");  // tab 1; back in the item's
  EXPECT_EQ(steps[4]["url"], site_->url("/fx/item.html"));
  EXPECT_EQ(requests[4].text.find("Open tabs"), std::string::npos);
  EXPECT_FALSE(steps[4]["ok"].get<bool>());  // the last tab stays
  EXPECT_NE(steps[4]["result"].get<std::string>().find("only open tab"), std::string::npos) << steps[4]["result"];
}

// The label list writes a link on the page's own site as its path, and the model may navigate to a path it read there:
// it goes to the page's own origin.
TEST_F(AgentActions, APathFromTheLabelListIsNavigatedOnThePagesSite) {
  script({reply(R"({"navigate": "/renamed?name=Plan"})"), reply(R"({"done": true})")});
  const CliRun result = run("/deleted");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_NE(requests[0].text.find("link \"Back to the draft\" -> /dialogs\n"), std::string::npos) << requests[0].text;
  EXPECT_EQ(requests[0].text.find(site_->url("/dialogs")), std::string::npos) << requests[0].text;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(steps[0]["result"], "loaded " + site_->url("/renamed?name=Plan")) << steps[0];
  EXPECT_EQ(steps[1]["url"], site_->url("/renamed?name=Plan"));
}

// A long run that opens tab after tab keeps --max-tabs of them: the oldest one not worked in is closed, and the
// model is told (it would otherwise keep a renderer for each, and read them all in every prompt).
TEST_F(AgentActions, TabsPastTheLimitCloseTheOldestAndSaySo) {
  script({on("Open the item", ""), reply(R"({"tab": 1})"), on("Open the item", ""), reply(R"({"done": "ok"})")});
  const CliRun result = run("/fx/tabs.html", {"--max-tabs", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto steps = read_steps(record());
  ASSERT_EQ(steps.size(), 4U);
  EXPECT_EQ(steps[0]["result"].get<std::string>().find("closed"), std::string::npos) << steps[0]["result"];
  EXPECT_TRUE(test::has(steps[2]["result"],
                        "closed the oldest tab (127.0.0.1) to keep at most 2 open (--max-tabs); the tabs left are "
                        "numbered anew"))
      << steps[2]["result"];
  // Two tabs left, both the item's, the work in the one just opened: the page the tabs were opened from is gone.
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 4U);
  EXPECT_TRUE(test::has(requests[3].text, "1. Blue Widget - 127.0.0.1\n2. Blue Widget - 127.0.0.1 (this tab)"))
      << requests[3].text;
  EXPECT_EQ(requests[3].text.find("Tabs - 127.0.0.1"), std::string::npos);
  EXPECT_EQ(run("/fx/tabs.html", {"--max-tabs", "1"}).exit_code, 64);
}

// ---- Questions for the person -----------------------------------------------------------------------------

TEST_F(AgentActions, AQuestionGoesToThePersonAndTheAnswerToTheNextStep) {
  script({reply(R"({"ask": "Which date do you want?"})"), reply(R"({"ask": ""})")});
  const CliRun result = run("/fx/search.html", {}, "\nnext Friday\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("Which date do you want?"), std::string::npos) << result.err;
  const auto requests = model_.requests();
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_NE(requests[1].text.find("the user answered: \"next Friday\""), std::string::npos) << requests[1].text;
  const auto steps = read_steps(record());
  EXPECT_FALSE(steps[1]["ok"].get<bool>());  // an empty question is the model's error
  EXPECT_NE(steps[1]["result"].get<std::string>().find("needs the question"), std::string::npos);
}

TEST_F(AgentActions, AQuestionNobodyCanAnswerEndsTheRunAsNeedsInput) {
  model_.set_default_reply(R"({"ask": "Which date do you want?"})");
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--no-ask"}, std::vector<std::string>{"--json"}, std::vector<std::string>{}}) {
    // --no-ask; --json with no terminal; a terminal-less run whose input has ended.
    const CliRun result = run("/fx/search.html", flags);
    EXPECT_EQ(result.exit_code, 4) << result.err;
    const nlohmann::json run_json = nlohmann::json::parse(std::ifstream(record() / "run.json"));
    EXPECT_EQ(run_json["outcome"], "needs_input");
    EXPECT_EQ(run_json["question"], "Which date do you want?");
    if (!flags.empty() && flags[0] == "--json") {
      std::string trimmed = result.out.substr(0, result.out.find_last_not_of('\n') + 1);
      const auto end = nlohmann::json::parse(trimmed.substr(trimmed.rfind('\n') + 1));
      EXPECT_EQ(end["event"], "end");
      EXPECT_EQ(end["outcome"], "needs_input");
      EXPECT_EQ(end["question"], "Which date do you want?");
    } else {
      EXPECT_NE(result.err.find("needs_input"), std::string::npos) << result.err;
    }
    fs::remove_all(record());
  }
  EXPECT_EQ(model_.request_count(), 3U);  // one step each: the run did not go on without an answer
}

// In voice mode the question is spoken and the answer heard. This machine has no microphone (CI neither): the
// person cannot answer, so the run ends as needs_input, saying why, rather than failing or hanging.
TEST_F(AgentActions, AQuestionInVoiceModeWithoutAMicrophoneEndsNeedsInputSayingWhy) {
  model_.set_default_reply(R"({"ask": "Which date do you want?"})");
  const CliRun result = run("/fx/search.html", {"--voice", "--max-listen", "1"});
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("the agent asks: Which date do you want?"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("vimgpt: "), std::string::npos) << result.err;  // why nothing was heard
  EXPECT_EQ(model_.request_count(), 1U);
}

}  // namespace
}  // namespace vimgpt
