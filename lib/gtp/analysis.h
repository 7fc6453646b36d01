#pragma once
// Live analysis for GUIs: the arguments and output lines of Leela Zero's lz-analyze and
// KataGo's kata-analyze (and their genmove_analyze forms), as KataGo's docs/GTP_Extensions.md
// describes them. The engine (gtp/gtp_engine.h) streams the lines; a MoveGenerator that can
// analyse (gtp/search_player.h) fills the reports.
//
// Arguments: [color] [interval] then key-value pairs: "interval CENTISECONDS", "maxmoves N",
// "minmoves N" (accepted; tengen reports the visited moves only, so it has no effect) and, for
// kata-analyze, "ownership true|false". No interval (or 0) means no periodic lines.
//
// One report is one line, "info move ... info move ...", the moves best first:
//   Leela Zero: info move D4 visits 120 winrate 5312 prior 1655 lcb 5101 order 0 pv D4 Q16 ...
//     (winrate, prior and lcb are 10000 times the fraction, rounded to an integer in 0..10000)
//   KataGo:     info move D4 visits 120 winrate 0.5312 scoreMean 1.2 scoreLead 1.2
//               prior 0.1655 lcb 0.5101 order 0 pv D4 Q16 ... [ownership v1 ... vN]
//     (fractions as floats in [0, 1]; scoreMean equals scoreLead, as in KataGo; with ownership
//     requested, N = size * size values in [-1, 1] row-major from the top-left point, A19 on
//     19x19, to the bottom-right).
// All values are from the view of the side the analysis is for. KataGo's utility, scoreStdev
// and scoreSelfplay fields are not written: tengen's tree keeps no variance or utility sums.

#include <functional>
#include <string>
#include <vector>

#include "go/types.h"

namespace tengen::gtp {

enum class AnalysisFormat { kLeelaZero, kKataGo };

// One candidate move, from the view of the side to move.
struct AnalysisMove {
  go::Loc move = go::kPassLoc;
  int visits = 0;
  double winrate = 0;     // in [0, 1]
  double score_lead = 0;  // points
  double prior = 0;       // in [0, 1]
  double lcb = 0;         // lower confidence bound of winrate (WinrateLcb), in [0, 1]
  std::vector<go::Loc> pv;
};

struct AnalysisReport {
  int size = 0;
  std::vector<AnalysisMove> moves;  // best first
  // size * size values in [-1, 1] (+1: the side to move), row-major from the top-left point;
  // empty when the evaluator gives none (then written as zeros when asked for).
  std::vector<float> ownership;
};

using AnalysisCallback = std::function<void(const AnalysisReport&)>;

struct AnalysisRequest {
  bool has_color = false;  // otherwise the side to move
  go::Color color = go::Color::kBlack;
  double interval_seconds = 0;  // 0: no periodic lines
  bool ownership = false;       // kata-analyze only
  int max_moves = 0;            // 0: every visited move
};

// Parses the arguments of the analyze commands; false with *error naming the bad argument.
bool ParseAnalysisArgs(const std::vector<std::string>& args, AnalysisFormat format,
                       AnalysisRequest* request, std::string* error);

// One report as one line, newline included (the header comment's formats); "" for a report
// without moves (an empty line would end the GTP answer).
std::string FormatAnalysis(const AnalysisReport& report, AnalysisFormat format,
                           const AnalysisRequest& request);

// A lower confidence bound on a winrate estimated from `visits` playouts: the normal
// approximation winrate - 1.96 * sqrt(winrate * (1 - winrate) / visits), kept in [0, 1]. (Leela
// Zero bounds with the playouts' own variance; tengen's tree keeps no sum of squares, so the
// binomial variance stands in for it.)
double WinrateLcb(double winrate, int visits);

}  // namespace tengen::gtp
