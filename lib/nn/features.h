#pragma once
// Net input features, version 1. The same code fills the inputs for selfplay, for the rows the
// trainer reads and for export checks, so the three can never disagree.
//
// Spatial planes, [kNumSpatialFeatures][pos_len][pos_len] float, row-major with y = 0 the top
// row, everything from the view of the side to move, for a board of size <= pos_len placed in
// the top-left corner (points beyond the board are 0 in every plane):
//   0  on board (1 on the board's points)
//   1  own stones
//   2  opponent stones
//   3  stones (either colour) whose chain has exactly 1 liberty
//   4  ... exactly 2 liberties
//   5  ... 3 or more liberties
//   6  the point the side to move may not play because of simple ko
//   7..11  where the last 1..5 moves were played (empty for passes and missing moves)
// Global inputs, [kNumGlobalFeatures] float:
//   0  komi from the side to move's view (komi if white is to move, -komi if black) / 20
//   1  1 if the ko rule is positional superko, else 0 (simple ko)
//   2  1 if multi-stone suicide is allowed
//   3..7  1 if the last 1..5 moves were passes
//
// Symmetry s (go/symmetry.h) is applied to every spatial plane: the value for point p is
// written at SymmetricLoc(p, s). The policy output of a net fed symmetry s must be mapped back
// with the inverse symmetry.

#include <optional>
#include <vector>

#include "go/game.h"

namespace tengen::nn {

constexpr int kFeatureVersion = 1;
constexpr int kNumSpatialFeatures = 12;
constexpr int kNumGlobalFeatures = 8;

// The rules the global inputs 1 and 2 tell the net, where they are not the game's: a net reads
// only the rules its selfplay varied, so an engine may tell it the rules it was trained under
// whatever the game's (the game itself is still played and scored by its own). Unset: the
// game's rule.
struct RulesInputs {
  std::optional<go::KoRule> ko;
  std::optional<bool> suicide;
};

// Writes kNumSpatialFeatures * pos_len * pos_len floats to `spatial` and kNumGlobalFeatures
// floats to `global`. Requires state.size() <= pos_len.
void FillFeatures(const go::GameState& state, int pos_len, int symmetry, float* spatial,
                  float* global, const RulesInputs& told = {});

// Policy index of a location for a net with this pos_len: y * pos_len + x, pass is
// pos_len * pos_len.
int PolicyIndex(go::Loc loc, int board_size, int pos_len);

// Throws ConfigError when a board of `size` does not fit a net input of pos_len x pos_len.
void CheckBoardFits(int size, int pos_len);

}  // namespace tengen::nn
