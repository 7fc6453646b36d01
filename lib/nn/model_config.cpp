#include "nn/model_config.h"

#include <cctype>
#include <string>

#include "util/error.h"
#include "util/text.h"

namespace tengen::nn {
namespace {

constexpr int kMinBlocks = 1;
constexpr int kMaxBlocks = 64;
constexpr int kMinChannels = 8;
constexpr int kMaxChannels = 1024;
// Longer digit runs cannot be in range and would overflow int.
constexpr size_t kMaxDigits = 5;

// Reads a run of decimal digits (no sign, no leading zero) at *pos; false if there is none.
bool ReadNumber(const std::string& text, size_t* pos, int* value) {
  const size_t start = *pos;
  while (*pos < text.size() && std::isdigit(static_cast<unsigned char>(text[*pos]))) ++*pos;
  const size_t len = *pos - start;
  if (len == 0 || len > kMaxDigits || (len > 1 && text[start] == '0')) return false;
  *value = std::stoi(text.substr(start, len));
  return true;
}

}  // namespace

std::string ModelConfig::Architecture() const { return StrCat("b", blocks, "c", channels); }

void ParseArchitecture(const std::string& text, ModelConfig* config) {
  const std::string expected =
      StrCat("expected b{blocks}c{channels} with blocks in ", kMinBlocks, "..", kMaxBlocks,
             " and channels in ", kMinChannels, "..", kMaxChannels);
  const auto fail = [&](const std::string& why) {
    throw ConfigError("bad model architecture '" + text + "': " + why);
  };
  size_t pos = 0;
  int blocks = 0, channels = 0;
  if (pos >= text.size() || text[pos++] != 'b' || !ReadNumber(text, &pos, &blocks) ||
      pos >= text.size() || text[pos++] != 'c' || !ReadNumber(text, &pos, &channels) ||
      pos != text.size()) {
    fail(expected);
  }
  if (blocks < kMinBlocks || blocks > kMaxBlocks) fail("blocks out of range; " + expected);
  if (channels < kMinChannels || channels > kMaxChannels) {
    fail("channels out of range; " + expected);
  }
  config->blocks = blocks;
  config->channels = channels;
}

}  // namespace tengen::nn
