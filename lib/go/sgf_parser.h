#pragma once
// The SGF reader's first half (go/sgf.h describes what it accepts): SGF text to game trees,
// keeping the main line of each (the first variation at every fork) with the line where its
// tree starts. Escapes, soft line breaks and FF[3] identifiers are resolved here; go/sgf.cpp
// turns the nodes into records.

#include <string>
#include <vector>

#include "go/sgf.h"

namespace tengen::go {

// A main line plus where its game tree starts, so that errors found after parsing (bad size,
// bad coordinate) can still point into the file: in a .sgfs file the line names the game.
struct ParsedGame {
  std::vector<SgfNode> main_line;
  int line = 1;
};

// ASCII letters, as SGF identifiers and points are spelt (no locale).
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

// Every game tree of `text` (a collection, or .sgfs lines); FormatError naming the line and
// column of a syntax error.
std::vector<ParsedGame> ParseSgfGames(const std::string& text);

// The game trees of `text` before its first syntax error, and that error ("" when there is
// none): what a truncated or damaged collection still holds.
struct ParsedCollection {
  std::vector<ParsedGame> games;
  std::string error;
};
ParsedCollection ParseSgfGamesUntilError(const std::string& text);

}  // namespace tengen::go
