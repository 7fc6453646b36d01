#include "gtp/search_player.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "util/error.h"
#include "util/text.h"

namespace tengen::gtp {

search::SearchParams PlaySearchParams() {
  search::SearchParams params;
  params.no_fill = search::NoFill::kOff;
  return params;
}
namespace {

using Clock = std::chrono::steady_clock;

// How often an analysis that reached its visit cap looks for the stop request: well within
// the 100 ms a GUI may wait for the next command's answer.
constexpr int kStopPollMs = 5;

// A stop predicate that is true once `limit` seconds have passed (never for limit <= 0).
std::function<bool()> DeadlineStop(double limit) {
  if (limit <= 0) return [] { return false; };
  const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(limit));
  return [deadline] { return Clock::now() >= deadline; };
}

// Whether `later` is `earlier` with zero or more moves added (so a tree rooted at `earlier`
// can be advanced to it).
bool FollowsOn(const go::GameState& earlier, const go::GameState& later) {
  if (earlier.size() != later.size() || earlier.rules() != later.rules() ||
      earlier.max_moves() != later.max_moves() ||
      earlier.initial_to_move() != later.initial_to_move() ||
      earlier.initial_board().hash() != later.initial_board().hash() ||
      earlier.moves().size() > later.moves().size()) {
    return false;
  }
  return std::equal(earlier.moves().begin(), earlier.moves().end(), later.moves().begin());
}

}  // namespace

int LcbMoveIndex(const std::vector<const search::SearchResult*>& results, double stdevs,
                 double min_visit_share, const search::SearchParams& params) {
  TENGEN_CHECK(!results.empty(), "no search results");
  const size_t moves = results[0]->visits.size();
  std::vector<int> visits(moves, 0);
  for (const search::SearchResult* r : results)
    for (size_t i = 0; i < moves; ++i) visits[i] += r->visits[i];
  const int most = *std::max_element(visits.begin(), visits.end());
  const double range = std::abs(params.win_loss_utility) + std::abs(params.static_score_utility) +
                       std::abs(params.dynamic_score_utility);
  int choice = -1;
  double best_lcb = 0;
  for (size_t i = 0; i < moves; ++i) {
    if (visits[i] == 0 || visits[i] < min_visit_share * most) continue;
    // The trees' playouts of the move as one sample: their mean and their spread around it.
    double mean = 0, second_moment = 0;
    for (const search::SearchResult* r : results) {
      const double share = static_cast<double>(r->visits[i]) / visits[i];
      const double u = r->utility[i], sd = r->utility_stdev[i];
      mean += share * u;
      second_moment += share * (sd * sd + u * u);
    }
    const double stdev = std::sqrt(std::max(0.0, second_moment - mean * mean));
    const double lcb = search::UtilityLcb(mean, stdev, visits[i], stdevs, range);
    if (choice < 0 || lcb > best_lcb) {
      choice = static_cast<int>(i);
      best_lcb = lcb;
    }
  }
  return choice;
}

go::GameState SearchState(const go::GameState& game, go::Color color) {
  if (game.IsOver()) return go::GameState(game.board(), game.rules(), color);
  go::GameState state = game;
  state.set_to_move(color);
  return state;
}

double SearchPlayer::TimeLimit(const GenMoveRequest& request) const {
  double limit = params_.seconds_per_move;
  if (request.max_seconds > 0)
    limit = limit > 0 ? std::min(limit, request.max_seconds) : request.max_seconds;
  return limit;
}

struct SearchPlayer::Tree {
  Tree(const search::SearchParams& params, search::LeafEvaluator& evaluator, uint64_t seed)
      : rng(seed), search(params, evaluator, rng) {}
  Rng rng;  // before search, which keeps a reference
  search::Search search;
  bool has_root = false;
  search::SearchResult result;
};

SearchPlayer::SearchPlayer(SearchPlayerParams params,
                           std::vector<search::LeafEvaluator*> evaluators, uint64_t seed,
                           Logger* logger)
    : params_(std::move(params)), rng_(seed), logger_(logger) {
  if (evaluators.empty()) throw ConfigError("the search player needs at least one evaluator");
  if (params_.visits < 0 || params_.seconds_per_move < 0 ||
      (params_.visits == 0 && params_.seconds_per_move <= 0)) {
    throw ConfigError(
        StrCat("visits and seconds_per_move: at least one limit must be positive (got ",
               params_.visits, " and ", std::to_string(params_.seconds_per_move), ")"));
  }
  for (search::LeafEvaluator* evaluator : evaluators) {
    TENGEN_CHECK(evaluator != nullptr, "null evaluator");
    trees_.push_back(std::make_unique<Tree>(params_.search, *evaluator, rng_.Next()));
  }
}

SearchPlayer::~SearchPlayer() = default;

bool SearchPlayer::SetRoots(const go::GameState& state) {
  bool all_followed = true;
  for (const std::unique_ptr<Tree>& tree : trees_) {
    bool followed = false;
    if (params_.reuse_tree && tree->has_root && FollowsOn(tree->search.root_state(), state)) {
      const std::vector<go::Move>& moves = state.moves();
      for (size_t i = tree->search.root_state().moves().size(); i < moves.size(); ++i) {
        tree->search.Advance(moves[i]);
      }
      followed = tree->search.root_state().to_move() == state.to_move();
    }
    if (!followed) {
      tree->search.SetPosition(state);
      tree->has_root = true;
      all_followed = false;
    }
  }
  return all_followed;
}

int SearchPlayer::PerTree(int visits) const {
  const int num_trees = static_cast<int>(trees_.size());
  return visits > 0 ? (visits + num_trees - 1) / num_trees : std::numeric_limits<int>::max() / 2;
}

void SearchPlayer::RunTrees(int per_tree, const std::function<bool()>& stop) {
  if (trees_.size() == 1) {
    trees_[0]->result = trees_[0]->search.Run(per_tree, /*full_search=*/false, stop);
    return;
  }
  // Each thread body catches: the first error is rethrown here once all have stopped.
  std::vector<std::exception_ptr> errors(trees_.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < trees_.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        trees_[i]->result = trees_[i]->search.Run(per_tree, /*full_search=*/false, stop);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

std::vector<int> SearchPlayer::RunSearches(int per_tree, const std::function<bool()>& stop,
                                           double report_seconds, const AnalysisCallback& report,
                                           bool final_report) {
  const Clock::time_point start = Clock::now();
  summary_ = SearchSummary();
  for (const std::unique_ptr<Tree>& tree : trees_) {
    summary_.reused_visits += tree->search.root_visits();
  }
  const bool reporting = report && report_seconds > 0;
  if (!reporting) {
    RunTrees(per_tree, stop);
  } else {
    const auto interval =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(report_seconds));
    while (true) {
      const Clock::time_point next = Clock::now() + interval;
      RunTrees(per_tree, [&] { return stop() || Clock::now() >= next; });
      const bool done = std::all_of(trees_.begin(), trees_.end(), [&](const auto& tree) {
        return tree->search.root_visits() >= per_tree;
      });
      if (done || stop()) break;
      report(MakeReport());
    }
    if (final_report) report(MakeReport());
  }

  const int num_moves = static_cast<int>(trees_[0]->result.visits.size());
  std::vector<int> visits(num_moves, 0);
  double value_sum = 0, score_sum = 0;
  for (const std::unique_ptr<Tree>& tree : trees_) {
    const search::SearchResult& r = tree->result;
    for (int i = 0; i < num_moves; ++i) visits[i] += r.visits[i];
    summary_.visits += r.root_visits;
    value_sum += static_cast<double>(r.root_value) * r.root_visits;
    score_sum += static_cast<double>(r.root_score) * r.root_visits;
  }
  summary_.value = static_cast<float>(value_sum / std::max(1, summary_.visits));
  summary_.score = static_cast<float>(score_sum / std::max(1, summary_.visits));
  summary_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return visits;
}

AnalysisReport SearchPlayer::MakeReport() const {
  AnalysisReport report;
  report.size = trees_[0]->search.root_state().size();
  std::map<go::Loc, AnalysisMove> merged;
  std::map<go::Loc, int> pv_visits;  // visits of the tree whose pv a move has
  for (const std::unique_ptr<Tree>& tree : trees_) {
    for (search::RootMoveInfo& info : tree->search.RootMoves(params_.analysis_pv_length)) {
      AnalysisMove& move = merged[info.move];
      const double total = move.visits + info.visits;
      const double winrate = (info.value + 1) / 2;
      move.move = info.move;
      move.winrate = (move.winrate * move.visits + winrate * info.visits) / total;
      move.score_lead = (move.score_lead * move.visits + info.score * info.visits) / total;
      if (move.visits == 0) move.prior = info.prior;
      move.visits += info.visits;
      if (info.visits > pv_visits[info.move]) {
        pv_visits[info.move] = info.visits;
        move.pv = std::move(info.pv);
      }
    }
  }
  for (auto& entry : merged) {
    entry.second.lcb = WinrateLcb(entry.second.winrate, entry.second.visits);
    report.moves.push_back(std::move(entry.second));
  }
  std::sort(report.moves.begin(), report.moves.end(), [](const auto& a, const auto& b) {
    return a.visits != b.visits ? a.visits > b.visits : a.prior > b.prior;
  });
  report.ownership = trees_[0]->search.root_ownership();
  return report;
}

void SearchPlayer::Analyze(const go::GameState& game, go::Color color, double report_seconds,
                           const std::function<bool()>& stop, const AnalysisCallback& report) {
  SetRoots(SearchState(game, color));
  RunSearches(PerTree(params_.analysis_visits), stop, report_seconds, report,
              /*final_report=*/false);
  // At the visit cap the search is over but the analysis is not: the report is repeated at
  // the interval until the controller sends its next command. As during the search, the
  // interval counts from the end of the last report, so that a late one is never followed by
  // one too soon.
  const auto poll = std::chrono::milliseconds(kStopPollMs);
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(report_seconds));
  Clock::time_point next = Clock::now() + interval;
  while (!stop()) {
    std::this_thread::sleep_for(poll);
    if (report && report_seconds > 0 && Clock::now() >= next) {
      report(MakeReport());
      next = Clock::now() + interval;
    }
  }
}

GenMoveReply SearchPlayer::GenerateMove(const go::GameState& game, const GenMoveRequest& request) {
  const go::GameState state = SearchState(game, request.color);
  if (!SetRoots(state)) {
    // A new game, or a jump in the position: resignation counts start again.
    low_value_turns_[0] = low_value_turns_[1] = 0;
  }
  const GenMoveReply reply = ChooseMove(game, state, request);
  if (logger_ != nullptr) {
    std::ostringstream line;
    line << (request.cleanup ? "kgs-genmove_cleanup " : "genmove ")
         << go::ColorLetter(request.color) << ": "
         << (reply.resign ? std::string("resign") : go::LocToGtp(reply.loc, game.size())) << " ("
         << summary_.visits << " visits, " << summary_.reused_visits << " reused, value "
         << std::fixed << std::setprecision(3) << summary_.value << ", score "
         << std::setprecision(1) << summary_.score << ", " << std::setprecision(2)
         << summary_.seconds << " s";
    if (summary_.plays_on) {
      line << ", plays on: the settled count was taken away";
    } else if (request.cleanup) {
      line << ", " << summary_.dead_stones << " dead stones";
    }
    line << ")";
    logger_->Info(line.str());
  }
  return reply;
}

GenMoveReply SearchPlayer::ChooseMove(const go::GameState& game, const go::GameState& state,
                                      const GenMoveRequest& request) {
  bool plays_on = false;
  const int side = request.color == go::Color::kWhite ? 1 : 0;
  SearchJudgement& judgement = last_judgement_[side];
  if (request.cleanup) {
    const std::vector<float> ownership = PlayoutOwnership(state, params_.cleanup.playouts, rng_);
    plays_on = CountTakenAway(game, request.color, ownership, params_.cleanup,
                              JudgedAheadBeforeCleanup(judgement, game));
    if (!plays_on) return CleanupReply(game, request, ownership);
  }
  GenMoveReply reply;
  const std::vector<int> visits =
      RunSearches(PerTree(params_.visits), DeadlineStop(TimeLimit(request)), request.report_seconds,
                  request.report, /*final_report=*/true);
  summary_.plays_on = plays_on;
  if (!request.cleanup) judgement = SearchJudgement{game.moves(), summary_.value};
  const int size = game.size();
  if (params_.resign && !request.cleanup) {
    int& low_turns = low_value_turns_[side];
    low_turns = summary_.value < params_.resign_threshold ? low_turns + 1 : 0;
    if (low_turns >= params_.resign_turns) {
      reply.resign = true;
      return reply;
    }
  }

  // The most visited move; ties by the summed prior, then at random. Moves the real game
  // refuses (possible only when the search started from the board alone) are skipped.
  std::vector<double> priors(visits.size(), 0.0);
  for (const std::unique_ptr<Tree>& tree : trees_) {
    for (size_t i = 0; i < priors.size(); ++i) priors[i] += tree->result.root_priors[i];
  }
  using Key = std::tuple<int, double, uint64_t>;
  std::vector<std::pair<Key, int>> ranked;
  for (size_t i = 0; i < visits.size(); ++i) {
    if (visits[i] == 0 && priors[i] <= 0) continue;  // illegal, or a banned pass
    ranked.push_back({Key{visits[i], priors[i], rng_.Next()}, static_cast<int>(i)});
  }
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  int lcb_choice = -1;
  if (params_.lcb_stdevs > 0) {
    std::vector<const search::SearchResult*> results;
    for (const std::unique_ptr<Tree>& tree : trees_) results.push_back(&tree->result);
    lcb_choice =
        LcbMoveIndex(results, params_.lcb_stdevs, params_.lcb_min_visit_share, params_.search);
  }
  const auto chosen = std::find_if(ranked.begin(), ranked.end(),
                                   [&](const auto& entry) { return entry.second == lcb_choice; });
  if (chosen != ranked.end()) std::rotate(ranked.begin(), chosen, chosen + 1);
  for (const auto& entry : ranked) {
    const go::Loc loc = search::IndexToLoc(entry.second, size);
    if (game.IsLegal({loc, request.color})) {
      reply.loc = loc;
      return reply;
    }
  }
  reply.loc = go::kPassLoc;
  return reply;
}

GenMoveReply SearchPlayer::CleanupReply(const go::GameState& game, const GenMoveRequest& request,
                                        const std::vector<float>& ownership) {
  // Cleanup only removes dead stones: the game was settled when both players passed. So with
  // nothing dead (or nothing left to do about it) the answer is a pass, whatever the search
  // would play; the search runs only to rank the cleanup moves.
  GenMoveReply reply;
  const int dead = static_cast<int>(DeadStones(game.board(), ownership, go::Opponent(request.color),
                                               params_.cleanup.dead_threshold)
                                        .size());
  if (dead == 0) {
    summary_ = SearchSummary();
    return reply;
  }
  const std::vector<int> visits =
      RunSearches(PerTree(params_.visits), DeadlineStop(TimeLimit(request)));  // resets summary_
  summary_.dead_stones = dead;
  reply.loc = ChooseCleanupMove(game, request.color, ownership, params_.cleanup.dead_threshold,
                                visits, rng_);
  return reply;
}

}  // namespace tengen::gtp
