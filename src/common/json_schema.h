// JSON Schema validation (--output-schema): a schema read once, values checked against it. valijson does the
// work (Debian's libvalijson-dev); its headers stay in json_schema.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace vimgpt {

// Drafts 4, 6 and 7 (draft 7's rules unless "$schema" names draft 4); on Debian 12's valijson 1.0 every test of
// the official JSON-Schema-Test-Suite for them passes except those that fetch another document (tests/unit/
// json_schema_test.cpp runs the suite). A "$ref" to another document is refused, never fetched.
class JsonSchema {
 public:
  // InvalidArgument when `schema` is not a schema (the validator's reason), names draft 3, 2019-09 or 2020-12, or
  // refers to another document.
  static Result<JsonSchema> read(const nlohmann::json& schema);

  // Nothing when `value` is valid; otherwise where and why, one line per failure ("/1/price: Expected number
  // greater than or equal to 0.000000"), at most `limit`.
  [[nodiscard]] std::vector<std::string> problems(const nlohmann::json& value, std::size_t limit = 8) const;
  [[nodiscard]] const nlohmann::json& document() const;

 private:
  struct Impl;
  explicit JsonSchema(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;  // shared: a read schema never changes, so copies may share it
};

}  // namespace vimgpt
