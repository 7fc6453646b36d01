#include "pipeline/game_end_stats.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace tengen::pipeline {

void GameEndStats::Add(GameEnd end, int moves_after_first_pass, double final_score) {
  ++games_;
  ++ends_[static_cast<size_t>(end)];
  if (moves_after_first_pass >= 0) {
    ++with_pass_;
    ++after_first_pass_[moves_after_first_pass];
  }
  if (end != GameEnd::kResignation) {
    ++scored_;
    abs_score_sum_ += std::fabs(final_score);
  }
}

bool GameEndStats::AddRecord(const go::SgfRecord& record) {
  const std::string& re = record.result;
  double score = 0;
  GameEnd end = GameEnd::kPasses;
  if (re == "B+R" || re == "W+R") {
    end = GameEnd::kResignation;
  } else if (re != "0") {
    if (re.size() < 3 || (re[0] != 'B' && re[0] != 'W') || re[1] != '+') return false;
    char* stop = nullptr;
    score = std::strtod(re.c_str() + 2, &stop);
    if (stop != re.c_str() + re.size() || !std::isfinite(score)) return false;
    if (re[0] == 'W') score = -score;
  }
  const auto& moves = record.moves;
  const size_t n = moves.size();
  if (end != GameEnd::kResignation &&
      !(n >= 2 && moves[n - 1].loc == go::kPassLoc && moves[n - 2].loc == go::kPassLoc)) {
    end = GameEnd::kMoveCap;
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

}  // namespace tengen::pipeline
