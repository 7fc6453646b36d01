#pragma once
// Gumbel root selection (gumbel: in cheap or in all searches; Danihelka et al. 2022, "Policy
// improvement by planning with Gumbel") in place of PUCT at the root: each move with a prior
// gets a key log P + g, g drawn from Gumbel(0, 1), and the gumbel_moves moves with the largest
// keys are considered. Sequential halving spreads the search's visits over them in
// rounds, each round over the better half of the last one's moves (by key + sigma(Q)), each of
// them visited equally often (the schedule of DeepMind's reference implementation, mctx:
// SequentialHalvingVisits). sigma(Q) = (gumbel_c_visit + the most visits of a root child) *
// gumbel_c_scale * Q', where Q' is a move's utility (an unvisited move's: the mix of the net's
// value of the root and the visited moves' utilities weighted by their priors), penalised by
// the ending bonus and rescaled to [0, 1] over the moves with a prior. The move to play is the
// one with the largest key + sigma(Q) among the most visited (the Gumbel draw is the
// exploration: no temperature applies to it), and the policy target is softmax(log P +
// sigma(Q)) over every move with a prior, visited or not. Such a search starts from a fresh
// tree and adds no Dirichlet noise, root temperature or forced playouts; below the root it is
// PUCT (search/mcts.h). With gumbel_after_pass false, every search of a game that has had a
// pass is PUCT's.
//
// The Search members that do it are defined in gumbel.cpp (Search::PrepareGumbel and the
// rest); this header has what does not need a Search.

#include <string>
#include <vector>

namespace tengen::search {

// Which searches select the root's children by Gumbel sequential halving (above).
enum class Gumbel { kOff, kCheap, kAll };
// "off", "cheap", "all"; ParseGumbel throws ConfigError for another name.
const char* GumbelName(Gumbel use);
std::vector<std::string> GumbelNames();  // every choice's name, in the enum's order
Gumbel ParseGumbel(const std::string& name);

// Sequential halving's schedule for `simulations` visits over `considered` moves: entry k is
// the visits that the child chosen by the k-th simulation has before it (the best by key +
// sigma(Q) among those with exactly that many). Rounds of ceil(log2(considered)): each visits
// the round's moves max(1, simulations / (rounds * moves)) times each, then halves the moves
// (to no fewer than 2) until the budget is spent. considered <= 1: 0, 1, 2, ...
std::vector<int> SequentialHalvingVisits(int considered, int simulations);

}  // namespace tengen::search
