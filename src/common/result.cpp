#include "common/result.h"

namespace vimgpt {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidArgument: return "invalid argument";
    case ErrorKind::NotFound: return "not found";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::BrowserExited: return "browser exited";
    case ErrorKind::Protocol: return "protocol error";
    case ErrorKind::Navigation: return "navigation failed";
    case ErrorKind::Network: return "network error";
    case ErrorKind::Http: return "HTTP error";
    case ErrorKind::Parse: return "parse error";
    case ErrorKind::Refused: return "refused";
    case ErrorKind::BudgetSpent: return "budget spent";
    case ErrorKind::Io: return "I/O error";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::Internal: return "internal error";
  }
  return "error";
}

std::string Error::describe() const {
  return std::string(to_string(kind)) + ": " + message;
}

}  // namespace vimgpt
