// The selfplay options as the program reads them: command-line values reach SelfplayOptions,
// and values outside their ranges are ConfigErrors that name the key.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pipeline/selfplay.h"
#include "pipeline/selfplay_config.h"
#include "util/config.h"
#include "util/error.h"

using namespace tengen;
using namespace tengen::pipeline;

namespace {

// ParseCommandLine over the selfplay spec with --output-dir set, then the options it gives.
SelfplayOptions Parse(std::vector<std::string> args) {
  ConfigSpec spec("tengen-selfplay");
  DeclareSelfplayOptions(spec);
  Config config(spec);
  args.insert(args.begin(), {"tengen-selfplay", "--output-dir", "/tmp/unused"});
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  ParseCommandLine(spec, static_cast<int>(argv.size()), argv.data(), config);
  return SelfplayOptionsFromConfig(config);
}

// The message of the ConfigError that parsing `args` throws; fails the test if it throws none.
std::string ErrorOf(const std::vector<std::string>& args) {
  try {
    Parse(args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError");
  return "";
}

}  // namespace

TEST_CASE("selfplay config: dirichlet_alpha_total must be positive") {
  CHECK(ErrorOf({"--set", "dirichlet_alpha_total=0"}).find("dirichlet_alpha_total") !=
        std::string::npos);
  CHECK(Parse({"--set", "dirichlet_alpha_total=0.5"}).game.search.dirichlet_alpha_total ==
        doctest::Approx(0.5));
}

TEST_CASE("selfplay config: max_rows_per_file stays below what the npz writer can store") {
  CHECK(ErrorOf({"--set", "max_rows_per_file=1000001"}).find("max_rows_per_file") !=
        std::string::npos);
  CHECK(Parse({"--set", "max_rows_per_file=1000000"}).max_rows_per_file == 1000000);
}

TEST_CASE("selfplay config: max_shard_age_seconds sets the options, within 1..86400") {
  CHECK(Parse({}).max_shard_age_seconds == doctest::Approx(600));
  CHECK(Parse({"--set", "max_shard_age_seconds=5"}).max_shard_age_seconds == doctest::Approx(5));
  for (const char* bad : {"max_shard_age_seconds=0.5", "max_shard_age_seconds=86401"}) {
    CAPTURE(bad);
    CHECK(ErrorOf({"--set", bad}).find("max_shard_age_seconds") != std::string::npos);
  }
}
