#pragma once
// A minimal GTP controller for tests: starts an engine as a Subprocess, sends one command at a
// time and reads its answer up to the blank line that ends it. Shared by the tests that drive
// tengen-gtp and GNU Go over pipes.

#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/subprocess.h"

namespace tengen::gtp_test {

struct GtpAnswer {
  bool ok = false;
  std::string text;  // without the '='/'?', the id and the separating space
};

class GtpClient {
 public:
  explicit GtpClient(const std::vector<std::string>& argv) : name_(argv.at(0)), process_(argv) {}

  // Sends `command` and returns its answer; throws when the engine stops answering.
  GtpAnswer Send(const std::string& command) {
    process_.WriteLine(command);
    std::string line;
    // Engines may print blank lines before an answer; GTP answers start with '=' or '?'.
    do {
      if (!process_.ReadLine(&line)) {
        throw std::runtime_error(name_ + " closed its output after '" + command + "'");
      }
    } while (line.empty());
    if (line[0] != '=' && line[0] != '?') {
      throw std::runtime_error(name_ + " answered '" + command + "' with '" + line + "'");
    }
    GtpAnswer answer;
    answer.ok = line[0] == '=';
    size_t start = 1;
    while (start < line.size() && line[start] >= '0' && line[start] <= '9') ++start;
    if (start < line.size() && line[start] == ' ') ++start;
    answer.text = line.substr(start);
    while (process_.ReadLine(&line) && !line.empty()) answer.text += "\n" + line;
    while (!answer.text.empty() && (answer.text.back() == ' ' || answer.text.back() == '\r')) {
      answer.text.pop_back();
    }
    return answer;
  }

  // Sends a command that must succeed; throws with the engine's message otherwise.
  std::string Must(const std::string& command) {
    const GtpAnswer answer = Send(command);
    if (!answer.ok) {
      throw std::runtime_error(name_ + " refused '" + command + "': " + answer.text);
    }
    return answer.text;
  }

  Subprocess& process() { return process_; }

 private:
  std::string name_;
  Subprocess process_;
};

// The words of an answer as a set ("A1 B2" -> {"A1", "B2"}), upper-cased: engines differ in
// order and case.
inline std::set<std::string> WordSet(const std::string& text) {
  std::set<std::string> words;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    for (char& c : word) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    words.insert(word);
  }
  return words;
}

}  // namespace tengen::gtp_test
