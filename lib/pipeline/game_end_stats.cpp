#include "pipeline/game_end_stats.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "util/log.h"
#include "util/text.h"

namespace tengen::pipeline {

void GameEndStats::Add(play::GameEnd end, int moves_after_first_pass, double final_score) {
  ++games_;
  ++ends_[static_cast<size_t>(end)];
  if (moves_after_first_pass >= 0) {
    ++with_pass_;
    ++after_first_pass_[moves_after_first_pass];
  }
  if (end != play::GameEnd::kResignation) {
    ++scored_;
    abs_score_sum_ += std::fabs(final_score);
  }
}

bool GameEndStats::AddRecord(const go::SgfRecord& record) {
  const std::string& re = record.result;
  double score = 0;
  play::GameEnd end = play::GameEnd::kPasses;
  if (re == "B+R" || re == "W+R") {
    end = play::GameEnd::kResignation;
  } else if (re != "0") {
    if (re.size() < 3 || (re[0] != 'B' && re[0] != 'W') || re[1] != '+') return false;
    char* stop = nullptr;
    score = std::strtod(re.c_str() + 2, &stop);
    if (stop != re.c_str() + re.size() || !std::isfinite(score)) return false;
    if (re[0] == 'W') score = -score;
  }
  const auto& moves = record.moves;
  const size_t n = moves.size();
  if (end != play::GameEnd::kResignation &&
      !(n >= 2 && moves[n - 1].loc == go::kPassLoc && moves[n - 2].loc == go::kPassLoc)) {
    end = record.root_comment == play::kPassAliveComment ? play::GameEnd::kPassAlive
                                                         : play::GameEnd::kMoveCap;
  }
  int after_first_pass = -1;
  for (size_t i = 0; i < n; ++i) {
    if (moves[i].loc == go::kPassLoc) {
      after_first_pass = static_cast<int>(n - i - 1);
      break;
    }
  }
  Add(end, after_first_pass, score);
  return true;
}

int GameEndStats::MovesAfterFirstPass(double q) const {
  if (with_pass_ == 0) return -1;
  const auto rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(with_pass_)));
  int64_t seen = 0;
  for (const auto& [moves, count] : after_first_pass_) {
    seen += count;
    if (seen >= rank) return moves;
  }
  return after_first_pass_.rbegin()->first;
}

double GameEndStats::MeanAbsFinalScore() const {
  return scored_ > 0 ? abs_score_sum_ / static_cast<double>(scored_) : 0.0;
}

std::vector<std::pair<std::string, double>> GameEndCounters(const GameEndStats& stats) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  const bool passed = stats.games_with_pass() > 0;
  return {
      {"model_games", static_cast<double>(stats.games())},
      {"games_end_passes", static_cast<double>(stats.ended_by(play::GameEnd::kPasses))},
      {"games_end_move_cap", static_cast<double>(stats.ended_by(play::GameEnd::kMoveCap))},
      {"games_end_resignation", static_cast<double>(stats.ended_by(play::GameEnd::kResignation))},
      {"games_end_pass_alive", static_cast<double>(stats.ended_by(play::GameEnd::kPassAlive))},
      {"moves_after_first_pass_median", passed ? stats.MovesAfterFirstPass(0.5) : kNone},
      {"moves_after_first_pass_p90", passed ? stats.MovesAfterFirstPass(0.9) : kNone},
      {"mean_abs_final_score", stats.scored_games() > 0 ? stats.MeanAbsFinalScore() : kNone}};
}

std::string FormatGameEnds(const GameEndStats& stats) {
  if (stats.games() == 0) return "";
  std::string text = StrCat("games of this model ", stats.games(), ": ended by passes ",
                            stats.ended_by(play::GameEnd::kPasses), ", move cap ",
                            stats.ended_by(play::GameEnd::kMoveCap), ", resignation ",
                            stats.ended_by(play::GameEnd::kResignation), ", pass-alive ",
                            stats.ended_by(play::GameEnd::kPassAlive));
  if (stats.games_with_pass() > 0) {
    text += StrCat("; moves after the first pass: median ", stats.MovesAfterFirstPass(0.5),
                   ", 90th percentile ", stats.MovesAfterFirstPass(0.9));
  }
  if (stats.scored_games() > 0)
    text += "; mean |final score| " + FormatFixed(stats.MeanAbsFinalScore(), 1);
  if (stats.passes_refused() > 0) text += StrCat("; first passes refused ", stats.passes_refused());
  if (stats.reduced_searches() > 0)
    text += StrCat("; full searches cut in lopsided games ", stats.reduced_searches());
  if (stats.handicap_games() > 0) text += StrCat("; handicap games ", stats.handicap_games());
  return text;
}

}  // namespace tengen::pipeline
