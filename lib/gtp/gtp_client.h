#pragma once
// The controller side of GTP: starts an engine from a command line as a child process
// (util/subprocess.h, no shell) and sends it one command at a time. tengen-match referees
// games between two of these.
//
// An answer is the lines from one starting with '=' or '?' up to the empty line that ends it.
// Empty lines before an answer are skipped; any other line there is a protocol error, because
// an engine must not write anything else to stdout. Engines' stderr passes through to ours.

#include <set>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/subprocess.h"

namespace tengen::gtp {

// An engine that died, closed its output or broke the protocol. Names the engine and the
// command.
class GtpProtocolError : public Error {
 public:
  explicit GtpProtocolError(const std::string& what) : Error(what) {}
};

struct GtpReply {
  bool ok = false;
  std::string text;  // without '=' / '?', the id and the space; lines joined by '\n'
};

// Splits a command line into words: whitespace separates, '...' and "..." quote (no escapes
// inside single quotes; \" and \\ inside double quotes), a backslash outside quotes escapes the
// next character. Throws ConfigError for an unterminated quote or an empty command.
std::vector<std::string> SplitCommandLine(const std::string& command_line);

class GtpClient {
 public:
  // Starts the engine; throws IoError when it cannot be started. `label` names it in errors.
  GtpClient(const std::vector<std::string>& argv, std::string label);
  // Sends quit (ignoring any failure) and reaps the child.
  ~GtpClient();
  GtpClient(const GtpClient&) = delete;
  GtpClient& operator=(const GtpClient&) = delete;

  // Sends one command and reads its answer; throws GtpProtocolError when the engine has gone
  // or answers with something that is not GTP.
  GtpReply Send(const std::string& command);
  // Send, and a '?' answer becomes a GtpProtocolError with the engine's message.
  std::string Must(const std::string& command);
  // Whether list_commands names `command` (asked once, on first use).
  bool Lists(const std::string& command);

  const std::string& label() const { return label_; }

 private:
  std::string label_;
  Subprocess process_;
  bool listed_ = false;
  std::set<std::string> commands_;
};

}  // namespace tengen::gtp
