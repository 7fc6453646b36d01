#include "search/selfplay_helpers.h"

#include <algorithm>
#include <cmath>

#include "go/game.h"
#include "go/score.h"
#include "search/mcts.h"

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

std::vector<int> SurpriseRepeats(const std::vector<double>& surprises, double surprise_weight,
                                 Rng& rng) {
  double total = 0;
  for (double s : surprises) total += s;
  std::vector<int> repeats(surprises.size(), 1);
  if (surprise_weight <= 0 || total <= 0) return repeats;
  const double n = static_cast<double>(surprises.size());
  for (size_t i = 0; i < surprises.size(); ++i) {
    const double weight = (1 - surprise_weight) + n * surprise_weight * surprises[i] / total;
    const double whole = std::floor(weight);
    repeats[i] = static_cast<int>(whole) + (rng.UniformDouble() < weight - whole ? 1 : 0);
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
