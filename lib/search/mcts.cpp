#include "search/mcts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "go/score.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::search {
namespace {

// KataGo adds 0.01 under the square root so that the priors break ties on a node's first
// selection, when no child has visits yet (searchexplorehelpers.cpp).
constexpr double kExploreEpsilon = 0.01;
constexpr NoFill kNoFillRules[] = {NoFill::kOff, NoFill::kAfterPass, NoFill::kOncePassed};
constexpr Gumbel kGumbelUses[] = {Gumbel::kOff, Gumbel::kCheap, Gumbel::kAll};
// Scale of the static score term (KataGo's): SV(score; 0, 2).
constexpr double kStaticScoreScale = 2.0;
// Ownership beyond which a point counts as settled for the ending bonus (KataGo's).
constexpr double kSettledOwnership = 0.95;
// Nodes up to this many plies below the root keep the evaluator's ownership (Node::ownership):
// a player's next root is two plies down.
constexpr int kOwnershipDepth = 2;

// Tromp-Taylor result and score lead of a finished game for the side to move.
void ScoreFinished(const go::GameState& state, double* value, double* score) {
  const double black_lead = go::TrompTaylorScore(state.board(), state.rules().komi);
  const double lead = state.to_move() == go::Color::kBlack ? black_lead : -black_lead;
  *value = lead > 0 ? 1.0 : lead < 0 ? -1.0 : 0.0;
  *score = lead;
}

// Scales p to sum to 1; false, and p unchanged, when its sum is not positive.
bool Normalize(std::vector<float>& p) {
  double total = 0;
  for (float x : p) total += x;
  if (total <= 0) return false;
  for (float& x : p) x = static_cast<float>(x / total);
  return true;
}

// True when a stone of `color` at `loc` would join a chain of its own that has one liberty.
bool JoinsChainInAtari(const go::Board& board, go::Loc loc, go::Color color) {
  for (go::Loc n : board.Neighbors(loc)) {
    if (board.At(n) == color && board.Liberties(n) == 1) return true;
  }
  return false;
}

// The names of an enum's values, in the order of `values`.
template <typename E, size_t N>
std::vector<std::string> Names(const E (&values)[N], const char* (*name)(E)) {
  std::vector<std::string> names;
  for (const E value : values) names.push_back(name(value));
  return names;
}

// The value of `key` named `text`; ConfigError naming the key and the choices for another name.
template <typename E, size_t N>
E ParseName(const char* key, const std::string& text, const E (&values)[N],
            const char* (*name)(E)) {
  for (const E value : values) {
    if (text == name(value)) return value;
  }
  std::string known;
  for (const std::string& choice : Names(values, name))
    known += (known.empty() ? "" : ", ") + choice;
  throw ConfigError(StrCat(key, ": '", text, "' (one of ", known, ")"));
}

}  // namespace

const char* NoFillName(NoFill rule) {
  switch (rule) {
    case NoFill::kOff:
      return "off";
    case NoFill::kAfterPass:
      return "after_pass";
    case NoFill::kOncePassed:
      return "once_passed";
  }
  return "?";
}

std::vector<std::string> NoFillNames() { return Names(kNoFillRules, NoFillName); }

NoFill ParseNoFill(const std::string& name) {
  return ParseName("no_fill", name, kNoFillRules, NoFillName);
}

const char* GumbelName(Gumbel use) {
  switch (use) {
    case Gumbel::kOff:
      return "off";
    case Gumbel::kCheap:
      return "cheap";
    case Gumbel::kAll:
      return "all";
  }
  return "?";
}

std::vector<std::string> GumbelNames() { return Names(kGumbelUses, GumbelName); }

Gumbel ParseGumbel(const std::string& name) {
  return ParseName("gumbel", name, kGumbelUses, GumbelName);
}

bool HasOpenPoint(const go::GameState& state) {
  const go::Board& board = state.board();
  const auto owner = go::AreaOwnership(board);
  const go::Color pla = state.to_move();
  const int size = state.size();
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = go::MakeLoc(x, y, size);
      if (board.At(loc) != go::Color::kEmpty || owner[loc] != go::Color::kEmpty) continue;
      if (!state.IsLegal({loc, pla})) continue;
      go::Board after = board;
      const int captured = after.Play(loc, pla);
      if (captured > 0 || after.Liberties(loc) > 1) return true;
    }
  }
  return false;
}

double ScoreValue(double score, double center, double scale, int area) {
  return (2.0 / M_PI) *
         std::atan((score - center) / (scale * std::sqrt(static_cast<double>(area))));
}

double ScoreValueSlope(double score, double center, double scale, int area) {
  const double width = scale * std::sqrt(static_cast<double>(area));
  const double z = (score - center) / width;
  return (2.0 / M_PI) / (width * (1.0 + z * z));
}

double UtilityLcb(double utility, double stdev, int visits, double stdevs, double range) {
  if (visits <= 0) return utility - 2 * range * stdevs;
  const double n = visits;
  const double prior_weight = 1.0 / (n * n);
  const double variance =
      (stdev * stdev * n + (stdev * stdev + range * range) * prior_weight) / (n + prior_weight);
  // The effective sample size of n playouts of weight 1 and the prior.
  const double samples =
      (n + prior_weight) * (n + prior_weight) / (n + prior_weight * prior_weight);
  return utility - stdevs * std::sqrt(variance / samples);
}

go::Loc SearchResult::ChooseMove(double temperature, Rng& rng) const {
  if (temperature <= 0 || move_drawn || best_move == go::kPassLoc) return best_move;
  const size_t pass = static_cast<size_t>(MoveIndex(go::kPassLoc, size));
  float top = 0;
  for (size_t i = 0; i < policy_target.size(); ++i)
    if (i != pass) top = std::max(top, policy_target[i]);
  if (top <= 0) return best_move;
  std::vector<double> weights(policy_target.size(), 0.0);
  for (size_t i = 0; i < weights.size(); ++i) {
    // (p / top)^(1/T) stays in (0, 1] for any temperature, so low temperatures cannot underflow
    // every weight to zero.
    if (policy_target[i] > 0 && i != pass)
      weights[i] = std::pow(policy_target[i] / top, 1.0 / temperature);
  }
  const int chosen = DrawIndex(weights, rng);
  return chosen < 0 ? best_move : IndexToLoc(chosen, size);
}

bool SearchResult::DropPass() {
  const size_t pass = static_cast<size_t>(MoveIndex(go::kPassLoc, size));
  size_t best = pass;
  for (size_t i = 0; i < visits.size(); ++i) {
    if (i == pass || (visits[i] == 0 && root_priors[i] <= 0)) continue;
    if (best == pass || visits[i] > visits[best] ||
        (visits[i] == visits[best] && root_priors[i] > root_priors[best]))
      best = i;
  }
  if (best == pass) return false;
  visits[pass] = 0;
  policy_target[pass] = 0;
  if (!Normalize(policy_target)) policy_target[best] = 1;
  best_move = IndexToLoc(static_cast<int>(best), size);
  return true;
}

Search::Search(SearchParams params, LeafEvaluator& evaluator, Rng& rng)
    : params_(params), evaluator_(&evaluator), rng_(&rng) {
  TENGEN_CHECK(params_.root_symmetries >= 1 && params_.root_symmetries <= 8,
               StrCat("root_symmetries must be 1 to 8, got ", params_.root_symmetries));
}

void Search::SetPosition(const go::GameState& state) {
  root_state_ = state;
  ClearTree();
  bias_table_.clear();  // a new game's entries start empty
}

void Search::ClearTree() {
  if (!bias_table_.empty()) ReleaseSubtreeBias(root_, nullptr);
  root_ = Node();
}

void Search::Advance(go::Move played) {
  int kept = -1;
  if (root_.expanded && played.color == root_state_.to_move()) {
    for (size_t i = 0; i < root_.children.size(); ++i) {
      if (root_.children[i].move == played.loc && root_.children[i].visits > 0) {
        kept = static_cast<int>(i);
      }
    }
  }
  if (!bias_table_.empty())
    ReleaseSubtreeBias(root_, kept >= 0 ? &root_.children[static_cast<size_t>(kept)] : nullptr);
  root_state_.Play(played);
  if (kept >= 0) {
    Node next = std::move(root_.children[kept]);
    root_ = std::move(next);
  } else {
    root_ = Node();
  }
}

LeafEvaluation Search::Expand(Node& node, const go::GameState& state, int depth) {
  const int symmetries = depth == 0 ? params_.root_symmetries : 1;
  LeafEvaluation eval = symmetries > 1 ? evaluator_->EvaluateSymmetries(state, symmetries)
                                       : evaluator_->Evaluate(state);
  const int size = state.size();
  const go::Color pla = state.to_move();
  // After the opponent's pass (or any pass, with no_fill = once_passed), a move into the mover's
  // own Tromp-Taylor area is not searched unless it joins a chain of its own in atari.
  const bool skip_own_area =
      (params_.no_fill == NoFill::kAfterPass && state.consecutive_passes() == 1) ||
      (params_.no_fill == NoFill::kOncePassed && state.passes() > 0);
  std::array<go::Color, go::kMaxArraySize> owner{};
  if (skip_own_area) owner = go::AreaOwnership(state.board());
  node.children.clear();
  // Every point and the pass at most: one allocation, where growing by doubling made seven.
  node.children.reserve(static_cast<size_t>(size) * size + 1);
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Loc loc = go::MakeLoc(x, y, size);
      if (state.board().At(loc) != go::Color::kEmpty || !state.IsLegal({loc, pla})) continue;
      if (skip_own_area && owner[loc] == pla && !JoinsChainInAtari(state.board(), loc, pla)) {
        continue;
      }
      Node child;
      child.move = loc;
      node.children.push_back(std::move(child));
    }
  }
  Node pass;
  pass.move = go::kPassLoc;
  node.children.push_back(std::move(pass));
  SetPriors(node, eval, size);
  node.expanded = true;
  node.symmetries = static_cast<uint8_t>(symmetries);
  if (depth <= kOwnershipDepth) {
    node.ownership = eval.ownership;
    node.ownership_known = true;
  }
  return eval;
}

void Search::SetPriors(Node& node, const LeafEvaluation& eval, int size) {
  TENGEN_CHECK(static_cast<int>(eval.policy.size()) == size * size + 1,
               StrCat("evaluator policy has ", eval.policy.size(), " entries"));
  double total = 0;
  for (Node& child : node.children) {
    child.prior = std::max(0.0f, eval.policy[static_cast<size_t>(MoveIndex(child.move, size))]);
    total += child.prior;
  }
  for (Node& child : node.children) {
    child.prior = total > 0 ? static_cast<float>(child.prior / total)
                            : 1.0f / static_cast<float>(node.children.size());
  }
}

void Search::AverageRootPriors() {
  const LeafEvaluation eval = evaluator_->EvaluateSymmetries(root_state_, params_.root_symmetries);
  const int size = root_state_.size();
  SetPriors(root_, eval, size);
  root_.ownership = eval.ownership;
  root_.ownership_known = true;
  root_.symmetries = static_cast<uint8_t>(params_.root_symmetries);
}

double Search::ChildUtility(const Node& child, double center) const {
  const int area = root_state_.size() * root_state_.size();
  const double value = child.value_sum / child.visits;
  const double score = child.score_sum / child.visits;
  return params_.win_loss_utility * value +
         params_.static_score_utility * ScoreValue(score, 0.0, kStaticScoreScale, area) +
         params_.dynamic_score_utility *
             ScoreValue(score, center, params_.dynamic_score_center_scale, area);
}

double Search::ChildUtilityStdev(const Node& child, double center) const {
  const int area = root_state_.size() * root_state_.size();
  const double n = child.visits;
  const double value = child.value_sum / n;
  const double score = child.score_sum / n;
  const double value_stdev = std::sqrt(std::max(0.0, child.value_sq_sum / n - value * value));
  const double score_stdev = std::sqrt(std::max(0.0, child.score_sq_sum / n - score * score));
  const double per_point =
      params_.static_score_utility * ScoreValueSlope(score, 0.0, kStaticScoreScale, area) +
      params_.dynamic_score_utility *
          ScoreValueSlope(score, center, params_.dynamic_score_center_scale, area);
  return std::abs(params_.win_loss_utility) * value_stdev + std::abs(per_point) * score_stdev;
}

double Search::MoverUtility(const Node& node, double center) const {
  Node mirrored;
  mirrored.visits = node.visits;
  mirrored.value_sum = -node.value_sum;
  mirrored.score_sum = -node.score_sum;
  return ChildUtility(mirrored, center);
}

int Search::SelectChild(const Node& node, bool is_root, double center) const {
  double total_visits = 0;
  double visited_prior = 0;
  for (size_t i = 0; i < node.children.size(); ++i) {
    const Node& child = node.children[i];
    total_visits += child.visits;
    if (child.visits > 0) visited_prior += is_root ? root_priors_[i] : child.prior;
  }
  // This node's sums are stored for the player who moved into it; its children are judged by
  // the side to move here, the other player (a Node with negated sums is that view).
  const double parent_q = node.visits > 0 ? MoverUtility(node, center) : 0;
  const double reduction =
      is_root && full_search_ ? params_.root_fpu_reduction : params_.fpu_reduction;
  const double fpu = parent_q - reduction * std::sqrt(visited_prior);
  const double explore = params_.cpuct * std::sqrt(total_visits + kExploreEpsilon);
  int best = -1;
  double best_value = -1e300;
  for (size_t i = 0; i < node.children.size(); ++i) {
    const Node& child = node.children[i];
    if (is_root && RootBanned(child)) continue;
    const double prior = is_root ? root_priors_[i] : child.prior;
    if (is_root && forced_playouts_ && child.visits > 0 &&
        child.visits < std::sqrt(params_.forced_playout_k * prior * total_visits)) {
      return static_cast<int>(i);
    }
    double q = child.visits > 0 ? ChildUtility(child, center) : fpu;
    if (is_root) q -= root_penalties_[i];
    const double value = q + explore * prior / (1.0 + child.visits);
    if (value > best_value) {
      best_value = value;
      best = static_cast<int>(i);
    }
  }
  TENGEN_CHECK(best >= 0, "no child to select");
  return best;
}

void Search::Playout(go::GameState& state) {
  path_.clear();
  path_.push_back(&root_);
  Node* node = &root_;
  double center = score_center_;  // for the side to move at `node`
  double value = 0, score = 0;    // for the side to move at the leaf
  while (true) {
    if (state.IsOver()) {
      ScoreFinished(state, &value, &score);
      break;
    }
    if (!node->expanded) {
      const LeafEvaluation eval = Expand(*node, state, static_cast<int>(path_.size()) - 1);
      value = eval.value;
      score = eval.score;
      if (params_.subtree_bias_factor > 0 && node != &root_)
        ApplySubtreeBias(*node, state, &value, &score);
      break;
    }
    const int chosen = node == &root_ && gumbel_ ? SelectGumbelChild(center)
                                                 : SelectChild(*node, node == &root_, center);
    Node* child = &node->children[static_cast<size_t>(chosen)];
    state.Play({child->move, state.to_move()});
    node = child;
    center = -center;
    path_.push_back(node);
  }
  // The leaf stores values for the player who moved into it: the opponent of its side to move.
  double v = -value, s = -score;
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
    ++(*it)->visits;
    (*it)->value_sum += v;
    (*it)->score_sum += s;
    (*it)->value_sq_sum += v * v;
    (*it)->score_sq_sum += s * s;
    v = -v;
    s = -s;
  }
  if (params_.subtree_bias_factor > 0) UpdateSubtreeBias();
  for (size_t i = 1; i < path_.size(); ++i) state.Undo();
}

void Search::PrepareRoot(bool full_search, int visits) {
  const size_t n = root_.children.size();
  full_search_ = full_search;
  gumbel_ = UsesGumbel(full_search);
  // Gumbel's draw replaces temperature, noise and forced playouts as the root's exploration.
  const bool shaped = full_search && !gumbel_;
  root_priors_.resize(n);
  for (size_t i = 0; i < n; ++i) root_priors_[i] = root_.children[i].prior;
  root_pass_banned_ = params_.pass_only_when_settled && n > 1 &&
                      root_state_.consecutive_passes() == 0 && HasOpenPoint(root_state_);
  for (size_t i = 0; i < n; ++i)
    if (RootBanned(root_.children[i])) root_priors_[i] = 0;
  Normalize(root_priors_);
  if (shaped && params_.root_policy_temperature != 1.0) {
    // In log space relative to the largest prior: p^(1/T) itself underflows to 0 for every
    // prior below about 0.36 at T = 0.01, which would leave no prior at all.
    double max_log = -std::numeric_limits<double>::infinity();
    for (float p : root_priors_) {
      if (p > 0) max_log = std::max(max_log, std::log(static_cast<double>(p)));
    }
    for (float& p : root_priors_) {
      if (p > 0) {
        p = static_cast<float>(std::exp((std::log(static_cast<double>(p)) - max_log) /
                                        params_.root_policy_temperature));
      }
    }
    Normalize(root_priors_);
  }
  if (shaped && params_.dirichlet_weight > 0) {
    std::gamma_distribution<double> gamma(params_.dirichlet_alpha_total / static_cast<double>(n),
                                          1.0);
    std::vector<double> noise(n, 0.0);
    double total = 0;
    for (size_t i = 0; i < n; ++i)
      if (!RootBanned(root_.children[i])) total += (noise[i] = gamma(*rng_));
    if (total > 0) {
      const double w = params_.dirichlet_weight;
      for (size_t i = 0; i < n; ++i)
        root_priors_[i] = static_cast<float>((1 - w) * root_priors_[i] + w * noise[i] / total);
      Normalize(root_priors_);
    }
  }
  forced_playouts_ = shaped && params_.forced_playout_k > 0;
  SetScoreCenter();
  SetEndingPenalties();
  if (gumbel_) PrepareGumbel(visits);
}

void Search::SetScoreCenter() {
  const double root_score = -root_.score_sum / root_.visits;
  const double cap = std::sqrt(static_cast<double>(root_state_.size() * root_state_.size())) *
                     params_.dynamic_score_center_scale;
  const double center = root_score * (1.0 - params_.dynamic_score_center_zero_weight);
  score_center_ = std::clamp(center, root_score - cap, root_score + cap);
}

void Search::SetEndingPenalties() {
  const size_t n = root_.children.size();
  root_penalties_.assign(n, 0.0);
  const int size = root_state_.size();
  const go::Board& board = root_state_.board();
  const bool scores_matter = params_.static_score_utility > 0 || params_.dynamic_score_utility > 0;
  if (params_.root_ending_bonus_points <= 0 || !scores_matter || board.ko_loc() != go::kNullLoc)
    return;
  if (!root_.ownership_known) {  // a reused root from deeper than kOwnershipDepth
    root_.ownership = evaluator_->Evaluate(root_state_).ownership;
    root_.ownership_known = true;
  }
  const std::vector<float>& ownership = root_.ownership;
  if (ownership.size() != static_cast<size_t>(size) * size) return;
  // Points to utility: the slope of the score terms at the root's expected score.
  const int area = size * size;
  const double root_score = -root_.score_sum / root_.visits;
  const double utility_per_point =
      params_.static_score_utility * ScoreValueSlope(root_score, 0.0, kStaticScoreScale, area) +
      params_.dynamic_score_utility *
          ScoreValueSlope(root_score, score_center_, params_.dynamic_score_center_scale, area);
  const go::Color pla = root_state_.to_move();
  const go::Color opp = go::Opponent(pla);
  for (size_t i = 0; i < n; ++i) {
    const go::Loc loc = root_.children[i].move;
    if (loc == go::kPassLoc) continue;
    const double own = ownership[MoveIndex(loc, size)];
    bool touches_opponent = false, captures = false;
    go::Loc own_chain = go::kNullLoc;
    bool joins_chains = false;
    for (go::Loc adj : board.Neighbors(loc)) {
      const go::Color c = board.At(adj);
      if (c == opp) {
        touches_opponent = true;
        captures = captures || board.Liberties(adj) == 1;
      } else if (c == pla) {
        const go::Loc head = board.ChainHead(adj);
        joins_chains = joins_chains || (own_chain != go::kNullLoc && own_chain != head);
        own_chain = head;
      }
    }
    double share = 0;
    if (own >= kSettledOwnership && !touches_opponent && !joins_chains) {
      share = (own - kSettledOwnership) / (1.0 - kSettledOwnership);
    } else if (own <= -kSettledOwnership && !captures) {
      share = (-own - kSettledOwnership) / (1.0 - kSettledOwnership);
    }
    root_penalties_[i] =
        std::min(1.0, share) * params_.root_ending_bonus_points * utility_per_point;
  }
}

SearchResult Search::Run(int visits, bool full_search, const std::function<bool()>& stop) {
  TENGEN_CHECK(!root_state_.IsOver(), "search on a finished game");
  TENGEN_CHECK(visits >= 1, "visits must be positive");
  go::GameState state = root_state_;  // working copy; playouts play and undo on it
  // Sequential halving counts the visits of this Run's own simulations.
  if (UsesGumbel(full_search) && root_.visits > 0) ClearTree();
  if (!root_.expanded) {
    // Expanding the root is its first visit. A reused root is already expanded.
    if (root_.visits > 0) root_ = Node();
    Playout(state);
  } else if (root_.symmetries < params_.root_symmetries) {
    AverageRootPriors();
  }
  PrepareRoot(full_search, visits);
  // Polling costs a call per playout; a playout costs a net evaluation, so it is noise.
  while (root_.visits < visits && !(stop && stop())) Playout(state);
  return MakeResult(full_search);
}

std::vector<RootMoveInfo> Search::RootMoves(int max_pv) const {
  std::vector<RootMoveInfo> moves;
  for (const Node& child : root_.children) {
    if (child.visits == 0) continue;
    RootMoveInfo info;
    info.move = child.move;
    info.visits = child.visits;
    info.prior = child.prior;
    info.value = child.value_sum / child.visits;
    info.score = child.score_sum / child.visits;
    info.utility = ChildUtility(child, score_center_);
    const Node* node = &child;
    while (node != nullptr && static_cast<int>(info.pv.size()) < max_pv) {
      info.pv.push_back(node->move);
      info.pv_visits.push_back(node->visits);
      const Node* next = nullptr;
      for (const Node& grandchild : node->children) {
        if (grandchild.visits > 0 && (next == nullptr || grandchild.visits > next->visits)) {
          next = &grandchild;
        }
      }
      node = next;
    }
    moves.push_back(std::move(info));
  }
  return moves;
}

double Search::RootUtility() const {
  return root_.visits > 0 ? MoverUtility(root_, score_center_) : 0;
}

SearchResult Search::MakeResult(bool full_search) const {
  const int size = root_state_.size();
  const int num_moves = size * size + 1;
  SearchResult result;
  result.size = size;
  result.visits.assign(num_moves, 0);
  result.policy_target.assign(num_moves, 0.0f);
  result.root_priors.assign(num_moves, 0.0f);
  result.net_priors.assign(num_moves, 0.0f);
  result.utility.assign(num_moves, 0.0f);
  result.utility_stdev.assign(num_moves, 0.0f);
  result.root_visits = root_.visits;
  result.root_value = static_cast<float>(-root_.value_sum / root_.visits);
  result.root_score = static_cast<float>(-root_.score_sum / root_.visits);
  result.score_center = static_cast<float>(score_center_);

  const std::vector<Node>& children = root_.children;
  int best = -1;
  double total_visits = 0;
  for (size_t i = 0; i < children.size(); ++i) {
    if (RootBanned(children[i])) continue;
    const int index = MoveIndex(children[i].move, size);
    result.net_priors[index] = children[i].prior;
    if (children[i].visits > 0) {
      result.utility[index] =
          static_cast<float>(ChildUtility(children[i], score_center_) - root_penalties_[i]);
      result.utility_stdev[index] =
          static_cast<float>(ChildUtilityStdev(children[i], score_center_));
    }
    result.visits[index] = children[i].visits;
    result.root_priors[index] = root_priors_[i];
    total_visits += children[i].visits;
    if (best < 0 || children[i].visits > children[best].visits ||
        (children[i].visits == children[best].visits && root_priors_[i] > root_priors_[best])) {
      best = static_cast<int>(i);
    }
  }
  TENGEN_CHECK(best >= 0, "root has no children");
  result.best_move = children[best].move;
  if (gumbel_) {
    SetGumbelOutcome(&result);
    return result;
  }
  const std::vector<double> weights = TargetWeights(full_search, best, total_visits);
  double total_weight = 0;
  for (double w : weights) total_weight += w;
  for (size_t i = 0; i < children.size(); ++i) {
    const int index = MoveIndex(children[i].move, size);
    // With no visits below the root (a 1-visit search), the target falls back to the priors.
    result.policy_target[index] = total_weight > 0 ? static_cast<float>(weights[i] / total_weight)
                                                   : result.root_priors[index];
  }
  return result;
}

std::vector<double> Search::TargetWeights(bool full_search, int best, double total_visits) const {
  const std::vector<Node>& children = root_.children;
  std::vector<double> weights(children.size(), 0.0);
  for (size_t i = 0; i < children.size(); ++i)
    if (!RootBanned(children[i])) weights[i] = children[i].visits;
  if (full_search && forced_playouts_ && children[best].visits > 0) {
    // Policy target pruning (KataGo searchresults.cpp, searchexplorehelpers.cpp): shrink each
    // other child to the visits at which its PUCT value would just equal the best child's,
    // removing at most its forced playouts; a child left under one visit is dropped.
    const double explore = params_.cpuct * std::sqrt(total_visits + kExploreEpsilon);
    const Node& b = children[best];
    const auto q = [&](size_t i) {
      return ChildUtility(children[i], score_center_) - root_penalties_[i];
    };
    const double best_puct = q(best) + explore * root_priors_[best] / (1.0 + b.visits);
    for (size_t i = 0; i < children.size(); ++i) {
      const Node& c = children[i];
      if (static_cast<int>(i) == best || c.visits == 0 || RootBanned(c)) continue;
      const double prior = root_priors_[i];
      const double forced = std::sqrt(params_.forced_playout_k * prior * total_visits);
      const double gap = best_puct - q(i);
      const double needed = gap > 0 ? explore * prior / gap - 1.0 : c.visits;
      double weight = std::min<double>(c.visits, std::max(needed, c.visits - forced));
      if (weight < 1.0) weight = 0;
      weights[i] = weight;
    }
  }
  return weights;
}

}  // namespace tengen::search
