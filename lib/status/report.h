#pragma once
// tengen-report: one self-contained HTML page about a run, read from its base directory. No
// network, no server, no library: the data is embedded as JSON (<script id="report-data"
// type="application/json">) and a small script of our own draws SVG charts from it when the
// page opens:
//   loss-policy, loss-value, loss-score, loss-ownership, loss-total   trainer loss per head
//       over samples trained, one line per training (train/*/metrics.jsonl)
//   games-per-hour, rows-per-hour   selfplay throughput over time, from the shards' and SGF
//       files' modification times and their rows / games (a history; heartbeats only know
//       the present)
//   elo   Elo of the models over time with 95% intervals: from the ladder file when it rates
//       any model (anchors drawn as dashed lines), else chained from the gatekeeper's
//       records (each accepted candidate = its baseline + the match's Elo; biased upward)
//   gating   each gatekeeper decision: the candidate's score fraction, green accepted, red
//       rejected
// plus the summary of status/run_status.h as static HTML (readable without script).
//
// When a chart is drawn its <svg> gets data-drawn="1" (data-drawn="0" and data-empty="1"
// with "no data yet" when there is nothing to plot), data-series and data-points; the body
// gets data-report-done="1" when every chart ran, and data-error="<message>" if the script
// failed. Tests read these from a headless browser's DOM.

#include <string>

#include "status/run_status.h"

namespace tengen::status {

struct ReportOptions {
  StatusOptions status;
  bool count_games = true;  // read every .sgfs file for games per hour (rows are always used)
  std::string title;        // "" : "tengen run <base>"
};

// The HTML page for base at time `now` (seconds since the epoch). Never throws for content
// read from base; bad files are listed as notes.
std::string RenderReport(const std::string& base, const ReportOptions& options, double now);

// RenderReport published atomically at output_path (util/publish.h PublishFile).
void WriteReport(const std::string& base, const ReportOptions& options, double now,
                 const std::string& output_path);

// Text safe inside HTML elements and attribute values (& < > " ').
std::string HtmlEscape(const std::string& text);

}  // namespace tengen::status
