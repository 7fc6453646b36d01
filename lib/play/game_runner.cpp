#include "play/game_runner.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "go/game.h"
#include "go/handicap.h"
#include "go/pass_alive.h"
#include "go/score.h"
#include "go/sgf_game.h"
#include "go/symmetry.h"
#include "nn/features.h"
#include "play/side_positions.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::play {
namespace {

template <typename T>
T DrawWeighted(const std::vector<std::pair<T, double>>& choices, Rng& rng) {
  TENGEN_CHECK(!choices.empty(), "no choices to draw from");
  double total = 0;
  for (const auto& choice : choices) total += choice.second;
  double r = rng.UniformDouble() * total;
  for (const auto& choice : choices) {
    if (r < choice.second) return choice.first;
    r -= choice.second;
  }
  return choices.back().first;
}

// A search's policy target in a row's layout (pos_len, pass last).
std::vector<float> RowPolicy(const search::SearchResult& result, int pos_len) {
  std::vector<float> policy(static_cast<size_t>(pos_len) * pos_len + 1, 0.0f);
  const int size = result.size;
  for (int index = 0; index <= size * size; ++index) {
    const go::Loc loc = search::IndexToLoc(index, size);
    policy[nn::PolicyIndex(loc, size, pos_len)] = result.policy_target[index];
  }
  return policy;
}

// Value, score and ownership targets of a row whose side to move was `mover`. A resigned game
// has a winner but no final board: score and ownership are 0, weighted 0.
void FinishRow(const go::Board& final_board, const std::array<go::Color, go::kMaxArraySize>& owner,
               go::Color winner, double black_score, go::Color mover, int pos_len, bool resigned,
               data::TrainingRow* row) {
  const int size = final_board.size();
  row->value[0] = winner == mover ? 1.0f : 0.0f;
  row->value[1] = winner == go::Opponent(mover) ? 1.0f : 0.0f;
  row->value[2] = winner == go::Color::kEmpty ? 1.0f : 0.0f;
  row->ownership.assign(static_cast<size_t>(pos_len) * pos_len, 0);
  if (resigned) {
    row->score = 0;
    row->score_weight = 0;
    row->ownership_weight = 0;
    return;
  }
  row->score = static_cast<float>(mover == go::Color::kBlack ? black_score : -black_score);
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const go::Color c = owner[go::MakeLoc(x, y, size)];
      if (go::IsStone(c)) row->ownership[y * pos_len + x] = c == mover ? 1 : -1;
    }
  }
}

}  // namespace

void SetShortTermValues(const std::vector<double>& black_values, go::Color winner, int area,
                        go::Color mover, int turn, data::TrainingRow* row) {
  TENGEN_CHECK(turn >= 0 && static_cast<size_t>(turn) <= black_values.size(),
               StrCat("short-term values of turn ", turn, " of a game of ", black_values.size(),
                      " searches"));
  static constexpr double kHorizonFactors[data::kTdHorizons] = {0.176, 0.056, 0.016};
  const double sign = mover == go::Color::kBlack ? 1.0 : -1.0;
  const double result[3] = {winner == mover ? 1.0 : 0.0, winner == go::Opponent(mover) ? 1.0 : 0.0,
                            winner == go::Color::kEmpty ? 1.0 : 0.0};
  for (int h = 0; h < data::kTdHorizons; ++h) {
    const double now = 1.0 / (1.0 + area * kHorizonFactors[h]);
    double left = 1.0;
    double win = 0, loss = 0, draw = 0;
    for (size_t i = static_cast<size_t>(turn); i < black_values.size(); ++i) {
      const double v = sign * black_values[i];
      win += left * now * (1 + v) / 2;
      loss += left * now * (1 - v) / 2;
      left *= 1 - now;
    }
    win += left * result[0];
    loss += left * result[1];
    draw += left * result[2];
    row->td_value[h][0] = static_cast<float>(win);
    row->td_value[h][1] = static_cast<float>(loss);
    row->td_value[h][2] = static_cast<float>(draw);
  }
  row->td_value_weight = 1;
}

data::TrainingRow PositionRow(const go::GameState& state, int pos_len, int64_t game_id) {
  data::TrainingRow row;
  row.spatial.resize(static_cast<size_t>(nn::kNumSpatialFeatures) * pos_len * pos_len);
  row.global.resize(nn::kNumGlobalFeatures);
  nn::FillFeatures(state, pos_len, /*symmetry=*/0, row.spatial.data(), row.global.data());
  row.policy.assign(static_cast<size_t>(pos_len) * pos_len + 1, 0.0f);
  row.game_id = game_id;
  row.turn = static_cast<int32_t>(state.moves().size());
  row.board_size = static_cast<int8_t>(state.size());
  row.komi = static_cast<float>(state.rules().komi);
  row.ko_positional = state.rules().ko == go::KoRule::kPositional ? 1 : 0;
  row.suicide = state.rules().suicide ? 1 : 0;
  return row;
}

data::TrainingRow StartRow(const GameParams& params, const go::GameState& state,
                           const search::SearchResult& result, int64_t game_id) {
  data::TrainingRow row = PositionRow(state, params.pos_len, game_id);
  row.policy = RowPolicy(result, params.pos_len);
  return row;
}

int PlayPolicyOpening(const GameParams& params, search::LeafEvaluator& black,
                      search::LeafEvaluator& white, Rng& rng, go::GameState* state) {
  if (params.policy_init_area <= 0) return 0;
  const int size = state->size();
  const int area = size * size;
  // An exponential draw of mean policy_init_area * area, rounded down.
  const int moves = static_cast<int>(
      std::floor(-std::log(1.0 - rng.UniformDouble()) * params.policy_init_area * area));
  int played = 0;
  std::vector<double> weights(static_cast<size_t>(area));
  while (played < moves && !state->IsOver()) {
    const go::Color mover = state->to_move();
    const search::LeafEvaluation eval =
        (mover == go::Color::kBlack ? black : white).Evaluate(*state);
    for (int i = 0; i < area; ++i) {
      const go::Loc loc = search::IndexToLoc(i, size);
      const bool legal =
          state->board().At(loc) == go::Color::kEmpty && state->IsLegal({loc, mover});
      weights[static_cast<size_t>(i)] =
          legal ? std::max(0.0f, eval.policy[static_cast<size_t>(i)]) : 0;
    }
    const int chosen = DrawIndex(weights, rng);
    if (chosen < 0) break;  // no legal point with a prior: the game starts here
    state->Play({search::IndexToLoc(chosen, size), mover});
    ++played;
  }
  return played;
}

double FairKomi(const GameParams& params, const go::GameState& start,
                search::LeafEvaluator& evaluator, Rng& rng) {
  const double area = static_cast<double>(start.size()) * start.size();
  // The net's lead is the side to move's; with black's lead added to the komi the game is even.
  const double lead = evaluator.Evaluate(start).score;
  double komi = start.rules().komi + (start.to_move() == go::Color::kBlack ? lead : -lead);
  double stdev = params.komi_stdev;
  if (params.komi_big_stdev_prob > 0 && rng.UniformDouble() < params.komi_big_stdev_prob)
    stdev = params.komi_big_stdev;
  if (stdev > 0) komi += stdev * rng.Normal();
  return std::clamp(std::round(komi * 2) / 2, -area, area);
}

const char* const kPassAliveComment =
    "Ended with the whole board pass-alive: dead stones in pass-alive areas count as captured.";

const char* GameEndName(GameEnd end) {
  switch (end) {
    case GameEnd::kPasses:
      return "passes";
    case GameEnd::kMoveCap:
      return "move_cap";
    case GameEnd::kResignation:
      return "resignation";
    case GameEnd::kPassAlive:
      return "pass_alive";
  }
  return "unknown";
}

double MoveTemperature(const GameParams& params, int turn, int size) {
  const double halflife = params.temperature_halflife * size / 19.0;
  const double early_share = std::pow(0.5, turn / std::max(halflife, 1e-9));
  return params.temperature_early * early_share + params.temperature_late * (1 - early_share);
}

namespace {

// The end of a played game: its length, how it ended, the score and winner, the rows' targets
// (FinishRow, SetShortTermValues from each turn's root value in black_values) and the SGF
// record.
void ScoreAndRecord(const GameParams& params, const go::GameState& state, double komi,
                    const Player& black, const Player& white, uint64_t seed,
                    const std::vector<go::Color>& row_movers,
                    const std::vector<double>& black_values, FinishedGame* game) {
  game->moves = static_cast<int>(state.moves().size());
  for (int i = 0; i < game->moves; ++i) {
    if (state.moves()[i].loc == go::kPassLoc) {
      game->moves_after_first_pass = game->moves - i - 1;
      break;
    }
  }
  const bool pass_alive = game->end == GameEnd::kPassAlive;
  if (!game->resigned && !pass_alive)
    game->end = state.consecutive_passes() >= 2 ? GameEnd::kPasses : GameEnd::kMoveCap;
  // Tromp-Taylor's area, or the pass-alive area with the dead stones in it taken.
  const auto owner =
      pass_alive ? go::PassAliveArea(state.board()) : go::AreaOwnership(state.board());
  if (!game->resigned) {
    game->final_score = go::OwnedAreaScore(state.board(), owner, komi);
    game->winner = game->final_score > 0   ? go::Color::kBlack
                   : game->final_score < 0 ? go::Color::kWhite
                                           : go::Color::kEmpty;
  }
  const int area = state.size() * state.size();
  for (size_t i = 0; i < game->rows.size(); ++i) {
    data::TrainingRow& row = game->rows[i];
    FinishRow(state.board(), owner, game->winner, game->final_score, row_movers[i], params.pos_len,
              game->resigned, &row);
    // black_values starts at the first searched turn, after the opening from the policy.
    SetShortTermValues(black_values, game->winner, area, row_movers[i],
                       row.turn - game->opening_moves, &row);
  }

  game->sgf = go::RecordFromGame(state);
  game->sgf.black_player = black.name;
  game->sgf.white_player = white.name;
  game->sgf.result = game->resigned
                         ? std::string(game->winner == go::Color::kBlack ? "B" : "W") + "+R"
                         : go::ScoreToResult(game->final_score);
  if (pass_alive) game->sgf.root_comment = kPassAliveComment;
  game->sgf.extra_properties.push_back({"GN", std::to_string(game->game_id)});
  game->sgf.extra_properties.push_back({"SO", StrCat("tengen seed=", seed)});
}

// The start of a handicap game (GameParams::handicap_game_prob): `stones` black stones on the
// fixed points and white to move, at a komi made fair for it (handicap_fair_komi_prob) or
// handicap_komi.
go::GameState HandicapStart(const GameParams& params, int size, int stones, go::Rules rules,
                            int max_moves, search::LeafEvaluator& evaluator, Rng& rng) {
  const std::vector<go::Loc> points = go::FixedHandicapPoints(size, stones);
  TENGEN_CHECK(!points.empty(),
               StrCat("no fixed handicap of ", stones, " stones on ", size, "x", size));
  go::Board board(size);
  for (const go::Loc loc : points) board.SetStone(loc, go::Color::kBlack);
  const bool fair = rng.UniformDouble() < params.handicap_fair_komi_prob;
  rules.komi = params.handicap_komi;
  go::GameState state(board, rules, go::Color::kWhite, max_moves);
  if (fair) state.set_komi(FairKomi(params, state, evaluator, rng));
  return state;
}

// The start of an even game: the komi drawn from `komis`, made fair under komi_auto.
go::GameState EvenStart(const GameParams& params, int size, go::Rules rules, int max_moves,
                        search::LeafEvaluator& evaluator, Rng& rng) {
  rules.komi = DrawWeighted(params.komis, rng);
  if (params.komi_auto)
    rules.komi = FairKomi(params, go::GameState(size, rules, max_moves), evaluator, rng);
  return go::GameState(size, rules, max_moves);
}

// The position a game's first search starts from: its board size, an even or a handicap start
// (game->handicap_stones) and the opening from the raw policy (PlayPolicyOpening; their number
// goes to game->opening_moves).
go::GameState StartPosition(const GameParams& params, const Player& black, const Player& white,
                            Rng& rng, FinishedGame* game) {
  const int size = DrawWeighted(params.board_sizes, rng);
  nn::CheckBoardFits(size, params.pos_len);
  const int max_moves = static_cast<int>(std::ceil(params.max_moves_per_area * size * size));
  if (params.handicap_game_prob > 0 && rng.UniformDouble() < params.handicap_game_prob)
    game->handicap_stones = params.handicap_stones;
  go::GameState state =
      game->handicap_stones > 0
          ? HandicapStart(params, size, game->handicap_stones, params.rules, max_moves,
                          *black.evaluator, rng)
          : EvenStart(params, size, params.rules, max_moves, *black.evaluator, rng);
  game->opening_moves = PlayPolicyOpening(params, *black.evaluator, *white.evaluator, rng, &state);
  return state;
}

// The premature-pass check (GameParams::premature_pass_checks): before the game's first pass,
// and while the game has refusals left, a pass the search chose is dropped from `result` when
// the opponent's search of the position after it would answer in the mover's area. True when
// it was dropped.
bool RefusePrematurePass(const GameParams& params, const go::GameState& state,
                         search::LeafEvaluator& opponent, int turn_visits, int refused, Rng& rng,
                         search::SearchResult* result) {
  if (result->best_move != go::kPassLoc || state.passes() > 0) return false;
  if (refused >= params.premature_pass_checks) return false;
  const int visits =
      params.premature_pass_check_visits > 0 ? params.premature_pass_check_visits : turn_visits;
  return search::PassLeavesPoints(params.search, state, opponent, visits, rng) &&
         result->DropPass();
}

// Writes each row as often as RowRepeats says (its weight, GameParams::policy_surprise_weight).
void RepeatRows(double surprise_weight, const std::vector<double>& weights,
                const std::vector<double>& surprises, Rng& rng,
                std::vector<data::TrainingRow>* rows) {
  const std::vector<int> repeats = search::RowRepeats(weights, surprises, surprise_weight, rng);
  std::vector<data::TrainingRow> weighted;
  for (size_t i = 0; i < rows->size(); ++i)
    for (int k = 0; k < repeats[i]; ++k) weighted.push_back((*rows)[i]);
  *rows = std::move(weighted);
}

// Gives the row recorded at the previous turn, if one waits, this turn's search policy as its
// opponent's-reply target.
void AttachOpponentPolicy(const search::SearchResult& result, int pos_len, int* awaiting_reply,
                          FinishedGame* game) {
  if (*awaiting_reply < 0) return;
  data::TrainingRow& row = game->rows[static_cast<size_t>(*awaiting_reply)];
  row.opponent_policy = RowPolicy(result, pos_len);
  row.opponent_policy_weight = 1;
  *awaiting_reply = -1;
}

}  // namespace

bool PlayGame(const GameParams& params, const Player& black, const Player& white, uint64_t seed,
              const std::function<bool()>& stop, FinishedGame* game) {
  Rng rng(seed);
  *game = FinishedGame();
  game->seed = seed;
  // From entropy, not from the seed: a master seed reused across restarts replays the same
  // games, and their rows must still get game ids of their own.
  game->game_id = static_cast<int64_t>(Rng().Next() >> 1);
  go::GameState state = StartPosition(params, black, white, rng, game);
  const int size = state.size();
  // One search tree per player; selfplay's two players share an evaluator but not a tree, so
  // that each side's tree is reused across its own moves only after the opponent's reply.
  search::Search black_search(params.search, *black.evaluator, rng);
  search::Search white_search(params.search, *white.evaluator, rng);
  black_search.SetPosition(state);
  white_search.SetPosition(state);
  search::ResignTracker resign(params.resign, rng);
  std::vector<go::Color> row_movers;
  std::vector<double> row_surprises;
  std::vector<double> row_weights;
  std::vector<double> black_values;           // each search's root value, black's view
  std::vector<go::GameState> side_positions;  // searched once the game is over
  // The index of the row recorded at the previous turn, which waits for the opponent's reply:
  // this turn's search (-1: none).
  int awaiting_reply = -1;

  while (!state.IsOver()) {
    if (stop()) return false;
    const go::Color mover = state.to_move();
    search::Search& searcher = mover == go::Color::kBlack ? black_search : white_search;
    const Player& opponent = mover == go::Color::kBlack ? white : black;
    search::SearchPlan plan = search::DrawSearchPlan(params.playout_cap, rng);
    search::ReduceForLopsidedGame(params.playout_cap, black_values, &plan);
    if (plan.reduced) ++game->reduced_searches;
    // KataGo clears the tree before full searches so that root noise acts on a fresh tree.
    if (plan.full_search) searcher.ClearTree();
    search::SearchResult result = searcher.Run(plan.visits, plan.full_search, stop);
    if (stop()) return false;  // the search was cut short: drop the game
    if (RefusePrematurePass(params, state, *opponent.evaluator, plan.visits, game->passes_refused,
                            rng, &result))
      ++game->passes_refused;
    game->search_visits += result.root_visits;
    black_values.push_back(mover == go::Color::kBlack ? result.root_value : -result.root_value);
    AttachOpponentPolicy(result, params.pos_len, &awaiting_reply, game);
    if (resign.Update(mover, result.root_value)) {
      game->resigned = true;
      game->end = GameEnd::kResignation;
      game->winner = go::Opponent(mover);
      break;
    }
    if (params.record_rows && plan.record_row) {
      game->rows.push_back(StartRow(params, state, result, game->game_id));
      awaiting_reply = static_cast<int>(game->rows.size()) - 1;
      row_movers.push_back(mover);
      row_surprises.push_back(search::PolicySurprise(result));
      row_weights.push_back(plan.row_weight);
    }
    const go::Loc loc = result.ChooseMove(
        MoveTemperature(params, static_cast<int>(state.moves().size()), size), rng);
    NoteSidePosition(params, state, result, loc, rng, &side_positions);
    const go::Move move{loc, mover};
    state.Play(move);
    black_search.Advance(move);
    white_search.Advance(move);
    if (params.end_when_pass_alive && loc != go::kPassLoc &&
        go::WholeBoardPassAlive(state.board())) {
      game->end = GameEnd::kPassAlive;
      break;
    }
  }

  ScoreAndRecord(params, state, state.rules().komi, black, white, seed, row_movers, black_values,
                 game);
  RepeatRows(params.policy_surprise_weight, row_weights, row_surprises, rng, &game->rows);
  game->side_rows = SearchSidePositions(params, black, white, game->game_id, rng, stop,
                                        std::move(side_positions), &game->rows);
  return true;
}

}  // namespace tengen::play
