#pragma once
// The GTP controller of the tests that drive tengen-gtp and GNU Go over pipes: the library's
// (gtp/gtp_client.h), plus a helper for comparing answers.

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtp/gtp_client.h"

namespace tengen::gtp_test {

using GtpAnswer = gtp::GtpReply;

// The library's controller, named after its engine's program.
class GtpClient : public gtp::GtpClient {
 public:
  explicit GtpClient(const std::vector<std::string>& argv) : gtp::GtpClient(argv, argv.at(0)) {}
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
