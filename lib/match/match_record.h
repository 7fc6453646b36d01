#pragma once
// <output_dir>/match.json, tengen-match's record of a match: written after every game, and read
// back when the same match is run again, so that a stopped match goes on from its last finished
// game instead of starting over.

#include <optional>
#include <string>
#include <vector>

#include "match/match.h"

namespace tengen::match {

// The record: format, engines (names, commands), board size, komi, rules, handicap (stones and
// the engine taking them), games played and planned, wins/losses/draws of engine 1, its win
// rate (draws half), Elo with low/high (95%), and one entry per game (index, black, white, result,
// how it ended, detail, moves, cleanup moves, score, sgf file).
std::string MatchReportJson(const MatchReport& report, const MatchOptions& options);

// The finished games in <options.output_dir>/match.json, in order; nullopt when there is no such
// file. `names` are the engines' names in this run. Throws ConfigError naming the file and the
// key when the record is of another match (engine names, board size, komi, rules or games
// planned differ: its games cannot be counted in this one), FormatError when it cannot be read
// as a match record.
std::optional<std::vector<GameOutcome>> ReadMatchRecord(const MatchOptions& options,
                                                        const std::string names[2]);

}  // namespace tengen::match
