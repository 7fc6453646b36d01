#include "search/selfplay_helpers.h"

#include <algorithm>
#include <cmath>

#include "go/game.h"
#include "go/score.h"
#include "search/mcts.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::search {

SearchPlan DrawSearchPlan(const PlayoutCap& cap, Rng& rng) {
  SearchPlan plan;
  plan.full_search = rng.UniformDouble() < cap.full_probability;
  plan.record_row = plan.full_search;
  plan.visits = plan.full_search ? cap.full_visits : std::min(cap.cheap_visits, cap.full_visits);
  return plan;
}

double PolicySurprise(const SearchResult& result) {
  double surprise = 0;
  for (size_t i = 0; i < result.policy_target.size(); ++i) {
    const double target = result.policy_target[i];
    if (target <= 0) continue;
    surprise += target * std::log(target / std::max<double>(result.net_priors[i], 1e-6));
  }
  return std::max(surprise, 0.0);
}

void ReduceForLopsidedGame(const PlayoutCap& cap, const std::vector<double>& black_values,
                           SearchPlan* plan) {
  if (!cap.reduce_visits || !plan->full_search) return;
  const size_t lookback = static_cast<size_t>(cap.reduce_visits_lookback);
  if (lookback == 0 || black_values.size() < lookback) return;
  double lowest = 1, highest = -1;
  for (size_t i = black_values.size() - lookback; i < black_values.size(); ++i) {
    lowest = std::min(lowest, black_values[i]);
    highest = std::max(highest, black_values[i]);
  }
  // How far the least extreme value lies beyond the threshold, for the side all of them favour.
  const double extreme = std::min(1.0, std::max(lowest, -highest));
  if (extreme <= cap.reduce_visits_threshold) return;
  const double share =
      std::min(1.0, (extreme - cap.reduce_visits_threshold) / (1 - cap.reduce_visits_threshold));
  const double cut = share * share;
  const int visits =
      static_cast<int>(std::lround(plan->visits + cut * (cap.reduced_visits_min - plan->visits)));
  plan->visits = std::min(plan->visits, std::max(visits, cap.reduced_visits_min));
  plan->row_weight += cut * (cap.reduced_visits_weight - plan->row_weight);
  plan->reduced = true;
}

std::vector<int> RowRepeats(const std::vector<double>& weights,
                            const std::vector<double>& surprises, double surprise_weight,
                            Rng& rng) {
  TENGEN_CHECK(weights.size() == surprises.size(),
               StrCat(weights.size(), " row weights for ", surprises.size(), " surprises"));
  double total_weight = 0, total_surprise = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    total_weight += weights[i];
    total_surprise += weights[i] * surprises[i];
  }
  const bool by_surprise = surprise_weight > 0 && total_surprise > 0;
  std::vector<int> repeats(weights.size(), 1);
  for (size_t i = 0; i < weights.size(); ++i) {
    double weight = weights[i];
    if (by_surprise) {
      weight = (1 - surprise_weight) * weights[i] +
               total_weight * surprise_weight * weights[i] * surprises[i] / total_surprise;
    }
    const double whole = std::floor(weight);
    const double fraction = weight - whole;
    repeats[i] = static_cast<int>(whole) + (fraction > 0 && rng.UniformDouble() < fraction ? 1 : 0);
  }
  return repeats;
}

ResignTracker::ResignTracker(const ResignParams& params, Rng& rng)
    : params_(params),
      may_resign_(params.enabled && !(rng.UniformDouble() < params.no_resign_fraction)) {}

bool ResignTracker::Update(go::Color player, double root_value) {
  int& low = low_turns_[player == go::Color::kBlack ? 0 : 1];
  low = root_value < params_.threshold ? low + 1 : 0;
  return may_resign_ && low >= params_.consecutive_turns;
}

bool PassLeavesPoints(const SearchParams& params, const go::GameState& state,
                      LeafEvaluator& opponent, int visits, Rng& rng) {
  const go::Color mover = state.to_move();
  go::GameState after = state;
  after.Play({go::kPassLoc, mover});
  if (after.IsOver()) return false;  // the pass ended the game (the move cap): nothing to answer
  // The check asks for the opponent's best answer, not for a Gumbel draw among good ones.
  SearchParams reply_params = params;
  reply_params.gumbel = Gumbel::kOff;
  Search reply(reply_params, opponent, rng);
  reply.SetPosition(after);
  const go::Loc answer = reply.Run(visits, false).best_move;
  return answer != go::kPassLoc && go::AreaOwnership(after.board())[answer] == mover;
}

}  // namespace tengen::search
