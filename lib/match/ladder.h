#pragma once
// The Elo ladder of a run: one JSON file (for instance <base>/ladder/ladder.json) that keeps
// every match result between named players (models, GNU Go at some level) and the ratings
// recomputed from all of them. tengen-match appends a match and recomputes
// (--ladder FILE); the loop calls it for each accepted model against the previous ones and
// against fixed anchors.
//
// File format (format "tengen-ladder", format_version 1), rewritten whole and atomically on
// every update, under an flock on <file>.lock so that two matches finishing at once both land:
//   anchors   {name: fixed Elo}, e.g. {"gnugo-l1": 0}
//   matches   [{a, b, wins, losses, draws (a's view), board_size, komi, time_utc, match_dir}]
//             (match_dir: the match's output directory, absolute; "" in older files)
//   ratings   [{name, elo, low, high, games, anchor, pinned_to}], best first: derived from the
//             matches on every update (never read back)
//
// Ratings: maximum likelihood under the logistic Elo model (expected score of a against b
// 1 / (1 + 10^((Rb - Ra) / 400)), draws counting half), the Bradley-Terry fit BayesElo and
// Ordo make, with every match result pooled per pair of players. Anchors keep their fixed
// Elo. Each pair that has played gets one virtual draw (BayesElo's prior, smaller), so that a
// clean sweep has a finite rating. A group of players with no chain of games to an anchor has
// its first player (in the order of the file) pinned at 0, named in pinned_to. The 95%
// interval is +-1.96 standard deviations from the full covariance of the fit (the inverse of
// the Fisher information matrix over all players not fixed), so a net rated only through
// other nets carries their uncertainty too. A rating relative to a pinned player, or resting
// on few games against an anchor, is only as good as that link.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tengen::match {

struct LadderMatch {
  std::string a, b;
  int wins = 0, losses = 0, draws = 0;  // a's
  int board_size = 0;
  double komi = 0;
  std::string time_utc;
  std::string match_dir;  // where its games are ("" when unknown)
};

struct Ladder {
  std::map<std::string, double> anchors;
  std::vector<LadderMatch> matches;
};

struct LadderRating {
  std::string name;
  double elo = 0, low = 0, high = 0;
  int games = 0;
  bool anchor = false;
  std::string pinned_to;  // the player fixed at 0 in a group without anchors ("" otherwise)
};

// Parses "name=elo,name=elo" (e.g. "gnugo-l1=0,gnugo-l10=900"); throws ConfigError.
std::map<std::string, double> ParseAnchors(const std::string& text);

// A missing file is an empty ladder; a malformed one a FormatError naming the file.
Ladder ReadLadder(const std::string& path);
// True when the ladder has `match` already: an entry with its players and result, from its
// match_dir or from an unknown one (an older file's entries).
bool HoldsMatch(const Ladder& ladder, const LadderMatch& match);
std::vector<LadderRating> ComputeRatings(const Ladder& ladder);
std::string LadderJson(const Ladder& ladder, const std::vector<LadderRating>& ratings);
// A table for people: rank, name, Elo, interval, games.
std::string FormatRatings(const std::vector<LadderRating>& ratings);

// Under the lock: reads the file, adds `anchors` (overriding earlier values), appends `match`
// when given, recomputes and publishes the file. Returns the new ratings.
std::vector<LadderRating> UpdateLadder(const std::string& path,
                                       const std::map<std::string, double>& anchors,
                                       const std::optional<LadderMatch>& match);

}  // namespace tengen::match
