#include "analysis/analysis_query.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "gtp/kata_rules.h"
#include "util/text.h"

namespace tengen::analysis {
namespace {

using Json = nlohmann::json;

constexpr double kMaxKomi = 150;  // KataGo's bound
constexpr int kMaxVisitsLimit = 100000000;

// Reads a query's fields, each failure a QueryError naming the field.
class FieldReader {
 public:
  FieldReader(const Json& query, std::string id) : query_(query), id_(std::move(id)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw QueryError(id_, field, field + ": " + message);
  }
  bool Has(const std::string& field) const { return query_.contains(field); }
  const Json& At(const std::string& field) const { return query_.at(field); }

  bool Bool(const Json& value, const std::string& field) const {
    if (!value.is_boolean()) Fail(field, "expected true or false, got " + value.dump());
    return value.get<bool>();
  }
  // An optional true/false field: false when absent.
  bool Flag(const std::string& field) const { return Has(field) && Bool(At(field), field); }
  double Number(const Json& value, const std::string& field, double low, double high) const {
    if (!value.is_number()) Fail(field, "expected a number, got " + value.dump());
    const double x = value.get<double>();
    if (!(x >= low && x <= high)) {
      Fail(field, StrCat(value.dump(), " is not in [", low, ", ", high, "]"));
    }
    return x;
  }
  int Integer(const Json& value, const std::string& field, int low, int high) const {
    if (!value.is_number_integer()) Fail(field, "expected an integer, got " + value.dump());
    return static_cast<int>(Number(value, field, low, high));
  }
  std::string String(const Json& value, const std::string& field) const {
    if (!value.is_string()) Fail(field, "expected a string, got " + value.dump());
    return value.get<std::string>();
  }
  std::vector<int> Integers(const Json& value, const std::string& field, int low, int high) const {
    if (!value.is_array()) Fail(field, "expected a list of integers, got " + value.dump());
    std::vector<int> out;
    for (const Json& entry : value) out.push_back(Integer(entry, field, low, high));
    return out;
  }
  const std::string& id() const { return id_; }

 private:
  const Json& query_;
  std::string id_;
};

go::Color ParsePlayer(const FieldReader& in, const Json& value, const std::string& field) {
  const std::string text = in.String(value, field);
  if (text == "B" || text == "b") return go::Color::kBlack;
  if (text == "W" || text == "w") return go::Color::kWhite;
  in.Fail(field, "player '" + text + "' is not B or W");
}

// [["B","C4"], ...]: colours and points (passes only where allow_pass).
std::vector<go::Move> ParseMoves(const FieldReader& in, const std::string& field, int size,
                                 bool allow_pass) {
  std::vector<go::Move> moves;
  if (!in.Has(field)) return moves;
  const Json& list = in.At(field);
  if (!list.is_array()) in.Fail(field, "expected a list of [player, location] pairs");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& pair = list[i];
    if (!pair.is_array() || pair.size() != 2) {
      in.Fail(field, StrCat("entry ", i, " is ", pair.dump(), ", not a [player, location] pair"));
    }
    go::Move move;
    move.color = ParsePlayer(in, pair[0], field);
    const std::string vertex = in.String(pair[1], field);
    if (!go::ParseGtpVertex(vertex, size, &move.loc) || (move.loc == go::kPassLoc && !allow_pass)) {
      in.Fail(field, StrCat("entry ", i, ": '", vertex, "' is not a point of a ", size, "x", size,
                            " board"));
    }
    moves.push_back(move);
  }
  return moves;
}

go::Rules ParseRules(const FieldReader& in) {
  if (!in.Has("rules"))
    in.Fail("rules",
            "missing (a rules name such as tromp-taylor, or a JSON "
            "dictionary as kata-set-rules takes)");
  const Json& value = in.At("rules");
  if (!value.is_string() && !value.is_object()) {
    in.Fail("rules", "expected a rules name or a JSON dictionary, got " + value.dump());
  }
  go::Rules rules;
  std::string error;
  if (!gtp::ParseKataRules(value.is_string() ? value.get<std::string>() : value.dump(), &rules,
                           &error)) {
    in.Fail("rules", error);
  }
  if (in.Has("whiteHandicapBonus")) {
    const std::string bonus = in.String(in.At("whiteHandicapBonus"), "whiteHandicapBonus");
    if (bonus != "0") {
      in.Fail("whiteHandicapBonus", "'" + bonus +
                                        "' is not supported: tengen gives white no "
                                        "bonus for handicap stones (0); add it to komi instead");
    }
  }
  if (in.Has("komi")) {
    const double komi = in.Number(in.At("komi"), "komi", -kMaxKomi, kMaxKomi);
    if (komi * 2 != std::floor(komi * 2)) in.Fail("komi", "must be an integer or half-integer");
    rules.komi = komi;
  }
  return rules;
}

int ParseBoardSize(const FieldReader& in, const QueryDefaults& defaults) {
  for (const char* field : {"boardXSize", "boardYSize"}) {
    if (!in.Has(field)) in.Fail(field, "missing");
  }
  const int x = in.Integer(in.At("boardXSize"), "boardXSize", go::kMinSize, 1000);
  const int y = in.Integer(in.At("boardYSize"), "boardYSize", go::kMinSize, 1000);
  if (x != y)
    in.Fail("boardYSize", StrCat(y, " is not boardXSize ", x,
                                 ": tengen plays square "
                                 "boards only"));
  if (x > defaults.max_board_size) {
    in.Fail("boardXSize",
            StrCat(x, " is larger than the net's boards (pos_len ", defaults.max_board_size, ")"));
  }
  return x;
}

// The game's start (initial stones, first player) and its moves into *query, each move checked
// legal in turn.
void ReadGame(const FieldReader& in, int size, const go::Rules& rules, AnalysisQuery* query) {
  go::Board initial(size);
  for (const go::Move& stone : ParseMoves(in, "initialStones", size, /*allow_pass=*/false)) {
    if (initial.At(stone.loc) != go::Color::kEmpty) {
      in.Fail("initialStones", "two stones on " + go::LocToGtp(stone.loc, size));
    }
    try {
      initial.SetStone(stone.loc, stone.color);
    } catch (const std::exception& e) {
      in.Fail("initialStones", e.what());
    }
  }
  query->moves = ParseMoves(in, "moves", size, /*allow_pass=*/true);
  const std::vector<go::Move>& moves = query->moves;
  go::Color first = moves.empty() ? go::Color::kBlack : moves[0].color;
  if (in.Has("initialPlayer")) first = ParsePlayer(in, in.At("initialPlayer"), "initialPlayer");
  query->start = go::GameState(initial, rules, first);
  go::GameState game = query->start;
  for (size_t i = 0; i < moves.size(); ++i) {
    const go::Illegal reason = game.Check(moves[i]);
    if (reason != go::Illegal::kNone) {
      in.Fail("moves",
              StrCat("Illegal move ", i, ": ", go::ColorLetter(moves[i].color), " ",
                     go::LocToGtp(moves[i].loc, size), " (", go::IllegalName(reason), ")"));
    }
    game.Play(moves[i]);
  }
}

// overrideSettings: the keys with a counterpart in tengen's search; warnings for the others.
void ApplyOverrides(const FieldReader& in, AnalysisQuery* query,
                    std::vector<QueryWarning>* warnings) {
  if (!in.Has("overrideSettings")) return;
  const Json& settings = in.At("overrideSettings");
  if (!settings.is_object()) in.Fail("overrideSettings", "expected a JSON dictionary");
  search::SearchParams& s = query->search;
  const std::map<std::string, std::function<void(const Json&, const std::string&)>> setters = {
      {"maxVisits",
       [&](const Json& v, const std::string& f) {
         query->max_visits = in.Integer(v, f, 1, kMaxVisitsLimit);
       }},
      {"maxTime",
       [&](const Json& v, const std::string& f) { query->max_time = in.Number(v, f, 0, 1e9); }},
      {"reportAnalysisWinratesAs",
       [&](const Json& v, const std::string& f) {
         try {
           query->perspective = ParsePerspective(in.String(v, f));
         } catch (const std::invalid_argument& e) {
           in.Fail(f, e.what());
         }
       }},
      {"analysisPVLen",
       [&](const Json& v, const std::string& f) {
         query->max_pv_length = in.Integer(v, f, 1, 1000);
       }},
      {"cpuctExploration",
       [&](const Json& v, const std::string& f) { s.cpuct = in.Number(v, f, 0, 100); }},
      {"fpuReductionMax",
       [&](const Json& v, const std::string& f) { s.fpu_reduction = in.Number(v, f, 0, 10); }},
      {"winLossUtilityFactor",
       [&](const Json& v, const std::string& f) { s.win_loss_utility = in.Number(v, f, 0, 100); }},
      {"staticScoreUtilityFactor",
       [&](const Json& v, const std::string& f) {
         s.static_score_utility = in.Number(v, f, 0, 100);
       }},
      {"dynamicScoreUtilityFactor",
       [&](const Json& v, const std::string& f) {
         s.dynamic_score_utility = in.Number(v, f, 0, 100);
       }},
      {"dynamicScoreCenterZeroWeight",
       [&](const Json& v, const std::string& f) {
         s.dynamic_score_center_zero_weight = in.Number(v, f, 0, 1);
       }},
      {"dynamicScoreCenterScale",
       [&](const Json& v, const std::string& f) {
         s.dynamic_score_center_scale = in.Number(v, f, 0.01, 100);
       }},
  };
  for (auto it = settings.begin(); it != settings.end(); ++it) {
    const std::string field = "overrideSettings." + it.key();
    const auto setter = setters.find(it.key());
    if (setter == setters.end()) {
      warnings->push_back({field, "not used: tengen's search has no such setting"});
    } else {
      setter->second(it.value(), field);
    }
  }
}

// Fields KataGo reads that tengen accepts without acting on them, when they ask for something.
void WarnUnsupported(const FieldReader& in, std::vector<QueryWarning>* warnings) {
  for (const char* field :
       {"includeMovesOwnership", "includeMovesOwnershipStdev", "includeOwnershipStdev"}) {
    if (in.Flag(field)) {
      warnings->push_back({field, "not supported: tengen reports the root's ownership only"});
    }
  }
  for (const char* field : {"avoidMoves", "allowMoves"}) {
    if (in.Has(field) && !(in.At(field).is_array() && in.At(field).empty())) {
      warnings->push_back({field, "not supported: every legal move is searched"});
    }
  }
  for (const char* field : {"rootPolicyTemperature", "rootFpuReductionMax"}) {
    if (in.Has(field)) warnings->push_back({field, "not used: tengen's analysis search has none"});
  }
}

AnalysisQuery ParseAnalysis(const FieldReader& in, const QueryDefaults& defaults,
                            std::vector<QueryWarning>* warnings) {
  AnalysisQuery query;
  query.id = in.id();
  query.max_visits = defaults.max_visits;
  query.max_time = defaults.max_time;
  query.perspective = defaults.perspective;
  query.search = defaults.search;
  query.max_pv_length = defaults.max_pv_length;
  const int size = ParseBoardSize(in, defaults);
  ReadGame(in, size, ParseRules(in), &query);
  const int last = static_cast<int>(query.moves.size());
  std::vector<int> turns = {last};
  if (in.Has("analyzeTurns")) turns = in.Integers(in.At("analyzeTurns"), "analyzeTurns", 0, last);
  if (turns.empty()) in.Fail("analyzeTurns", "no turn to analyse");
  std::vector<int> priorities(turns.size(), 0);
  if (in.Has("priority")) {
    priorities.assign(turns.size(), in.Integer(in.At("priority"), "priority", -(1 << 30), 1 << 30));
  }
  if (in.Has("priorities")) {
    priorities = in.Integers(in.At("priorities"), "priorities", -(1 << 30), 1 << 30);
    if (priorities.size() != turns.size()) {
      in.Fail("priorities", StrCat(priorities.size(), " entries for ", turns.size(), " turns"));
    }
  }
  for (size_t i = 0; i < turns.size(); ++i) {
    query.turns.push_back({turns[i], priorities[i]});
  }
  if (in.Has("maxVisits")) {
    query.max_visits = in.Integer(in.At("maxVisits"), "maxVisits", 1, kMaxVisitsLimit);
  }
  query.include_ownership = in.Flag("includeOwnership");
  query.include_policy = in.Flag("includePolicy");
  query.include_pv_visits = in.Flag("includePVVisits");
  if (in.Has("reportDuringSearchEvery")) {
    query.report_every =
        in.Number(in.At("reportDuringSearchEvery"), "reportDuringSearchEvery", 0.001, 1e6);
  }
  ApplyOverrides(in, &query, warnings);
  WarnUnsupported(in, warnings);
  return query;
}

ActionQuery ParseAction(const FieldReader& in, const Json& echo) {
  ActionQuery action;
  action.id = in.id();
  action.action = in.String(in.At("action"), "action");
  action.echo = echo;
  if (action.action == "terminate") {
    if (!in.Has("terminateId")) in.Fail("terminateId", "missing: the id of the query to end");
    action.terminate_id = in.String(in.At("terminateId"), "terminateId");
  } else if (action.action != "terminate_all" && action.action != "query_version" &&
             action.action != "clear_cache") {
    in.Fail("action", "'" + action.action +
                          "' is not one of query_version, clear_cache, terminate, terminate_all");
  }
  if (in.Has("turnNumbers") && (action.action == "terminate" || action.action == "terminate_all")) {
    action.turn_numbers = in.Integers(in.At("turnNumbers"), "turnNumbers", 0, 1 << 30);
  }
  return action;
}

}  // namespace

Perspective ParsePerspective(const std::string& name) {
  if (name == "BLACK" || name == "black") return Perspective::kBlack;
  if (name == "WHITE" || name == "white") return Perspective::kWhite;
  if (name == "SIDETOMOVE" || name == "sidetomove") return Perspective::kSideToMove;
  throw std::invalid_argument("'" + name + "' is not BLACK, WHITE or SIDETOMOVE");
}

go::GameState PositionAt(const AnalysisQuery& query, int turn) {
  go::GameState state = query.start;
  for (int i = 0; i < turn; ++i) state.Play(query.moves[static_cast<size_t>(i)]);
  return state;
}

ParsedQuery ParseQuery(const std::string& line, const QueryDefaults& defaults) {
  Json json;
  try {
    json = Json::parse(line);
  } catch (const Json::exception& e) {
    throw QueryError("", "", std::string("could not parse the line as JSON: ") + e.what());
  }
  if (!json.is_object()) throw QueryError("", "", "a query is a JSON dictionary");
  if (!json.contains("id")) throw QueryError("", "id", "id: missing");
  if (!json.at("id").is_string()) {
    throw QueryError("", "id", "id: expected a string, got " + json.at("id").dump());
  }
  const FieldReader in(json, json.at("id").get<std::string>());
  ParsedQuery parsed;
  if (json.contains("action")) {
    parsed.action = ParseAction(in, json);
  } else {
    parsed.analysis = ParseAnalysis(in, defaults, &parsed.warnings);
    static const std::set<std::string> known = {"id",
                                                "moves",
                                                "initialStones",
                                                "initialPlayer",
                                                "rules",
                                                "komi",
                                                "boardXSize",
                                                "boardYSize",
                                                "analyzeTurns",
                                                "maxVisits",
                                                "includeOwnership",
                                                "includePolicy",
                                                "includePVVisits",
                                                "priority",
                                                "priorities",
                                                "reportDuringSearchEvery",
                                                "overrideSettings",
                                                "whiteHandicapBonus",
                                                "includeMovesOwnership",
                                                "includeMovesOwnershipStdev",
                                                "includeOwnershipStdev",
                                                "avoidMoves",
                                                "allowMoves",
                                                "rootPolicyTemperature",
                                                "rootFpuReductionMax"};
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (!known.count(it.key())) {
        parsed.warnings.push_back({it.key(), "unexpected or unused field"});
      }
    }
  }
  return parsed;
}

}  // namespace tengen::analysis
