//===- Transport.cpp - JSON-RPC messages with Content-Length framing ------===//
#include "tilefit/lsp/Transport.h"

#include <cctype>
#include <limits>

namespace tilefit {
namespace lsp {
namespace {

/// Reads a header line (up to "\r\n" or "\n"); false at the end of the stream.
bool readLine(std::istream &In, std::string &Line) {
  Line.clear();
  if (!std::getline(In, Line))
    return false;
  if (!Line.empty() && Line.back() == '\r')
    Line.pop_back();
  return true;
}

std::string lower(std::string S) {
  for (char &C : S)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return S;
}

/// Messages larger than this are refused (the header is read, the body
/// skipped).
constexpr unsigned long long MaxMessageBytes = 256ull << 20;

} // namespace

Incoming readMessage(std::istream &In) {
  Incoming R;
  std::string Line, Problem;
  bool SawHeader = false, HaveLength = false;
  unsigned long long Length = 0;
  // The header block: until an empty line.
  while (true) {
    if (!readLine(In, Line)) {
      R.K = Incoming::End;
      if (SawHeader)
        R.Error = "the stream ended inside a message header";
      return R;
    }
    if (Line.empty()) {
      if (!SawHeader)
        continue; // Blank lines between messages are tolerated.
      break;
    }
    SawHeader = true;
    size_t Colon = Line.find(':');
    if (Colon == std::string::npos) {
      Problem = "malformed header line '" + Line + "'";
      continue;
    }
    std::string Name = lower(Line.substr(0, Colon));
    std::string Value = Line.substr(Colon + 1);
    while (!Value.empty() &&
           std::isspace(static_cast<unsigned char>(Value.front())))
      Value.erase(Value.begin());
    while (!Value.empty() &&
           std::isspace(static_cast<unsigned char>(Value.back())))
      Value.pop_back();
    if (Name == "content-length") {
      bool Digits = !Value.empty() && Value.size() <= 19;
      for (char C : Value)
        Digits &= std::isdigit(static_cast<unsigned char>(C)) != 0;
      if (!Digits) {
        Problem = "Content-Length '" + Value + "' is not a number";
        continue;
      }
      Length = std::stoull(Value);
      HaveLength = true;
    }
  }
  if (!HaveLength) {
    R.K = Incoming::BadHeader;
    R.Error =
        Problem.empty() ? "a message header without Content-Length" : Problem;
    return R;
  }
  if (Length > MaxMessageBytes) {
    In.ignore(static_cast<std::streamsize>(std::min<unsigned long long>(
        Length, std::numeric_limits<std::streamsize>::max())));
    R.K = In ? Incoming::BadHeader : Incoming::End;
    R.Error = "a message of " + std::to_string(Length) +
              " bytes is larger than tilefit accepts";
    return R;
  }
  std::string Body(static_cast<size_t>(Length), '\0');
  In.read(Body.data(), static_cast<std::streamsize>(Length));
  if (static_cast<unsigned long long>(In.gcount()) != Length) {
    R.K = Incoming::End;
    R.Error = "the stream ended inside a message body";
    return R;
  }
  R.Body = nlohmann::json::parse(Body, nullptr, /*allow_exceptions=*/false);
  if (R.Body.is_discarded()) {
    R.K = Incoming::BadJson;
    try {
      nlohmann::json Ignored = nlohmann::json::parse(Body);
      (void)Ignored;
    } catch (const nlohmann::json::exception &E) {
      R.Error = E.what();
    }
    R.Body = nullptr;
    return R;
  }
  R.K = Incoming::Message;
  return R;
}

void writeMessage(std::ostream &Out, const nlohmann::json &Msg) {
  // Invalid UTF-8 (from a source file) is replaced rather than thrown on.
  std::string Body =
      Msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Out << "Content-Length: " << Body.size() << "\r\n\r\n" << Body;
  Out.flush();
}

} // namespace lsp
} // namespace tilefit
