// The HTML report (status/report.h, tengen-report): the embedded data says what the base
// directory holds, and the page, opened in headless Chromium (Debian package chromium, which
// scripts/test.sh installs), draws every chart: the DOM the browser dumps carries the
// attributes the page's script sets after drawing and the SVG elements it drew.

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "match/ladder.h"
#include "status/report.h"
#include "status_fixture.h"
#include "test_support.h"
#include "util/publish.h"
#include "util/subprocess.h"

namespace tengen::status {
namespace {

using json = nlohmann::json;
using tengen::testing::BuildFixture;
using tengen::testing::TempDir;

const std::string kReport = TENGEN_BIN_DIR "/tengen-report";
const char* const kCharts[] = {"loss-policy", "loss-value",     "loss-score",    "loss-ownership",
                               "loss-total",  "games-per-hour", "rows-per-hour", "elo",
                               "elo-hours",   "elo-games",      "gating"};

int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

// The JSON embedded in the page.
json EmbeddedData(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const size_t begin = html.find(open);
  REQUIRE(begin != std::string::npos);
  const size_t end = html.find("</script>", begin);
  REQUIRE(end != std::string::npos);
  return json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

// The chromium binary: $TENGEN_CHROMIUM, else chromium (or chromium-browser) in PATH.
std::string FindChromium() {
  if (const char* env = std::getenv("TENGEN_CHROMIUM")) return env;
  for (const char* name : {"chromium", "chromium-browser"}) {
    const ProcessResult r = RunProcess({"bash", "-c", std::string("command -v ") + name});
    if (r.exit_code == 0 && !r.output.empty()) return r.output.substr(0, r.output.find('\n'));
  }
  return "";
}

// The DOM after the page's scripts ran, as headless Chromium serialises it.
std::string RenderedDom(const std::string& html_path, const std::string& profile_dir) {
  const std::string chromium = FindChromium();
  REQUIRE_MESSAGE(!chromium.empty(),
                  "chromium is not installed, so the report cannot be checked in a browser: "
                  "install the Debian package chromium (scripts/test.sh does) or set "
                  "TENGEN_CHROMIUM to a Chromium binary");
  const ProcessResult r =
      RunProcess({"timeout", "180", chromium, "--headless", "--disable-gpu", "--no-sandbox",
                  "--user-data-dir=" + profile_dir, "--dump-dom", "file://" + html_path});
  REQUIRE_MESSAGE(r.exit_code == 0, "chromium failed: ", r.output);
  const size_t html = r.output.find("<html");
  REQUIRE_MESSAGE(html != std::string::npos, "no DOM in chromium's output: ", r.output);
  return r.output.substr(html);
}

// The opening <body ...> tag, which carries the script's verdict.
std::string BodyTag(const std::string& dom) {
  const size_t open = dom.find("<body");
  REQUIRE(open != std::string::npos);
  return dom.substr(open, dom.find('>', open) - open + 1);
}

// The opening tag of the element with this id, and the markup inside it up to its end tag.
struct Element {
  std::string tag, inner;
};
Element FindSvg(const std::string& dom, const std::string& id) {
  const size_t at = dom.find("id=\"" + id + "\"");
  REQUIRE_MESSAGE(at != std::string::npos, "no element ", id);
  const size_t open = dom.rfind('<', at);
  const size_t close = dom.find('>', at);
  const size_t end = dom.find("</svg>", close);
  REQUIRE(end != std::string::npos);
  return {dom.substr(open, close - open + 1), dom.substr(close + 1, end - close - 1)};
}

TEST_CASE("report: the embedded data of a run and an atomic write") {
  TempDir dir;
  const testing::Fixture f = BuildFixture(dir / "base");
  const std::string out = dir / "report.html";
  const ProcessResult r = RunProcess({kReport, dir / "base", "--output", out, "--min-free-gb", "0",
                                      "--min-free-percent", "0", "--title", "Test <run> & co"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string html = ReadFile(out);
  int entries = 0;  // base and report.html: no temporary left behind
  for (boost::filesystem::directory_iterator it(dir.path()), end; it != end; ++it) ++entries;
  CHECK(entries == 2);
  CHECK(html.find("<title>Test &lt;run&gt; &amp; co</title>") != std::string::npos);
  // Nothing from the network: the only URL is the SVG namespace.
  CHECK(Count(html, "http") == Count(html, "http://www.w3.org/2000/svg"));
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);

  const json data = EmbeddedData(html);
  REQUIRE(data["losses"].size() == 2);
  CHECK(data["losses"][0]["training"] == "b6c96");
  CHECK(data["losses"][0]["points"].size() == 4);
  CHECK(data["losses"][0]["points"][3][0] == 4000);
  CHECK(data["losses"][0]["points"][3][5].get<double>() == doctest::Approx(2.7));
  // Shards spread over 3 h: every row and game lands in one of the buckets.
  const double width = data["throughput"]["bucket_seconds"].get<double>();
  CHECK(width >= 60);
  CHECK(data["throughput"]["points"].size() >= 1);
  double rows = 0, games = 0;
  for (const json& p : data["throughput"]["points"]) {
    games += p[1].get<double>() * width / 3600;
    rows += p[2].get<double>() * width / 3600;
  }
  CHECK(rows == doctest::Approx(static_cast<double>(f.rows)));
  CHECK(games == doctest::Approx(6));  // the selfplay run played 6 games
  // No ladder: the Elo comes from the gatekeeper's records, chained.
  CHECK(data["elo"]["source"] == "gating");
  REQUIRE(data["elo"]["models"].size() == 2);
  CHECK(data["elo"]["models"][0]["elo"] == doctest::Approx(190));
  CHECK(data["elo"]["models"][1]["elo"] == doctest::Approx(260));  // 190 + 70
  CHECK(data["elo"]["models"][1]["low"] == doctest::Approx(180));
  REQUIRE(data["gating"].size() == 3);
  CHECK(data["gating"][1]["accepted"] == false);
  // The summary and warnings are static HTML.
  CHECK(html.find("rising loss: training b6c96") != std::string::npos);
  CHECK(html.find("stale: trainer on hostC") != std::string::npos);
  CHECK(html.find("<th>Training</th>") != std::string::npos);

  CHECK(RunProcess({kReport, dir / "base"}).exit_code == 2);  // no --output
  CHECK(RunProcess({kReport, "--output", out}).exit_code == 2);
  // A base directory that is not there: an error naming it, and no page.
  const std::string nowhere = dir / "report-of-nothing.html";
  const ProcessResult missing = RunProcess({kReport, dir / "no-such-run", "--output", nowhere});
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find(dir / "no-such-run") != std::string::npos);
  CHECK_FALSE(boost::filesystem::exists(nowhere));
}

TEST_CASE("report: headless Chromium draws every chart of a run") {
  TempDir dir;
  BuildFixture(dir / "base");
  // A ladder rating the two accepted models against an anchor.
  const std::string ladder = dir / "base/ladder/ladder.json";
  match::LadderMatch m;
  m.a = "run-b6c96-s1000-d500";
  m.b = "gnugo-l1";
  m.wins = 6;
  m.losses = 4;
  match::UpdateLadder(ladder, {{"gnugo-l1", 0}}, m);
  m.a = "run-b6c96-s3000-d900";
  m.wins = 8;
  m.losses = 2;
  match::UpdateLadder(ladder, {}, m);
  // GNU Go level 5, rated rather than anchored: a reference line too.
  m.b = "gnugo-l5";
  m.wins = 4;
  m.losses = 6;
  match::UpdateLadder(ladder, {}, m);
  // scripts/strength_run.sh's record: running seconds and selfplay games when each appeared.
  boost::filesystem::create_directories(dir / "base/strength");
  PublishFile(dir / "base/strength/models.tsv",
              "run-b6c96-s1000-d500\t1800\t150\t2026-01-01T00:00:00Z\n"
              "run-b6c96-s3000-d900\t5400\t420\t2026-01-01T01:00:00Z\n");

  const std::string out = dir / "report.html";
  const ProcessResult r = RunProcess({kReport, dir / "base", "--output", out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string html = ReadFile(out);
  const json data = EmbeddedData(html);
  CHECK(data["elo"]["source"] == "ladder");
  REQUIRE(data["elo"]["models"].size() == 2);
  CHECK(data["elo"]["anchors"].size() == 2);
  CHECK(data["elo"]["models"][0]["hours"] == doctest::Approx(0.5));
  CHECK(data["elo"]["models"][1]["hours"] == doctest::Approx(1.5));
  CHECK(data["elo"]["models"][1]["selfplay_games"] == 420);
  // How the fixture's selfplay games (the random net's) ended, from their SGFs.
  REQUIRE(data["game_ends"].size() >= 1);
  CHECK(data["game_ends"][0]["model"] == "random");
  CHECK(data["game_ends"][0]["games"].get<int>() >= 1);
  CHECK(data["game_ends"][0]["passes"].get<double>() +
            data["game_ends"][0]["move_cap"].get<double>() ==
        doctest::Approx(1.0));
  CHECK(html.find("<table class=\"game-ends\">") != std::string::npos);

  const std::string dom = RenderedDom(out, dir / "profile");
  const std::string body = BodyTag(dom);
  CHECK_MESSAGE(body.find("data-error") == std::string::npos, body);
  CHECK_MESSAGE(body.find("data-report-done=\"1\"") != std::string::npos, body);
  for (const char* id : kCharts) {
    const Element svg = FindSvg(dom, id);
    CHECK_MESSAGE(svg.tag.find("data-drawn=\"1\"") != std::string::npos, id, ": ", svg.tag);
    CHECK_MESSAGE(Count(svg.inner, "<path") >= 1, id);
    CHECK_MESSAGE(Count(svg.inner, "<text") >= 3, id);  // tick labels
  }
  // One line per training in every loss chart, with its points.
  for (const char* id : {"loss-policy", "loss-total"}) {
    const Element svg = FindSvg(dom, id);
    CHECK(Count(svg.inner, "class=\"series\"") == 2);
    CHECK(svg.tag.find("data-series=\"2\"") != std::string::npos);
    CHECK(svg.tag.find("data-points=\"7\"") != std::string::npos);
    CHECK(Count(svg.inner, "<circle") == 7);
    CHECK(svg.inner.find("data-name=\"b6c96\"") != std::string::npos);
  }
  CHECK(Count(FindSvg(dom, "rows-per-hour").inner, "class=\"series\"") == 1);
  // The Elo charts (against time, hours of the run and selfplay games): a line through both
  // models with a point and an interval on each, and a dashed line for the anchor and for GNU Go
  // level 5 (labelled with its rating).
  std::string l5;  // the label of GNU Go level 5's line: its name and rating
  for (const json& a : data["elo"]["anchors"]) {
    if (a["name"] == "gnugo-l5")
      l5 = "gnugo-l5 " + std::to_string(std::lround(a["elo"].get<double>()));
  }
  REQUIRE(!l5.empty());
  for (const char* id : {"elo", "elo-hours", "elo-games"}) {
    const Element svg = FindSvg(dom, id);
    CHECK_MESSAGE(Count(svg.inner, "class=\"series\"") == 1, id);
    CHECK_MESSAGE(svg.tag.find("data-points=\"2\"") != std::string::npos, id, ": ", svg.tag);
    CHECK_MESSAGE(Count(svg.inner, "<circle") == 2, id);
    CHECK_MESSAGE(Count(svg.inner, "class=\"errbar\"") == 2, id);
    CHECK_MESSAGE(Count(svg.inner, "class=\"hline\"") == 2, id);
    CHECK_MESSAGE(svg.inner.find(">gnugo-l1<") != std::string::npos, id);
    CHECK_MESSAGE(svg.inner.find(">" + l5 + "<") != std::string::npos, id, ": ", l5);
  }
  CHECK(FindSvg(dom, "elo-hours").inner.find(">hours of the run<") != std::string::npos);
  CHECK(FindSvg(dom, "elo-games").inner.find(">selfplay games before the model<") !=
        std::string::npos);
  // Gating: one bar per decision, coloured by it.
  const Element gating = FindSvg(dom, "gating");
  CHECK(Count(gating.inner, "class=\"bar\"") == 3);
  CHECK(Count(gating.inner, "data-decision=\"accepted\"") == 2);
  CHECK(Count(gating.inner, "data-decision=\"rejected\"") == 1);
}

// A run written by hand, times in whole seconds so that hours come out exact: the random net's
// games 4 h ago, a model whose directory was removed (only its SGFs, 3.5 h ago), three model
// directories (3 h, 2 h and 1 h ago; the middle one rejected, without games).
struct HandRun {
  std::string base;
  double t0 = 0;  // "now"
};
HandRun WriteHandRun(const std::string& base) {
  HandRun run{base, std::floor(NowSeconds())};
  const auto sgfs = [&](const std::string& model, const std::string& games, double age) {
    const std::string path = pipeline::SgfsDir(base, model) + "/a.sgfs";
    testing::WriteText(path, games);
    testing::SetMtime(path, run.t0 - age);
  };
  const auto model = [&](const std::string& dir, const std::string& name, double age) {
    testing::WriteText(
        dir + "/" + name + "/export.json",
        "{\"name\": \"" + name + "\", \"exported_utc\": \"" + FormatUtc(run.t0 - age) + "\"}\n");
  };
  // random: ended by two passes (1 move after the first pass, B+2.5), resigned, at the move cap
  // (3 moves after the first pass, W+4.5).
  sgfs("random",
       "(;SZ[5]KM[0.5]RE[B+2.5];B[cc];W[dd];B[];W[])\n"
       "(;SZ[5]KM[0.5]RE[W+R];B[cc];W[dd])\n"
       "(;SZ[5]KM[0.5]RE[W+4.5];B[cc];W[];B[dd];W[ee];B[bb])\n",
       4 * 3600);
  sgfs("old-b4c64-s500-d100", "(;SZ[5]KM[0.5]RE[B+0.5];B[cc];W[];B[])\n", 3.5 * 3600);
  sgfs("run-b6c96-s1000-d500", "(;SZ[5]KM[0.5]RE[B+R];B[cc];W[dd])\n(;SZ[5]KM[0.5]RE[W+R];B[cc])\n",
       2.5 * 3600);
  sgfs("run-b6c96-s3000-d900", "(;SZ[5]KM[0.5]RE[0];B[cc];W[dd];B[];W[])\n", 0.5 * 3600);
  model(pipeline::ModelsDir(base), "run-b6c96-s1000-d500", 3 * 3600);
  model(pipeline::RejectedModelsDir(base), "run-b6c96-s2000-d700", 2 * 3600);
  model(pipeline::ModelsDir(base), "run-b6c96-s3000-d900", 3600);
  // The ladder rates both accepted models against GNU Go level 1 (the anchor) and level 5 (a
  // rated player, not a model).
  const std::string ladder = base + "/ladder/ladder.json";
  EnsureDirectory(base + "/ladder");
  match::LadderMatch m;
  m.a = "run-b6c96-s1000-d500";
  m.b = "gnugo-l1";
  m.wins = 6;
  m.losses = 4;
  match::UpdateLadder(ladder, {{"gnugo-l1", 0}}, m);
  m.a = "run-b6c96-s3000-d900";
  m.wins = 8;
  m.losses = 2;
  match::UpdateLadder(ladder, {}, m);
  m.b = "gnugo-l5";
  m.wins = 3;
  m.losses = 7;
  match::UpdateLadder(ladder, {}, m);
  return run;
}

json ModelNamed(const json& models, const std::string& name) {
  for (const json& m : models)
    if (m["name"] == name) return m;
  FAIL("no model ", name, " in ", models.dump());
  return json();
}

TEST_CASE("report: how each model's games end, Elo against hours and games, from the files") {
  TempDir dir;
  const HandRun run = WriteHandRun(dir / "base");
  const std::string out = dir / "report.html";
  const ProcessResult r = RunProcess({kReport, run.base, "--output", out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string html = ReadFile(out);
  const json data = EmbeddedData(html);

  // One row per model with games, in the order the models appeared (the random net first, the
  // model without a directory by its oldest SGF file).
  const json& ends = data["game_ends"];
  REQUIRE(ends.size() == 4);
  CHECK(ends[0]["model"] == "random");
  CHECK(ends[1]["model"] == "old-b4c64-s500-d100");
  CHECK(ends[2]["model"] == "run-b6c96-s1000-d500");
  CHECK(ends[3]["model"] == "run-b6c96-s3000-d900");
  // random: a third each; moves after the first pass 1 and 3, so the nearest-rank median is 1
  // and the 90th percentile 3; mean |score| of the two scored games (2.5 + 4.5) / 2.
  CHECK(ends[0]["games"] == 3);
  CHECK(ends[0]["passes"].get<double>() == doctest::Approx(1.0 / 3));
  CHECK(ends[0]["move_cap"].get<double>() == doctest::Approx(1.0 / 3));
  CHECK(ends[0]["resignation"].get<double>() == doctest::Approx(1.0 / 3));
  CHECK(ends[0]["after_first_pass_median"] == 1);
  CHECK(ends[0]["after_first_pass_p90"] == 3);
  CHECK(ends[0]["mean_abs_final_score"].get<double>() == doctest::Approx(3.5));
  // B[cc] W[] B[]: one move after White's pass.
  CHECK(ends[1]["passes"] == 1.0);
  CHECK(ends[1]["after_first_pass_median"] == 1);
  CHECK(ends[1]["mean_abs_final_score"].get<double>() == doctest::Approx(0.5));
  // Only resignations: nothing to say about passes or scores.
  CHECK(ends[2]["games"] == 2);
  CHECK(ends[2]["resignation"] == 1.0);
  CHECK(ends[2]["after_first_pass_median"].is_null());
  CHECK(ends[2]["mean_abs_final_score"].is_null());
  CHECK(ends[3]["mean_abs_final_score"] == 0.0);
  CHECK(ends[0]["pass_alive"] == 0.0);
  CHECK(html.find("<tr><td>random</td><td>3</td><td>33.3%</td><td>33.3%</td><td>33.3%</td><td>0.0%"
                  "</td><td>1</td><td>3</td><td>3.5</td></tr>") != std::string::npos);
  CHECK(html.find("<tr><td>run-b6c96-s1000-d500</td><td>2</td><td>0.0%</td><td>0.0%</td><td>100.0%"
                  "</td><td>0.0%</td><td>-</td><td>-</td><td>-</td></tr>") != std::string::npos);

  // The rated models: hours since the run's first file (the random net's SGFs, 4 h ago) and the
  // games of the models that appeared before each (3 random + 1 old for the first; its own 2
  // added for the second, the rejected model having played none).
  CHECK(data["elo"]["source"] == "ladder");
  const json& models = data["elo"]["models"];
  REQUIRE(models.size() == 2);
  CHECK(models[0]["name"] == "run-b6c96-s1000-d500");
  CHECK(models[0]["hours"] == 1.0);
  CHECK(models[0]["selfplay_games"] == 4);
  CHECK(models[1]["name"] == "run-b6c96-s3000-d900");
  CHECK(models[1]["hours"] == 3.0);
  CHECK(models[1]["selfplay_games"] == 6);
  for (const json& m : models) CHECK(m["low"].get<double>() < m["elo"].get<double>());
  // GNU Go level 5 is rated, not anchored, and no model: a reference line like the anchor.
  const json& anchors = data["elo"]["anchors"];
  REQUIRE(anchors.size() == 2);
  std::map<std::string, bool> fixed;
  for (const json& a : anchors) fixed[a["name"].get<std::string>()] = a["anchor"].get<bool>();
  CHECK(fixed.at("gnugo-l1"));
  CHECK_FALSE(fixed.at("gnugo-l5"));

  // Without counting games: no game-ends table and no games before the models; hours remain.
  const ProcessResult quick =
      RunProcess({kReport, run.base, "--output", out, "--count-games", "false"});
  REQUIRE_MESSAGE(quick.exit_code == 0, quick.output);
  const json light = EmbeddedData(ReadFile(out));
  CHECK(light["game_ends"].empty());
  CHECK(ModelNamed(light["elo"]["models"], "run-b6c96-s3000-d900")["hours"] == 3.0);
  CHECK(ModelNamed(light["elo"]["models"], "run-b6c96-s3000-d900")["selfplay_games"].is_null());
}

TEST_CASE("report: an empty base directory renders with every chart marked empty") {
  TempDir dir;
  boost::filesystem::create_directories(dir / "base");
  const std::string out = dir / "empty.html";
  const ProcessResult r = RunProcess({kReport, "--base-dir", dir / "base", "--output", out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  const std::string dom = RenderedDom(out, dir / "profile");
  const std::string body = BodyTag(dom);
  CHECK_MESSAGE(body.find("data-error") == std::string::npos, body);
  CHECK_MESSAGE(body.find("data-report-done=\"1\"") != std::string::npos, body);
  for (const char* id : kCharts) {
    const Element svg = FindSvg(dom, id);
    CHECK_MESSAGE(svg.tag.find("data-drawn=\"0\"") != std::string::npos, id);
    CHECK_MESSAGE(svg.tag.find("data-empty=\"1\"") != std::string::npos, id);
    CHECK(svg.inner.find("no data yet") != std::string::npos);
  }
}

}  // namespace
}  // namespace tengen::status
