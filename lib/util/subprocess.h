#pragma once
// A child process with its stdin and stdout connected to pipes: the GTP relay in tests and the
// match program talk to other engines through it. Lines are written and read whole.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "util/error.h"

namespace tengen {

// A child that did not write a whole line within the time allowed.
class TimeoutError : public IoError {
 public:
  explicit TimeoutError(const std::string& what) : IoError(what) {}
};

class Subprocess {
 public:
  // Starts argv[0] (looked up in PATH). With capture_stderr, stderr joins stdout; otherwise
  // the child inherits this process's stderr. Throws IoError if it cannot start, including
  // when argv[0] does not exist or cannot be executed (the child reports exec's errno back
  // through a close-on-exec pipe, so this is known before the constructor returns).
  explicit Subprocess(const std::vector<std::string>& argv, bool capture_stderr = false);
  // Closes the pipes, kills the child if it still runs, and reaps it.
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Writes `line` plus '\n'; throws IoError if the child has gone. SIGPIPE is blocked in the
  // calling thread for the duration of the write (and a pending one consumed), so a dead child
  // gives an IoError rather than killing this process; no process-wide signal state changes.
  void WriteLine(const std::string& line);
  // Reads one line without its '\n'; false at end of output. With a timeout (zero: none),
  // throws TimeoutError naming the child when no whole line arrives within it; what did arrive
  // stays buffered for the next read.
  bool ReadLine(std::string* line,
                std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());
  // Everything the child writes until it closes stdout.
  std::string ReadAll();
  void CloseStdin();
  void Kill(int signal_number);
  // Closes stdin (a child reading to end of input would otherwise never exit), then waits for
  // exit; returns the exit code, or 128 + signal number when killed by a signal. Read the
  // output first: a child blocked writing to a full pipe never exits.
  int Wait();
  pid_t pid() const { return pid_; }

 private:
  // Appends what the child wrote next; false at end of output. Waits until `deadline` at most
  // when `limited` (then TimeoutError).
  bool FillBuffer(bool limited = false, std::chrono::steady_clock::time_point deadline = {});
  std::string name_;  // argv[0], for error messages
  pid_t pid_ = -1;
  int in_fd_ = -1;   // child's stdin
  int out_fd_ = -1;  // child's stdout
  std::string buffer_;
  bool reaped_ = false;
  int status_ = 0;
};

struct ProcessResult {
  int exit_code = 0;
  std::string output;  // stdout and stderr together
};
// Runs argv to completion, feeding `input` to stdin while reading its output (poll), so inputs
// and outputs of any size work. A child that exits without reading all input is not an error.
// Throws IoError if argv[0] cannot be started.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input = "");

}  // namespace tengen
