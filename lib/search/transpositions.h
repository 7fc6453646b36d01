#pragma once
// Transpositions in a search tree: how much of it graph search would merge. A tree searches a
// position again for every move order that reaches it (KataGo's graph search makes such nodes
// one). Two nodes hold the same position when the stones, the side to move, the ko point and
// the passes in a row agree (PositionKey); the history before that may differ, which changes
// the net's inputs (its last moves) but not the game from there on, up to superko.
//
// The Search member that walks its tree (Search::CountTranspositions) is defined in
// transpositions.cpp; this header has the key and the counts, which do not need a Search.

#include <cstdint>

#include "go/game.h"

namespace tengen::search {

// The position of `state` for the purpose above.
uint64_t PositionKey(const go::GameState& state);

struct TreeTranspositions {
  // Expanded nodes of the tree (each cost a net evaluation), and how many distinct positions
  // they hold: expanded - distinct evaluations were of a position the tree had already, the
  // ones a graph would have shared (a repeated node's subtree repeats too, and counts so).
  int expanded = 0;
  int distinct = 0;
};

}  // namespace tengen::search
