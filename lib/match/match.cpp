#include "match/match.h"

#include <boost/filesystem.hpp>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "go/game.h"
#include "go/handicap.h"
#include "go/score.h"
#include "go/sgf_game.h"
#include "gtp/gtp_command.h"
#include "match/match_record.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::match {
namespace {

const char* ColorWord(go::Color color) { return color == go::Color::kBlack ? "black" : "white"; }

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// The referee's side of one game in progress.
class Referee {
 public:
  Referee(gtp::GtpClient* black, gtp::GtpClient* white, const std::string names[2],
          const MatchOptions& options, const std::function<bool()>& stop)
      : options_(options),
        stop_(stop),
        state_(options.board_size, options.rules),
        area_(options.board_size * options.board_size) {
    engines_[0] = black;
    engines_[1] = white;
    names_[0] = names[0];
    names_[1] = names[1];
  }

  // The game to its end, or until `stop` (then outcome.interrupted).
  GameOutcome Play();
  const go::GameState& state() const { return state_; }

 private:
  static int Side(go::Color color) { return color == go::Color::kBlack ? 0 : 1; }
  // Play's work; throws GtpInterrupted when `stop` cuts an engine's answer short.
  void PlayToEnd();
  // Ends the game as a loss for `side`.
  void Forfeit(int side, const std::string& why, bool restart);
  // Black's handicap stones on the referee's board and both engines' (white to move); false
  // when an engine refused them (the game is then forfeited).
  bool PlaceHandicap();
  // A forfeit by an engine that broke the protocol (died, no answer in time): it is restarted.
  void EngineFailed(int side, const gtp::GtpProtocolError& error);
  // Sends `command` to `side`'s engine; false when it failed or refused it (forfeited).
  bool SendOrForfeit(int side, const std::string& command, gtp::GtpReply* reply);
  // One move by the side to move; false when the game ended.
  bool Move(bool cleanup);
  // Tromp-Taylor of the final board. ask_dead: remove the dead stones an engine names first
  // (two passes and no cleanup possible).
  void Score(bool cleaned_up, bool ask_dead);

  const MatchOptions& options_;
  const std::function<bool()>& stop_;
  gtp::GtpClient* engines_[2];
  std::string names_[2];
  go::GameState state_;
  int area_;
  GameOutcome outcome_;
  bool over_ = false;
};

void Referee::Forfeit(int side, const std::string& why, bool restart) {
  over_ = true;
  outcome_.end = GameEnd::kForfeit;
  outcome_.winner = side == 0 ? go::Color::kWhite : go::Color::kBlack;
  outcome_.result = std::string(side == 0 ? "W" : "B") + "+F";
  outcome_.detail =
      std::string(side == 0 ? "black" : "white") + " (" + names_[side] + ") forfeits: " + why;
  if (restart) outcome_.restart_engine = true;
}

void Referee::EngineFailed(int side, const gtp::GtpProtocolError& error) {
  outcome_.faulty_engine = side;
  Forfeit(side, error.what(), true);
}

bool Referee::SendOrForfeit(int side, const std::string& command, gtp::GtpReply* reply) {
  try {
    *reply = engines_[side]->Send(command);
  } catch (const gtp::GtpProtocolError& e) {
    EngineFailed(side, e);
    return false;
  }
  if (!reply->ok) {
    Forfeit(side, "'" + command + "' failed: " + reply->text, false);
    return false;
  }
  return true;
}

bool Referee::PlaceHandicap() {
  const std::vector<go::Loc> points =
      go::FixedHandicapPoints(options_.board_size, options_.handicap);
  go::Board board(options_.board_size);
  for (const go::Loc loc : points) board.SetStone(loc, go::Color::kBlack);
  const std::string command = "set_free_handicap " + gtp::VertexList(points, options_.board_size);
  for (int side = 0; side < 2; ++side) {
    gtp::GtpReply reply;
    if (!SendOrForfeit(side, command, &reply)) return false;
  }
  state_ = go::GameState(board, options_.rules, go::Color::kWhite);
  return true;
}

bool Referee::Move(bool cleanup) {
  const go::Color color = state_.to_move();
  const int side = Side(color);
  gtp::GtpClient& mover = *engines_[side];
  gtp::GtpClient& other = *engines_[1 - side];
  std::string command;
  try {
    command =
        (cleanup && mover.Lists("kgs-genmove_cleanup") ? "kgs-genmove_cleanup " : "genmove ") +
        std::string(ColorWord(color));
  } catch (const gtp::GtpProtocolError& e) {
    EngineFailed(side, e);
    return false;
  }
  gtp::GtpReply reply;
  if (!SendOrForfeit(side, command, &reply)) return false;
  const std::string answer = Lower(Trim(reply.text));
  if (answer == "resign") {
    over_ = true;
    outcome_.end = GameEnd::kResignation;
    outcome_.winner = go::Opponent(color);
    outcome_.result = std::string(side == 0 ? "W" : "B") + "+R";
    outcome_.detail = std::string(ColorWord(color)) + " (" + names_[side] + ") resigned";
    return false;
  }
  go::Loc loc = go::kNullLoc;
  if (!go::ParseGtpVertex(answer, state_.size(), &loc)) {
    Forfeit(side, "answered '" + command + "' with '" + reply.text + "', which is not a move",
            false);
    return false;
  }
  const go::Illegal reason = state_.Check({loc, color});
  if (reason != go::Illegal::kNone) {
    Forfeit(side,
            StrCat("illegal move ", go::LocToGtp(loc, state_.size()), " (", go::IllegalName(reason),
                   ") at move ", state_.moves().size() + 1),
            false);
    return false;
  }
  state_.Play({loc, color});
  const std::string vertex = go::LocToGtp(loc, state_.size());
  try {
    const gtp::GtpReply told = other.Send("play " + std::string(ColorWord(color)) + " " + vertex);
    if (!told.ok) {
      Forfeit(1 - side,
              "refused " + std::string(ColorWord(color)) + " " + vertex +
                  ", legal by the match rules: " + told.text,
              false);
      return false;
    }
  } catch (const gtp::GtpProtocolError& e) {
    outcome_.faulty_engine = 1 - side;
    Forfeit(1 - side, e.what(), true);
    return false;
  }
  return true;
}

void Referee::Score(bool cleaned_up, bool ask_dead) {
  go::Board board = state_.board();
  std::string removed;
  if (ask_dead) {
    for (int side = 0; side < 2 && removed.empty(); ++side) {
      gtp::GtpClient& engine = *engines_[side];
      try {
        if (!engine.Lists("final_status_list")) continue;
        std::istringstream dead(engine.Must("final_status_list dead"));
        int count = 0;
        for (std::string vertex; dead >> vertex;) {
          go::Loc loc = go::kNullLoc;
          if (go::ParseGtpVertex(vertex, board.size(), &loc) && loc != go::kPassLoc &&
              go::IsStone(board.At(loc))) {
            board.SetStone(loc, go::Color::kEmpty);
            ++count;
          }
        }
        removed = StrCat(count, " dead stones removed as ", names_[side], " said");
      } catch (const gtp::GtpInterrupted&) {
        throw;  // the match is stopping: no result
      } catch (const Error&) {
        continue;  // no opinion from this engine; the board is scored as it stands
      }
    }
  }
  outcome_.score = go::TrompTaylorScore(board, state_.rules().komi);
  outcome_.result = go::ScoreToResult(outcome_.score);
  outcome_.winner = outcome_.score > 0   ? go::Color::kBlack
                    : outcome_.score < 0 ? go::Color::kWhite
                                         : go::Color::kEmpty;
  std::string how = outcome_.end == GameEnd::kMoveCap ? "move cap reached" : "two passes";
  if (cleaned_up) {
    how += StrCat(", ", outcome_.cleanup_moves, " cleanup moves");
  } else if (!removed.empty()) {
    how += ", " + removed;
  }
  outcome_.detail = how + "; Tromp-Taylor " + outcome_.result;
}

GameOutcome Referee::Play() {
  try {
    PlayToEnd();
  } catch (const gtp::GtpInterrupted&) {
    outcome_.interrupted = true;  // stopped while an engine was thinking
  }
  outcome_.moves = static_cast<int>(state_.moves().size());
  return outcome_;
}

void Referee::PlayToEnd() {
  const std::string size = std::to_string(options_.board_size);
  for (int side = 0; side < 2; ++side) {
    try {
      engines_[side]->Must("boardsize " + size);
      engines_[side]->Must("clear_board");
      engines_[side]->Must("komi " + Number(options_.rules.komi));
    } catch (const gtp::GtpProtocolError& e) {
      EngineFailed(side, e);
      return;
    }
  }
  if (options_.handicap > 0 && !PlaceHandicap()) return;
  const int max_moves = options_.max_moves > 0 ? options_.max_moves : 4 * area_;
  const int max_cleanup = options_.max_cleanup_moves > 0 ? options_.max_cleanup_moves : area_;
  bool cleanup = false;
  int passes = 0;  // consecutive passes in the current phase
  bool cleanup_possible = false;
  while (!over_) {
    if (stop_ && stop_()) {
      outcome_.interrupted = true;
      break;
    }
    if (!cleanup && static_cast<int>(state_.moves().size()) >= max_moves) {
      outcome_.end = GameEnd::kMoveCap;
      Score(false, false);
      break;
    }
    if (cleanup && outcome_.cleanup_moves >= max_cleanup) {
      Score(true, false);
      outcome_.detail += " (cleanup move cap reached)";
      break;
    }
    if (!Move(cleanup)) break;
    if (cleanup) ++outcome_.cleanup_moves;
    passes = state_.moves().back().loc == go::kPassLoc ? passes + 1 : 0;
    if (passes < 2) continue;
    if (!cleanup) {
      try {
        cleanup_possible =
            engines_[0]->Lists("kgs-genmove_cleanup") || engines_[1]->Lists("kgs-genmove_cleanup");
      } catch (const gtp::GtpProtocolError&) {
        cleanup_possible = false;  // list_commands failed: score as the board stands
      }
    }
    if (!cleanup && cleanup_possible) {
      cleanup = true;
      passes = 0;
      continue;
    }
    outcome_.end = GameEnd::kScored;
    Score(cleanup, !cleanup);
    break;
  }
}

std::string FormatElo(double elo) {
  char text[32];
  std::snprintf(text, sizeof(text), "%+.0f", elo);
  return text;
}

// The finished games of a stopped run of the same match (match.json in the output directory).
void ResumeFromRecord(const MatchOptions& options, Logger& logger, MatchReport* report) {
  const std::optional<std::vector<GameOutcome>> games = ReadMatchRecord(options, report->names);
  if (!games || games->empty()) return;
  for (const GameOutcome& game : *games) {
    CountGame(game, &report->score);
    report->games.push_back(game);
  }
  report->resumed_games = static_cast<int>(games->size());
  report->elo = pipeline::EstimateElo(report->score);
  logger.Info(StrCat("resuming the match in ", options.output_dir, ": ", games->size(), " of ",
                     options.games, " games played already (", report->score.wins, " wins, ",
                     report->score.losses, " losses, ", report->score.draws, " draws)"));
}

}  // namespace

const char* GameEndName(GameEnd end) {
  switch (end) {
    case GameEnd::kScored:
      return "scored";
    case GameEnd::kMoveCap:
      return "move cap";
    case GameEnd::kResignation:
      return "resignation";
    case GameEnd::kForfeit:
      return "forfeit";
  }
  return "?";
}

GameOutcome PlayGame(gtp::GtpClient* black, gtp::GtpClient* white, const std::string names[2],
                     const MatchOptions& options, go::SgfRecord* sgf,
                     const std::function<bool()>& stop) {
  Referee referee(black, white, names, options, stop);
  GameOutcome outcome = referee.Play();
  *sgf = go::RecordFromGame(referee.state());
  sgf->black_player = names[0];
  sgf->white_player = names[1];
  sgf->result = outcome.result;
  sgf->date = UtcTimestamp().substr(0, 10);
  sgf->root_comment = outcome.detail;
  return outcome;
}

void CountGame(const GameOutcome& game, pipeline::MatchScore* score) {
  const go::Color engine1_color = game.black_engine == 0 ? go::Color::kBlack : go::Color::kWhite;
  if (game.winner == go::Color::kEmpty) {
    ++score->draws;
  } else if (game.winner == engine1_color) {
    ++score->wins;
  } else {
    ++score->losses;
  }
}

MatchReport RunMatch(const MatchOptions& options, Logger& logger,
                     const std::function<bool()>& stop) {
  if (options.games < 1) throw ConfigError("games: must be at least 1");
  if (options.board_size < go::kMinSize || options.board_size > go::kMaxSize) {
    throw ConfigError(StrCat("board_size: ", options.board_size, " is not in 2..19"));
  }
  MatchReport report;
  std::unique_ptr<gtp::GtpClient> engines[2];
  auto start = [&](int i) {
    engines[i].reset();  // the old process first: it may hold a GPU or a lock
    engines[i] = std::make_unique<gtp::GtpClient>(
        options.engines[i].argv, StrCat("engine ", i + 1, " (", options.engines[i].argv.at(0), ")"),
        options.gtp_timeout);
    if (stop) engines[i]->set_interrupt(stop);
  };
  for (int i = 0; i < 2; ++i) {
    report.commands[i] = options.engines[i].argv;
    start(i);
    report.names[i] = options.engines[i].name;
    if (report.names[i].empty()) {
      report.names[i] = Trim(engines[i]->Must("name"));
      const gtp::GtpReply version = engines[i]->Send("version");
      if (version.ok && !Trim(version.text).empty()) report.names[i] += " " + Trim(version.text);
    }
  }
  if (!options.output_dir.empty()) {
    EnsureDirectory(options.output_dir);
    ResumeFromRecord(options, logger, &report);
  }

  for (int g = report.resumed_games; g < options.games; ++g) {
    if (stop && stop()) break;
    const int black = BlackEngineOfGame(options, g + 1);
    const std::string names[2] = {report.names[black], report.names[1 - black]};
    go::SgfRecord sgf;
    GameOutcome outcome =
        PlayGame(engines[black].get(), engines[1 - black].get(), names, options, &sgf, stop);
    outcome.index = g + 1;
    outcome.black_engine = black;
    if (outcome.interrupted) break;  // a game stopped half way is not counted
    char stem[64];
    std::snprintf(stem, sizeof(stem), "%s-%03d.sgf", options.sgf_prefix.c_str(), g + 1);
    if (!options.output_dir.empty()) {
      sgf.extra_properties.push_back({"GN", std::string(stem).substr(0, std::strlen(stem) - 4)});
      if (options.handicap > 0) {
        sgf.extra_properties.push_back({"HA", std::to_string(options.handicap)});
      }
      PublishFile(options.output_dir + "/" + stem, go::WriteSgf(sgf) + "\n");
      outcome.sgf_file = stem;
    }
    CountGame(outcome, &report.score);
    report.elo = pipeline::EstimateElo(report.score);
    report.games.push_back(outcome);
    report.complete = static_cast<int>(report.games.size()) == options.games;
    logger.Info(StrCat("game ", g + 1, "/", options.games, ": ", names[0], " (B) vs ", names[1],
                       " (W): ", outcome.result, ", ", outcome.moves, " moves; ", outcome.detail));
    if (!options.output_dir.empty()) {
      PublishFile(options.output_dir + "/match.json", MatchReportJson(report, options));
    }
    if (outcome.restart_engine && outcome.faulty_engine >= 0 && g + 1 < options.games) {
      const int faulty = outcome.faulty_engine == 0 ? black : 1 - black;
      logger.Warning("restarting " + engines[faulty]->label() + " after its failure");
      start(faulty);
    }
  }
  // Each game's record was published as it finished (the last one says complete), and a run
  // that played nothing leaves an earlier record as it was; a match without a finished game
  // gets one here.
  report.complete = static_cast<int>(report.games.size()) == options.games;
  if (!options.output_dir.empty() && report.games.empty()) {
    PublishFile(options.output_dir + "/match.json", MatchReportJson(report, options));
  }
  return report;
}

std::string MatchSummary(const MatchReport& report) {
  const pipeline::MatchScore& s = report.score;
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%.1f%%", s.games() > 0 ? 100.0 * s.points() / s.games() : 0.0);
  return StrCat(report.names[0], " vs ", report.names[1], ": ", s.wins, " wins, ", s.losses,
                " losses, ", s.draws, " draws (", rate, "), Elo ", FormatElo(report.elo.elo), " [",
                FormatElo(report.elo.low), ", ", FormatElo(report.elo.high), "]");
}

int BlackEngineOfGame(const MatchOptions& options, int index) {
  return options.handicap > 0 ? options.handicap_engine - 1 : (index - 1) % 2;
}

void CheckHandicap(const MatchOptions& options) {
  const int most = go::MaxFixedHandicap(options.board_size);
  if (options.handicap != 0 && (options.handicap < 2 || options.handicap > most)) {
    throw ConfigError(StrCat("handicap: ", options.handicap, " stones on ", options.board_size, "x",
                             options.board_size, " (0, or 2 to ", most, " on the fixed points)"));
  }
  if (options.handicap_engine != 1 && options.handicap_engine != 2) {
    throw ConfigError(StrCat("handicap_engine: ", options.handicap_engine, " (1 or 2)"));
  }
}

std::optional<LadderMatch> LadderResult(const MatchReport& report, const MatchOptions& options) {
  if (options.handicap > 0 || !report.complete || report.score.games() == 0) return std::nullopt;
  LadderMatch result;
  result.a = report.names[0];
  result.b = report.names[1];
  result.wins = report.score.wins;
  result.losses = report.score.losses;
  result.draws = report.score.draws;
  result.board_size = options.board_size;
  result.komi = options.rules.komi;
  if (!options.output_dir.empty()) {
    result.match_dir = boost::filesystem::absolute(options.output_dir).lexically_normal().string();
  }
  return result;
}

}  // namespace tengen::match
