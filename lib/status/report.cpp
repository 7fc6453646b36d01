#include "status/report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "go/sgf.h"
#include "match/ladder.h"
#include "pipeline/base_dir.h"
#include "pipeline/game_end_stats.h"
#include "pipeline/model_registry.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;

// Throughput buckets: the smallest of these widths that gives at most kMaxBuckets buckets and
// on average at least kFilesPerBucket files per bucket (narrower buckets than the gaps between
// files draw a comb, not a rate).
constexpr std::array<double, 10> kBucketSeconds = {60,   300,   600,   1800,  3600,
                                                   7200, 21600, 43200, 86400, 604800};
constexpr double kMaxBuckets = 80;
constexpr double kFilesPerBucket = 3;
// The gating chart shows the newest decisions only.
constexpr size_t kMaxGatingBars = 120;

json NumberOrNull(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json LossData(const std::string& base, std::vector<std::string>* notes) {
  json trainings = json::array();
  for (const TrainingMetrics& m : ReadAllMetrics(base, notes)) {
    json points = json::array();
    for (const EpochMetrics& e : m.epochs) {
      points.push_back({NumberOrNull(e.samples), NumberOrNull(e.loss_policy),
                        NumberOrNull(e.loss_value), NumberOrNull(e.loss_score),
                        NumberOrNull(e.loss_ownership), NumberOrNull(e.loss_total)});
    }
    trainings.push_back({{"training", m.name}, {"points", points}});
  }
  return trainings;
}

json ThroughputData(const std::string& base, bool count_games, std::vector<std::string>* notes) {
  const std::vector<DataFile> shards = ListShards(base, true, notes);
  const std::vector<DataFile> sgfs = ListSgfFiles(base, count_games, notes);
  double t0 = 0, t1 = 0;
  bool any = false;
  double counted_shards = 0;
  for (const std::vector<DataFile>* files : {&shards, &sgfs}) {
    for (const DataFile& f : *files) {
      if (f.count < 0) continue;
      if (files == &shards) ++counted_shards;
      t0 = any ? std::min(t0, f.mtime) : f.mtime;
      t1 = any ? std::max(t1, f.mtime) : f.mtime;
      any = true;
    }
  }
  json out = {{"bucket_seconds", nullptr}, {"points", json::array()}};
  if (!any) return out;
  double width = kBucketSeconds.back();
  const double min_width = std::max((t1 - t0) / kMaxBuckets,
                                    kFilesPerBucket * (t1 - t0) / std::max(1.0, counted_shards));
  for (const double w : kBucketSeconds) {
    if (w >= min_width) {
      width = w;
      break;
    }
  }
  const double start = std::floor(t0 / width) * width;
  const size_t buckets = static_cast<size_t>(std::floor((t1 - start) / width)) + 1;
  std::vector<double> rows(buckets, 0), games(buckets, 0);
  for (const DataFile& f : shards) {
    if (f.count >= 0) rows[static_cast<size_t>((f.mtime - start) / width)] += f.count;
  }
  for (const DataFile& f : sgfs) {
    if (f.count >= 0) games[static_cast<size_t>((f.mtime - start) / width)] += f.count;
  }
  json points = json::array();
  const bool have_games = count_games && !sgfs.empty();
  for (size_t i = 0; i < buckets; ++i) {
    points.push_back({start + width * static_cast<double>(i),
                      have_games ? json(games[i] * 3600 / width) : json(nullptr),
                      rows[i] * 3600 / width});
  }
  out["bucket_seconds"] = width;
  out["points"] = points;
  return out;
}

json GatingData(const std::vector<GatingRecord>& records) {
  json out = json::array();
  const size_t first = records.size() > kMaxGatingBars ? records.size() - kMaxGatingBars : 0;
  for (size_t i = first; i < records.size(); ++i) {
    const GatingRecord& r = records[i];
    out.push_back({{"candidate", r.candidate},
                   {"baseline", r.baseline},
                   {"decision", r.decision},
                   {"accepted", r.decision == "accept" || r.decision == "accepted"},
                   {"games", r.games},
                   {"wins", r.wins},
                   {"losses", r.losses},
                   {"draws", r.draws},
                   {"score_fraction", NumberOrNull(r.score_fraction)},
                   {"elo", NumberOrNull(r.elo)},
                   {"elo_low", NumberOrNull(r.elo_low)},
                   {"elo_high", NumberOrNull(r.elo_high)},
                   {"time", r.time}});
  }
  return out;
}

// The run's models in the order they appeared, and the selfplay games each played, for the
// Elo charts and the game-ends table.
struct RunModels {
  // When each model appeared: its directory's time in models/, rejectedmodels/ or
  // modelstobetested/ (ModelEntry::time), else (its directory removed) its oldest SGF file's,
  // since a model plays only after it appears.
  std::map<std::string, double> time;
  // The random net first (it plays before any model exists), then by time, then by name.
  std::vector<std::string> order;
  // Games (lines) of each model's SGF files; empty when they were not counted.
  std::map<std::string, int64_t> games;
  double first_time = kUnknown;  // the oldest model time or SGF file: the run's start
};

RunModels ReadRunModels(const std::string& base, const std::vector<DataFile>& sgfs) {
  RunModels run;
  for (const std::string& dir : {pipeline::ModelsDir(base), pipeline::RejectedModelsDir(base),
                                 pipeline::ModelsToBeTestedDir(base)}) {
    for (const ModelEntry& m : ListModelDirs(dir, nullptr)) run.time[m.name] = m.time;
  }
  std::map<std::string, double> oldest_file;
  for (const DataFile& f : sgfs) {
    const auto it = oldest_file.find(f.model);
    if (it == oldest_file.end() || f.mtime < it->second) oldest_file[f.model] = f.mtime;
    if (f.count >= 0) run.games[f.model] += f.count;
  }
  for (const auto& [model, mtime] : oldest_file) {
    run.time.emplace(model, mtime);  // a model directory's time wins
    run.first_time = std::isfinite(run.first_time) ? std::min(run.first_time, mtime) : mtime;
  }
  for (const auto& [model, time] : run.time) {
    run.order.push_back(model);
    run.first_time = std::isfinite(run.first_time) ? std::min(run.first_time, time) : time;
  }
  const auto key = [&](const std::string& model) {
    return std::make_tuple(model != pipeline::kRandomModelName, run.time.at(model), model);
  };
  std::sort(run.order.begin(), run.order.end(),
            [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return run;
}

// Where the run stood when a model appeared: hours of running time and selfplay games played.
struct ModelProgress {
  double hours = kUnknown;
  double games = kUnknown;
};

// From strength/models.tsv (scripts/strength_run.sh: running time, stops not counted, and the
// games in the SGF files when it saw the model) when the run has one. Otherwise hours since the
// run's first model or SGF file (stops counted), and the games of the models that appeared
// before it (read from the SGF files: exact across restarts and hosts, and independent of when
// the files were written; a previous model's games that finish after the model appeared, while
// selfplay switches, count as before it).
std::map<std::string, ModelProgress> ReadModelProgress(const std::string& base,
                                                       const RunModels& run, bool count_games) {
  std::map<std::string, ModelProgress> progress;
  std::ifstream tsv(base + "/strength/models.tsv");
  std::string line;
  while (std::getline(tsv, line)) {
    std::istringstream fields(line);
    std::string name;
    double seconds = 0, games = 0;
    if (std::getline(fields, name, '\t') && fields >> seconds >> games)
      progress[name] = {seconds / 3600.0, games};
  }
  if (!progress.empty()) return progress;
  double games_before = 0;
  for (const std::string& model : run.order) {
    ModelProgress& p = progress[model];
    p.hours = (run.time.at(model) - run.first_time) / 3600.0;
    if (count_games) p.games = games_before;
    if (const auto it = run.games.find(model); it != run.games.end())
      games_before += static_cast<double>(it->second);
  }
  return progress;
}

// How each model's selfplay games ended (pipeline/game_end_stats.h), from its SGF files, models
// in the order they appeared.
json GameEndsData(const std::vector<DataFile>& sgfs, const RunModels& run,
                  std::vector<std::string>* notes) {
  std::map<std::string, pipeline::GameEndStats> by_model;
  for (const DataFile& f : sgfs) {
    try {
      for (const go::SgfRecord& record : go::ReadSgfFile(f.path))
        by_model[f.model].AddRecord(record);
    } catch (const std::exception& e) {
      notes->push_back("SGF file skipped for game ends: " + f.path + ": " + e.what());
    }
  }
  json rows = json::array();
  for (const std::string& name : run.order) {
    const auto it = by_model.find(name);
    if (it == by_model.end() || it->second.games() == 0) continue;
    const pipeline::GameEndStats& s = it->second;
    const auto share = [&](pipeline::GameEnd end) {
      return static_cast<double>(s.ended_by(end)) / static_cast<double>(s.games());
    };
    const bool passed = s.games_with_pass() > 0;
    rows.push_back(
        {{"model", name},
         {"games", s.games()},
         {"passes", share(pipeline::GameEnd::kPasses)},
         {"move_cap", share(pipeline::GameEnd::kMoveCap)},
         {"resignation", share(pipeline::GameEnd::kResignation)},
         {"after_first_pass_median", passed ? json(s.MovesAfterFirstPass(0.5)) : json()},
         {"after_first_pass_p90", passed ? json(s.MovesAfterFirstPass(0.9)) : json()},
         {"mean_abs_final_score", s.scored_games() > 0 ? json(s.MeanAbsFinalScore()) : json()}});
  }
  return rows;
}

// The game-ends rows as a static HTML table; "-" where no game says anything (no game with a
// pass, no scored game).
std::string GameEndsTable(const json& rows) {
  if (rows.empty()) return "<p class=\"game-ends\">no selfplay games yet</p>\n";
  const auto percent = [](const json& v) { return FormatFixed(100.0 * v.get<double>(), 1) + "%"; };
  const auto moves = [](const json& v) {
    return v.is_null() ? std::string("-") : std::to_string(v.get<int>());
  };
  const auto score = [](const json& v) {
    return v.is_null() ? std::string("-") : FormatFixed(v.get<double>(), 1);
  };
  std::string html =
      "<table class=\"game-ends\">\n<tr><th>model</th><th>games</th><th>two passes</th><th>move "
      "cap</th><th>resigned</th><th>moves after the first pass: median</th><th>90th "
      "percentile</th><th>mean |final score|</th></tr>\n";
  for (const json& r : rows) {
    html +=
        StrCat("<tr><td>", HtmlEscape(r["model"].get<std::string>()), "</td><td>",
               r["games"].get<int64_t>(), "</td><td>", percent(r["passes"]), "</td><td>",
               percent(r["move_cap"]), "</td><td>", percent(r["resignation"]), "</td><td>",
               moves(r["after_first_pass_median"]), "</td><td>", moves(r["after_first_pass_p90"]),
               "</td><td>", score(r["mean_abs_final_score"]), "</td></tr>\n");
  }
  return html + "</table>\n";
}

// Elo of models over time: the ladder's ratings when it rates a model, else the gatekeeper's
// matches chained from the first baseline (rated 0). Each model also gets the hours of the run
// and the selfplay games before it (`progress`). Ladder players that are not models (GNU Go
// levels, other engines) are drawn as horizontal lines, as the anchors are: "anchors" lists
// both, "anchor" telling them apart.
json EloData(const RunStatus& status, const std::vector<GatingRecord>& records,
             const RunModels& run, const std::map<std::string, ModelProgress>& progress,
             std::vector<std::string>* notes) {
  const auto hours = [&](const std::string& name) {
    const auto it = progress.find(name);
    return it == progress.end() ? json(nullptr) : NumberOrNull(it->second.hours);
  };
  const auto games_before = [&](const std::string& name) {
    const auto it = progress.find(name);
    return it == progress.end() ? json(nullptr) : NumberOrNull(it->second.games);
  };
  // A model has a directory or selfplay games, or at least a model's name (its directory may
  // have been removed since it was rated).
  const auto is_model = [&](const std::string& name) {
    int64_t samples = 0, rows = 0;
    return run.time.count(name) > 0 || pipeline::ParseModelName(name, &samples, &rows);
  };
  json models = json::array();
  json anchors = json::array();
  if (status.ladder.present) {
    std::map<std::string, double> first_match;
    try {
      for (const match::LadderMatch& m : match::ReadLadder(status.ladder.file).matches) {
        const std::optional<double> t = ParseUtc(m.time_utc);
        if (!t) continue;
        for (const std::string& name : {m.a, m.b}) {
          auto it = first_match.find(name);
          if (it == first_match.end() || *t < it->second) first_match[name] = *t;
        }
      }
    } catch (const std::exception& e) {
      notes->push_back(std::string("ladder times skipped: ") + e.what());
    }
    for (const LadderEntry& e : status.ladder.ratings) {
      if (e.anchor || !is_model(e.name)) {
        anchors.push_back({{"name", e.name}, {"elo", NumberOrNull(e.elo)}, {"anchor", e.anchor}});
        continue;
      }
      double time = kUnknown;
      if (auto it = run.time.find(e.name); it != run.time.end()) {
        time = it->second;
      } else if (auto first = first_match.find(e.name); first != first_match.end()) {
        time = first->second;
      }
      if (!std::isfinite(time)) continue;
      models.push_back({{"name", e.name},
                        {"time", time},
                        {"hours", hours(e.name)},
                        {"selfplay_games", games_before(e.name)},
                        {"elo", NumberOrNull(e.elo)},
                        {"low", NumberOrNull(e.low)},
                        {"high", NumberOrNull(e.high)},
                        {"games", e.games}});
    }
    if (!models.empty()) {
      std::sort(models.begin(), models.end(),
                [](const json& a, const json& b) { return a["time"] < b["time"]; });
      return {{"source", "ladder"}, {"models", models}, {"anchors", anchors}};
    }
  }
  std::map<std::string, double> chained;
  for (const GatingRecord& r : records) {
    const bool accepted = r.decision == "accept" || r.decision == "accepted";
    if (!accepted || r.games <= 0 || !std::isfinite(r.elo)) continue;
    double baseline = 0;
    if (auto it = chained.find(r.baseline); it != chained.end()) {
      baseline = it->second;
    } else if (!chained.empty() && !models.empty()) {
      baseline = models.back()["elo"].get<double>();  // baseline not seen: chain on the last
    }
    const double elo = baseline + r.elo;
    chained[r.candidate] = elo;
    models.push_back(
        {{"name", r.candidate},
         {"time", r.time},
         {"hours", hours(r.candidate)},
         {"selfplay_games", games_before(r.candidate)},
         {"elo", elo},
         {"low", std::isfinite(r.elo_low) ? json(baseline + r.elo_low) : json(nullptr)},
         {"high", std::isfinite(r.elo_high) ? json(baseline + r.elo_high) : json(nullptr)},
         {"games", r.games}});
  }
  return {{"source", models.empty() ? "none" : "gating"}, {"models", models}, {"anchors", anchors}};
}

// JSON that is safe inside <script>: every '<', '>' and '&' (only possible inside strings) as
// a \u escape.
std::string ScriptSafeJson(const json& j) {
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Cell(const std::string& text) { return "<td>" + HtmlEscape(text) + "</td>"; }

std::string Row(const std::string& label, const std::string& value) {
  return "<tr><th>" + HtmlEscape(label) + "</th>" + Cell(value) + "</tr>\n";
}

// Pieces of FormatStatus's text per section, as table rows: the status text is the one source
// of the wording, so the page and the terminal say the same.
std::string SummaryTable(const std::string& status_text) {
  std::string html = "<table class=\"summary\">\n";
  std::istringstream in(status_text);
  std::string line, section;
  std::string value;
  auto flush = [&] {
    if (!section.empty() && !value.empty()) html += Row(section, value);
    value.clear();
  };
  std::getline(in, line);  // the title line
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      flush();
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 1 < line.size()) {
        section = line.substr(0, colon);
        value = line.substr(colon + 2);
      } else {
        section = line;
      }
      continue;
    }
    const size_t first = line.find_first_not_of(' ');
    value += (value.empty() ? "" : "\n") + line.substr(first);
  }
  flush();
  return html + "</table>\n";
}

constexpr char kStyle[] = R"CSS(
body { font-family: sans-serif; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table.summary { border-collapse: collapse; }
table.summary th { text-align: left; vertical-align: top; padding: 0.3em 1em 0.3em 0; white-space: nowrap; }
table.summary td { white-space: pre-wrap; font-family: monospace; padding: 0.3em 0; }
ul.warnings li { color: #b00; } ul.notes li { color: #666; }
table.game-ends { border-collapse: collapse; }
table.game-ends th, table.game-ends td { padding: 0.2em 0.8em; text-align: right; border-bottom: 1px solid #eee; }
table.game-ends th:first-child, table.game-ends td:first-child { text-align: left; white-space: nowrap; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; border: 1px solid #ddd; padding: 0.5em; }
figcaption { font-weight: bold; font-size: 0.95em; margin-bottom: 0.3em; }
svg.chart { width: 560px; height: 300px; font-size: 11px; }
svg .grid { stroke: #eee; } svg .axis { stroke: #444; } svg .series { stroke-width: 1.8; fill: none; }
svg .errbar { stroke-width: 1.2; } svg .hline { stroke: #888; stroke-dasharray: 5 4; }
svg .empty { fill: #999; font-size: 14px; }
)CSS";

// Draws every chart from the embedded data; see report.h for the attributes it sets.
constexpr char kScript[] = R"JS(
(function () {
  'use strict';
  var body = document.body;
  window.addEventListener('error', function (e) { body.setAttribute('data-error', String(e.message)); });
  var NS = 'http://www.w3.org/2000/svg';
  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
  var W = 560, H = 300, M = {l: 64, r: 16, t: 14, b: 42};
  var data = JSON.parse(document.getElementById('report-data').textContent);

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function label(parent, x, y, s, attrs) {
    var t = el('text', Object.assign({x: x, y: y}, attrs || {}), parent);
    t.textContent = s;
    return t;
  }
  function fin(v) { return typeof v === 'number' && isFinite(v); }
  function niceTicks(lo, hi, n) {
    var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n)));
    var err = (hi - lo) / n / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var ticks = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(v);
    return ticks;
  }
  // Tick labels: as many decimals as the tick step needs, so that neighbours differ.
  function fmtTick(v, step) {
    if (Math.abs(v) >= 1e4 || !(step > 0)) return fmtNum(v);
    var decimals = Math.min(8, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
    return v.toFixed(decimals);
  }
  function ticksWithLabels(lo, hi, n) {
    var ticks = niceTicks(lo, hi, n);
    var step = ticks.length > 1 ? ticks[1] - ticks[0] : 0;
    return ticks.map(function (v) { return {v: v, text: fmtTick(v, step)}; });
  }
  function fmtNum(v) {
    var a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toPrecision(3) + 'G';
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + 'M';
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + 'k';
    if (a >= 100 || v === Math.round(v)) return String(Math.round(v));
    return String(+v.toPrecision(3));
  }
  function pad(x) { return (x < 10 ? '0' : '') + x; }
  function fmtTime(t, span) {
    var d = new Date(t * 1000);
    var text = pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + pad(d.getUTCHours()) + ':' +
        pad(d.getUTCMinutes());
    return span < 1800 ? text + ':' + pad(d.getUTCSeconds()) : text;
  }
  function start(id) {
    var svg = document.getElementById(id);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    return svg;
  }
  function finish(svg, series, points) {
    svg.setAttribute('data-drawn', points > 0 ? '1' : '0');
    svg.setAttribute('data-series', String(series));
    svg.setAttribute('data-points', String(points));
    if (points === 0) {
      svg.setAttribute('data-empty', '1');
      label(svg, W / 2, H / 2, 'no data yet', {'text-anchor': 'middle', 'class': 'empty'});
    }
  }

  // series: [{name, points: [[x, y, low, high], ...]}]; opts: xTime, xLabel, yLabel,
  // errorBars, hlines [{name, y}], yZero, xZero (the axis starts at 0 at most).
  function lineChart(id, series, opts) {
    var svg = start(id);
    series = series.map(function (s) {
      return {name: s.name, points: s.points.filter(function (p) { return fin(p[0]) && fin(p[1]); })};
    }).filter(function (s) { return s.points.length > 0; });
    var xs = [], ys = [], n = 0;
    series.forEach(function (s) {
      s.points.forEach(function (p) {
        xs.push(p[0]); ys.push(p[1]); n++;
        if (opts.errorBars && fin(p[2])) ys.push(p[2]);
        if (opts.errorBars && fin(p[3])) ys.push(p[3]);
      });
    });
    if (n === 0) { finish(svg, 0, 0); return; }
    var hlines = (opts.hlines || []).filter(function (h) { return fin(h.y); });
    hlines.forEach(function (h) { ys.push(h.y); });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (opts.yZero && y0 > 0) y0 = 0;
    if (opts.xZero && x0 > 0) x0 = 0;
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { y0 -= 1; y1 += 1; }
    var margin = (y1 - y0) * 0.05;
    if (!(opts.yZero && y0 === 0)) y0 -= margin;
    y1 += margin;
    function sx(x) { return M.l + (x - x0) / (x1 - x0) * (W - M.l - M.r); }
    function sy(y) { return H - M.b - (y - y0) / (y1 - y0) * (H - M.t - M.b); }
    var axes = el('g', {'class': 'axes'}, svg);
    ticksWithLabels(y0, y1, 5).forEach(function (t) {
      el('line', {x1: M.l, x2: W - M.r, y1: sy(t.v), y2: sy(t.v), 'class': 'grid'}, axes);
      label(axes, M.l - 5, sy(t.v) + 4, t.text, {'text-anchor': 'end'});
    });
    var xticks = [];
    if (opts.xTime) {
      for (var i = 0; i <= 3; i++) {
        var t = x0 + i * (x1 - x0) / 3;
        xticks.push({v: t, text: fmtTime(t, x1 - x0)});
      }
    } else {
      xticks = ticksWithLabels(x0, x1, 5);
    }
    xticks.forEach(function (t, i) {
      var anchor = opts.xTime ? (i === 0 ? 'start' : (i === xticks.length - 1 ? 'end' : 'middle')) : 'middle';
      el('line', {x1: sx(t.v), x2: sx(t.v), y1: H - M.b, y2: H - M.b + 4, 'class': 'axis'}, axes);
      label(axes, sx(t.v), H - M.b + 16, t.text, {'text-anchor': anchor});
    });
    el('line', {x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, 'class': 'axis'}, axes);
    el('line', {x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, 'class': 'axis'}, axes);
    label(axes, (M.l + W - M.r) / 2, H - 6, opts.xLabel, {'text-anchor': 'middle'});
    label(axes, 12, (M.t + H - M.b) / 2, opts.yLabel,
          {'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (M.t + H - M.b) / 2 + ')'});
    hlines.forEach(function (h) {
      el('path', {d: 'M' + M.l + ' ' + sy(h.y) + 'H' + (W - M.r), 'class': 'hline'}, svg);
      label(svg, M.l + 4, sy(h.y) - 4, h.name, {'text-anchor': 'start', fill: '#666'});
    });
    series.forEach(function (s, k) {
      var color = COLORS[k % COLORS.length];
      var d = s.points.map(function (p, j) {
        return (j ? 'L' : 'M') + sx(p[0]).toFixed(1) + ' ' + sy(p[1]).toFixed(1);
      }).join('');
      el('path', {d: d, 'class': 'series', stroke: color, 'data-name': s.name}, svg);
      s.points.forEach(function (p) {
        if (opts.errorBars && fin(p[2]) && fin(p[3])) {
          var x = sx(p[0]).toFixed(1), lo = sy(p[2]).toFixed(1), hi = sy(p[3]).toFixed(1);
          el('path', {d: 'M' + x + ' ' + lo + 'V' + hi + 'M' + (x - 3) + ' ' + lo + 'h6M' + (x - 3) +
                      ' ' + hi + 'h6', 'class': 'errbar', stroke: color}, svg);
        }
        if (s.points.length <= 60) {
          var c = el('circle', {cx: sx(p[0]).toFixed(1), cy: sy(p[1]).toFixed(1), r: 2.5, fill: color}, svg);
          if (p[4]) el('title', {}, c).textContent = p[4];
        }
      });
      var ly = M.t + 12 * k + 4;
      el('rect', {x: M.l + 8, y: ly - 7, width: 10, height: 3, fill: color}, svg);
      label(svg, M.l + 22, ly, s.name, {fill: '#333'});
    });
    finish(svg, series.length, n);
  }

  function gatingChart(id, records) {
    var svg = start(id);
    if (records.length === 0) { finish(svg, 0, 0); return; }
    var axes = el('g', {'class': 'axes'}, svg);
    function sy(y) { return H - M.b - y * (H - M.t - M.b); }
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      el('line', {x1: M.l, x2: W - M.r, y1: sy(v), y2: sy(v), 'class': v === 0.5 ? 'hline' : 'grid'}, axes);
      label(axes, M.l - 5, sy(v) + 4, String(v), {'text-anchor': 'end'});
    });
    el('line', {x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, 'class': 'axis'}, axes);
    el('line', {x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, 'class': 'axis'}, axes);
    label(axes, (M.l + W - M.r) / 2, H - 6, 'candidates, oldest first (green accepted, red rejected)',
          {'text-anchor': 'middle'});
    label(axes, 12, (M.t + H - M.b) / 2, 'candidate score',
          {'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (M.t + H - M.b) / 2 + ')'});
    var slot = (W - M.l - M.r) / records.length;
    records.forEach(function (r, i) {
      // At least a sliver, so that a candidate that scored nothing still shows its colour.
      var v = Math.max(fin(r.score_fraction) ? r.score_fraction : 0, 0.01);
      var x = M.l + i * slot + slot * 0.15, w = Math.max(1, slot * 0.7);
      var bar = el('path', {d: 'M' + x.toFixed(1) + ' ' + sy(0) + 'V' + sy(v).toFixed(1) + 'h' + w.toFixed(1) +
                            'V' + sy(0) + 'Z', 'class': 'bar', fill: r.accepted ? '#2ca02c' : '#d62728',
                            'data-decision': r.decision}, svg);
      el('title', {}, bar).textContent = r.candidate + ': ' + r.decision + ', ' + r.wins + '-' + r.losses +
          '-' + r.draws + ' in ' + r.games + ' games' + (fin(r.elo) ? ', Elo ' + Math.round(r.elo) : '');
    });
    finish(svg, 1, records.length);
  }

  var heads = ['policy', 'value', 'score', 'ownership', 'total'];
  heads.forEach(function (head, h) {
    lineChart('loss-' + head, data.losses.map(function (t) {
      return {name: t.training, points: t.points.map(function (p) { return [p[0], p[h + 1]]; })};
    }), {xLabel: 'samples trained', yLabel: head + ' loss'});
  });
  var tp = data.throughput.points;
  lineChart('games-per-hour', [{name: 'games/hour (SGF files)', points: tp.map(function (p) { return [p[0], p[1]]; })}],
            {xTime: true, xLabel: 'time (UTC), bucket ' + fmtNum(data.throughput.bucket_seconds || 0) + ' s',
             yLabel: 'games per hour', yZero: true});
  lineChart('rows-per-hour', [{name: 'rows/hour (shards)', points: tp.map(function (p) { return [p[0], p[2]]; })}],
            {xTime: true, xLabel: 'time (UTC), bucket ' + fmtNum(data.throughput.bucket_seconds || 0) + ' s',
             yLabel: 'rows per hour', yZero: true});
  // Anchors by name, rated reference players (GNU Go levels) with their Elo.
  var referenceLines = data.elo.anchors.map(function (a) {
    return {name: a.anchor ? a.name : a.name + ' ' + Math.round(a.elo), y: a.elo};
  });
  lineChart('elo', [{name: data.elo.source === 'gating' ? 'Elo chained from gating matches' : 'ladder Elo',
                     points: data.elo.models.map(function (m) {
                       return [m.time, m.elo, m.low, m.high, m.name + ' ' + Math.round(m.elo)];
                     })}],
            {xTime: true, xLabel: 'model time (UTC)', yLabel: 'Elo', errorBars: true,
             hlines: referenceLines});
  [['elo-hours', 'hours', 'hours of the run'], ['elo-games', 'selfplay_games', 'selfplay games before the model']]
    .forEach(function (c) {
      lineChart(c[0], [{name: 'Elo', points: data.elo.models.map(function (m) {
                         return [m[c[1]], m.elo, m.low, m.high, m.name + ' ' + Math.round(m.elo)];
                       })}],
                {xLabel: c[2], yLabel: 'Elo', errorBars: true, xZero: true, hlines: referenceLines});
    });
  gatingChart('gating', data.gating);
  body.setAttribute('data-report-done', '1');
})();
)JS";

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderReport(const std::string& base, const ReportOptions& options, double now) {
  RunStatus status = CollectStatus(base, options.status, now);
  std::vector<std::string> notes;
  const std::vector<GatingRecord> records = ReadGatingRecords(base, nullptr);
  json data;
  data["base"] = base;
  data["generated_utc"] = FormatUtc(now);
  data["losses"] = LossData(base, nullptr);
  data["throughput"] = ThroughputData(base, options.count_games, &notes);
  // Listed once (with their games when counted) for the Elo charts and the game-ends table.
  const std::vector<DataFile> sgfs = ListSgfFiles(base, options.count_games, nullptr);
  const RunModels run = ReadRunModels(base, sgfs);
  data["elo"] =
      EloData(status, records, run, ReadModelProgress(base, run, options.count_games), &notes);
  data["game_ends"] = options.count_games ? GameEndsData(sgfs, run, &notes) : json::array();
  data["gating"] = GatingData(records);
  // Notes the status did not already make (the SGF files, the ladder's times).
  for (const std::string& note : notes) {
    if (std::find(status.notes.begin(), status.notes.end(), note) == status.notes.end())
      status.notes.push_back(note);
  }

  const std::string title = options.title.empty() ? "tengen run " + base : options.title;
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
          HtmlEscape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  html += "<h1>" + HtmlEscape(title) + "</h1>\n<p>Generated " + HtmlEscape(FormatUtc(now)) +
          " by tengen-report from " + HtmlEscape(base) + ".</p>\n";

  html += "<h2>Warnings</h2>\n";
  if (status.warnings.empty()) {
    html += "<p class=\"no-warnings\">none</p>\n";
  } else {
    html += "<ul class=\"warnings\">\n";
    for (const std::string& w : status.warnings) html += "<li>" + HtmlEscape(w) + "</li>\n";
    html += "</ul>\n";
  }

  html += "<h2>Training losses</h2>\n<div class=\"charts\">\n";
  for (const char* head : {"policy", "value", "score", "ownership", "total"}) {
    html += std::string("<figure><figcaption>") + head +
            " loss over samples</figcaption><svg id=\"loss-" + head +
            "\" class=\"chart\"></svg></figure>\n";
  }
  html += "</div>\n<h2>Selfplay throughput</h2>\n<div class=\"charts\">\n";
  html +=
      "<figure><figcaption>games per hour</figcaption><svg id=\"games-per-hour\" "
      "class=\"chart\"></svg></figure>\n";
  html +=
      "<figure><figcaption>rows per hour</figcaption><svg id=\"rows-per-hour\" "
      "class=\"chart\"></svg></figure>\n";
  html += "</div>\n<h2>Strength</h2>\n<div class=\"charts\">\n";
  html +=
      "<figure><figcaption>Elo of the models (95% intervals)</figcaption><svg id=\"elo\" "
      "class=\"chart\"></svg></figure>\n";
  html +=
      "<figure><figcaption>Elo against hours of the run</figcaption><svg id=\"elo-hours\" "
      "class=\"chart\"></svg></figure>\n";
  html +=
      "<figure><figcaption>Elo against selfplay games</figcaption><svg id=\"elo-games\" "
      "class=\"chart\"></svg></figure>\n";
  html +=
      "<figure><figcaption>gating decisions</figcaption><svg id=\"gating\" "
      "class=\"chart\"></svg></figure>\n";
  html += "</div>\n";

  html += "<h2>How selfplay games end, per model</h2>\n" + GameEndsTable(data["game_ends"]);
  html += "<h2>Summary</h2>\n" + SummaryTable(FormatStatus(status));
  if (!status.notes.empty()) {
    html += "<h2>Notes (files skipped)</h2>\n<ul class=\"notes\">\n";
    for (const std::string& n : status.notes) html += "<li>" + HtmlEscape(n) + "</li>\n";
    html += "</ul>\n";
  }
  html += "<script type=\"application/json\" id=\"report-data\">" + ScriptSafeJson(data) +
          "</script>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
  return html;
}

void WriteReport(const std::string& base, const ReportOptions& options, double now,
                 const std::string& output_path) {
  PublishFile(output_path, RenderReport(base, options, now));
}

}  // namespace tengen::status
