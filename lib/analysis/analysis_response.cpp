#include "analysis/analysis_response.h"

#include <algorithm>
#include <cstdio>

#include "go/symmetry.h"
#include "go/zobrist.h"
#include "gtp/analysis.h"

namespace tengen::analysis {
namespace {

using Json = nlohmann::json;

constexpr uint64_t kWhiteToMoveKey = 0x9e3779b97f4a7c15ULL;

// +1 when the side to move's view is the report's, -1 when it is the opponent's.
int ReportSign(Perspective perspective, go::Color to_move) {
  if (perspective == Perspective::kSideToMove) return 1;
  const go::Color viewer =
      perspective == Perspective::kBlack ? go::Color::kBlack : go::Color::kWhite;
  return to_move == viewer ? 1 : -1;
}

// A winrate-like fraction in [0, 1] of the side to move, in the report's view.
double Fraction(double side_to_move, int sign) {
  return sign > 0 ? side_to_move : 1 - side_to_move;
}

std::vector<std::string> Vertices(const std::vector<go::Loc>& locs, int size) {
  std::vector<std::string> out;
  for (const go::Loc loc : locs) out.push_back(go::LocToGtp(loc, size));
  return out;
}

Json MoveInfo(const search::RootMoveInfo& info, int order, int sign, int size,
              bool include_pv_visits) {
  const double winrate = (info.value + 1) / 2;
  Json move = {{"move", go::LocToGtp(info.move, size)},
               {"visits", info.visits},
               {"edgeVisits", info.visits},
               {"winrate", Fraction(winrate, sign)},
               {"scoreLead", sign * info.score},
               {"scoreMean", sign * info.score},
               {"scoreSelfplay", sign * info.score},
               {"prior", info.prior},
               {"utility", sign * info.utility},
               {"lcb", Fraction(gtp::WinrateLcb(winrate, info.visits), sign)},
               {"order", order},
               {"pv", Vertices(info.pv, size)}};
  if (include_pv_visits) move["pvVisits"] = info.pv_visits;
  return move;
}

// size * size + 1 entries, row-major from the top-left point, pass last: the net's prior of each
// legal move (as search used it), -1 for illegal moves.
Json Policy(const go::GameState& state, const search::SearchResult& result) {
  const int size = state.size();
  std::vector<float> policy(static_cast<size_t>(size) * size + 1, -1.0f);
  for (size_t i = 0; i < policy.size(); ++i) {
    const go::Loc loc = search::IndexToLoc(static_cast<int>(i), size);
    if (state.IsLegal({loc, state.to_move()})) policy[i] = result.root_priors[i];
  }
  return policy;
}

}  // namespace

std::string PositionHash(const go::GameState& state, bool symmetric) {
  const go::Board& board = state.board();
  uint64_t hash = board.hash();
  if (symmetric) {
    for (int sym = 1; sym < go::kNumSymmetries; ++sym) {
      hash = std::min(hash, go::SymmetricBoard(board, sym).hash());
    }
  }
  if (state.to_move() == go::Color::kWhite) hash ^= kWhiteToMoveKey;
  if (board.ko_loc() != go::kNullLoc && !symmetric) {
    hash ^= go::ZobristStone(board.ko_loc(), board.ko_banned_color()) * 3;
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llX", static_cast<unsigned long long>(hash));
  return text;
}

Json SearchResponse(const AnalysisQuery& query, const Turn& turn, const search::Search& search,
                    const search::SearchResult& result, bool during_search) {
  const go::GameState& root = search.root_state();
  const int size = root.size();
  const int sign = ReportSign(query.perspective, root.to_move());
  std::vector<search::RootMoveInfo> moves = search.RootMoves(query.max_pv_length);
  std::sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) {
    return a.visits != b.visits ? a.visits > b.visits : a.prior > b.prior;
  });
  Json infos = Json::array();
  for (size_t i = 0; i < moves.size(); ++i) {
    infos.push_back(MoveInfo(moves[i], static_cast<int>(i), sign, size, query.include_pv_visits));
  }
  const double winrate = (result.root_value + 1) / 2;
  Json root_info = {{"winrate", Fraction(winrate, sign)},
                    {"scoreLead", sign * result.root_score},
                    {"scoreSelfplay", sign * result.root_score},
                    {"utility", sign * search.RootUtility()},
                    {"lcb", Fraction(gtp::WinrateLcb(winrate, result.root_visits), sign)},
                    {"visits", result.root_visits},
                    {"currentPlayer", go::ColorLetter(root.to_move())},
                    {"thisHash", PositionHash(root, false)},
                    {"symHash", PositionHash(root, true)}};
  Json response = {{"id", query.id},
                   {"turnNumber", turn.turn},
                   {"isDuringSearch", during_search},
                   {"moveInfos", std::move(infos)},
                   {"rootInfo", std::move(root_info)}};
  if (query.include_ownership) {
    std::vector<float> ownership = search.root_ownership();
    ownership.resize(static_cast<size_t>(size) * size, 0.0f);
    for (float& owner : ownership) owner *= static_cast<float>(sign);
    response["ownership"] = ownership;
  }
  if (query.include_policy) response["policy"] = Policy(root, result);
  return response;
}

Json NoResultsResponse(const std::string& id, int turn) {
  return {{"id", id}, {"turnNumber", turn}, {"isDuringSearch", false}, {"noResults", true}};
}

Json ErrorResponse(const QueryError& error) {
  Json response = {{"error", error.what()}};
  if (!error.field.empty()) response["field"] = error.field;
  if (!error.id.empty()) response["id"] = error.id;
  return response;
}

Json WarningResponse(const std::string& id, const QueryWarning& warning) {
  return {{"id", id}, {"warning", warning.message}, {"field", warning.field}};
}

}  // namespace tengen::analysis
