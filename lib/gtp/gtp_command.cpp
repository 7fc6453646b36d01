#include "gtp/gtp_command.h"

#include <cctype>
#include <sstream>

namespace tengen::gtp {

std::string Preprocess(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (const char c : line) {
    if (c == '#') break;
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\t') {
      out.push_back(' ');
    } else if (c == '\n' || (u >= 32 && u != 127)) {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string> SplitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

bool IsAllDigits(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string SanitizeAnswerText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n' && !out.empty() && out.back() == '\n') continue;
    out.push_back(c);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string OneLine(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

std::string VertexList(const std::vector<go::Loc>& points, int size) {
  std::string text;
  for (const go::Loc loc : points) text += (text.empty() ? "" : " ") + go::LocToGtp(loc, size);
  return text;
}

std::string Fail(bool* ok, const std::string& message) {
  *ok = false;
  return message;
}

const char* ColorName(go::Color color) { return color == go::Color::kWhite ? "white" : "black"; }

char StoneChar(go::Color color) {
  switch (color) {
    case go::Color::kBlack:
      return 'X';
    case go::Color::kWhite:
      return 'O';
    default:
      return '.';
  }
}

}  // namespace tengen::gtp
