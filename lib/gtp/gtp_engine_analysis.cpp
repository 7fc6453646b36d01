// GtpEngine's analysis commands (see gtp/gtp_engine.h, "Streaming"): lz-analyze and
// kata-analyze run a search on a background thread until the next line of input;
// lz-genmove_analyze and kata-genmove_analyze stream reports while genmove searches.

#include <exception>
#include <string>
#include <thread>
#include <utility>

#include "gtp/gtp_command.h"
#include "gtp/gtp_engine.h"

namespace tengen::gtp {

std::string GtpEngine::LzAnalyze(const Command& command, bool* ok) {
  return StartAnalysis(command, AnalysisFormat::kLeelaZero, ok);
}

std::string GtpEngine::KataAnalyze(const Command& command, bool* ok) {
  return StartAnalysis(command, AnalysisFormat::kKataGo, ok);
}

bool GtpEngine::PrepareAnalysis(const Command& command, AnalysisFormat format,
                                AnalysisRequest* request, std::string* error) const {
  if (!ParseAnalysisArgs(command.args, format, request, error)) return false;
  if (!output_) {
    *error = "analysis needs a streamed output (GtpEngine::Run)";
    return false;
  }
  return true;
}

void GtpEngine::BeginStreamedAnswer(const Command& command) {
  output_("=" + command.id + "\n");
  streamed_ = true;
}

std::string GtpEngine::StartAnalysis(const Command& command, AnalysisFormat format, bool* ok) {
  AnalysisRequest request;
  std::string error;
  if (!PrepareAnalysis(command, format, &request, &error)) return Fail(ok, error);
  if (!generator_->CanAnalyze()) return Fail(ok, "this engine's move generator cannot analyse");
  const go::Color color = request.has_color ? request.color : game_.to_move();
  BeginStreamedAnswer(command);
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
  if (!PrepareAnalysis(command, format, &analysis, &error)) return Fail(ok, error);
  GenMoveRequest request;
  request.color = analysis.has_color ? analysis.color : game_.to_move();
  request.report_seconds = analysis.interval_seconds;
  request.report = [&](const AnalysisReport& report) {
    Stream(FormatAnalysis(report, format, analysis));
  };
  BeginStreamedAnswer(command);
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

}  // namespace tengen::gtp
