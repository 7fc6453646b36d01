#include "play/side_positions.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "search/leaf_evaluator.h"

namespace tengen::play {

go::Loc DrawSideMove(const std::vector<float>& priors, const go::GameState& state, go::Loc banned,
                     Rng& rng) {
  const int size = state.size();
  const go::Color mover = state.to_move();
  const double r = rng.UniformDouble();
  // 0: uniform among the legal points.
  const double temperature = r < 0.70 ? 1.0 : r < 0.95 ? 2.0 : 0.0;
  std::vector<double> weights(static_cast<size_t>(size) * size + 1, 0.0);
  for (int index = 0; index <= size * size; ++index) {
    const go::Loc loc = search::IndexToLoc(index, size);
    const double prior = std::max(0.0f, priors[static_cast<size_t>(index)]);
    if (loc == banned) continue;
    if (loc == go::kPassLoc) {
      if (temperature <= 0 || prior <= 0) continue;
    } else if (state.board().At(loc) != go::Color::kEmpty || !state.IsLegal({loc, mover})) {
      continue;
    }
    weights[static_cast<size_t>(index)] =
        temperature <= 0 ? 1.0 : std::pow(prior, 1.0 / temperature);
  }
  const int chosen = DrawIndex(weights, rng);
  return chosen < 0 ? go::kNullLoc : search::IndexToLoc(chosen, size);
}

void NoteSidePosition(const GameParams& params, const go::GameState& state,
                      const search::SearchResult& result, go::Loc played, Rng& rng,
                      std::vector<go::GameState>* positions) {
  if (!params.record_rows || params.side_position_prob <= 0 ||
      rng.UniformDouble() >= params.side_position_prob)
    return;
  const go::Loc move = DrawSideMove(result.net_priors, state, played, rng);
  if (move == go::kNullLoc) return;
  go::GameState side = state;
  side.Play({move, state.to_move()});
  if (!side.IsOver()) positions->push_back(std::move(side));
}

data::TrainingRow SideRow(const GameParams& params, const go::GameState& state,
                          const search::SearchResult& result, int64_t game_id) {
  data::TrainingRow row = StartRow(params, state, result, game_id);
  const double v = result.root_value;
  row.value[0] = static_cast<float>((1 + v) / 2);
  row.value[1] = static_cast<float>((1 - v) / 2);
  row.value[2] = 0;
  row.score = 0;
  row.score_weight = 0;
  row.ownership.assign(static_cast<size_t>(params.pos_len) * params.pos_len, 0);
  row.ownership_weight = 0;
  return row;
}

int SearchSidePositions(const GameParams& params, const Player& black, const Player& white,
                        int64_t game_id, Rng& rng, const std::function<bool()>& stop,
                        std::vector<go::GameState> positions,
                        std::vector<data::TrainingRow>* rows) {
  int added = 0;
  // Indices, not iterators: an extended side line appends to `positions`.
  for (size_t i = 0; i < positions.size(); ++i) {
    if (stop()) break;
    const go::GameState side = positions[i];
    const Player& mover = side.to_move() == go::Color::kBlack ? black : white;
    search::Search search(params.search, *mover.evaluator, rng);
    search.SetPosition(side);
    const search::SearchResult result = search.Run(params.playout_cap.full_visits, true, stop);
    if (stop()) break;  // the search was cut short: no row from it
    rows->push_back(SideRow(params, side, result, game_id));
    ++added;
    if (rng.UniformDouble() >= kSideLineExtension) continue;
    go::GameState next = side;
    next.Play({result.best_move, side.to_move()});
    if (next.IsOver()) continue;
    const Player& other = next.to_move() == go::Color::kBlack ? black : white;
    const go::Loc fork =
        DrawSideMove(other.evaluator->Evaluate(next).policy, next, go::kNullLoc, rng);
    if (fork == go::kNullLoc) continue;
    next.Play({fork, next.to_move()});
    if (!next.IsOver()) positions.push_back(std::move(next));
  }
  return added;
}

}  // namespace tengen::play
