#pragma once
// Small strong types for the board: colours, locations and moves.
//
// Locations are indices into a padded 1-D array (KataGo's layout): for a board of size N the
// point (x, y), 0-based with y = 0 the top row as in SGF, is loc = (x + 1) + (y + 1) * (N + 1).
// Column 0 of each row and rows 0 and N + 1 are walls, so every on-board point has four
// neighbours at loc - 1, loc + 1, loc - (N + 1), loc + (N + 1) without bounds checks.

#include <cstdint>
#include <string>

namespace tengen::go {

enum class Color : uint8_t { kEmpty = 0, kBlack = 1, kWhite = 2, kWall = 3 };

constexpr Color Opponent(Color c) {
  return c == Color::kBlack ? Color::kWhite : c == Color::kWhite ? Color::kBlack : c;
}
constexpr bool IsStone(Color c) { return c == Color::kBlack || c == Color::kWhite; }
// "B" / "W" / "." / "#"
const char* ColorLetter(Color c);
// Parses "b", "black", "w", "white" (any case); returns false otherwise.
bool ParseColor(const std::string& text, Color* color);

using Loc = int16_t;

constexpr int kMinSize = 2;
constexpr int kMaxSize = 19;
// Array length that holds every location of the largest board, walls included.
constexpr int kMaxArraySize = (kMaxSize + 1) * (kMaxSize + 2) + 1;
// Two wall cells double as the special moves.
constexpr Loc kNullLoc = 0;
constexpr Loc kPassLoc = 1;

constexpr Loc MakeLoc(int x, int y, int size) {
  return static_cast<Loc>((x + 1) + (y + 1) * (size + 1));
}
constexpr int LocX(Loc loc, int size) { return loc % (size + 1) - 1; }
constexpr int LocY(Loc loc, int size) { return loc / (size + 1) - 1; }

struct Move {
  Loc loc = kNullLoc;
  Color color = Color::kEmpty;
  bool operator==(const Move& o) const { return loc == o.loc && color == o.color; }
  bool operator!=(const Move& o) const { return !(*this == o); }
};

// GTP vertices: "A1" is the bottom-left corner, columns A..T without I, "pass" for passes.
std::string LocToGtp(Loc loc, int size);
// Parses a vertex (any case) or "pass"; false if malformed or off a board of this size.
bool ParseGtpVertex(const std::string& text, int size, Loc* loc);

}  // namespace tengen::go
