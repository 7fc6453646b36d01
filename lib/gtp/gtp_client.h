#pragma once
// The controller side of GTP: starts an engine from a command line as a child process
// (util/subprocess.h, no shell) and sends it one command at a time. tengen-match referees
// games between two of these.
//
// An answer is the lines from one starting with '=' or '?' up to the empty line that ends it.
// Empty lines before an answer are skipped; any other line there is a protocol error, because
// an engine must not write anything else to stdout. Engines' stderr passes through to ours.

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <utility>
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

// Send gave up because the caller's interrupt said so while the engine was still answering.
class GtpInterrupted : public Error {
 public:
  explicit GtpInterrupted(const std::string& what) : Error(what) {}
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
  // `timeout` (zero: none) is how long the engine may take to answer one command in full.
  GtpClient(const std::vector<std::string>& argv, std::string label,
            std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());
  // Sends quit and waits a few seconds for the engine to exit (ignoring any failure), then
  // kills it if it still runs, and reaps it.
  ~GtpClient();
  GtpClient(const GtpClient&) = delete;
  GtpClient& operator=(const GtpClient&) = delete;

  // Sends one command and reads its answer; throws GtpProtocolError when the engine has gone,
  // answers with something that is not GTP, or takes longer than the timeout (it is then in an
  // unknown state: replace it).
  GtpReply Send(const std::string& command);
  // Makes Send give up with GtpInterrupted once `interrupted` returns true; it is asked about
  // every 100 ms while an answer is awaited. The engine is then in an unknown state: replace it.
  void set_interrupt(std::function<bool()> interrupted) { interrupted_ = std::move(interrupted); }
  // Send, and a '?' answer becomes a GtpProtocolError with the engine's message.
  std::string Must(const std::string& command);
  // After `quit` was answered: reads the engine's output to its end (at most 10 s) and returns
  // its exit code. Throws GtpProtocolError when it writes anything more, IoError when it does
  // not exit in time (it is killed by the destructor).
  int WaitForExit();
  // Whether list_commands names `command` (asked once, on first use).
  bool Lists(const std::string& command);

  const std::string& label() const { return label_; }

 private:
  // The next line of the engine's output before `deadline` (when limited); false at its end.
  bool ReadLine(std::string* line, const std::string& command,
                std::chrono::steady_clock::time_point deadline);

  std::string label_;
  std::chrono::milliseconds timeout_;
  std::function<bool()> interrupted_;
  bool abandoned_ = false;  // timed out or interrupted mid-answer: not asked to quit, only killed
  Subprocess process_;
  bool listed_ = false;
  std::set<std::string> commands_;
};

}  // namespace tengen::gtp
