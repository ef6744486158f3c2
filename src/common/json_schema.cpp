#include "common/json_schema.h"

#include <pthread.h>

#include <functional>
#include <regex>

// Without it valijson prints and aborts on a schema it cannot read; with it, it throws, and we answer Invalid.
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace vimgpt {
namespace {

using Json = nlohmann::json;

// libstdc++'s std::regex (valijson's "pattern") recurses once per character matched: on the default 8 MiB
// stack `^(a|b)*$` overflows near 10,000 characters. Checks run on a thread with a larger stack (reserved, not
// touched unless used), and strings longer than kLongestPatternedString are not matched against patterns.
constexpr std::size_t kValidationStack = std::size_t{256} << 20;
constexpr std::size_t kLongestPatternedString = std::size_t{32} * 1024;

Result<valijson::SchemaParser::Version> draft_of(const Json& schema) {
  if (!schema.is_object() || !schema.contains("$schema")) return valijson::SchemaParser::kDraft7;
  const std::string uri = schema["$schema"].is_string() ? schema["$schema"].get<std::string>() : std::string();
  if (uri.find("draft-04") != std::string::npos) return valijson::SchemaParser::kDraft4;
  if (uri.find("draft-06") != std::string::npos || uri.find("draft-07") != std::string::npos)
    return valijson::SchemaParser::kDraft7;
  return fail(ErrorKind::InvalidArgument,
              "the schema's \"$schema\" is " + schema["$schema"].dump() +
                  ": vimgpt checks drafts 4, 6 and 7 (draft 7 when \"$schema\" is left out; a schema that uses only "
                  "draft 7's keywords can drop it)");
}

// Every "pattern" and "patternProperties" key as a regular expression std::regex reads, so a bad one is the
// schema's error now rather than a failure in the middle of a run.
Status check_patterns(const Json& node, bool& any) {
  if (node.is_array()) {
    for (const auto& item : node) VIMGPT_TRY_VOID(check_patterns(item, any));
    return {};
  }
  if (!node.is_object()) return {};
  for (const auto& [key, value] : node.items()) {
    std::vector<std::string> patterns;
    if (key == "pattern" && value.is_string()) patterns.push_back(value.get<std::string>());
    if (key == "patternProperties" && value.is_object()) {
      for (const auto& [pattern, unused] : value.items()) patterns.push_back(pattern);
    }
    for (const auto& pattern : patterns) {
      any = true;
      try {
        std::regex compiled(pattern);
      } catch (const std::regex_error& error) {
        return fail(ErrorKind::InvalidArgument, "the schema's pattern \"" + pattern +
                                                    "\" is not a regular "
                                                    "expression vimgpt can read (" +
                                                    error.what() + ")");
      }
    }
    VIMGPT_TRY_VOID(check_patterns(value, any));
  }
  return {};
}

std::optional<std::string> overlong_string(const Json& value, const std::string& path) {
  if (value.is_string() && value.get_ref<const std::string&>().size() > kLongestPatternedString) {
    return (path.empty() ? "/" : path) + ": a string of " + std::to_string(value.get_ref<const std::string&>().size()) +
           " characters is longer than vimgpt matches against a schema's patterns (" +
           std::to_string(kLongestPatternedString) + ")";
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto found = overlong_string(value[i], path + "/" + std::to_string(i))) return found;
    }
  }
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (key.size() > kLongestPatternedString) return path + ": a key is longer than vimgpt matches against patterns";
      if (auto found = overlong_string(item, std::string(path).append("/").append(key))) return found;
    }
  }
  return std::nullopt;
}

// Runs `work` to its end on a thread with kValidationStack of stack.
void on_large_stack(const std::function<void()>& work) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, kValidationStack);
  pthread_t thread;
  auto* task = new std::function<void()>(work);
  const auto run = [](void* argument) -> void* {
    auto* job = static_cast<std::function<void()>*>(argument);
    (*job)();
    delete job;
    return nullptr;
  };
  if (pthread_create(&thread, &attributes, run, task) != 0) {
    run(task);  // no thread to be had: the caller's stack it is
  } else {
    pthread_join(thread, nullptr);
  }
  pthread_attr_destroy(&attributes);
}

// valijson's path ["<root>", "[1]", "price"] as a JSON Pointer: "/1/price".
std::string pointer_of(const std::vector<std::string>& context) {
  std::string pointer;
  for (std::size_t i = 1; i < context.size(); ++i) {
    std::string part = context[i];
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') part = part.substr(1, part.size() - 2);
    pointer += "/" + part;
  }
  return pointer.empty() ? "/" : pointer;
}

}  // namespace

struct JsonSchema::Impl {
  Json document;
  valijson::Schema schema;
  bool has_patterns = false;
};

JsonSchema::JsonSchema(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<JsonSchema> JsonSchema::read(const Json& schema) {
  if (!schema.is_object() && !schema.is_boolean()) {
    return fail(ErrorKind::InvalidArgument,
                "a JSON Schema is an object (or true or false), not " + std::string(schema.type_name()));
  }
  VIMGPT_TRY(const auto version, draft_of(schema));
  auto impl = std::make_shared<Impl>();
  impl->document = schema;
  VIMGPT_TRY_VOID(check_patterns(impl->document, impl->has_patterns));
  try {
    valijson::SchemaParser parser(version);
    valijson::adapters::NlohmannJsonAdapter adapter(impl->document);
    parser.populateSchema(adapter, impl->schema);  // no fetch function: a reference to another document throws
  } catch (const std::exception& error) {
    std::string why = error.what();
    if (why.find("remote") != std::string::npos || why.find("Remote") != std::string::npos) {
      why += " (vimgpt reads one schema and never downloads another: put what it refers to under \"definitions\")";
    }
    return fail(ErrorKind::InvalidArgument, "the schema cannot be read: " + why);
  }
  return JsonSchema(std::move(impl));
}

std::vector<std::string> JsonSchema::problems(const Json& value, std::size_t limit) const {
  if (impl_->has_patterns) {
    if (auto overlong = overlong_string(value, "")) return {*overlong};
  }
  std::vector<std::string> found;
  on_large_stack([&] {
    try {
      valijson::Validator validator;
      valijson::ValidationResults results;
      valijson::adapters::NlohmannJsonAdapter target(value);
      if (validator.validate(impl_->schema, target, &results)) return;
      // Beside each failure valijson reports every enclosing one ("Failed to validate item #1 in array"): only
      // the failures themselves say what is wrong.
      for (const auto& error : results) {
        if (found.size() >= limit) break;
        if (error.description.starts_with("Failed to validate")) continue;
        found.push_back(pointer_of(error.context) + ": " + error.description);
      }
      if (found.empty()) found.emplace_back("/: the value does not match the schema");
    } catch (const std::exception& error) {
      found.emplace_back(std::string("/: the validator failed: ") + error.what());
    }
  });
  return found;
}

const Json& JsonSchema::document() const {
  return impl_->document;
}

}  // namespace vimgpt
