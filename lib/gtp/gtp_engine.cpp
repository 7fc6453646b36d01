#include "gtp/gtp_engine.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "go/playout.h"
#include "gtp/gtp_command.h"
#include "gtp/parse.h"
#include "util/error.h"

namespace tengen::gtp {

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

}  // namespace tengen::gtp
