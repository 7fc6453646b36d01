#include "gtp/gtp_engine.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "go/playout.h"
#include "go/score.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "gtp/cleanup.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen::gtp {
namespace {

// GTP 2 section 3.1: control characters other than HT and LF are removed, HT becomes a space
// and everything from '#' on is a comment.
std::string Preprocess(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (const char c : line) {
    if (c == '#') break;
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\t') {
      out.push_back(' ');
    } else if (c == '\n' || (u >= 32 && u != 127)) {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string> SplitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  return words;
}

bool IsAllDigits(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Whole-string integer parse: "12x", "" and values beyond int are rejected.
bool ParseInt(const std::string& text, int* value) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < -1000000000L || v > 1000000000L) return false;
  *value = static_cast<int>(v);
  return true;
}

// Whole-string float parse; "nan" and "inf" are rejected as no sane komi.
bool ParseFloat(const std::string& text, double* value) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v)) return false;
  *value = v;
  return true;
}

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// An answer must not contain an empty line (that would end it early) nor end in a newline; a
// leading newline is kept so that multi-line answers can start on their own line.
std::string SanitizeAnswerText(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n' && !out.empty() && out.back() == '\n') continue;
    out.push_back(c);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string OneLine(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

std::string Fail(bool* ok, const std::string& message) {
  *ok = false;
  return message;
}

const char* ColorName(go::Color color) { return color == go::Color::kWhite ? "white" : "black"; }

char StoneChar(go::Color color) {
  switch (color) {
    case go::Color::kBlack:
      return 'X';
    case go::Color::kWhite:
      return 'O';
    default:
      return '.';
  }
}

}  // namespace

struct GtpEngine::Command {
  std::string id;  // empty when the line had none
  std::string name;
  std::vector<std::string> args;
};

GenMoveReply RandomMoveGenerator::GenerateMove(const go::GameState& game,
                                               const GenMoveRequest& request) {
  // RandomNonEyeMove moves for game.to_move(), but GTP may ask for either colour.
  go::GameState state = game;
  state.set_to_move(request.color);
  GenMoveReply reply;
  reply.loc = go::RandomNonEyeMove(state, rng_);
  return reply;
}

double MoveTimeBudget(const ClockState& clock, const go::Board& board) {
  if (!clock.known || clock.seconds <= 0) return 0;
  int share = clock.stones;
  if (share <= 0) {
    int empty = 0;
    for (int y = 0; y < board.size(); ++y) {
      for (int x = 0; x < board.size(); ++x) {
        if (board.At(board.LocOf(x, y)) == go::Color::kEmpty) ++empty;
      }
    }
    share = std::max(10, empty / 3);
  }
  // A clock that has run out still gets a moment rather than "no limit".
  return std::max(0.9 * clock.seconds / share, 0.01);
}

GtpEngine::GtpEngine(GtpOptions options, std::unique_ptr<MoveGenerator> generator)
    : options_(std::move(options)),
      generator_(std::move(generator)),
      game_(options_.board_size, options_.rules, options_.max_moves) {}

void GtpEngine::ResetGame() {
  game_ = go::GameState(options_.board_size, options_.rules, options_.max_moves);
}

std::string GtpEngine::HandleLine(const std::string& line, bool* quit) {
  *quit = false;
  const std::vector<std::string> words = SplitWords(Preprocess(line));
  if (words.empty()) return "";
  Command command;
  size_t first = 0;
  if (IsAllDigits(words[0])) {
    command.id = words[0];
    first = 1;
  }
  bool ok = true;
  std::string text;
  if (first >= words.size()) {
    ok = false;
    text = "syntax error: no command after the id";
  } else {
    command.name = words[first];
    command.args.assign(words.begin() + static_cast<std::ptrdiff_t>(first) + 1, words.end());
    // The engine must keep answering whatever a controller sends: anything thrown below is a
    // bug or an environment failure, reported as an error answer rather than a dead engine.
    try {
      text = Dispatch(command, &ok, quit);
    } catch (const std::exception& e) {
      ok = false;
      text = std::string("internal error: ") + e.what();
    } catch (...) {
      ok = false;
      text = "internal error: unknown exception";
    }
  }
  std::string answer = ok ? "=" : "?";
  answer += command.id;
  answer += ' ';
  answer += ok ? SanitizeAnswerText(text) : OneLine(SanitizeAnswerText(text));
  answer += "\n\n";
  return answer;
}

void GtpEngine::Run(std::istream& in, std::ostream& out) {
  std::string line;
  bool quit = false;
  while (!quit && std::getline(in, line)) {
    const std::string answer = HandleLine(line, &quit);
    if (answer.empty()) continue;
    // Flush every answer: a controller waits for it before sending the next command.
    out << answer;
    out.flush();
  }
  out.flush();
}

const std::vector<std::pair<std::string, GtpEngine::Handler>>& GtpEngine::Commands() {
  static const std::vector<std::pair<std::string, Handler>> kCommands = {
      {"protocol_version", &GtpEngine::ProtocolVersion},
      {"name", &GtpEngine::Name},
      {"version", &GtpEngine::Version},
      {"known_command", &GtpEngine::KnownCommand},
      {"list_commands", &GtpEngine::ListCommands},
      {"quit", &GtpEngine::Quit},
      {"boardsize", &GtpEngine::BoardSize},
      {"clear_board", &GtpEngine::ClearBoard},
      {"komi", &GtpEngine::Komi},
      {"play", &GtpEngine::PlayCommand},
      {"genmove", &GtpEngine::GenMove},
      {"kgs-genmove_cleanup", &GtpEngine::GenMoveCleanup},
      {"undo", &GtpEngine::UndoCommand},
      {"showboard", &GtpEngine::ShowBoard},
      {"final_score", &GtpEngine::FinalScore},
      {"loadsgf", &GtpEngine::LoadSgf},
      {"printsgf", &GtpEngine::PrintSgf},
      {"list_stones", &GtpEngine::ListStones},
      {"final_status_list", &GtpEngine::FinalStatusList},
      {"time_settings", &GtpEngine::TimeSettings},
      {"time_left", &GtpEngine::TimeLeft},
      {"tengen-rules", &GtpEngine::RulesCommand},
  };
  return kCommands;
}

std::string GtpEngine::Dispatch(const Command& command, bool* ok, bool* quit) {
  for (const auto& entry : Commands()) {
    if (entry.first != command.name) continue;
    std::string text = (this->*entry.second)(command, ok);
    if (*ok && command.name == "quit") *quit = true;
    return text;
  }
  return Fail(ok, "unknown command");
}

std::string GtpEngine::ProtocolVersion(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  return "2";
}

std::string GtpEngine::Name(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  return options_.name;
}

std::string GtpEngine::Version(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  return options_.version;
}

std::string GtpEngine::KnownCommand(const Command& command, bool* ok) {
  if (command.args.size() != 1) return Fail(ok, "syntax error");
  for (const auto& entry : Commands()) {
    if (entry.first == command.args[0]) return "true";
  }
  return "false";
}

std::string GtpEngine::ListCommands(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  std::string text;
  for (const auto& entry : Commands()) text += entry.first + "\n";
  return text;
}

std::string GtpEngine::Quit(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  return "";
}

std::string GtpEngine::BoardSize(const Command& command, bool* ok) {
  int size = 0;
  if (command.args.size() != 1 || !ParseInt(command.args[0], &size)) {
    return Fail(ok, "syntax error");
  }
  if (size < go::kMinSize || size > options_.max_board_size) return Fail(ok, "unacceptable size");
  options_.board_size = size;
  ResetGame();
  return "";
}

std::string GtpEngine::ClearBoard(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  ResetGame();
  return "";
}

std::string GtpEngine::Komi(const Command& command, bool* ok) {
  double komi = 0;
  if (command.args.size() != 1 || !ParseFloat(command.args[0], &komi)) {
    return Fail(ok, "syntax error");
  }
  options_.rules.komi = komi;
  game_.set_komi(komi);
  return "";
}

std::string GtpEngine::PlayCommand(const Command& command, bool* ok) {
  if (command.args.size() != 2) return Fail(ok, "syntax error");
  go::Move move;
  if (!go::ParseColor(command.args[0], &move.color)) return Fail(ok, "invalid color");
  if (!go::ParseGtpVertex(command.args[1], game_.size(), &move.loc)) {
    return Fail(ok, "invalid coordinate");
  }
  if (!game_.TryPlay(move)) return Fail(ok, "illegal move");
  return "";
}

std::string GtpEngine::GenMove(const Command& command, bool* ok) {
  return GenerateAndPlay(command, /*cleanup=*/false, ok);
}

std::string GtpEngine::GenMoveCleanup(const Command& command, bool* ok) {
  return GenerateAndPlay(command, /*cleanup=*/true, ok);
}

std::string GtpEngine::GenerateAndPlay(const Command& command, bool cleanup, bool* ok) {
  GenMoveRequest request;
  request.cleanup = cleanup;
  if (command.args.size() != 1) return Fail(ok, "syntax error");
  if (!go::ParseColor(command.args[0], &request.color)) return Fail(ok, "invalid color");
  if (time_limited_) {
    request.max_seconds =
        MoveTimeBudget(clocks_[request.color == go::Color::kWhite ? 1 : 0], game_.board());
  }
  // At the move cap the game is over for us: pass rather than extend it.
  GenMoveReply reply;
  if (!game_.ReachedMoveCap()) reply = generator_->GenerateMove(game_, request);
  if (reply.resign) return "resign";
  const go::Move move{reply.loc, request.color};
  const go::Illegal reason = game_.Check(move);
  if (reason != go::Illegal::kNone) {
    return Fail(ok, "internal error: the move generator chose " +
                        go::LocToGtp(reply.loc, game_.size()) + " for " + ColorName(request.color) +
                        ", which is illegal (" + go::IllegalName(reason) + ")");
  }
  game_.Play(move);
  return go::LocToGtp(reply.loc, game_.size());
}

std::string GtpEngine::UndoCommand(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  if (!game_.Undo()) return Fail(ok, "cannot undo");
  return "";
}

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
      throw FormatError("board size " + std::to_string(record.size) + " is larger than " +
                        std::to_string(options_.max_board_size) +
                        ", the largest this engine plays");
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
  } catch (const std::exception& e) {
    // Whatever went wrong, the game in progress is kept and the controller told why.
    return Fail(ok, std::string("cannot load file: ") + e.what());
  }
  return ColorName(game_.to_move());
}

std::string GtpEngine::PrintSgf(const Command& command, bool* ok) {
  if (command.args.size() > 1) return Fail(ok, "syntax error");
  const std::string sgf = go::WriteSgf(go::RecordFromGame(game_));
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
  std::vector<go::Loc> dead;
  for (const go::Color color : {go::Color::kBlack, go::Color::kWhite}) {
    for (const go::Loc loc : DeadStones(board, ownership, color, params.dead_threshold)) {
      dead.push_back(loc);
    }
  }
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

// time_settings main_time byo_yomi_time byo_yomi_stones (GTP 2, section 6.3.5); all zero
// byo-yomi time with zero stones and zero main time means no time limit.
std::string GtpEngine::TimeSettings(const Command& command, bool* ok) {
  int main_time = 0, byo_yomi_time = 0, byo_yomi_stones = 0;
  if (command.args.size() != 3 || !ParseInt(command.args[0], &main_time) ||
      !ParseInt(command.args[1], &byo_yomi_time) || !ParseInt(command.args[2], &byo_yomi_stones) ||
      main_time < 0 || byo_yomi_time < 0 || byo_yomi_stones < 0) {
    return Fail(ok, "syntax error");
  }
  time_limited_ = main_time > 0 || byo_yomi_time > 0;
  for (ClockState& clock : clocks_) {
    clock = ClockState();
    // Until time_left says otherwise, the clock is the start of the main time (or of the
    // first byo-yomi period).
    clock.known = time_limited_;
    clock.seconds = main_time > 0 ? main_time : byo_yomi_time;
    clock.stones = main_time > 0 ? 0 : byo_yomi_stones;
  }
  return "";
}

// time_left color time stones (GTP 2, section 6.3.6).
std::string GtpEngine::TimeLeft(const Command& command, bool* ok) {
  go::Color color = go::Color::kEmpty;
  double seconds = 0;
  int stones = 0;
  if (command.args.size() != 3) return Fail(ok, "syntax error");
  if (!go::ParseColor(command.args[0], &color)) return Fail(ok, "invalid color");
  if (!ParseFloat(command.args[1], &seconds) || !ParseInt(command.args[2], &stones) ||
      seconds < 0 || stones < 0) {
    return Fail(ok, "syntax error");
  }
  ClockState& clock = clocks_[color == go::Color::kWhite ? 1 : 0];
  time_limited_ = true;  // a controller may send time_left without time_settings
  clock.known = true;
  clock.seconds = seconds;
  clock.stones = stones;
  return "";
}

std::string GtpEngine::RulesCommand(const Command& command, bool* ok) {
  if (!command.args.empty()) return Fail(ok, "syntax error");
  const go::Rules& rules = game_.rules();
  return std::string("ko=") + go::KoRuleName(rules.ko) +
         " suicide=" + (rules.suicide ? "true" : "false") + " komi=" + FormatNumber(rules.komi) +
         " scoring=area";
}

}  // namespace tengen::gtp
