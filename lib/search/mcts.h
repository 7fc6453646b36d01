#pragma once
// PUCT Monte Carlo tree search in the AlphaZero / KataGo style, single-threaded per game:
// parallelism comes from many concurrent games whose leaves a batching evaluator gathers.
//
// Tree. Each node stores the move that led to it, its prior, its visit count and the sums of
// the values and scores backed up through it. Values and scores in a node are from the view
// of the player who moved INTO the node (so a parent picks the child with the largest mean
// value); the evaluator answers from the side to move at the leaf, which is the opposite
// player, so a leaf's answer is negated once and then alternates sign on the way up. A node's
// children (one per legal move, with the evaluator's priors) are created when the node is
// first visited; a child gets children of its own only when it is visited in turn.
//
// Selection: argmax of Q + cpuct * P * sqrt(sum of child visits + 0.01) / (1 + child visits),
// KataGo's form; an unvisited child's Q is the First Play Urgency value, the parent's mean
// value minus fpu_reduction * sqrt(prior mass of the visited children) (KataGo's
// fpuReductionMax). Finished games (two passes or the move cap) are not evaluated: they are
// scored by Tromp-Taylor, +1 / -1 / 0 for the side to move and the exact score lead.
//
// Full and cheap searches (playout cap randomisation, search/selfplay_helpers.h). A full
// search is one whose row is recorded: it applies root policy temperature and Dirichlet noise
// to the root priors and forces playouts, and its policy target is pruned of the forced
// visits. A cheap search does none of these (KataGo turns them all off, play.cpp:1250-1262).
// Temperature and noise are applied to a copy of the root priors for that Run only, so a
// reused tree keeps the evaluator's priors.
//
// Utility. Search maximises a utility, not the win probability alone (KataGo's): for a mean
// value v and mean score lead s of a node, from the view of the player choosing it,
//   U = win_loss_utility * v
//     + static_score_utility  * SV(s; 0, 2)
//     + dynamic_score_utility * SV(s; center, dynamic_score_center_scale)
// where SV(s; c, k) = (2 / pi) * atan((s - c) / (k * sqrt(board area))) is a bounded score
// value. The center is set at the start of each Run from the root's expected score:
// score * (1 - dynamic_score_center_zero_weight), kept within sqrt(area) *
// dynamic_score_center_scale points of it; so the dynamic term rewards gaining points relative
// to where the game stands now, winning or losing, and a won (or lost) game is played on only
// while points can still be gained. SV is taken at the node's mean score (KataGo integrates it
// over the score's spread; the mean is the simple form). Finished games are scored exactly, so
// a pass that ends the game is valued at its exact result and score.
//
// Ending bonus (KataGo's rootEndingBonusPoints): at the root only, a move on a point the mover
// almost surely owns (the net's ownership >= 0.95) that touches no opponent stone and joins no
// two of its chains, or on a point the opponent almost surely owns (<= -0.95) that captures
// nothing, is charged up to root_ending_bonus_points points (linearly from 0 at 0.95 to all
// at 1), turned into utility by the slope of the score terms at the root's score. Cleanup
// captures and dame are never charged; nothing is charged while a ko is active or when the
// evaluator gives no ownership. So when nothing is left to gain, passing is preferred to
// filling one's own territory, by the winner and the loser alike.
//
// No pass on an open board (pass_only_when_settled, on by default): at the root, a pass is not
// searched while the side to move can still play on a point that Tromp-Taylor counts for
// nobody (an empty point whose region reaches both colours, or no stone at all) without
// putting its own stones in atari, unless the opponent has just passed. Under Tromp-Taylor a
// game is over only when dame are filled and dead stones captured; a young net does not know
// that and, from the first nets on, passed in the opening whenever the count as it stood
// favoured it (docs/RESULTS.md). The seki's shared liberties (self-atari) do not hold a pass back.
//
// No fill (no_fill): moves onto points Tromp-Taylor counts for the side to move (an empty
// region bordered by its stones only) are not searched after_pass, at any node whose last move
// was the opponent's pass, or once_passed (selfplay's default), at every node of a game in which
// either side has passed. Such a move captures nothing and leaves the score as it is, and the
// opponent can answer it by passing; a pass instead would end the game at that same score. A
// young net cannot tell a half-point loss from an even game, so without the rule the loser of a
// settled game filled its own eyes one at a time, each time hoping, and the winner passed back;
// once_passed also keeps out the fills between throw-ins and their answers that made up the
// tails after the first pass (docs/RESULTS.md, "No fill after a pass" and "No fill once passed:
// one net"). Still searched: the pass itself, dame, captures, moves into the opponent's area
// (throw-ins, which can gain against a premature pass), and a fill that joins a chain of one's
// own in atari (it can save the chain). off searches every legal move (tengen-gtp's default:
// against an opponent, the vital point of one's own eye space must stay playable).
//
// Gumbel root selection (gumbel) and subtree value bias correction (subtree_bias_factor):
// search/gumbel.h and search/subtree_bias.h. Tree, not graph: a position reached by two move
// orders is searched twice (search/transpositions.h counts how often).

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "go/game.h"
#include "go/types.h"
#include "search/gumbel.h"
#include "search/leaf_evaluator.h"
#include "search/subtree_bias.h"
#include "search/transpositions.h"
#include "util/rng.h"

namespace tengen::search {

// When fills of one's own area are not searched (see the header comment).
enum class NoFill { kOff, kAfterPass, kOncePassed };
// "off", "after_pass", "once_passed"; ParseNoFill throws ConfigError for another name.
const char* NoFillName(NoFill rule);
std::vector<std::string> NoFillNames();  // every rule's name, in the enum's order
NoFill ParseNoFill(const std::string& name);

struct SearchParams {
  // PUCT exploration constant. KataGo's cpuctExploration is 1.0 and grows by
  // 0.45 * ln((N + 500) / 500) with visits N (searchparams.cpp); 1.1 is about its value at the
  // few hundred visits of a selfplay search. Kept constant here.
  double cpuct = 1.1;
  // First Play Urgency reduction below the root: KataGo's fpuReductionMax.
  double fpu_reduction = 0.2;
  // At the root of full searches (root noise on): KataGo uses 0 there (selfplay), so every
  // noised move is judged by its prior alone. Other searches use fpu_reduction at the root too
  // (KataGo's cheap searches do).
  double root_fpu_reduction = 0.0;
  // Dirichlet noise at the root of full searches: total concentration 10.83 spread evenly, so
  // alpha per legal move = 10.83 / legal moves, mixed in with weight 0.25 (selfplay1.cfg
  // rootDirichletNoiseTotalConcentration / rootDirichletNoiseWeight). KataGo shapes half the
  // alpha by the policy; we use the uniform half only.
  double dirichlet_alpha_total = 10.83;
  double dirichlet_weight = 0.25;
  // Softmax temperature on the root priors of full searches: p^(1/T), renormalised. 1 = off;
  // KataGo selfplay starts at 1.25 and decays to 1.1 (selfplay1.cfg:168-169).
  double root_policy_temperature = 1.0;
  // Forced playouts in full searches: a visited root child with fewer than
  // sqrt(k * P * total child visits) visits is selected next (rootDesiredPerChildVisitsCoeff
  // = 2, selfplay1.cfg:148). 0 turns them and the target pruning off.
  double forced_playout_k = 2.0;
  // Utility (see the header comment); KataGo's selfplay values (selfplay1.cfg).
  double win_loss_utility = 1.0;
  double static_score_utility = 0.0;
  double dynamic_score_utility = 0.4;
  double dynamic_score_center_zero_weight = 0.25;
  double dynamic_score_center_scale = 0.5;
  double root_ending_bonus_points = 0.5;
  bool pass_only_when_settled = true;
  NoFill no_fill = NoFill::kOncePassed;
  // Orientations of the board the root's evaluation averages (1 to 8; KataGo's
  // rootNumSymmetriesToSample): a root evaluated with fewer (a reused tree's) is evaluated
  // again at the start of a Run and its children get the averaged priors.
  int root_symmetries = 1;
  // Gumbel root selection (search/gumbel.h); the constants are the reference implementation's
  // (mctx: max_num_considered_actions, maxvisit_init, value_scale).
  Gumbel gumbel = Gumbel::kOff;
  // False: once the game has had a pass, every search is PUCT's, whatever `gumbel` says.
  bool gumbel_after_pass = true;
  int gumbel_moves = 16;
  double gumbel_c_visit = 50;
  double gumbel_c_scale = 0.1;
  // Subtree value bias correction (search/subtree_bias.h): 0 turns it off. KataGo's selfplay uses
  // 0.30 and exponent 0.8, its play 0.45 and 0.85; free_prop is its default, 0.8.
  double subtree_bias_factor = 0;
  double subtree_bias_weight_exponent = 0.8;
  double subtree_bias_free_prop = 0.8;
};

// True when the side to move has a legal move, not a self-atari, on an empty point that
// Tromp-Taylor counts for nobody (see the header comment).
bool HasOpenPoint(const go::GameState& state);

// SV(s; center, scale) of the header comment for a board of `area` points.
double ScoreValue(double score, double center, double scale, int area);
// Its derivative in the score: utility per point at `score`.
double ScoreValueSlope(double score, double center, double scale, int area);

// Lower confidence bound of a move's utility (KataGo's LCB move selection): utility - stdevs *
// stdev / sqrt(visits), where stdev is the spread of one playout's utility. A prior that the
// spread is the largest possible (range: the utility's largest magnitude) weighs 1 / visits^2
// playouts, so that a move with few visits and, by chance, no spread yet is not trusted.
double UtilityLcb(double utility, double stdev, int visits, double stdevs, double range);

// What a search found at the root. Vectors have size * size + 1 entries indexed by MoveIndex.
struct SearchResult {
  int size = 0;
  // Visits of each root child (0 for illegal moves and a pass held back on an open board).
  std::vector<int> visits;
  // Policy training target: the visit distribution, after policy target pruning when the
  // search forced playouts (KataGo searchresults.cpp): each non-best child keeps only the
  // visits its PUCT value would have earned without forcing. Sums to 1.
  std::vector<float> policy_target;
  // The priors search used at the root (after temperature and noise).
  std::vector<float> root_priors;
  // The evaluator's priors at the root, renormalised over the legal moves, before temperature
  // and noise: what the net expected before the search (0 for a pass held back).
  std::vector<float> net_priors;
  // What search maximises for each visited root child (root side to move's view, the ending
  // penalty included), and the spread of one playout's utility around it: the standard
  // deviations of the playouts' values and scores, each turned into utility by its slope at
  // the child's mean and added (as if the two moved together: an upper bound). 0 for unvisited
  // moves.
  std::vector<float> utility;
  std::vector<float> utility_stdev;
  int root_visits = 0;
  // Mean backed-up value in [-1, 1] and score lead, from the root side to move's view.
  float root_value = 0;
  float root_score = 0;
  // The dynamic score center this search used (root side to move's view).
  float score_center = 0;
  // The most visited move (ties: the higher prior); in a Gumbel search, the move it chose.
  go::Loc best_move = go::kPassLoc;
  // True when the search drew best_move itself (Gumbel): ChooseMove then returns it at any
  // temperature.
  bool move_drawn = false;

  // temperature <= 0 or move_drawn: best_move. Otherwise samples a move with probability
  // proportional to policy_target^(1 / temperature) (KataGo samples its pruned "play selection
  // values"), except the pass: it is played when it is best_move, and never drawn otherwise. A pass
  // drawn by temperature mid-game explores nothing but gives points away, and the games it
  // ends teach that such passes are normal: nets whose moves were drawn this way passed ever
  // earlier (docs/RESULTS.md).
  go::Loc ChooseMove(double temperature, Rng& rng) const;
  // Takes the pass out of the result: its visits and policy target become 0 (the target is
  // renormalised) and best_move the most visited other move (ties: the higher root prior).
  // False, and nothing changed, when no other move was searched or has a prior.
  bool DropPass();
};

// One visited root child, for analysis output (GTP lz-analyze / kata-analyze, gtp/analysis.h).
struct RootMoveInfo {
  go::Loc move = go::kPassLoc;
  int visits = 0;
  float prior = 0;   // the evaluator's, renormalised over the legal moves
  double value = 0;  // mean backed-up value in [-1, 1], root side to move's view
  double score = 0;  // mean score lead, root side to move's view
  // What search maximises for this move (SearchParams' utility, root side to move's view).
  double utility = 0;
  // The principal variation from this move on: the move, then the most visited child of each
  // node below it while that child has visits; pv_visits[i] is the visits of pv[i]'s node.
  std::vector<go::Loc> pv;
  std::vector<int> pv_visits;
};

class Search {
 public:
  // The evaluator and rng must outlive the search.
  Search(SearchParams params, LeafEvaluator& evaluator, Rng& rng);
  // Not copyable: its nodes point into its own subtree value bias table (a move keeps them).
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;
  Search(Search&&) = default;
  Search& operator=(Search&&) = default;

  // Starts from `state` with an empty tree.
  void SetPosition(const go::GameState& state);
  // Plays `played` on the root position. If it is the side to move's move and was searched,
  // its subtree becomes the new tree (tree reuse); otherwise the tree starts empty. Throws
  // CheckError for an illegal move.
  void Advance(go::Move played);
  // Drops the tree but keeps the position. KataGo clears the tree before every full search so
  // that root noise acts on a fresh tree (play.cpp:2694-2699); callers that want that call this.
  void ClearTree();

  // Searches until the root has `visits` visits (visits kept from a reused tree count, as
  // KataGo's maxVisits). full_search: see the header comment. The root position must not be
  // over.
  // `stop`, when given, is polled between playouts: once it returns true the search ends
  // early (a selfplay process shutting down must not wait out a 600-visit search per game);
  // the partial result is well formed but the caller is expected to discard it.
  SearchResult Run(int visits, bool full_search, const std::function<bool()>& stop = {});

  const go::GameState& root_state() const { return root_state_; }
  int root_visits() const { return root_.visits; }
  // The visited root children (a pass held back on an open board included only if visited),
  // with principal variations of at most max_pv moves. Not during a Run on another thread.
  std::vector<RootMoveInfo> RootMoves(int max_pv) const;
  // The root's utility over its visits, root side to move's view (0 before any visit).
  double RootUtility() const;
  // The evaluator's ownership at the root (size * size, root side to move's view), or empty.
  const std::vector<float>& root_ownership() const { return root_.ownership; }
  const SearchParams& params() const { return params_; }
  // The subtree value bias entries (search/subtree_bias.h), each as its weighted mean difference in
  // value (from the view of the player who moved into its nodes; 0 while it weighs nothing)
  // and its weight.
  std::vector<std::pair<double, double>> SubtreeBiasEntries() const;
  // The positions the tree holds more than once, by other move orders (search/transpositions.h).
  // Not during a Run on another thread.
  TreeTranspositions CountTranspositions() const;

 private:
  // A subtree value bias entry: the weighted sums of the differences its nodes added.
  struct BiasEntry {
    double value_delta = 0;
    double score_delta = 0;
    double weight = 0;
  };

  struct Node {
    go::Loc move = go::kNullLoc;
    float prior = 0;  // the evaluator's, renormalised over legal moves
    int visits = 0;
    double value_sum = 0;  // from the view of the player who moved into this node
    double score_sum = 0;
    double value_sq_sum = 0;  // sums of squares, for the spread (SearchResult::utility_stdev)
    double score_sq_sum = 0;
    bool expanded = false;
    uint8_t symmetries = 0;  // orientations its priors averaged (0: not expanded)
    // The evaluator's ownership at this node (its side to move's view; empty if it gave none),
    // kept for nodes up to kOwnershipDepth below the root, so that a root reused after this
    // player's and the opponent's move still has it for the ending bonus.
    bool ownership_known = false;
    std::vector<float> ownership;
    std::vector<Node> children;
    // Subtree value bias (search/subtree_bias.h), for a node with an entry: the net's own
    // evaluation and what this node backed up for it (corrected), both from the view of the player
    // who moved into it, and what it last added to the entry.
    BiasEntry* bias = nullptr;
    float net_value = 0, net_score = 0;
    float own_value = 0, own_score = 0;
    BiasEntry added;
  };

  // Descends from the root on `state` (the root position, restored on return), evaluates or
  // scores the leaf and backs the result up.
  void Playout(go::GameState& state);
  // `depth`: plies below the root.
  LeafEvaluation Expand(Node& node, const go::GameState& state, int depth);
  // Subtree value bias: gives a node just expanded at `state` (not the root) its entry and
  // corrects `value` and `score` (the leaf's, side to move's view) by it.
  void ApplySubtreeBias(Node& node, const go::GameState& state, double* value, double* score);
  // Each node of the last playout's path with an entry updates what it adds to it.
  void UpdateSubtreeBias();
  // Takes subtree_bias_free_prop of what `node` and the nodes below it added out of their
  // entries (they are about to be dropped), `kept` and its subtree excepted.
  void ReleaseSubtreeBias(const Node& node, const Node* kept);
  // The evaluator's priors for an expanded node's children, renormalised over them.
  static void SetPriors(Node& node, const LeafEvaluation& eval, int size);
  // A reused root evaluated with fewer than root_symmetries orientations: its priors and
  // ownership from a new evaluation with all of them (visits and values kept).
  void AverageRootPriors();
  // `center`: the dynamic score center from the view of the player choosing at `node`.
  int SelectChild(const Node& node, bool is_root, double center) const;
  // Utility of a visited `child` for the player who moved into it (header comment).
  double ChildUtility(const Node& child, double center) const;
  // Utility of a visited `node` for its side to move (its sums negated: a Node with them is
  // that view).
  double MoverUtility(const Node& node, double center) const;
  // The spread of one playout's utility for the player who moved into a visited `child`
  // (SearchResult::utility_stdev).
  double ChildUtilityStdev(const Node& child, double center) const;
  // Root priors for this Run (temperature, noise), the score center, the ending penalties and,
  // in a Gumbel search, its keys and schedule for `visits` visits at the root.
  void PrepareRoot(bool full_search, int visits);
  bool UsesGumbel(bool full_search) const;
  // Draws the Gumbel keys of the root's children, keeps the gumbel_moves largest and lays out
  // sequential halving's schedule up to `visits` root visits.
  void PrepareGumbel(int visits);
  // sigma(completed Q) of each root child (search/gumbel.h; 0 for a child without a prior).
  std::vector<double> GumbelSigma(double center) const;
  // The root child that the next simulation of sequential halving visits.
  int SelectGumbelChild(double center) const;
  // The Gumbel search's move and policy target (search/gumbel.h).
  void SetGumbelOutcome(SearchResult* result) const;
  // The visits each root child contributes to the policy target of a PUCT search: its visits,
  // pruned of forced playouts after a full search that forced them (MakeResult).
  std::vector<double> TargetWeights(bool full_search, int best, double total_visits) const;
  void SetScoreCenter();
  void SetEndingPenalties();
  SearchResult MakeResult(bool full_search) const;
  bool RootBanned(const Node& child) const {
    return root_pass_banned_ && child.move == go::kPassLoc;
  }

  SearchParams params_;
  LeafEvaluator* evaluator_;
  Rng* rng_;
  go::GameState root_state_;
  Node root_;
  std::vector<float> root_priors_;  // parallel to root_.children, valid during a Run
  // Ending penalty in utility per root child (parallel to root_.children), valid during a Run.
  std::vector<double> root_penalties_;
  double score_center_ = 0;  // root side to move's view, valid during a Run
  bool root_pass_banned_ = false;
  bool full_search_ = false;
  bool forced_playouts_ = false;
  // A Gumbel search (search/gumbel.h), valid during a Run: whether this Run is one, each root
  // child's key (log P + g; -infinity: not considered), the schedule (SequentialHalvingVisits)
  // and the net's evaluation of the root as utility.
  bool gumbel_ = false;
  std::vector<double> gumbel_keys_;
  std::vector<int> halving_visits_;
  double root_net_utility_ = 0;
  std::vector<Node*> path_;  // reused across playouts
  // Subtree value bias entries by key (node-based: the nodes' pointers stay valid).
  std::unordered_map<uint64_t, BiasEntry> bias_table_;
};

}  // namespace tengen::search
