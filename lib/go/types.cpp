#include "go/types.h"
#include "util/text.h"

#include <cctype>

namespace tengen::go {
namespace {

// GTP column letters skip 'I'.
constexpr char kColumnLetters[] = "ABCDEFGHJKLMNOPQRST";

std::string Lower(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* ColorLetter(Color c) {
  switch (c) {
    case Color::kBlack:
      return "B";
    case Color::kWhite:
      return "W";
    case Color::kEmpty:
      return ".";
    case Color::kWall:
      return "#";
  }
  return "?";
}

bool ParseColor(const std::string& text, Color* color) {
  const std::string t = Lower(text);
  if (t == "b" || t == "black") {
    *color = Color::kBlack;
    return true;
  }
  if (t == "w" || t == "white") {
    *color = Color::kWhite;
    return true;
  }
  return false;
}

std::string LocToGtp(Loc loc, int size) {
  if (loc == kPassLoc) return "pass";
  if (loc == kNullLoc) return "null";
  const int x = LocX(loc, size);
  const int y = LocY(loc, size);
  if (x < 0 || x >= size || y < 0 || y >= size) return StrCat("invalid(", loc, ")");
  return StrCat(std::string(1, kColumnLetters[x]), size - y);
}

bool ParseGtpVertex(const std::string& text, int size, Loc* loc) {
  const std::string t = Lower(text);
  if (t == "pass") {
    *loc = kPassLoc;
    return true;
  }
  if (t.size() < 2 || t.size() > 3) return false;
  const char column = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  int x = -1;
  for (int i = 0; i < kMaxSize; ++i) {
    if (kColumnLetters[i] == column) x = i;
  }
  if (x < 0 || x >= size) return false;
  int row = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
    row = row * 10 + (t[i] - '0');
  }
  if (row < 1 || row > size) return false;
  *loc = MakeLoc(x, size - row, size);
  return true;
}

}  // namespace tengen::go
