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
//       any model (anchors, and the ladder's other players that are not models such as GNU
//       Go levels, drawn as dashed lines), else chained from the gatekeeper's records (each
//       accepted candidate = its baseline + the match's Elo; biased upward)
//   elo-hours, elo-games   the same Elo against hours of the run and against the selfplay
//       games played before each model appeared (strength/models.tsv when the run has one,
//       else the models' times and the games in each model's SGF files)
//   gating   each gatekeeper decision: the candidate's score fraction, green accepted, red
//       rejected
// plus, as static HTML (readable without script), a table of how each model's selfplay games
// ended (pipeline/game_end_stats.h, read from its SGF files; models in the order they
// appeared) and the summary of status/run_status.h.
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
  // Read every .sgfs file: games per hour, the games before each model, how games end (rows
  // are always used).
  bool count_games = true;
  std::string title;  // "" : "tengen run <base>"
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
