// GtpEngine's board commands (see gtp/gtp_engine.h): showboard, list_stones, final_score,
// final_status_list, loadsgf / printsgf, the rules commands and the handicap commands.

#include <algorithm>
#include <exception>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "go/handicap.h"
#include "go/score.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "gtp/cleanup.h"
#include "gtp/gtp_command.h"
#include "gtp/gtp_engine.h"
#include "gtp/kata_rules.h"
#include "gtp/parse.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::gtp {

std::string GtpEngine::ShowBoard(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  const go::Board& board = game_.board();
  const int size = board.size();
  std::string columns = "  ";
  for (int x = 0; x < size; ++x) {
    columns += ' ';
    columns += go::LocToGtp(board.LocOf(x, 0), size)[0];
  }
  std::ostringstream out;
  // Starts on a new line so that the board's rows line up under the "= " of the answer.
  out << "\n" << columns << "\n";
  for (int y = 0; y < size; ++y) {
    out << std::setw(2) << size - y;
    for (int x = 0; x < size; ++x) out << ' ' << StoneChar(board.At(board.LocOf(x, y)));
    out << ' ' << size - y << "\n";
  }
  out << columns << "\n";
  out << "Black (X) has captured " << board.CapturedCount(go::Color::kWhite) << " stones\n";
  out << "White (O) has captured " << board.CapturedCount(go::Color::kBlack) << " stones\n";
  out << "To move: " << ColorName(game_.to_move());
  return out.str();
}

std::string GtpEngine::FinalScore(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  return go::ScoreToResult(go::TrompTaylorScore(game_.board(), game_.rules().komi));
}

std::string GtpEngine::LoadSgf(const Command& command, bool* ok) {
  if (command.args.empty() || command.args.size() > 2) return Fail(ok, "syntax error");
  const std::string& path = command.args[0];
  int move_number = -1;
  if (command.args.size() == 2 && (!ParseInt(command.args[1], &move_number) || move_number < 1)) {
    return Fail(ok, "syntax error");
  }
  try {
    const std::vector<std::vector<go::SgfNode>> games = go::ParseSgfCollection(ReadFile(path));
    if (games.empty() || games[0].empty()) throw FormatError("no game in " + path);
    go::SgfRecord record = go::RecordFromNodes(games[0]);
    if (record.size > options_.max_board_size) {
      throw FormatError(StrCat("board size ", record.size, " is larger than ",
                               options_.max_board_size, ", the largest this engine plays"));
    }
    // A file without RU or KM (or with rules we do not know) keeps the engine's current
    // rules rather than silently switching to the defaults.
    go::Rules rules = options_.rules;
    const go::SgfNode& root = games[0][0];
    if (root.Find("RU") != nullptr) {
      go::Rules from_file = rules;
      if (go::ParseSgfRules(root.Get("RU"), &from_file)) rules = from_file;
    }
    if (root.Find("KM") != nullptr) rules.komi = record.rules.komi;
    record.rules = rules;
    // GTP: the position before move_number is played, i.e. its first move_number - 1 moves.
    int num_moves = -1;
    if (move_number >= 1) {
      num_moves = std::min(move_number - 1, static_cast<int>(record.moves.size()));
    }
    go::GameState game = go::ReplaySgf(record, num_moves, options_.max_moves);
    options_.board_size = record.size;
    options_.rules = rules;
    game_ = std::move(game);
    handicap_ = 0;
    for (const auto& property : record.extra_properties) {
      int stones = 0;
      if (property.first == "HA" && ParseInt(property.second, &stones) && stones >= 2) {
        handicap_ = stones;
      }
    }
  } catch (const std::exception& e) {
    // Whatever went wrong, the game in progress is kept and the controller told why.
    return Fail(ok, std::string("cannot load file: ") + e.what());
  }
  return ColorName(game_.to_move());
}

std::string GtpEngine::PrintSgf(const Command& command, bool* ok) {
  if (command.args.size() > 1) return Fail(ok, "syntax error");
  go::SgfRecord record = go::RecordFromGame(game_);
  if (handicap_ > 0) record.extra_properties.push_back({"HA", std::to_string(handicap_)});
  const std::string sgf = go::WriteSgf(record);
  if (command.args.empty()) return sgf;
  try {
    PublishFile(command.args[0], sgf + "\n");
  } catch (const Error& e) {
    return Fail(ok, std::string("cannot write file: ") + e.what());
  }
  return "";
}

std::string GtpEngine::ListStones(const Command& command, bool* ok) {
  go::Color color = go::Color::kEmpty;
  if (command.args.size() != 1) return Fail(ok, "syntax error");
  if (!go::ParseColor(command.args[0], &color)) return Fail(ok, "invalid color");
  const go::Board& board = game_.board();
  std::string text;
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      const go::Loc loc = board.LocOf(x, y);
      if (board.At(loc) != color) continue;
      if (!text.empty()) text += ' ';
      text += go::LocToGtp(loc, board.size());
    }
  }
  return text;
}

// The dead stones are those random playouts give to the other colour (gtp/cleanup.h), the
// same estimate kgs-genmove_cleanup uses; seki is not detected (always empty), as random
// playouts break most sekis.
std::string GtpEngine::FinalStatusList(const Command& command, bool* ok) {
  if (command.args.size() != 1) return Fail(ok, "syntax error");
  const std::string& status = command.args[0];
  if (status != "dead" && status != "alive" && status != "seki") {
    return Fail(ok, "syntax error: status must be alive, dead or seki");
  }
  if (status == "seki") return "";
  const go::Board& board = game_.board();
  const CleanupParams params;
  const std::vector<float> ownership = PlayoutOwnership(game_, params.playouts, status_rng_);
  const std::vector<go::Loc> dead = DeadStonesOfBoth(board, ownership, params.dead_threshold);
  // One line per chain, as GNU Go answers.
  std::string text;
  std::vector<bool> listed(go::kMaxArraySize, false);
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      const go::Loc loc = board.LocOf(x, y);
      if (!go::IsStone(board.At(loc)) || listed[board.ChainHead(loc)]) continue;
      const bool is_dead = std::find(dead.begin(), dead.end(), loc) != dead.end();
      if (is_dead != (status == "dead")) continue;
      listed[board.ChainHead(loc)] = true;
      std::string line;
      go::Loc stone = loc;
      do {
        if (!line.empty()) line += ' ';
        line += go::LocToGtp(stone, board.size());
        stone = board.NextInChain(stone);
      } while (stone != loc);
      if (!text.empty()) text += '\n';
      text += line;
    }
  }
  return text;
}

std::string GtpEngine::RulesCommand(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  const go::Rules& rules = game_.rules();
  return std::string("ko=") + go::KoRuleName(rules.ko) +
         " suicide=" + (rules.suicide ? "true" : "false") + " komi=" + FormatNumber(rules.komi) +
         " scoring=area";
}

// fixed_handicap N (GTP 2, section 6.3.2): the GTP table's points, white to move.
std::string GtpEngine::FixedHandicap(const Command& command, bool* ok) {
  int stones = 0;
  if (command.args.size() != 1 || !ParseInt(command.args[0], &stones)) {
    return Fail(ok, "syntax error");
  }
  const std::vector<go::Loc> points = go::FixedHandicapPoints(game_.size(), stones);
  if (points.empty()) return Fail(ok, "invalid number of stones");
  const std::string error = PlaceHandicap(points);
  if (!error.empty()) return Fail(ok, error);
  return VertexList(points, game_.size());
}

// place_free_handicap N: the engine's choice (go/handicap.h).
std::string GtpEngine::PlaceFreeHandicap(const Command& command, bool* ok) {
  int stones = 0;
  if (command.args.size() != 1 || !ParseInt(command.args[0], &stones)) {
    return Fail(ok, "syntax error");
  }
  const int size = game_.size();
  if (stones < 2 || stones >= size * size) return Fail(ok, "invalid number of stones");
  const std::vector<go::Loc> points = go::FreeHandicapPoints(size, stones);
  const std::string error = PlaceHandicap(points);
  if (!error.empty()) return Fail(ok, error);
  return VertexList(points, size);
}

// set_free_handicap VERTICES: the controller's choice, at least 2 distinct points and fewer
// than the whole board.
std::string GtpEngine::SetFreeHandicap(const Command& command, bool* ok) {
  const int size = game_.size();
  if (command.args.size() < 2 || static_cast<int>(command.args.size()) >= size * size) {
    return Fail(ok, "bad vertex list");
  }
  std::vector<go::Loc> points;
  for (const std::string& vertex : command.args) {
    go::Loc loc = go::kPassLoc;
    if (!go::ParseGtpVertex(vertex, size, &loc) || loc == go::kPassLoc ||
        std::find(points.begin(), points.end(), loc) != points.end()) {
      return Fail(ok, "bad vertex list");
    }
    points.push_back(loc);
  }
  const std::string error = PlaceHandicap(points);
  if (!error.empty()) return Fail(ok, error);
  return "";
}

std::string GtpEngine::PlaceHandicap(const std::vector<go::Loc>& stones) {
  const go::Board& board = game_.board();
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      if (board.At(board.LocOf(x, y)) != go::Color::kEmpty) return "board not empty";
    }
  }
  if (!game_.moves().empty()) return "board not empty";
  go::Board initial(game_.size());
  for (const go::Loc loc : stones) initial.SetStone(loc, go::Color::kBlack);
  game_ = go::GameState(initial, game_.rules(), go::Color::kWhite, options_.max_moves);
  handicap_ = static_cast<int>(stones.size());
  return "";
}

std::string GtpEngine::KataGetRules(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  return KataRulesJson(game_.rules());
}

// kata-set-rules RULES: the game so far is replayed under the new rules (a move they forbid
// is an error, and nothing changes).
std::string GtpEngine::KataSetRules(const Command& command, bool* ok) {
  if (command.args.empty()) return Fail(ok, "syntax error");
  std::string text;
  for (const std::string& arg : command.args) text += (text.empty() ? "" : " ") + arg;
  go::Rules rules = game_.rules();
  std::string error;
  if (!ParseKataRules(text, &rules, &error)) return Fail(ok, error);
  go::SgfRecord record = go::RecordFromGame(game_);
  record.rules = rules;
  try {
    game_ = go::ReplaySgf(record, -1, options_.max_moves);
  } catch (const std::exception& e) {
    return Fail(ok, std::string("the game so far breaks these rules: ") + e.what());
  }
  options_.rules = rules;
  return "";
}

}  // namespace tengen::gtp
