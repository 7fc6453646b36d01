#pragma once
// Subtree value bias correction (subtree_bias_factor; KataGo's subtreeValueBiasFactor). A net
// tends to misjudge a local shape the same way wherever it meets it. Every node below the root
// whose move and the move before it are both on the board has a key (SubtreeBiasKey: the two
// moves, the mover, the ko point and the 5x5 neighbourhood of its move after it was played,
// stones and which of them are in atari), and nodes with one key share an entry. Each expanded
// node keeps in its entry, weighted by (its visits below itself)^subtree_bias_weight_exponent,
// how far the mean of the playouts below it lies from its own net evaluation, in value and in
// score. A node expanded later starts from its net evaluation moved by subtree_bias_factor
// times its entry's weighted mean difference (the value kept within [-1, 1]). The entries last
// for the game: SetPosition starts afresh, and when a subtree is dropped (tree reuse,
// ClearTree) subtree_bias_free_prop of each of its nodes' contributions is taken back out.
//
// The Search members that keep the entries are defined in subtree_bias.cpp; this header has
// the key, which does not need a Search.

#include <cstdint>

#include "go/game.h"

namespace tengen::search {

// The subtree value bias key of the node reached by the last move of `state` (above);
// 0 when that move or the one before it is a pass or missing (such nodes have no entry).
uint64_t SubtreeBiasKey(const go::GameState& state);

}  // namespace tengen::search
