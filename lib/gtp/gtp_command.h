#pragma once
// The pieces the files of GtpEngine share: the parsed command line (GtpEngine::Command) and the
// helpers that read a line and build answers. GtpEngine's handlers are split by command group:
//   gtp_engine.cpp           the protocol loop, list_commands, game setup, genmove, clocks
//   gtp_engine_analysis.cpp  lz-analyze / kata-analyze and the *-genmove_analyze commands
//   gtp_engine_board.cpp     showboard, loadsgf / printsgf, scoring, rules and handicap
// Internal to the gtp module: controllers use gtp/gtp_engine.h.

#include <string>
#include <vector>

#include "go/types.h"
#include "gtp/gtp_engine.h"

namespace tengen::gtp {

struct GtpEngine::Command {
  std::string id;  // empty when the line had none
  std::string name;
  std::vector<std::string> args;
};

// GTP 2 section 3.1: control characters other than HT and LF are removed, HT becomes a space
// and everything from '#' on is a comment.
std::string Preprocess(const std::string& line);
std::vector<std::string> SplitWords(const std::string& text);
bool IsAllDigits(const std::string& text);
// As an ostream writes it (up to 6 significant digits).
std::string FormatNumber(double value);
// An answer must not contain an empty line (that would end it early) nor end in a newline; a
// leading newline is kept so that multi-line answers can start on their own line.
std::string SanitizeAnswerText(const std::string& text);
// The text with its newlines as spaces (an error answer is one line).
std::string OneLine(const std::string& text);
// The points as GTP vertices separated by spaces.
std::string VertexList(const std::vector<go::Loc>& points, int size);
// A handler's error: sets *ok = false and returns the message.
std::string Fail(bool* ok, const std::string& message);
const char* ColorName(go::Color color);
// showboard's character for a point: X, O or '.'.
char StoneChar(go::Color color);

}  // namespace tengen::gtp
