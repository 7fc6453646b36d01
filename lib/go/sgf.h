#pragma once
// SGF (FF[4]) reading and writing for Go game records.
//
// The reader accepts files from other programs: escapes (\] \\ and soft line breaks), both
// FF[4] uppercase identifiers and old FF[3] mixed-case ones (lowercase letters are dropped,
// so "AddBlack" reads as AB; an all-lowercase identifier is upper-cased), compressed point
// lists (AB[aa:cc]), passes as B[] or B[tt], and variations, of which only the main line (the
// first variation at every fork) is kept. A file may hold several games: a collection of game
// trees, or our .sgfs format, one game per line.
//
// The writer emits one game on one line: (;FF[4]GM[1]SZ[..]KM[..]RU[..]PB[..]PW[..]RE[..]
// DT[..] then optional setup stones AB/AW, PL, a root comment C and extra root properties,
// then ;B[..] / ;W[..] nodes each with an optional C[comment]. Newlines inside text are written
// as spaces so that a game always stays on one line.

#include <string>
#include <utility>
#include <vector>

#include "go/rules.h"
#include "go/types.h"

namespace tengen::go {

// One node: property identifiers (normalised to uppercase) with their unescaped values.
struct SgfNode {
  std::vector<std::pair<std::string, std::vector<std::string>>> properties;

  // Values of a property, or nullptr when absent.
  const std::vector<std::string>* Find(const std::string& id) const;
  // The first value of a property, or `fallback`.
  std::string Get(const std::string& id, const std::string& fallback = "") const;
};

// Parses a collection; for each game tree returns its main line (root node first).
// Throws FormatError naming the line and column of malformed input.
std::vector<std::vector<SgfNode>> ParseSgfCollection(const std::string& text);

// A game record in our terms.
struct SgfRecord {
  int size = 19;
  Rules rules;                         // komi from KM, the rest from RU when known
  std::string black_player;            // PB
  std::string white_player;            // PW
  std::string result;                  // RE, e.g. "B+3.5", "W+R", "0"
  std::string date;                    // DT, "YYYY-MM-DD"
  std::vector<Loc> setup_black;        // AB
  std::vector<Loc> setup_white;        // AW
  Color first_player = Color::kBlack;  // PL, or the colour of the first move
  std::string root_comment;            // C on the root node
  // Other root properties to write or that were read (e.g. {"GN", "..."}, {"SO", "seed=42"}).
  std::vector<std::pair<std::string, std::string>> extra_properties;
  std::vector<Move> moves;                 // passes have loc == kPassLoc
  std::vector<std::string> move_comments;  // empty, or one per move ("" for none)
};

// One game on one line (no trailing newline).
std::string WriteSgf(const SgfRecord& record);
// Converts a parsed main line; throws FormatError for a bad size or coordinate.
SgfRecord RecordFromNodes(const std::vector<SgfNode>& main_line);
// Every game in the text (a .sgf with one or more game trees, or a .sgfs file).
std::vector<SgfRecord> ReadSgfRecords(const std::string& text);
// Every game in a file; errors name the path.
std::vector<SgfRecord> ReadSgfFile(const std::string& path);

// One game of a collection read game by game: its record, or why it has none ("SGF game N
// (line L): ..." for a bad size or coordinate).
struct SgfGame {
  SgfRecord record;
  std::string error;  // empty when the record is good
};
// Every game in a file, each converted on its own, so that one bad game does not cost the
// others; a syntax error (a truncated file) ends the file with one game that has the error, after
// the games before it. Throws (naming the path) only when the file cannot be read or its first
// game cannot be parsed.
std::vector<SgfGame> ReadSgfFileGames(const std::string& path);

}  // namespace tengen::go
