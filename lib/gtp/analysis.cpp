#include "gtp/analysis.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gtp/parse.h"

namespace tengen::gtp {
namespace {

// 95% two-sided normal quantile: the bound is the winrate a 95% interval starts at.
constexpr double kLcbZ = 1.96;

bool ParseCount(const std::string& text, int* value) {
  double v = 0;
  if (!ParseFloat(text, &v) || v < 0 || v > 1e6 || v != std::floor(v)) return false;
  *value = static_cast<int>(v);
  return true;
}

bool ParseInterval(const std::string& text, double* seconds) {
  double centiseconds = 0;
  if (!ParseFloat(text, &centiseconds) || centiseconds < 0) return false;
  *seconds = centiseconds / 100.0;
  return true;
}

// Leela Zero's integers: 10000 times a fraction, rounded, in 0..10000.
int TenThousandths(double fraction) {
  return static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 10000.0));
}

}  // namespace

bool ParseAnalysisArgs(const std::vector<std::string>& args, AnalysisFormat format,
                       AnalysisRequest* request, std::string* error) {
  *request = AnalysisRequest();
  size_t i = 0;
  if (i < args.size() && go::ParseColor(args[i], &request->color)) {
    request->has_color = true;
    ++i;
  }
  if (i < args.size() && ParseInterval(args[i], &request->interval_seconds)) ++i;
  for (; i < args.size(); i += 2) {
    const std::string& key = args[i];
    if (i + 1 >= args.size()) {
      *error = "syntax error: no value after '" + key + "'";
      return false;
    }
    const std::string& value = args[i + 1];
    int count = 0;
    bool ok = true;
    if (key == "interval") {
      ok = ParseInterval(value, &request->interval_seconds);
    } else if (key == "maxmoves") {
      ok = ParseCount(value, &request->max_moves);
    } else if (key == "minmoves") {
      ok = ParseCount(value, &count);  // accepted, no effect (see the header comment)
    } else if (key == "ownership" && format == AnalysisFormat::kKataGo) {
      ok = value == "true" || value == "false";
      request->ownership = value == "true";
    } else {
      *error = "syntax error: unknown argument '" + key + "'";
      return false;
    }
    if (!ok) {
      *error = "syntax error: bad value '" + value + "' for " + key;
      return false;
    }
  }
  return true;
}

std::string FormatAnalysis(const AnalysisReport& report, AnalysisFormat format,
                           const AnalysisRequest& request) {
  std::ostringstream out;
  out.precision(6);
  const size_t count = request.max_moves > 0
                           ? std::min(report.moves.size(), static_cast<size_t>(request.max_moves))
                           : report.moves.size();
  // An empty line would end the GTP answer: a report with no visited move is not written.
  if (count == 0) return "";
  for (size_t order = 0; order < count; ++order) {
    const AnalysisMove& move = report.moves[order];
    if (order > 0) out << ' ';
    out << "info move " << go::LocToGtp(move.move, report.size) << " visits " << move.visits;
    if (format == AnalysisFormat::kLeelaZero) {
      out << " winrate " << TenThousandths(move.winrate) << " prior " << TenThousandths(move.prior)
          << " lcb " << TenThousandths(move.lcb);
    } else {
      out << " winrate " << move.winrate << " scoreMean " << move.score_lead << " scoreLead "
          << move.score_lead << " prior " << move.prior << " lcb " << move.lcb;
    }
    out << " order " << order << " pv";
    for (const go::Loc loc : move.pv) out << ' ' << go::LocToGtp(loc, report.size);
  }
  if (format == AnalysisFormat::kKataGo && request.ownership) {
    out << " ownership";
    const size_t points = static_cast<size_t>(report.size) * report.size;
    for (size_t i = 0; i < points; ++i) {
      out << ' ' << (i < report.ownership.size() ? report.ownership[i] : 0.0f);
    }
  }
  out << '\n';
  return out.str();
}

double WinrateLcb(double winrate, int visits) {
  if (visits <= 0) return 0;
  const double spread = kLcbZ * std::sqrt(std::max(0.0, winrate * (1 - winrate)) / visits);
  return std::clamp(winrate - spread, 0.0, 1.0);
}

}  // namespace tengen::gtp
