#include "util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "util/error.h"
#include "util/text.h"

namespace tengen {
namespace {

constexpr size_t kReadChunk = 1 << 16;

[[noreturn]] void ThrowErrno(const std::string& what, int error) {
  throw IoError(what + ": " + std::strerror(error));
}

std::string Describe(const std::string& name, pid_t pid) {
  return StrCat("'", name, "' (pid ", pid, ")");
}

// Waits until fd has something to read (or its end) or `deadline` passes (TimeoutError naming
// `who`).
void WaitReadable(int fd, std::chrono::steady_clock::time_point deadline, const std::string& who) {
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw TimeoutError(who + " wrote no whole line in time");
    pollfd entry{fd, POLLIN, 0};
    const int ready =
        poll(&entry, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) ThrowErrno("cannot poll " + who, errno);
  }
}

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// Moves fd to a number >= 3 (keeping close-on-exec), so that in the child the dup2 onto 0, 1
// and 2 can never overwrite a pipe end that is still to be moved. Only matters when this
// process runs with some of its standard descriptors closed.
void MoveAboveStandardFds(int* fd) {
  if (*fd > 2) return;
  const int moved = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
  const int error = errno;
  CloseFd(fd);
  if (moved < 0) ThrowErrno("cannot duplicate a pipe descriptor", error);
  *fd = moved;
}

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  void Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) ThrowErrno("cannot create a pipe", errno);
    read_end = fds[0];
    write_end = fds[1];
    MoveAboveStandardFds(&read_end);
    MoveAboveStandardFds(&write_end);
  }
  void Close() {
    CloseFd(&read_end);
    CloseFd(&write_end);
  }
};

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int WaitForPid(pid_t pid, const std::string& name) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) ThrowErrno("cannot wait for " + Describe(name, pid), errno);
  }
  return status;
}

// The running child's pid and this side's ends of its stdin and stdout pipes.
struct Child {
  pid_t pid = -1;
  int in_fd = -1;
  int out_fd = -1;
};

// fork + execvp with stdin and stdout (and stderr when capture_stderr) on pipes. Throws
// IoError when the program cannot be started.
Child Spawn(const std::vector<std::string>& argv, bool capture_stderr) {
  TENGEN_CHECK(!argv.empty(), "Subprocess needs a program name");
  // Built before fork: the child may only make async-signal-safe calls (no allocation), as
  // other threads of this process may hold the allocator's lock.
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  Pipe in, out, exec_error;
  try {
    in.Open();
    out.Open();
    // Close-on-exec, so it reads end of file once exec succeeds and errno when it fails.
    exec_error.Open();
  } catch (...) {
    in.Close();
    out.Close();
    exec_error.Close();
    throw;
  }

  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    in.Close();
    out.Close();
    exec_error.Close();
    ThrowErrno("cannot fork to start '" + argv[0] + "'", error);
  }
  if (pid == 0) {
    // A process group of its own: a Ctrl-C meant for this program must not kill the engines
    // it drives while it shuts down cleanly (the destructor kills them). The signal mask and
    // SIGPIPE are reset, as a blocked mask and ignored SIGPIPE would survive exec; other
    // dispositions are inherited as exec leaves them.
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    // dup2 clears close-on-exec on the new descriptor; the originals close at exec.
    if (dup2(in.read_end, STDIN_FILENO) >= 0 && dup2(out.write_end, STDOUT_FILENO) >= 0 &&
        (!capture_stderr || dup2(out.write_end, STDERR_FILENO) >= 0)) {
      execvp(args[0], args.data());
    }
    const int error = errno;
    ssize_t ignored = write(exec_error.write_end, &error, sizeof(error));
    (void)ignored;
    _exit(127);
  }

  CloseFd(&in.read_end);
  CloseFd(&out.write_end);
  CloseFd(&exec_error.write_end);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = read(exec_error.read_end, &exec_errno, sizeof(exec_errno));
  } while (got < 0 && errno == EINTR);
  exec_error.Close();
  if (got == static_cast<ssize_t>(sizeof(exec_errno))) {
    in.Close();
    out.Close();
    WaitForPid(pid, argv[0]);
    ThrowErrno("cannot start '" + argv[0] + "'", exec_errno);
  }
  return Child{pid, in.write_end, out.read_end};
}

// write() with SIGPIPE blocked in this thread, so that a child that has closed its stdin
// makes the write fail with EPIPE instead of killing the process. A SIGPIPE our write raised
// is consumed before the old mask returns; one that was pending before is left alone. Linux
// raises SIGPIPE even when a blocked write returns a partial count because the reader went
// away, so the pending set is checked after every write, not only on EPIPE. This changes no
// process-wide state, unlike ignoring SIGPIPE. Returns write()'s result, with its errno.
ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_set, old_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  ssize_t result;
  do {
    result = write(fd, data, size);
  } while (result < 0 && errno == EINTR);
  const int error = errno;
  sigpending(&pending);
  if (!was_pending && sigismember(&pending, SIGPIPE) == 1) {
    const timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = error;
  return result;
}

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv, bool capture_stderr)
    : name_(argv.empty() ? "" : argv[0]) {
  const Child child = Spawn(argv, capture_stderr);
  pid_ = child.pid;
  in_fd_ = child.in_fd;
  out_fd_ = child.out_fd;
}

Subprocess::~Subprocess() {
  CloseFd(&in_fd_);
  CloseFd(&out_fd_);
  if (reaped_ || pid_ < 0) return;
  int status = 0;
  pid_t done;
  do {
    done = waitpid(pid_, &status, WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done != 0) return;  // reaped now, or not ours to reap
  kill(pid_, SIGKILL);
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void Subprocess::WriteLine(const std::string& line) {
  if (in_fd_ < 0) throw IoError("cannot write to " + Describe(name_, pid_) + ": stdin closed");
  const std::string data = line + "\n";
  size_t offset = 0;
  while (offset < data.size()) {
    const ssize_t written = WriteWithoutSigpipe(in_fd_, data.data() + offset, data.size() - offset);
    if (written < 0) {
      if (errno == EPIPE) {
        throw IoError("cannot write to " + Describe(name_, pid_) +
                      ": it has exited or closed its input");
      }
      ThrowErrno("cannot write to " + Describe(name_, pid_), errno);
    }
    offset += static_cast<size_t>(written);
  }
}

bool Subprocess::FillBuffer(bool limited, std::chrono::steady_clock::time_point deadline) {
  if (out_fd_ < 0) return false;
  if (limited) WaitReadable(out_fd_, deadline, Describe(name_, pid_));
  char chunk[kReadChunk];
  while (true) {
    const ssize_t got = read(out_fd_, chunk, sizeof(chunk));
    if (got > 0) {
      buffer_.append(chunk, static_cast<size_t>(got));
      return true;
    }
    if (got == 0) {
      CloseFd(&out_fd_);
      return false;
    }
    if (errno != EINTR) ThrowErrno("cannot read from " + Describe(name_, pid_), errno);
  }
}

bool Subprocess::ReadLine(std::string* line, std::chrono::milliseconds timeout) {
  const bool limited = timeout > std::chrono::milliseconds::zero();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t scanned = 0;
  while (true) {
    const size_t newline = buffer_.find('\n', scanned);
    if (newline != std::string::npos) {
      line->assign(buffer_, 0, newline);
      buffer_.erase(0, newline + 1);
      return true;
    }
    scanned = buffer_.size();
    if (!FillBuffer(limited, deadline)) break;
  }
  // A last line without '\n' still counts as a line.
  if (buffer_.empty()) return false;
  line->swap(buffer_);
  buffer_.clear();
  return true;
}

std::string Subprocess::ReadAll() {
  while (FillBuffer()) {
  }
  std::string all;
  all.swap(buffer_);
  return all;
}

void Subprocess::CloseStdin() { CloseFd(&in_fd_); }

void Subprocess::Kill(int signal_number) {
  // After reaping, the pid may belong to an unrelated process.
  if (reaped_ || pid_ < 0) return;
  kill(pid_, signal_number);
}

int Subprocess::Wait() {
  if (!reaped_) {
    CloseStdin();
    status_ = WaitForPid(pid_, name_);
    reaped_ = true;
  }
  return ExitCodeOf(status_);
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input) {
  // Owns the child until it is reaped, so that an exception cannot leak a process.
  struct Guard {
    Child child;
    bool reaped = false;
    ~Guard() {
      CloseFd(&child.in_fd);
      CloseFd(&child.out_fd);
      if (reaped) return;
      kill(child.pid, SIGKILL);
      int status;
      while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  } guard{Spawn(argv, true)};
  Child& child = guard.child;
  const std::string name = argv[0];

  // Writing and reading in one poll loop: a child that answers while it reads can fill the
  // output pipe, and a blocking write of the rest of the input would then never finish.
  if (input.empty()) {
    CloseFd(&child.in_fd);
  } else if (fcntl(child.in_fd, F_SETFL, O_NONBLOCK) != 0) {
    ThrowErrno("cannot configure the pipe to " + Describe(name, child.pid), errno);
  }
  ProcessResult result;
  size_t offset = 0;
  char chunk[kReadChunk];
  while (child.out_fd >= 0) {
    pollfd fds[2];
    nfds_t count = 0;
    fds[count++] = {child.out_fd, POLLIN, 0};
    if (child.in_fd >= 0) fds[count++] = {child.in_fd, POLLOUT, 0};
    if (poll(fds, count, -1) < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("cannot poll " + Describe(name, child.pid), errno);
    }
    if (count == 2 && fds[1].revents != 0) {
      const ssize_t written =
          WriteWithoutSigpipe(child.in_fd, input.data() + offset, input.size() - offset);
      if (written >= 0) {
        offset += static_cast<size_t>(written);
        if (offset == input.size()) CloseFd(&child.in_fd);
      } else if (errno == EPIPE) {
        CloseFd(&child.in_fd);  // the child stopped reading; it may still have output
      } else if (errno != EAGAIN) {
        ThrowErrno("cannot write to " + Describe(name, child.pid), errno);
      }
    }
    if (fds[0].revents != 0) {
      const ssize_t got = read(child.out_fd, chunk, sizeof(chunk));
      if (got > 0) {
        result.output.append(chunk, static_cast<size_t>(got));
      } else if (got == 0) {
        CloseFd(&child.out_fd);
      } else if (errno != EINTR && errno != EAGAIN) {
        ThrowErrno("cannot read from " + Describe(name, child.pid), errno);
      }
    }
  }
  CloseFd(&child.in_fd);
  const int status = WaitForPid(child.pid, name);
  guard.reaped = true;
  result.exit_code = ExitCodeOf(status);
  return result;
}

}  // namespace tengen
