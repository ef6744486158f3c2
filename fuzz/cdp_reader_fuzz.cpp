// The CDP message reader takes whatever the browser end of the pipe (or a remote DevTools endpoint) sends:
// the input is a NUL-framed byte stream fed in uneven chunks to the real Connection reader, with one command
// waiting for a reply and an event subscriber reading what arrives. Nothing may crash, leak or hang.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <string>
#include <vector>

#include "support/scripted_transport.h"
#include "wire/framing.h"
#include "wire/wire.h"

namespace {

using namespace vimgpt;

// The stream split into messages as the pipe reader would: uneven chunks, so splits land everywhere (the
// first byte of the stream picks the chunk size).
std::deque<std::string> framed(std::string_view stream) {
  wire::NulFramer framer;
  std::vector<std::string> messages;
  const std::size_t chunk = stream.empty() ? 1 : 1 + static_cast<unsigned char>(stream[0]) % 61;
  for (std::size_t at = 0; at < stream.size(); at += chunk) framer.feed(stream.substr(at, chunk), messages);
  return {std::make_move_iterator(messages.begin()), std::make_move_iterator(messages.end())};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view stream(reinterpret_cast<const char*>(data), size);
  std::size_t seen = 0;  // outlives the connection, whose reader thread writes it
  wire::Connection connection(std::make_unique<test::ScriptedTransport>(framed(stream)));
  connection.subscribe([&seen](const wire::Event& event) {
    seen += event.method.size() + event.session_id.size() + event.params.size();
  });
  // Command id 1: a reply with "id": 1 in the input meets it; otherwise the closed link ends it.
  auto reply = connection.call("Fuzz.command", wire::Json::object(), "", std::chrono::milliseconds(2000));
  if (reply) (void)reply->dump();
  return 0;
}
