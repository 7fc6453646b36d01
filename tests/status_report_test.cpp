// The HTML report (status/report.h, tengen-report): the embedded data says what the base
// directory holds, and the page, opened in headless Chromium (Debian package chromium, which
// scripts/test.sh installs), draws every chart: the DOM the browser dumps carries the
// attributes the page's script sets after drawing and the SVG elements it drew.

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
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
  CHECK(data["elo"]["anchors"].size() == 1);
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
  // The Elo chart: a line through both models, an interval on each, the anchor's line.
  const Element elo = FindSvg(dom, "elo");
  CHECK(Count(elo.inner, "class=\"series\"") == 1);
  CHECK(Count(elo.inner, "class=\"errbar\"") == 2);
  CHECK(Count(elo.inner, "class=\"hline\"") == 1);
  CHECK(elo.inner.find("gnugo-l1") != std::string::npos);
  for (const char* id : {"elo-hours", "elo-games"}) {
    const Element svg = FindSvg(dom, id);
    CHECK(Count(svg.inner, "class=\"errbar\"") == 2);
    CHECK(Count(svg.inner, "class=\"hline\"") == 1);
  }
  // Gating: one bar per decision, coloured by it.
  const Element gating = FindSvg(dom, "gating");
  CHECK(Count(gating.inner, "class=\"bar\"") == 3);
  CHECK(Count(gating.inner, "data-decision=\"accepted\"") == 2);
  CHECK(Count(gating.inner, "data-decision=\"rejected\"") == 1);
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
