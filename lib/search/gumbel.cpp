// Gumbel root selection with sequential halving (search/gumbel.h): the schedule and the
// Search members that draw the keys, pick each simulation's root child and make the result.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "search/mcts.h"
#include "util/error.h"

namespace tengen::search {

std::vector<int> SequentialHalvingVisits(int considered, int simulations) {
  std::vector<int> schedule;
  if (considered <= 1) {
    for (int k = 0; k < simulations; ++k) schedule.push_back(k);
    return schedule;
  }
  int rounds = 0;  // ceil(log2(considered))
  while ((1 << rounds) < considered) ++rounds;
  std::vector<int> visits(static_cast<size_t>(considered), 0);
  int moves = considered;
  while (static_cast<int>(schedule.size()) < simulations) {
    const int each = std::max(1, simulations / (rounds * moves));
    for (int e = 0; e < each; ++e) {
      for (int i = 0; i < moves; ++i) schedule.push_back(visits[static_cast<size_t>(i)]++);
    }
    moves = std::max(2, moves / 2);
  }
  schedule.resize(static_cast<size_t>(simulations));
  return schedule;
}

bool Search::UsesGumbel(bool full_search) const {
  if (!params_.gumbel_after_pass && root_state_.passes() > 0) return false;
  return params_.gumbel == Gumbel::kAll || (params_.gumbel == Gumbel::kCheap && !full_search);
}

void Search::PrepareGumbel(int visits) {
  const size_t n = root_.children.size();
  gumbel_keys_.assign(n, -std::numeric_limits<double>::infinity());
  // Priors that are all 0 (the net's mass on a pass held back, say) leave nothing to draw
  // from: every move that may be played then gets the same prior.
  if (std::all_of(root_priors_.begin(), root_priors_.end(), [](float p) { return p <= 0; })) {
    size_t playable = 0;
    for (const Node& child : root_.children) playable += RootBanned(child) ? 0 : 1;
    for (size_t i = 0; i < n; ++i)
      root_priors_[i] = RootBanned(root_.children[i]) ? 0.0f : 1.0f / static_cast<float>(playable);
  }
  std::vector<size_t> candidates;
  for (size_t i = 0; i < n; ++i) {
    if (root_priors_[i] <= 0) continue;
    // g = -log(-log(u)), u uniform in (0, 1): a Gumbel(0, 1) draw.
    const double u = std::max(rng_->UniformDouble(), std::numeric_limits<double>::min());
    gumbel_keys_[i] = std::log(static_cast<double>(root_priors_[i])) - std::log(-std::log(u));
    candidates.push_back(i);
  }
  const size_t considered =
      std::min(candidates.size(), static_cast<size_t>(std::max(1, params_.gumbel_moves)));
  std::sort(candidates.begin(), candidates.end(),
            [&](size_t a, size_t b) { return gumbel_keys_[a] > gumbel_keys_[b]; });
  for (size_t k = considered; k < candidates.size(); ++k)
    gumbel_keys_[candidates[k]] = -std::numeric_limits<double>::infinity();
  // A Gumbel Run starts from a fresh root, whose one visit so far is the net's evaluation.
  root_net_utility_ = MoverUtility(root_, score_center_);
  halving_visits_ =
      SequentialHalvingVisits(static_cast<int>(considered), std::max(0, visits - root_.visits));
}

std::vector<double> Search::GumbelSigma(double center) const {
  const std::vector<Node>& children = root_.children;
  const size_t n = children.size();
  std::vector<double> q(n, 0.0);
  double visits = 0, prior_mass = 0, weighted = 0;
  int most = 0;
  for (size_t i = 0; i < n; ++i) {
    if (root_priors_[i] <= 0 || children[i].visits == 0) continue;
    q[i] = ChildUtility(children[i], center);
    visits += children[i].visits;
    prior_mass += root_priors_[i];
    weighted += root_priors_[i] * q[i];
    most = std::max(most, children[i].visits);
  }
  // The mixed value (mctx's): the net's root value and the visited moves' mean by prior,
  // weighted by the visits behind each.
  const double mixed = prior_mass > 0
                           ? (root_net_utility_ + visits * weighted / prior_mass) / (visits + 1)
                           : root_net_utility_;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (size_t i = 0; i < n; ++i) {
    if (root_priors_[i] <= 0) continue;
    if (children[i].visits == 0) q[i] = mixed;
    q[i] -= root_penalties_[i];
    low = std::min(low, q[i]);
    high = std::max(high, q[i]);
  }
  const double scale = (params_.gumbel_c_visit + most) * params_.gumbel_c_scale;
  const double range = std::max(high - low, 1e-8);
  for (size_t i = 0; i < n; ++i) q[i] = root_priors_[i] > 0 ? scale * (q[i] - low) / range : 0;
  return q;
}

int Search::SelectGumbelChild(double center) const {
  const std::vector<double> sigma = GumbelSigma(center);
  // The Run's simulations so far: every root visit but the one that expanded it.
  const size_t done = static_cast<size_t>(root_.visits - 1);
  const int due = done < halving_visits_.size() ? halving_visits_[done] : -1;
  // The best considered child with the visits the schedule asks for; should none have them,
  // the considered child with the fewest visits (the best of those).
  int best = -1, fewest = -1;
  double best_score = 0, fewest_score = 0;
  for (size_t i = 0; i < root_.children.size(); ++i) {
    if (!std::isfinite(gumbel_keys_[i])) continue;
    const int visits = root_.children[i].visits;
    const double score = gumbel_keys_[i] + sigma[i];
    if (visits == due && (best < 0 || score > best_score)) {
      best = static_cast<int>(i);
      best_score = score;
    }
    const int fewest_visits = fewest < 0 ? 0 : root_.children[static_cast<size_t>(fewest)].visits;
    if (fewest < 0 || visits < fewest_visits || (visits == fewest_visits && score > fewest_score)) {
      fewest = static_cast<int>(i);
      fewest_score = score;
    }
  }
  TENGEN_CHECK(fewest >= 0, "no root child to consider");
  return best >= 0 ? best : fewest;
}

void Search::SetGumbelOutcome(SearchResult* result) const {
  const std::vector<Node>& children = root_.children;
  const int size = root_state_.size();
  const std::vector<double> sigma = GumbelSigma(score_center_);
  int most = 0;
  for (size_t i = 0; i < children.size(); ++i)
    if (std::isfinite(gumbel_keys_[i])) most = std::max(most, children[i].visits);
  int chosen = -1;
  double chosen_score = 0;
  std::vector<double> logits(children.size(), -std::numeric_limits<double>::infinity());
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < children.size(); ++i) {
    if (root_priors_[i] <= 0) continue;
    logits[i] = std::log(static_cast<double>(root_priors_[i])) + sigma[i];
    top = std::max(top, logits[i]);
    const double score = gumbel_keys_[i] + sigma[i];
    if (std::isfinite(score) && children[i].visits == most &&
        (chosen < 0 || score > chosen_score)) {
      chosen = static_cast<int>(i);
      chosen_score = score;
    }
  }
  TENGEN_CHECK(chosen >= 0, "no root child was considered");
  result->best_move = children[static_cast<size_t>(chosen)].move;
  result->move_drawn = true;
  double total = 0;
  for (double logit : logits) total += std::isfinite(logit) ? std::exp(logit - top) : 0;
  for (size_t i = 0; i < children.size(); ++i) {
    if (!std::isfinite(logits[i])) continue;
    result->policy_target[static_cast<size_t>(MoveIndex(children[i].move, size))] =
        static_cast<float>(std::exp(logits[i] - top) / total);
  }
}

}  // namespace tengen::search
