// KataGo's analysis command line turned into tengen-analysis's options
// (lib/analysis/katago_args.h).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/katago_args.h"
#include "test_support.h"
#include "util/error.h"

namespace tengen::analysis {
namespace {

TEST_CASE("KataGo's command line: model, config file and overrides become tengen's options") {
  testing::TempDir dir;
  const std::string config = dir.Write("analysis.cfg",
                                       "# KaTrain's shape\n"
                                       "reportAnalysisWinratesAs = BLACK\n"
                                       "maxVisits = 500  # per position\n"
                                       "numAnalysisThreads = 12\n"
                                       "nnCacheSizePowerOfTwo = 20\n");
  CHECK(IsKataGoCommandLine({"analysis", "-model", "m"}));
  CHECK_FALSE(IsKataGoCommandLine({"--model", "m"}));
  CHECK_FALSE(IsKataGoCommandLine({}));
  const TranslatedArgs t =
      TranslateKataGoArgs({"analysis", "-model", "/nets/x", "-config", config, "-override-config",
                           "homeDataDir=/home/k, maxVisits=40, reportAnalysisWinratesAs=sidetomove",
                           "-analysis-threads", "3", "-quit-without-waiting"});
  const std::vector<std::string> expected = {
      "--model", "/nets/x",
      "--set",   "report_analysis_winrates_as=BLACK",
      "--set",   "max_visits=500",
      "--set",   "analysis_threads=12",
      "--set",   "max_visits=40",                           // later wins, as KataGo's overrides do
      "--set",   "report_analysis_winrates_as=SIDETOMOVE",  // the view in any case
      "--set",   "analysis_threads=3"};
  CHECK(t.args == expected);
  // Each setting taken says where it came from, as the user wrote it.
  REQUIRE(t.settings.size() == 5);
  CHECK(t.settings[1].assignment == "max_visits=500");
  CHECK(t.settings[1].origin == "maxVisits = 500 (in " + config + ")");
  CHECK(t.settings[4].origin == "reportAnalysisWinratesAs = sidetomove (in -override-config)");
  REQUIRE(t.ignored.size() == 3);
  CHECK(t.ignored[0] == "nnCacheSizePowerOfTwo (" + config + ")");
  CHECK(t.ignored[1] == "homeDataDir (-override-config)");
  CHECK(t.ignored[2].rfind("-quit-without-waiting", 0) == 0);
}

TEST_CASE("KataGo's command line: what it cannot take is an error naming it") {
  CHECK_THROWS_WITH_AS(TranslateKataGoArgs({"analysis", "-model"}),
                       doctest::Contains("no value after -model"), ConfigError);
  CHECK_THROWS_WITH_AS(TranslateKataGoArgs({"analysis", "-human-model", "h"}),
                       doctest::Contains("-human-model"), ConfigError);
  CHECK_THROWS_WITH_AS(TranslateKataGoArgs({"analysis", "-override-config", "maxVisits"}),
                       doctest::Contains("'maxVisits' is not key=value"), ConfigError);
  CHECK_THROWS_WITH_AS(TranslateKataGoArgs({"analysis", "-config", "/no/such.cfg"}),
                       doctest::Contains("/no/such.cfg"), IoError);
}

}  // namespace
}  // namespace tengen::analysis
