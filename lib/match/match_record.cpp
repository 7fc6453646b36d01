#include "match/match_record.h"

#include <boost/filesystem.hpp>
#include <nlohmann/json.hpp>

#include "go/rules.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::match {
namespace {

using Json = nlohmann::json;

Json CommandJson(const std::vector<std::string>& argv) {
  Json words = Json::array();
  for (const std::string& word : argv) words.push_back(word);
  return words;
}

GameEnd GameEndFromName(const std::string& name) {
  for (GameEnd end :
       {GameEnd::kScored, GameEnd::kMoveCap, GameEnd::kResignation, GameEnd::kForfeit}) {
    if (name == GameEndName(end)) return end;
  }
  throw FormatError("end: '" + name + "' is not a way a game ends");
}

// The winner an SGF result names: "B+...", "W+...", or a draw ("0").
go::Color WinnerOfResult(const std::string& result) {
  if (result == "0") return go::Color::kEmpty;
  if (StartsWith(result, "B+")) return go::Color::kBlack;
  if (StartsWith(result, "W+")) return go::Color::kWhite;
  throw FormatError("result: '" + result + "' is not B+..., W+... or 0");
}

// The n-th finished game (1-based) of the record; its colours must be the match's.
GameOutcome GameFromJson(const Json& j, int n, const std::string names[2],
                         const MatchOptions& options) {
  GameOutcome game;
  game.index = j.at("index").get<int>();
  if (game.index != n) throw FormatError(StrCat("game_list: game ", n, " has index ", game.index));
  game.black_engine = BlackEngineOfGame(options, n);
  const std::string black = j.at("black").get<std::string>();
  if (black != names[game.black_engine]) {
    throw FormatError(StrCat("game ", n, ": black is '", black, "', not '",
                             names[game.black_engine], "' as in this match"));
  }
  game.result = j.at("result").get<std::string>();
  game.winner = WinnerOfResult(game.result);
  game.end = GameEndFromName(j.at("end").get<std::string>());
  game.detail = j.at("detail").get<std::string>();
  game.moves = j.at("moves").get<int>();
  game.cleanup_moves = j.at("cleanup_moves").get<int>();
  game.score = j.at("score").get<double>();
  game.sgf_file = j.at("sgf").get<std::string>();
  return game;
}

// Throws ConfigError when the record's `key` is not this run's.
void RequireSame(const std::string& path, const std::string& key, const Json& recorded,
                 const Json& wanted) {
  if (recorded == wanted) return;
  throw ConfigError(StrCat(path, ": holds a match with ", key, " ", recorded.dump(), ", not ",
                           wanted.dump(),
                           "; its games cannot count in this match: run the same "
                           "match again to go on with it, or give another output_dir"));
}

}  // namespace

std::string MatchReportJson(const MatchReport& report, const MatchOptions& options) {
  Json j;
  j["format"] = "tengen-match";
  j["format_version"] = 1;
  j["time_utc"] = UtcTimestamp();
  j["engines"] = Json::array();
  for (int i = 0; i < 2; ++i) {
    j["engines"].push_back(
        {{"name", report.names[i]}, {"command", CommandJson(report.commands[i])}});
  }
  j["board_size"] = options.board_size;
  j["komi"] = options.rules.komi;
  j["rules"] = go::RulesToSgfText(options.rules);
  j["games_planned"] = options.games;
  j["handicap"] = options.handicap;
  j["handicap_engine"] = options.handicap_engine;
  j["games"] = report.score.games();
  j["complete"] = report.complete;
  j["wins"] = report.score.wins;
  j["losses"] = report.score.losses;
  j["draws"] = report.score.draws;
  j["win_rate"] = report.score.games() > 0 ? report.score.points() / report.score.games() : 0.0;
  j["elo"] = {{"elo", report.elo.elo}, {"low", report.elo.low}, {"high", report.elo.high}};
  j["game_list"] = Json::array();
  for (const GameOutcome& game : report.games) {
    j["game_list"].push_back({{"index", game.index},
                              {"black", report.names[game.black_engine]},
                              {"white", report.names[1 - game.black_engine]},
                              {"result", game.result},
                              {"end", GameEndName(game.end)},
                              {"detail", game.detail},
                              {"moves", game.moves},
                              {"cleanup_moves", game.cleanup_moves},
                              {"score", game.score},
                              {"sgf", game.sgf_file}});
  }
  return j.dump(2) + "\n";
}

std::optional<std::vector<GameOutcome>> ReadMatchRecord(const MatchOptions& options,
                                                        const std::string names[2]) {
  const std::string path = options.output_dir + "/match.json";
  if (!boost::filesystem::exists(path)) return std::nullopt;
  try {
    const Json j = Json::parse(ReadFile(path));
    if (j.at("format").get<std::string>() != "tengen-match") {
      throw FormatError("format: not a tengen-match record");
    }
    if (j.at("format_version").get<int>() != 1) throw FormatError("unknown format_version");
    RequireSame(path, "engine names",
                Json::array({j.at("engines").at(0).at("name"), j.at("engines").at(1).at("name")}),
                Json::array({names[0], names[1]}));
    RequireSame(path, "board_size", j.at("board_size"), options.board_size);
    RequireSame(path, "komi", j.at("komi"), options.rules.komi);
    RequireSame(path, "rules", j.at("rules"), go::RulesToSgfText(options.rules));
    RequireSame(path, "games_planned", j.at("games_planned"), options.games);
    // Records written before handicap games existed hold even games.
    RequireSame(path, "handicap", j.value("handicap", 0), options.handicap);
    if (options.handicap > 0) {
      RequireSame(path, "handicap_engine", j.at("handicap_engine"), options.handicap_engine);
    }
    std::vector<GameOutcome> games;
    for (const Json& entry : j.at("game_list")) {
      games.push_back(GameFromJson(entry, static_cast<int>(games.size()) + 1, names, options));
    }
    if (static_cast<int>(games.size()) > options.games) {
      throw FormatError(
          StrCat("game_list: ", games.size(), " games, more than the ", options.games, " planned"));
    }
    return games;
  } catch (const Json::exception& e) {
    throw FormatError(path + ": not a match record: " + e.what());
  } catch (const FormatError& e) {
    throw FormatError(path + ": " + e.what());
  }
}

}  // namespace tengen::match
