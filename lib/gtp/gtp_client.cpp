#include "gtp/gtp_client.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "util/log.h"

namespace tengen::gtp {
namespace {

// How long an engine told to quit may take to exit before it is killed.
constexpr std::chrono::milliseconds kQuitTimeout{10000};
// How often an awaited answer checks the caller's interrupt.
constexpr std::chrono::milliseconds kInterruptPoll{100};

}  // namespace

std::vector<std::string> SplitCommandLine(const std::string& command_line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < command_line.size(); ++i) {
    const char c = command_line[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < command_line.size() &&
                 (command_line[i + 1] == '"' || command_line[i + 1] == '\\')) {
        word += command_line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command_line.size()) {
      word += command_line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw ConfigError("unterminated quote in command line: " + command_line);
  if (in_word) words.push_back(word);
  if (words.empty()) throw ConfigError("empty engine command line");
  return words;
}

GtpClient::GtpClient(const std::vector<std::string>& argv, std::string label,
                     std::chrono::milliseconds timeout)
    : label_(std::move(label)), timeout_(timeout), process_(argv) {}

GtpClient::~GtpClient() {
  // Reading to the end of its output waits until the engine has exited; one that has died
  // already throws here, and one that hangs is given kQuitTimeout (none when it hung before).
  // Either way process_'s destructor reaps (or kills) it.
  if (abandoned_) return;
  try {
    process_.WriteLine("quit");
    std::string line;
    while (process_.ReadLine(&line, kQuitTimeout)) {
    }
  } catch (const std::exception&) {
  }
}

GtpReply GtpClient::Send(const std::string& command) {
  try {
    process_.WriteLine(command);
  } catch (const IoError& e) {
    throw GtpProtocolError(label_ + " is not running (sending '" + command + "'): " + e.what());
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  std::string line;
  do {
    if (!ReadLine(&line, command, deadline)) {
      throw GtpProtocolError(label_ + " closed its output after '" + command + "'");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
  } while (line.empty());
  if (line[0] != '=' && line[0] != '?') {
    throw GtpProtocolError(label_ + " answered '" + command + "' with '" + line +
                           "', which is not a GTP answer");
  }
  GtpReply reply;
  reply.ok = line[0] == '=';
  size_t start = 1;
  while (start < line.size() && line[start] >= '0' && line[start] <= '9') ++start;
  if (start < line.size() && line[start] == ' ') ++start;
  reply.text = line.substr(start);
  while (true) {
    if (!ReadLine(&line, command, deadline)) {
      throw GtpProtocolError(label_ + " closed its output in the middle of answering '" + command +
                             "'");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;
    reply.text += "\n" + line;
  }
  while (!reply.text.empty() && reply.text.back() == ' ') reply.text.pop_back();
  return reply;
}

bool GtpClient::ReadLine(std::string* line, const std::string& command,
                         std::chrono::steady_clock::time_point deadline) {
  using std::chrono::milliseconds;
  const bool limited = timeout_ > milliseconds::zero();
  if (!limited && !interrupted_) return process_.ReadLine(line);
  while (true) {
    milliseconds slice = kInterruptPoll;
    if (limited) {
      const auto left =
          std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
      slice = interrupted_ ? std::min(left, kInterruptPoll) : left;
    }
    try {
      // A timed-out read keeps what arrived, so the next slice goes on from there.
      return process_.ReadLine(line, std::max(slice, milliseconds(1)));
    } catch (const TimeoutError&) {
      if (interrupted_ && interrupted_()) {
        abandoned_ = true;
        throw GtpInterrupted(label_ + " was answering '" + command + "' when told to stop");
      }
      if (limited && std::chrono::steady_clock::now() >= deadline) {
        abandoned_ = true;
        throw GtpProtocolError(label_ + " did not answer '" + command + "' within " +
                               FormatFixed(std::chrono::duration<double>(timeout_).count(), 1) +
                               " s");
      }
    }
  }
}

int GtpClient::WaitForExit() {
  std::string line;
  while (process_.ReadLine(&line, kQuitTimeout)) {
    if (!line.empty()) throw GtpProtocolError(label_ + " wrote '" + line + "' after quit");
  }
  return process_.Wait();
}

std::string GtpClient::Must(const std::string& command) {
  const GtpReply reply = Send(command);
  if (!reply.ok) throw GtpProtocolError(label_ + " refused '" + command + "': " + reply.text);
  return reply.text;
}

bool GtpClient::Lists(const std::string& command) {
  if (!listed_) {
    std::istringstream in(Must("list_commands"));
    for (std::string name; in >> name;) commands_.insert(name);
    listed_ = true;
  }
  return commands_.count(command) > 0;
}

}  // namespace tengen::gtp
