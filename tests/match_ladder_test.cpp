// The Elo ladder (match/ladder.h): maximum-likelihood ratings against known values, anchors,
// groups without an anchor, intervals, and the file's read-append-recompute cycle.

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "match/ladder.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen::match {
namespace {

using tengen::testing::TempDir;

LadderMatch Result(const std::string& a, const std::string& b, int wins, int losses,
                   int draws = 0) {
  LadderMatch m;
  m.a = a;
  m.b = b;
  m.wins = wins;
  m.losses = losses;
  m.draws = draws;
  return m;
}

const LadderRating& Find(const std::vector<LadderRating>& ratings, const std::string& name) {
  for (const LadderRating& r : ratings) {
    if (r.name == name) return r;
  }
  FAIL("no rating for " << name);
  return ratings.front();
}

double EloOf(double score) { return 400 * std::log10(score / (1 - score)); }

TEST_CASE("ladder: ratings are the maximum-likelihood fit with one virtual draw per pair") {
  Ladder ladder;
  ladder.anchors["gnugo-l1"] = 0;
  ladder.matches.push_back(Result("net-a", "gnugo-l1", 3, 1));
  // Split 1-1 with net-a: the same rating, and no pull on net-a.
  ladder.matches.push_back(Result("net-b", "net-a", 1, 1));
  const std::vector<LadderRating> ratings = ComputeRatings(ladder);
  REQUIRE(ratings.size() == 3);
  const LadderRating& a = Find(ratings, "net-a");
  const LadderRating& b = Find(ratings, "net-b");
  const LadderRating& anchor = Find(ratings, "gnugo-l1");
  // 3 wins 1 loss plus a virtual draw: 3.5 of 5.
  CHECK(a.elo == doctest::Approx(EloOf(0.7)).epsilon(1e-6));
  CHECK(b.elo == doctest::Approx(a.elo).epsilon(1e-6));
  CHECK(anchor.elo == 0);
  CHECK(anchor.anchor);
  CHECK(anchor.low == 0);
  CHECK(anchor.high == 0);
  CHECK(a.games == 6);
  CHECK(anchor.games == 4);
  // Intervals from the full covariance: with h_a the information of net-a's games against the
  // anchor and h_ab that of the pair, the information matrix [[h_a + h_ab, -h_ab], [-h_ab,
  // h_ab]] has the inverse's diagonal 1 / h_a (net-a) and 1 / h_a + 1 / h_ab (net-b: its
  // rating carries net-a's uncertainty as well as its own).
  const double k = std::log(10.0) / 400;
  const double h_a = 5 * 0.7 * 0.3 * k * k;
  const double h_ab = 3 * 0.25 * k * k;
  CHECK(a.high - a.elo == doctest::Approx(1.959963984540054 / std::sqrt(h_a)));
  CHECK(a.elo - a.low == doctest::Approx(a.high - a.elo));
  CHECK(b.high - b.elo == doctest::Approx(1.959963984540054 * std::sqrt(1 / h_a + 1 / h_ab)));
  CHECK(a.pinned_to.empty());
  // Best first.
  CHECK(ratings.back().name == "gnugo-l1");
}

TEST_CASE("ladder: a sweep has a finite rating, two anchors, a group without anchors") {
  Ladder ladder;
  ladder.anchors["gnugo-l1"] = 0;
  ladder.anchors["gnugo-l10"] = 1000;
  ladder.matches.push_back(Result("net", "gnugo-l1", 10, 0));
  ladder.matches.push_back(Result("net", "gnugo-l10", 0, 10));
  ladder.matches.push_back(Result("x", "y", 2, 0));
  const std::vector<LadderRating> ratings = ComputeRatings(ladder);
  const LadderRating& net = Find(ratings, "net");
  // 10.5 of 11 against 0 and 0.5 of 11 against 1000: symmetric, so the fit is halfway.
  CHECK(net.elo == doctest::Approx(500).epsilon(1e-6));
  CHECK(std::isfinite(net.low));
  CHECK(Find(ratings, "gnugo-l10").elo == 1000);
  const LadderRating& x = Find(ratings, "x");
  const LadderRating& y = Find(ratings, "y");
  CHECK(x.pinned_to == "x");
  CHECK(y.pinned_to == "x");
  CHECK(x.elo == 0);
  CHECK(y.elo == doctest::Approx(EloOf(0.5 / 3)).epsilon(1e-6));
}

TEST_CASE("ladder: anchors from the command line") {
  const auto anchors = ParseAnchors("gnugo-l1=0,gnugo-l10=950.5");
  CHECK(anchors.size() == 2);
  CHECK(anchors.at("gnugo-l10") == 950.5);
  CHECK(ParseAnchors("").empty());
  CHECK_THROWS_AS(ParseAnchors("gnugo"), ConfigError);
  CHECK_THROWS_AS(ParseAnchors("=3"), ConfigError);
  CHECK_THROWS_AS(ParseAnchors("a=x"), ConfigError);
  CHECK_THROWS_AS(ParseAnchors("a="), ConfigError);
}

TEST_CASE("ladder: the file is appended to and recomputed on every update") {
  TempDir dir;
  const std::string path = dir / "ladder/ladder.json";  // the directory is created
  CHECK(ReadLadder(path).matches.empty());
  UpdateLadder(path, {{"gnugo-l1", 0}}, Result("m1", "gnugo-l1", 3, 1));
  std::vector<LadderRating> ratings = UpdateLadder(path, {}, Result("m2", "m1", 2, 2));
  CHECK(ratings.size() == 3);
  const Ladder ladder = ReadLadder(path);
  REQUIRE(ladder.matches.size() == 2);
  CHECK(ladder.anchors.at("gnugo-l1") == 0);
  CHECK(ladder.matches[1].a == "m2");
  CHECK(ladder.matches[1].draws == 0);
  CHECK_FALSE(ladder.matches[1].time_utc.empty());
  const nlohmann::json j = nlohmann::json::parse(ReadFile(path));
  CHECK(j["format"] == "tengen-ladder");
  REQUIRE(j["ratings"].size() == 3);
  CHECK(j["ratings"][2]["name"] == "gnugo-l1");
  CHECK(j["ratings"][0]["elo"].get<double>() == doctest::Approx(EloOf(0.7)).epsilon(1e-6));
  // Only anchors: nothing appended.
  UpdateLadder(path, {{"gnugo-l10", 900}}, std::nullopt);
  CHECK(ReadLadder(path).matches.size() == 2);
  CHECK(ReadLadder(path).anchors.size() == 2);
  const std::string table = FormatRatings(ComputeRatings(ReadLadder(path)));
  CHECK(table.find("gnugo-l10") != std::string::npos);
  CHECK(table.find("anchor") != std::string::npos);

  dir.Write("bad.json", "{\"format\": \"tengen-ladder\", \"format_version\": 1, \"anchors\": 3}");
  CHECK_THROWS_AS(ReadLadder(dir / "bad.json"), FormatError);
  dir.Write("foreign.json", "{\"format\": \"other\"}");
  CHECK_THROWS_AS(ReadLadder(dir / "foreign.json"), FormatError);
  dir.Write("garbage.json", "{not json");
  CHECK_THROWS_AS(ReadLadder(dir / "garbage.json"), FormatError);
  // A field of the wrong type is named with where it is and what it holds.
  const auto bad_match = [&](const std::string& match) {
    dir.Write("typed.json",
              "{\"format\": \"tengen-ladder\", \"format_version\": 1, "
              "\"anchors\": {}, \"matches\": [" +
                  match + "]}");
    return dir / "typed.json";
  };
  CHECK_THROWS_WITH_AS(ReadLadder(bad_match(R"({"a": "x", "b": "y", "wins": "3", "losses": 1,
                                                "draws": 0})")),
                       doctest::Contains("matches[0].wins: expected a whole number, got \"3\""),
                       FormatError);
  CHECK_THROWS_WITH_AS(ReadLadder(bad_match(R"({"a": "x", "b": "y", "wins": 2.7, "losses": 1,
                                                "draws": 0})")),
                       doctest::Contains("matches[0].wins: expected a whole number, got 2.7"),
                       FormatError);
  CHECK_THROWS_WITH_AS(ReadLadder(bad_match(R"({"a": "x", "wins": 2, "losses": 1, "draws": 0})")),
                       doctest::Contains("matches[0].b: missing"), FormatError);
  dir.Write("anchor.json",
            "{\"format\": \"tengen-ladder\", \"format_version\": 1, "
            "\"anchors\": {\"x\": \"0\"}, \"matches\": []}");
  CHECK_THROWS_WITH_AS(ReadLadder(dir / "anchor.json"),
                       doctest::Contains("anchors.x: expected a number"), FormatError);
}

TEST_CASE("ladder: a match is held by its players, result and directory (or an unknown one)") {
  TempDir dir;
  const std::string path = dir / "ladder.json";
  LadderMatch first = Result("m1", "gnugo-l1", 3, 1);
  first.match_dir = "/runs/a/m1-vs-gnugo-l1";
  UpdateLadder(path, {{"gnugo-l1", 0}}, first);
  const Ladder ladder = ReadLadder(path);
  REQUIRE(ladder.matches.size() == 1);
  CHECK(ladder.matches[0].match_dir == first.match_dir);  // written and read back
  CHECK(HoldsMatch(ladder, first));
  LadderMatch elsewhere = first;  // the same score in another match
  elsewhere.match_dir = "/runs/b/m1-vs-gnugo-l1";
  CHECK_FALSE(HoldsMatch(ladder, elsewhere));
  LadderMatch other_score = first;
  other_score.wins = 2;
  other_score.losses = 2;
  CHECK_FALSE(HoldsMatch(ladder, other_score));
  LadderMatch other_players = first;
  other_players.b = "gnugo-l5";
  CHECK_FALSE(HoldsMatch(ladder, other_players));
  // An older file's entry has no directory: a match with its players and result is taken as it.
  Ladder old;
  old.matches.push_back(Result("m1", "gnugo-l1", 3, 1));
  CHECK(HoldsMatch(old, elsewhere));
  CHECK_FALSE(HoldsMatch(old, other_score));
}

}  // namespace
}  // namespace tengen::match
