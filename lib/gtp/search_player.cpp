#include "gtp/search_player.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "util/error.h"

namespace tengen::gtp {
namespace {

using Clock = std::chrono::steady_clock;

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

// The position the search starts from: the game with `color` to move. After two passes (a
// cleanup phase, or a controller that asks for one more move) the game is over for the
// search, so it starts from the board alone: passes and superko history are dropped, and the
// move finally chosen is checked against the real game.
go::GameState SearchState(const go::GameState& game, go::Color color) {
  if (game.IsOver()) return go::GameState(game.board(), game.rules(), color);
  go::GameState state = game;
  state.set_to_move(color);
  return state;
}

}  // namespace

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
    throw ConfigError("visits and seconds_per_move: at least one limit must be positive (got " +
                      std::to_string(params_.visits) + " and " +
                      std::to_string(params_.seconds_per_move) + ")");
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

std::vector<int> SearchPlayer::RunSearches(double max_seconds) {
  const Clock::time_point start = Clock::now();
  double limit = params_.seconds_per_move;
  if (max_seconds > 0) limit = limit > 0 ? std::min(limit, max_seconds) : max_seconds;
  const bool timed = limit > 0;
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
  const std::function<bool()> stop = [&] { return timed && Clock::now() >= deadline; };
  const int num_trees = static_cast<int>(trees_.size());
  const int per_tree = params_.visits > 0 ? (params_.visits + num_trees - 1) / num_trees
                                          : std::numeric_limits<int>::max() / 2;

  summary_ = SearchSummary();
  for (const std::unique_ptr<Tree>& tree : trees_) {
    summary_.reused_visits += tree->search.root_visits();
  }
  if (num_trees == 1) {
    trees_[0]->result = trees_[0]->search.Run(per_tree, /*full_search=*/false, stop);
  } else {
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
    if (request.cleanup) line << ", " << summary_.dead_stones << " dead stones";
    line << ")";
    logger_->Info(line.str());
  }
  return reply;
}

GenMoveReply SearchPlayer::ChooseMove(const go::GameState& game, const go::GameState& state,
                                      const GenMoveRequest& request) {
  GenMoveReply reply;
  if (request.cleanup) {
    // Cleanup only removes dead stones: the game was settled when both players passed. So with
    // nothing dead (or nothing left to do about it) the answer is a pass, whatever the search
    // would play; the search runs only to rank the cleanup moves.
    const std::vector<float> ownership = PlayoutOwnership(state, params_.cleanup.playouts, rng_);
    const int dead =
        static_cast<int>(DeadStones(game.board(), ownership, go::Opponent(request.color),
                                    params_.cleanup.dead_threshold)
                             .size());
    if (dead == 0) {
      summary_ = SearchSummary();
      return reply;
    }
    const std::vector<int> visits = RunSearches(request.max_seconds);  // resets summary_
    summary_.dead_stones = dead;
    reply.loc = ChooseCleanupMove(game, request.color, ownership, params_.cleanup.dead_threshold,
                                  visits, rng_);
    return reply;
  }
  const std::vector<int> visits = RunSearches(request.max_seconds);
  const int size = game.size();
  if (params_.resign) {
    int& low_turns = low_value_turns_[request.color == go::Color::kWhite ? 1 : 0];
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

}  // namespace tengen::gtp
