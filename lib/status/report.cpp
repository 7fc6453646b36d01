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
#include "play/model_registry.h"
#include "status/report_data.h"
#include "status/status_format.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;

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
      "cap</th><th>resigned</th><th>pass-alive</th><th>moves after the first pass: "
      "median</th><th>90th "
      "percentile</th><th>mean |final score|</th></tr>\n";
  for (const json& r : rows) {
    html += StrCat("<tr><td>", HtmlEscape(r["model"].get<std::string>()), "</td><td>",
                   r["games"].get<int64_t>(), "</td><td>", percent(r["passes"]), "</td><td>",
                   percent(r["move_cap"]), "</td><td>", percent(r["resignation"]), "</td><td>",
                   percent(r["pass_alive"]), "</td><td>", moves(r["after_first_pass_median"]),
                   "</td><td>", moves(r["after_first_pass_p90"]), "</td><td>",
                   score(r["mean_abs_final_score"]), "</td></tr>\n");
  }
  return html + "</table>\n";
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
  json data = ReportData(base, options, status, now, &notes);
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
