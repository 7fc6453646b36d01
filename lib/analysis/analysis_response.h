#pragma once
// The response lines of the JSON analysis engine (KataGo's docs/Analysis_Engine.md): a searched
// position (moveInfos, rootInfo, ownership, policy), a position ended before its search began
// (noResults), an error and a warning. Values are from the query's perspective (BLACK by
// default, as KataGo's example analysis config reports them); docs/ANALYSIS.md says which of
// KataGo's fields tengen writes and how each is computed.

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/analysis_query.h"
#include "search/mcts.h"

namespace tengen::analysis {

// The response for `turn` of `query` from the search on its position (`result` is what the
// search's last Run returned); during_search: a report before the search's end.
nlohmann::json SearchResponse(const AnalysisQuery& query, const Turn& turn,
                              const search::Search& search, const search::SearchResult& result,
                              bool during_search);

// A position terminated before its search began.
nlohmann::json NoResultsResponse(const std::string& id, int turn);

nlohmann::json ErrorResponse(const QueryError& error);
nlohmann::json WarningResponse(const std::string& id, const QueryWarning& warning);

// A 64-bit hash of the position (stones, side to move, simple-ko ban) as 16 hex digits; with
// symmetric, the same for positions that differ by a symmetry of the board.
std::string PositionHash(const go::GameState& state, bool symmetric);

}  // namespace tengen::analysis
