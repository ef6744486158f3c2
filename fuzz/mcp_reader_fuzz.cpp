// What an MCP client sends is untrusted: any bytes on a stdio line or in a POST body must get a JSON-RPC
// reply or none, never a crash. No browser here: tools that would need one answer with a tool error, so the
// fuzzer spends its time on parsing, dispatch and argument checking.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mcp/mcp.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static vimgpt::mcp::Server server(vimgpt::mcp::ServerOptions{});
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto reply = server.handle_text(text))
    (void)reply->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
