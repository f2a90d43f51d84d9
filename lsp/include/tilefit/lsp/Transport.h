//===- Transport.h ----------------------------------------------*- C++ -*-===//
//
// JSON-RPC messages with Content-Length framing.
//
// The base protocol of the Language Server Protocol: each message is a header
// block (`Content-Length: N`, optionally `Content-Type`) ended by an empty
// line, then N bytes of JSON. Reading never throws and never blocks on a
// malformed header longer than the stream.
//
//===----------------------------------------------------------------------===//
#ifndef TILEFIT_LSP_TRANSPORT_H
#define TILEFIT_LSP_TRANSPORT_H

#include <nlohmann/json.hpp>

#include <cstdio>
#include <istream>
#include <mutex>
#include <ostream>
#include <string>

namespace tilefit {
namespace lsp {

/// What one read gives.
struct Incoming {
  enum Kind {
    Message,   ///< Body holds the parsed JSON.
    BadHeader, ///< The header block had no usable Content-Length; Error says
               /// < what.
    BadJson,   ///< The body is not JSON; Error says where.
    End, ///< The stream ended (between messages, or inside one: Error says so).
  } K = End;
  nlohmann::json Body;
  std::string Error;
};

/// Reads one framed message from \p In.
Incoming readMessage(std::istream &In);

/// Writes \p Msg framed to \p Out and flushes.
void writeMessage(std::ostream &Out, const nlohmann::json &Msg);

/// A channel of messages: the server reads on one thread and writes from
/// several.
class Transport {
public:
  virtual ~Transport() = default;
  virtual Incoming read() = 0;
  virtual void write(const nlohmann::json &Msg) = 0;
};

/// Over a pair of streams (stdin/stdout for `tilefit lsp`). \p In must not be
/// tied to \p Out (std::cin.tie(nullptr)): a read would flush Out outside the
/// lock.
class StreamTransport : public Transport {
public:
  StreamTransport(std::istream &In, std::ostream &Out) : In(In), Out(Out) {}
  Incoming read() override { return readMessage(In); }
  void write(const nlohmann::json &Msg) override {
    std::lock_guard<std::mutex> Guard(Lock);
    writeMessage(Out, Msg);
  }

private:
  std::istream &In;
  std::ostream &Out;
  std::mutex Lock;
};

} // namespace lsp
} // namespace tilefit

#endif
