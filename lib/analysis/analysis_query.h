#pragma once
// The queries of KataGo's JSON analysis engine (KataGo's docs/Analysis_Engine.md), read from one
// line each: an analysis query (a game record, the turns of it to analyse and how) or an action
// (query_version, clear_cache, terminate, terminate_all). docs/ANALYSIS.md lists the fields
// tengen reads, what each maps to, and what it does not do.
//
// A field tengen cannot honour in full is either an error (the query is refused: a bad value,
// an illegal move, a board the net cannot hold, rules tengen does not play) or a warning (the
// query runs without it: a field tengen does not know, a search setting with no counterpart in
// tengen's search). Both name the field, as KataGo's responses do.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "go/game.h"
#include "search/mcts.h"

namespace tengen::analysis {

// Whose view winrates, score leads and ownership are reported from (KataGo's
// reportAnalysisWinratesAs: BLACK, WHITE or SIDETOMOVE).
enum class Perspective { kBlack, kWhite, kSideToMove };
Perspective ParsePerspective(const std::string& name);  // std::invalid_argument for others

// What a query starts from before its own fields and overrideSettings (the program's options).
struct QueryDefaults {
  int max_visits = 500;
  double max_time = 0;  // seconds per position, 0: no limit
  Perspective perspective = Perspective::kBlack;
  search::SearchParams search;
  int max_board_size = go::kMaxSize;  // the net's pos_len
  int max_pv_length = 15;
};

struct QueryError : std::runtime_error {
  QueryError(std::string query_id, std::string query_field, const std::string& message)
      : std::runtime_error(message), id(std::move(query_id)), field(std::move(query_field)) {}
  std::string id;     // "" when the line had none
  std::string field;  // "" for an error of the whole line
};

struct QueryWarning {
  std::string field;
  std::string message;
};

// One position of a query: the game up to turn `turn` (0: before moves[0]; PositionAt).
struct Turn {
  int turn = 0;
  int priority = 0;
};

struct AnalysisQuery {
  std::string id;
  // The game: its start (setup stones, rules, komi, first player) and its moves, every one
  // checked legal when the query was read. Positions are replayed when searched, not kept
  // per turn: a game of n moves would otherwise hold n^2 / 2 boards of undo history.
  go::GameState start;
  std::vector<go::Move> moves;
  std::vector<Turn> turns;  // in analyzeTurns' order
  int max_visits = 0;
  double max_time = 0;
  Perspective perspective = Perspective::kBlack;
  search::SearchParams search;
  bool include_ownership = false;
  bool include_policy = false;
  bool include_pv_visits = false;
  double report_every = 0;  // seconds between isDuringSearch reports, 0: none
  int max_pv_length = 15;
};

struct ActionQuery {
  std::string id;
  std::string action;        // query_version, clear_cache, terminate, terminate_all
  nlohmann::json echo;       // the query as given: its response repeats it
  std::string terminate_id;  // terminate
  std::optional<std::vector<int>> turn_numbers;  // terminate, terminate_all: only these turns
};

struct ParsedQuery {
  std::optional<AnalysisQuery> analysis;  // one of the two
  std::optional<ActionQuery> action;
  std::vector<QueryWarning> warnings;
};

// Parses one line; QueryError (with the id when the line has one) for anything refused.
ParsedQuery ParseQuery(const std::string& line, const QueryDefaults& defaults);

// The position at `turn` of the query's game: its start with the first `turn` moves played.
go::GameState PositionAt(const AnalysisQuery& query, int turn);

}  // namespace tengen::analysis
