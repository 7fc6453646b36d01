#include "gtp/gtp_engine.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
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
#include "gtp/handicap.h"
#include "gtp/kata_rules.h"
#include "gtp/parse.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

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

std::string VertexList(const std::vector<go::Loc>& points, int size) {
  std::string text;
  for (const go::Loc loc : points) text += (text.empty() ? "" : " ") + go::LocToGtp(loc, size);
  return text;
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

void MoveGenerator::Analyze(const go::GameState& /*game*/, go::Color /*color*/,
                            double /*report_seconds*/, const std::function<bool()>& /*stop*/,
                            const AnalysisCallback& /*report*/) {
  throw Error("this move generator cannot analyse");
}

GtpEngine::GtpEngine(GtpOptions options, std::unique_ptr<MoveGenerator> generator)
    : options_(std::move(options)),
      generator_(std::move(generator)),
      game_(options_.board_size, options_.rules, options_.max_moves) {}

GtpEngine::~GtpEngine() {
  if (analysis_thread_.joinable()) {
    analysis_stop_ = true;
    analysis_thread_.join();
  }
}

void GtpEngine::Stream(const std::string& text) {
  if (!text.empty()) output_(text);
}

std::string GtpEngine::StopAnalysis() {
  if (!analysis_thread_.joinable()) return "";
  analysis_stop_ = true;
  analysis_thread_.join();
  output_("\n");  // the empty line that ends the analysis command's answer
  std::string error;
  std::swap(error, analysis_error_);
  return error;
}

void GtpEngine::ResetGame() {
  game_ = go::GameState(options_.board_size, options_.rules, options_.max_moves);
  handicap_ = 0;
}

std::string GtpEngine::HandleLine(const std::string& line, bool* quit) {
  *quit = false;
  // Any line, even an empty one, ends a running analysis.
  const std::string analysis_error = StopAnalysis();
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
  streamed_ = false;
  if (!analysis_error.empty()) {
    ok = false;
    text = "analysis failed: " + analysis_error;
  } else if (first >= words.size()) {
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
  if (streamed_ && ok) return text;  // the handler wrote "=id" and a newline itself
  std::string answer = ok ? "=" : "?";
  answer += command.id;
  answer += ' ';
  answer += ok ? SanitizeAnswerText(text) : OneLine(SanitizeAnswerText(text));
  answer += "\n\n";
  return answer;
}

void GtpEngine::Run(std::istream& in, std::ostream& out) {
  // Flush every write: a controller waits for it before sending the next command.
  Output previous = std::move(output_);
  output_ = [&out](const std::string& text) {
    out << text;
    out.flush();
  };
  std::string line;
  bool quit = false;
  while (!quit && std::getline(in, line)) {
    const std::string answer = HandleLine(line, &quit);
    if (!answer.empty()) output_(answer);
  }
  const std::string error = StopAnalysis();  // end of input during an analysis
  out.flush();
  output_ = std::move(previous);
  if (!error.empty()) throw Error("analysis failed: " + error);
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
      {"lz-analyze", &GtpEngine::LzAnalyze},
      {"kata-analyze", &GtpEngine::KataAnalyze},
      {"lz-genmove_analyze", &GtpEngine::LzGenMoveAnalyze},
      // Sabaki's unprefixed names, in Leela Zero's format (as Sayuri answers them too).
      {"analyze", &GtpEngine::LzAnalyze},
      {"genmove_analyze", &GtpEngine::LzGenMoveAnalyze},
      {"kata-genmove_analyze", &GtpEngine::KataGenMoveAnalyze},
      {"undo", &GtpEngine::UndoCommand},
      {"showboard", &GtpEngine::ShowBoard},
      {"final_score", &GtpEngine::FinalScore},
      {"loadsgf", &GtpEngine::LoadSgf},
      {"printsgf", &GtpEngine::PrintSgf},
      {"list_stones", &GtpEngine::ListStones},
      {"final_status_list", &GtpEngine::FinalStatusList},
      {"time_settings", &GtpEngine::TimeSettings},
      {"time_left", &GtpEngine::TimeLeft},
      {"kgs-time_settings", &GtpEngine::KgsTimeSettings},
      {"fixed_handicap", &GtpEngine::FixedHandicap},
      {"place_free_handicap", &GtpEngine::PlaceFreeHandicap},
      {"set_free_handicap", &GtpEngine::SetFreeHandicap},
      {"kata-get-rules", &GtpEngine::KataGetRules},
      {"kata-set-rules", &GtpEngine::KataSetRules},
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
  GenMoveRequest request;
  if (command.args.size() != 1) return Fail(ok, "syntax error");
  if (!go::ParseColor(command.args[0], &request.color)) return Fail(ok, "invalid color");
  return GenerateAndPlay(request, ok);
}

std::string GtpEngine::GenMoveCleanup(const Command& command, bool* ok) {
  GenMoveRequest request;
  request.cleanup = true;
  if (command.args.size() != 1) return Fail(ok, "syntax error");
  if (!go::ParseColor(command.args[0], &request.color)) return Fail(ok, "invalid color");
  return GenerateAndPlay(request, ok);
}

std::string GtpEngine::LzAnalyze(const Command& command, bool* ok) {
  return StartAnalysis(command, AnalysisFormat::kLeelaZero, ok);
}

std::string GtpEngine::KataAnalyze(const Command& command, bool* ok) {
  return StartAnalysis(command, AnalysisFormat::kKataGo, ok);
}

std::string GtpEngine::StartAnalysis(const Command& command, AnalysisFormat format, bool* ok) {
  AnalysisRequest request;
  std::string error;
  if (!ParseAnalysisArgs(command.args, format, &request, &error)) return Fail(ok, error);
  if (!output_) return Fail(ok, "analysis needs a streamed output (GtpEngine::Run)");
  if (!generator_->CanAnalyze()) return Fail(ok, "this engine's move generator cannot analyse");
  const go::Color color = request.has_color ? request.color : game_.to_move();
  output_("=" + command.id + "\n");
  streamed_ = true;
  analysis_stop_ = false;
  analysis_thread_ = std::thread([this, game = game_, color, request, format] {
    // The thread body catches: its error becomes the answer to the next command.
    try {
      generator_->Analyze(
          game, color, request.interval_seconds, [this] { return analysis_stop_.load(); },
          [&](const AnalysisReport& report) { Stream(FormatAnalysis(report, format, request)); });
    } catch (const std::exception& e) {
      analysis_error_ = e.what();
    } catch (...) {
      analysis_error_ = "unknown exception";
    }
  });
  return "";
}

std::string GtpEngine::LzGenMoveAnalyze(const Command& command, bool* ok) {
  return GenMoveAnalyze(command, AnalysisFormat::kLeelaZero, ok);
}

std::string GtpEngine::KataGenMoveAnalyze(const Command& command, bool* ok) {
  return GenMoveAnalyze(command, AnalysisFormat::kKataGo, ok);
}

// Answers "=id", the reports, then "play MOVE" and the empty line (KataGo's format).
std::string GtpEngine::GenMoveAnalyze(const Command& command, AnalysisFormat format, bool* ok) {
  AnalysisRequest analysis;
  std::string error;
  if (!ParseAnalysisArgs(command.args, format, &analysis, &error)) return Fail(ok, error);
  if (!output_) return Fail(ok, "analysis needs a streamed output (GtpEngine::Run)");
  GenMoveRequest request;
  request.color = analysis.has_color ? analysis.color : game_.to_move();
  request.report_seconds = analysis.interval_seconds;
  request.report = [&](const AnalysisReport& report) {
    Stream(FormatAnalysis(report, format, analysis));
  };
  output_("=" + command.id + "\n");
  streamed_ = true;
  std::string move;
  try {
    move = GenerateAndPlay(request, ok);
  } catch (const std::exception& e) {
    move = Fail(ok, std::string("internal error: ") + e.what());
  }
  if (!*ok) {
    // The answer has begun: the error goes in its last line rather than a "?" answer.
    *ok = true;
    return "error " + OneLine(move) + "\n\n";
  }
  return "play " + move + "\n\n";
}

std::string GtpEngine::GenerateAndPlay(GenMoveRequest request, bool* ok) {
  ClockState& clock = clocks_[request.color == go::Color::kWhite ? 1 : 0];
  if (time_limited_) request.max_seconds = MoveTimeBudget(clock, game_.board());
  // At the move cap the game is over for us: pass rather than extend it.
  GenMoveReply reply;
  const auto start = std::chrono::steady_clock::now();
  if (!game_.ReachedMoveCap()) reply = generator_->GenerateMove(game_, request);
  if (time_limited_) {
    RunDownClock(time_control_,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                 &clock);
  }
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
  TimeControl control;
  control.main_seconds = main_time;
  control.period_seconds = byo_yomi_time;
  control.period_count = std::max(1, byo_yomi_stones);
  control.system = byo_yomi_time > 0 ? TimeSystem::kCanadian
                   : main_time > 0   ? TimeSystem::kAbsolute
                                     : TimeSystem::kNone;
  SetTimeControl(control);
  return "";
}

// kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS |
// canadian MAIN PERIOD STONES (KataGo's docs/GTP_Extensions.md; times in seconds, may be
// fractions).
std::string GtpEngine::KgsTimeSettings(const Command& command, bool* ok) {
  static const std::vector<std::pair<std::string, size_t>> kKinds = {
      {"none", 1}, {"absolute", 2}, {"byoyomi", 4}, {"canadian", 4}};
  if (command.args.empty()) return Fail(ok, "syntax error");
  const std::string& kind = command.args[0];
  const auto found = std::find_if(kKinds.begin(), kKinds.end(),
                                  [&](const auto& entry) { return entry.first == kind; });
  if (found == kKinds.end()) {
    return Fail(ok, "syntax error: time system must be none, absolute, byoyomi or canadian");
  }
  if (command.args.size() != found->second) return Fail(ok, "syntax error");
  TimeControl control;
  if (kind != "none" &&
      (!ParseFloat(command.args[1], &control.main_seconds) || control.main_seconds < 0)) {
    return Fail(ok, "syntax error");
  }
  if (kind == "byoyomi" || kind == "canadian") {
    if (!ParseFloat(command.args[2], &control.period_seconds) || control.period_seconds < 0 ||
        !ParseInt(command.args[3], &control.period_count) || control.period_count < 1) {
      return Fail(ok, "syntax error");
    }
    control.system = kind == "byoyomi" ? TimeSystem::kByoyomi : TimeSystem::kCanadian;
    if (control.period_seconds <= 0) control.system = TimeSystem::kAbsolute;
  } else if (kind == "absolute") {
    control.system = TimeSystem::kAbsolute;
  }
  if (control.system == TimeSystem::kAbsolute && control.main_seconds <= 0) {
    control.system = TimeSystem::kNone;
  }
  SetTimeControl(control);
  return "";
}

void GtpEngine::SetTimeControl(const TimeControl& control) {
  time_control_ = control;
  time_limited_ = control.system != TimeSystem::kNone;
  for (ClockState& clock : clocks_) {
    clock = ClockState();
    // Until time_left says otherwise, the clock is the start of the main time (or of the
    // first byo-yomi period).
    clock.known = time_limited_;
    clock.byoyomi = control.system == TimeSystem::kByoyomi;
    const bool main = control.main_seconds > 0 || control.system == TimeSystem::kAbsolute;
    clock.seconds = main ? control.main_seconds : control.period_seconds;
    clock.stones = main ? 0 : control.period_count;
  }
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
  clock.byoyomi = time_control_.system == TimeSystem::kByoyomi;
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

// fixed_handicap N (GTP 2, section 6.3.2): the GTP table's points, white to move.
std::string GtpEngine::FixedHandicap(const Command& command, bool* ok) {
  int stones = 0;
  if (command.args.size() != 1 || !ParseInt(command.args[0], &stones)) {
    return Fail(ok, "syntax error");
  }
  const std::vector<go::Loc> points = FixedHandicapPoints(game_.size(), stones);
  if (points.empty()) return Fail(ok, "invalid number of stones");
  const std::string error = PlaceHandicap(points);
  if (!error.empty()) return Fail(ok, error);
  return VertexList(points, game_.size());
}

// place_free_handicap N: the engine's choice (gtp/handicap.h).
std::string GtpEngine::PlaceFreeHandicap(const Command& command, bool* ok) {
  int stones = 0;
  if (command.args.size() != 1 || !ParseInt(command.args[0], &stones)) {
    return Fail(ok, "syntax error");
  }
  const int size = game_.size();
  if (stones < 2 || stones >= size * size) return Fail(ok, "invalid number of stones");
  const std::vector<go::Loc> points = FreeHandicapPoints(size, stones);
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
