#include "support/dialect_fake.h"

#include <stb_image.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "common/text.h"

namespace vimgpt::test {
namespace {

using json = nlohmann::json;

// The resize the Qwen-based servers apply (Qwen2-VL's smart_resize as microsoft/fara src/fara/_prompts.py and
// bytedance/UI-TARS codes/ui_tars/action_parser.py write it): sides to the nearest multiple of the factor
// (Python's round: halves to even), the area brought within [min, max] pixels.
std::pair<int, int> served_size(const FakeFamily& family, int width, int height) {
  const double f = family.factor;
  const auto python_round = [](double value) {
    const double floor = std::floor(value);
    const double diff = value - floor;
    if (diff > 0.5) return floor + 1;
    if (diff < 0.5) return floor;
    return std::fmod(floor, 2.0) == 0 ? floor : floor + 1;
  };
  double w = std::max(f, python_round(width / f) * f);
  double h = std::max(f, python_round(height / f) * f);
  const double area = static_cast<double>(width) * height;
  if (w * h > static_cast<double>(family.max_pixels)) {
    const double beta = std::sqrt(area / static_cast<double>(family.max_pixels));
    w = std::floor(width / beta / f) * f;
    h = std::floor(height / beta / f) * f;
  } else if (w * h < static_cast<double>(family.min_pixels)) {
    const double beta = std::sqrt(static_cast<double>(family.min_pixels) / area);
    w = std::ceil(width * beta / f) * f;
    h = std::ceil(height * beta / f) * f;
  }
  return {static_cast<int>(w), static_cast<int>(h)};
}

}  // namespace

std::optional<std::string> last_image(const json& body) {
  // OpenAI's Responses input: a computer_call_output's screenshot, or a message's input_image.
  const json input = body.value("input", json::array());
  for (auto item = input.rbegin(); input.is_array() && item != input.rend(); ++item) {
    std::vector<std::string> urls;
    if (item->value("type", "") == "computer_call_output") {
      urls.push_back(item->value("output", json::object()).value("image_url", ""));
    }
    for (const auto& part : item->value("content", json()).is_array() ? (*item)["content"] : json::array()) {
      if (part.value("type", "") == "input_image") urls.push_back(part.value("image_url", ""));
    }
    for (auto url = urls.rbegin(); url != urls.rend(); ++url) {
      if (auto decoded = decode_data_url(*url)) return decoded->second;
    }
  }
  // Google's native API: a part's inlineData, or a functionResponse's own parts'.
  const json contents = body.value("contents", json::array());
  for (auto content = contents.rbegin(); contents.is_array() && content != contents.rend(); ++content) {
    std::vector<json> blobs;
    for (const auto& part : content->value("parts", json::array())) {
      if (part.contains("inlineData")) blobs.push_back(part["inlineData"]);
      for (const auto& inner : part.value("functionResponse", json::object()).value("parts", json::array())) {
        if (inner.contains("inlineData")) blobs.push_back(inner["inlineData"]);
      }
    }
    for (auto blob = blobs.rbegin(); blob != blobs.rend(); ++blob) {
      if (auto decoded = decode_data_url("data:" + blob->value("mimeType", "") + ";base64," + blob->value("data", "")))
        return decoded->second;
    }
  }
  const auto& messages = body.value("messages", json::array());
  for (auto message = messages.rbegin(); message != messages.rend(); ++message) {
    json content = message->value("content", json());
    if (!content.is_array()) continue;
    // Anthropic's tool loop: the screenshot is inside the last tool_result.
    if (!content.empty() && content.back().value("type", "") == "tool_result") content = content.back()["content"];
    for (auto part = content.rbegin(); part != content.rend(); ++part) {
      const std::string type = part->value("type", "");
      std::optional<std::pair<std::string, std::string>> decoded;
      if (type == "image_url") decoded = decode_data_url(part->value("image_url", json::object()).value("url", ""));
      if (type == "image") {
        const json source = part->value("source", json::object());
        decoded = decode_data_url("data:" + source.value("media_type", "") + ";base64," + source.value("data", ""));
      }
      if (decoded) return decoded->second;
    }
  }
  return std::nullopt;
}

namespace {

std::size_t image_count(const json& body) {
  std::size_t count = 0;
  for (const auto& message : body.value("messages", json::array())) {
    const auto& content = message.value("content", json());
    if (!content.is_array()) continue;
    for (const auto& part : content) count += part.value("type", "") == "image_url" ? 1 : 0;
  }
  return count;
}

std::string number(double value) {
  return std::to_string(static_cast<long>(std::lround(value)));
}

ScriptedReply as_tool_call(const json& arguments, const std::string& thoughts) {
  ScriptedReply reply;
  const json body = {
      {"id", "fake"},
      {"object", "chat.completion"},
      {"choices",
       json::array(
           {{{"index", 0},
             {"finish_reason", "tool_calls"},
             {"message",
              {{"role", "assistant"},
               {"content", thoughts},
               {"tool_calls",
                json::array({{{"id", "call_0"},
                              {"type", "function"},
                              {"function", {{"name", "computer_use"}, {"arguments", arguments.dump()}}}}})}}}}})},
      {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 40}, {"total_tokens", 1040}}}};
  reply.raw_body = body.dump();
  return reply;
}

// The text of a request that is one user turn holding the screenshot and then its text, as GLM-V's web harness and
// MolmoWeb's send every request; nullopt for any other request.
std::optional<std::string> only_turn_text(const json& body) {
  const auto& messages = body.value("messages", json::array());
  if (messages.size() != 1 || messages[0].value("role", "") != "user") return std::nullopt;
  const auto& content = messages[0].value("content", json());
  if (!content.is_array() || content.size() != 2 || content[0].value("type", "") != "image_url" ||
      content[1].value("type", "") != "text") {
    return std::nullopt;
  }
  return content[1].value("text", "");
}

// What GLM-V's web harness sends (zai-org/GLM-V gui_agent_45v.py): one user message, the screenshot then the prompt,
// skip_special_tokens false; what is wrong is refused with a 400, as a server would refuse it or, for what the
// model would misread, as this fake chooses to (the test then fails on the problem).
std::optional<std::string> glm_request_problem(const json& body) {
  const auto text = only_turn_text(body);
  if (!text) {
    return "GLM-V's web harness sends one user message, the screenshot then the prompt: no system prompt and no "
           "earlier turns";
  }
  if (body.value("skip_special_tokens", true) != false) return "skip_special_tokens false is missing";
  if (body.contains("response_format")) return "a response_format the model was not trained on";
  for (const char* part : {"# Task:\n", "# Action Space", "Memory:", "Numerical_Label"}) {
    if (text->find(part) == std::string::npos) return std::string("the prompt lacks \"") + part + "\"";
  }
  return std::nullopt;
}

// The marked element whose name the task mentions: "[N]: role "Name";" with every word of Name in the task.
std::optional<std::string> mark_named_in_task(const std::string& prompt) {
  const auto task_at = prompt.find("# Task:\n");
  const std::string task =
      ascii_lower(prompt.substr(task_at + 8, prompt.find(", Please interact", task_at) - task_at - 8));
  std::size_t at = prompt.find("\n[", prompt.find("B. I've provided"));
  const std::size_t end = prompt.find("\nC. ", at);
  while (at != std::string::npos && at < end) {
    const std::size_t close = prompt.find("]: ", at);
    const std::string mark = prompt.substr(prompt.find('[', at) + 1, close - prompt.find('[', at) - 1);
    const std::size_t name_at = prompt.find('"', close);
    const std::size_t name_end = prompt.find('"', name_at + 1);
    const std::size_t next = prompt.find(";", name_end);
    if (close == std::string::npos || name_at == std::string::npos || name_end == std::string::npos) break;
    const std::string name = ascii_lower(prompt.substr(name_at + 1, name_end - name_at - 1));
    bool all = !name.empty();
    std::size_t word = 0;
    while (all && word < name.size()) {
      const std::size_t space = std::min(name.find(' ', word), name.size());
      all = task.find(name.substr(word, space - word)) != std::string::npos;
      word = space + 1;
    }
    if (all && mark.find_first_not_of("0123456789") == std::string::npos) return mark;
    at = next == std::string::npos ? std::string::npos : next + 1;
  }
  return std::nullopt;
}

ScriptedReply glm_reply(const ReceivedRequest& received, const std::string& answer) {
  if (auto problem = glm_request_problem(received.body)) return ScriptedReply::status_code(400, *problem);
  const std::string prompt = received.body["messages"][0]["content"][1].value("text", "");
  const bool clicked = prompt.find("Action:Click [") != std::string::npos;
  // The memory written at the first click comes back in every later prompt.
  if (clicked && prompt.find(R"(Memory:{"button": "seen"})") == std::string::npos) {
    return ScriptedReply::status_code(400, "the memory of the last reply is not in the prompt");
  }
  const auto mark = clicked ? std::nullopt : mark_named_in_task(prompt);
  if (mark) {
    return ScriptedReply::text("<think>The task names a button; its mark is " + *mark +
                               ".</think>\nThought: The button the task names is marked " + *mark +
                               ".\nAction: Click [" + *mark + "]\nMemory_Updated: {\"button\": \"seen\"}");
  }
  return ScriptedReply::text("Thought: It is done.\nAction: ANSWER; <content>" + answer +
                             "</content>\nMemory_Updated: {\"button\": \"seen\"}");
}

// What H Company's agent loop sends (hub.hcompany.ai/agent-loop): the reply's schema as structured_outputs and again
// in the system prompt's <output_format> block, thinking on, each screenshot in <observation>, the model's earlier
// turns as their parsed JSON (never the reasoning) each followed by a <tool_output> turn. What is wrong is refused with
// a 400, as vLLM would refuse it or, for what the model would misread, as this fake chooses to.
constexpr std::string_view kHoloReasoning = "I should find the blue button first.";

std::optional<std::string> holo_request_problem(const json& body) {
  if (body.contains("response_format")) return "a response_format: Holo's loop sends structured_outputs";
  const json schema = body.value("structured_outputs", json::object()).value("json", json());
  if (!schema.is_object() || !schema["properties"].contains("tool_call")) return "no structured_outputs.json schema";
  if (body.value("chat_template_kwargs", json::object()).value("enable_thinking", false) != true) {
    return "chat_template_kwargs.enable_thinking is not true: Holo plans in its reasoning";
  }
  const auto& messages = body.value("messages", json::array());
  if (messages.empty() || messages[0].value("role", "") != "system") return "no system prompt";
  const std::string system = messages[0].value("content", "");
  const auto block = system.find("\n\n<output_format>\n```json\n");
  const auto end = system.rfind("\n```\n</output_format>");
  if (block == std::string::npos || end == std::string::npos || end < block) return "no <output_format> block";
  if (json::parse(system.substr(block + 26, end - block - 26), nullptr, false) != schema) {
    return "the <output_format> schema is not the structured_outputs schema";
  }
  for (std::size_t i = 1; i < messages.size(); ++i) {
    const auto& message = messages[i];
    const auto& content = message.value("content", json());
    if (message.value("role", "") == "assistant") {
      const std::string text = content.is_string() ? content.get<std::string>() : std::string();
      const json reply = json::parse(text, nullptr, false);
      if (!reply.is_object() || !reply.contains("tool_call")) return "an assistant turn that is not the parsed JSON";
      if (text.find(kHoloReasoning) != std::string::npos) return "the reasoning spliced back into the conversation";
      const auto& next = i + 1 < messages.size() ? messages[i + 1] : json();
      const std::string expected = "<tool_output tool=\"" + reply["tool_call"].value("tool_name", "") + "\">\n";
      if (!next.is_object() || next.value("role", "") != "user" || !next["content"].is_string() ||
          !next["content"].get<std::string>().starts_with(expected) ||
          !next["content"].get<std::string>().ends_with("\n</tool_output>")) {
        return "an assistant turn not followed by its <tool_output>";
      }
      ++i;
      continue;
    }
    if (content.is_string()) {
      const std::string text = content.get<std::string>();
      if (!text.starts_with("<observation>\n") || !text.ends_with("[screenshot evicted]\n</observation>")) {
        return "a text-only observation that is not an evicted screenshot";
      }
      continue;
    }
    if (!content.is_array() || content.size() != 3 || content[0].value("type", "") != "text" ||
        !content[0].value("text", "").starts_with("<observation>\n") || content[1].value("type", "") != "image_url" ||
        content[2].value("text", "") != "\n</observation>") {
      return "an observation not wrapped as <observation>, screenshot, </observation>";
    }
  }
  const auto& last = messages.back();
  if (last.value("role", "") != "user" || !last["content"].is_array()) return "the last turn is not an observation";
  return std::nullopt;
}

ScriptedReply holo_reply(const ReceivedRequest& received, std::array<std::uint8_t, 3> colour,
                         const std::string& answer) {
  if (auto problem = holo_request_problem(received.body)) return ScriptedReply::status_code(400, *problem);
  const auto image = last_image(received.body);
  const auto centre = image ? find_colour(*image, colour) : std::nullopt;
  json step;
  if (centre) {
    step = {{"note", "The blue button is the order button."},
            {"thought", "Click the blue button."},
            {"tool_call",
             {{"tool_name", "click"},
              {"element", "the blue Order button"},
              {"x", std::lround(centre->x * 1000 / centre->width)},
              {"y", std::lround(centre->y * 1000 / centre->height)}}}};
  } else {
    // The note written at the click must come back in the model's own turn.
    if (received.text.find("The blue button is the order button.") == std::string::npos) {
      return ScriptedReply::status_code(400, "the note of the model's last turn is not in the conversation");
    }
    step = {
        {"note", nullptr}, {"thought", "It is done."}, {"tool_call", {{"tool_name", "answer"}, {"content", answer}}}};
  }
  ScriptedReply reply;
  const json body = {
      {"id", "fake"},
      {"object", "chat.completion"},
      {"choices",
       json::array({{{"index", 0},
                     {"finish_reason", "stop"},
                     {"message", {{"role", "assistant"}, {"content", step.dump()}, {"reasoning", kHoloReasoning}}}}})},
      {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 60}, {"total_tokens", 1060}}}};
  reply.raw_body = body.dump();
  return reply;
}

// What Ai2's MolmoWeb harness sends (allenai/molmoweb agent/multimodal_agent.py): one user turn, the screenshot then
// the template after "molmo_web_think: ", each step taken written in it as "## Step N", its THOUGHT and its ACTION as
// Python prints the action's dict; sampling at 0.7 and top_p 0.8. The reply: {"thought", "action"}, points in percent
// of the screenshot with one decimal, as the training data writes them.
std::optional<std::string> molmoweb_request_problem(const json& body) {
  const auto only = only_turn_text(body);
  if (!only) return "MolmoWeb's harness sends one user turn, the screenshot then the template: no system prompt";
  const std::string& text = *only;
  if (!text.starts_with("molmo_web_think: \n# GOAL\n")) return "the template does not open with molmo_web_think";
  for (const char* part : {"\n\n# PREVIOUS STEPS\n", "\n# CURRENTLY ACTIVE PAGE\nPage 0: "}) {
    if (text.find(part) == std::string::npos) return std::string("the template lacks \"") + part + "\"";
  }
  if (!text.ends_with("\n\n# NEXT STEP\n")) return "the template does not end with # NEXT STEP";
  if (body.contains("response_format")) return "a response_format the model was not trained on";
  if (body.value("temperature", -1.0) != 0.7 || body.value("top_p", -1.0) != 0.8) {
    return "not the harness's sampling (temperature 0.7, top_p 0.8)";
  }
  return std::nullopt;
}

double one_decimal(double value) {
  return std::round(value * 10) / 10;
}

ScriptedReply molmoweb_reply(const ReceivedRequest& received, std::array<std::uint8_t, 3> colour,
                             const std::string& answer) {
  if (auto problem = molmoweb_request_problem(received.body)) return ScriptedReply::status_code(400, *problem);
  const std::string text = received.body["messages"][0]["content"][1].value("text", "");
  const auto image = last_image(received.body);
  const auto centre = image ? find_colour(*image, colour) : std::nullopt;
  const bool clicked =
      text.find("## Step 1\nTHOUGHT: The button is blue.\nACTION: {'name': 'click', 'x': ") != std::string::npos;
  if (centre && !clicked) {
    return ScriptedReply::text(json{{"thought", "The button is blue."},
                                    {"action",
                                     {{"name", "click"},
                                      {"x", one_decimal(centre->x * 100 / centre->width)},
                                      {"y", one_decimal(centre->y * 100 / centre->height)}}}}
                                   .dump());
  }
  if (!clicked) return ScriptedReply::status_code(400, "no colour to click, and no click in the steps taken");
  return ScriptedReply::text(
      json{{"thought", "It is done."}, {"action", {{"name", "send_msg_to_user"}, {"msg", "[ANSWER] " + answer}}}}
          .dump());
}

// What a model trained on Qwen3.5's chat template must be sent (ollama's byte-checked qwen35.go): the tools in
// its system turn's "# Tools" block with the XML call format, and its own earlier calls in that form. A JSON call
// in its history would teach it a form its template never shows it; this fake refuses it with a 400.
std::optional<std::string> qwen35_request_problem(const json& body) {
  const auto& messages = body.value("messages", json::array());
  if (messages.empty() || messages[0].value("role", "") != "system") return "no system turn";
  const std::string system = messages[0].value("content", "");
  if (!system.starts_with("# Tools\n\nYou have access to the following functions:\n\n<tools>\n{\"type\": "
                          "\"function\", \"function\": {\"name\": \"computer_use\"")) {
    return "the system turn does not open with Qwen3.5's tools block";
  }
  if (system.find("<function=example_function_name>") == std::string::npos) return "no XML call format";
  if (system.find("The screen's resolution is 999x999.") == std::string::npos) return "not the 0-1000 screen";
  if (body.contains("response_format")) return "a response_format the model was not trained on";
  for (const auto& message : messages) {
    if (message.value("role", "") != "assistant") continue;
    const std::string text = message.value("content", "");
    if (text.find("<tool_call>\n<function=computer_use>\n<parameter=") == std::string::npos ||
        text.find("{\"name\"") != std::string::npos) {
      return "an earlier call not in Qwen3.5's XML form: " + text;
    }
  }
  return std::nullopt;
}

std::string xml_call(const json& arguments) {
  std::string call = "<tool_call>\n<function=computer_use>\n";
  for (const auto& [key, value] : arguments.items()) {
    call += "<parameter=" + key + ">\n" + (value.is_string() ? value.get<std::string>() : value.dump()) +
            "\n</parameter>\n";
  }
  return call + "</function>\n</tool_call>";
}

}  // namespace

FakeFamily fake_family(const std::string& name) {
  FakeFamily family;
  family.dialect = "computer_use";
  if (name == "qwen2.5-vl") {
    family.max_images = 1;
    family.tool_calls = true;
  } else if (name == "qwen3-vl") {
    family.thousandths = true;
    family.factor = 32;
    family.min_pixels = 65536;
    family.max_pixels = 16777216;
    family.think_tag = true;
  } else if (name == "qwen3.5") {
    // Qwen3.5 writes its calls in its chat template's XML form; Qwen3-VL's 32-px factor and bounds.
    family.thousandths = true;
    family.factor = 32;
    family.min_pixels = 65536;
    family.max_pixels = 16777216;
    family.think_tag = true;
    family.xml_calls = true;
  } else if (name == "gui-owl-1.5") {
    // X-PLUG/MobileAgent's GUI-Owl 1.5: Qwen3-VL's processor, 0-1000 points, 5 screenshots kept.
    family.thousandths = true;
    family.factor = 32;
    family.min_pixels = 65536;
    family.max_pixels = 16777216;
    family.max_images = 5;
    family.action_line = true;
  } else if (name == "fara-1.5") {
    // microsoft/fara's Fara1.5: Qwen3.5's 32-px factor, a 1000x1000 grid, served with --limit-mm-per-prompt image=10.
    family.thousandths = true;
    family.factor = 32;
    family.max_images = 10;
    family.answers_in_call = true;
  } else if (name == "fara") {
    // microsoft/fara: Qwen2.5-VL's processor bounds, 3 screenshots kept.
  } else if (name == "glm-v") {
    // zai-org/GLM-V's web mode: one marked screenshot a request.
    family.dialect = "glm_marks";
    family.thousandths = true;
    family.min_pixels = 6272;
    family.max_pixels = 5880000;
    family.max_images = 1;
  } else if (name == "holo3") {
    // H Company's Holo3: points 0-1000 of the image sent, the last 3 screenshots kept.
    family.dialect = "holo_json";
    family.thousandths = true;
  } else if (name == "molmoweb") {
    // Ai2's MolmoWeb: one screenshot, points in percent.
    family.dialect = "molmoweb_json";
    family.max_images = 1;
  } else if (name == "ui-tars-1.5") {
    family.dialect = "ui_tars";
    family.min_pixels = 78400;
    family.max_images = 5;
  } else {
    throw std::invalid_argument("no fake family " + name);
  }
  return family;
}

std::optional<Centre> point_of_colour(const FakeFamily& family, const nlohmann::json& body,
                                      std::array<std::uint8_t, 3> colour) {
  const auto image = last_image(body);
  auto centre = image ? find_colour(*image, colour) : std::nullopt;
  if (!centre) return std::nullopt;
  if (family.thousandths) {
    centre->x = centre->x * 1000 / centre->width;
    centre->y = centre->y * 1000 / centre->height;
  } else {
    // The model sees the image as its server resized it.
    const auto [w, h] = served_size(family, centre->width, centre->height);
    centre->x = centre->x * w / centre->width;
    centre->y = centre->y * h / centre->height;
  }
  return centre;
}

std::optional<Centre> find_colour(const std::string& image_bytes, std::array<std::uint8_t, 3> colour) {
  int width = 0;
  int height = 0;
  int channels = 0;
  stbi_uc* pixels = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(image_bytes.data()),
                                          static_cast<int>(image_bytes.size()), &width, &height, &channels, 3);
  if (pixels == nullptr) return std::nullopt;
  double sum_x = 0;
  double sum_y = 0;
  double count = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const stbi_uc* at = pixels + (static_cast<std::size_t>(y) * width + x) * 3;
      if (std::abs(at[0] - colour[0]) < 40 && std::abs(at[1] - colour[1]) < 40 && std::abs(at[2] - colour[2]) < 40) {
        sum_x += x + 0.5;  // a pixel's centre
        sum_y += y + 0.5;
        ++count;
      }
    }
  }
  stbi_image_free(pixels);
  if (count < 16) return std::nullopt;  // a few pixels of JPEG noise are not the element
  return Centre{sum_x / count, sum_y / count, width, height};
}

FakeModelServer::Responder dialect_responder(FakeFamily family, std::array<std::uint8_t, 3> colour,
                                             std::string answer) {
  return [family = std::move(family), colour, answer = std::move(answer)](const ReceivedRequest& received) {
    if (const std::size_t images = image_count(received.body); images > family.max_images) {
      // vLLM's refusal when a prompt has more images than --limit-mm-per-prompt.
      return ScriptedReply::status_code(
          400, "At most " + std::to_string(family.max_images) + " image(s) may be provided in one prompt.");
    }
    if (family.dialect == "glm_marks") return glm_reply(received, answer);
    if (family.dialect == "holo_json") return holo_reply(received, colour, answer);
    if (family.dialect == "molmoweb_json") return molmoweb_reply(received, colour, answer);
    if (family.xml_calls) {
      if (auto problem = qwen35_request_problem(received.body)) return ScriptedReply::status_code(400, *problem);
    }
    const auto centre = point_of_colour(family, received.body, colour);
    const std::string thoughts = centre ? "The target is at the centre of the coloured element." : "It is done.";
    const double x = centre ? centre->x : 0;
    const double y = centre ? centre->y : 0;
    if (family.dialect == "ui_tars") {
      return ScriptedReply::text(
          "Thought: " + thoughts + "\nAction: " +
          (centre ? "click(start_box='(" + number(x) + "," + number(y) + ")')" : "finished(content='" + answer + "')"));
    }
    json arguments = centre ? json{{"action", "left_click"}, {"coordinate", {std::lround(x), std::lround(y)}}}
                            : json{{"action", "terminate"}, {"status", "success"}};
    std::string said = centre ? thoughts : answer;
    if (!centre && family.answers_in_call) {
      // The answer in the call only, so that a run shows it only if it was read from there.
      arguments = {{"action", "terminate"}, {"answer", answer}};
      said = thoughts;
    }
    if (family.action_line) {
      if (!centre) arguments = {{"action", "answer"}, {"text", answer}};
      said = centre ? "Action: Click the coloured element." : "Action: Report the result.";
    }
    if (family.tool_calls) return as_tool_call(arguments, said);
    const std::string call =
        family.xml_calls
            ? xml_call(arguments)
            : "<tool_call>\n" + json{{"name", "computer_use"}, {"arguments", arguments}}.dump() + "\n</tool_call>";
    return ScriptedReply::text(family.think_tag ? "<think>" + said + "</think>\n" + call : said + "\n" + call);
  };
}

}  // namespace vimgpt::test
