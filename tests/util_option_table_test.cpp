#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "util/config.h"
#include "util/error.h"
#include "util/option_table.h"

namespace tengen {
namespace {

struct Inner {
  double rate = 0.25;
};

struct Options {
  int games = 7;
  uint64_t seed = 3;
  bool verbose = true;
  std::string mode = "fast";
  std::string name = "net";
  std::chrono::milliseconds poll{1500};
  std::chrono::seconds grace{60};
  Inner inner;
};

OptionTable<Options> Table() {
  return OptionTable<Options>()
      .Int("games", &Options::games, 1, 100, "games")
      .Int("seed", &Options::seed, 0, 1000, "seed")
      .Bool("verbose", &Options::verbose, "log more")
      .Choice("mode", &Options::mode, {"fast", "slow"}, "mode")
      .String("name", &Options::name, "name")
      .Seconds("poll_seconds", &Options::poll, 0.001, 100, "poll")
      .WholeSeconds("grace_seconds", &Options::grace, 0, 1000, "grace")
      .Nested(&Options::inner, OptionTable<Inner>().Double("inner.rate", &Inner::rate, 0, 1, "r"))
      .Custom([](ConfigSpec& spec, const Options&) { spec.Int("extra", 5, 0, 9, "read by hand"); },
              {});
}

TEST_CASE("option table: declared defaults are the struct's, in table order") {
  ConfigSpec spec("tengen-test");
  Table().Declare(spec);
  REQUIRE(spec.options().size() == 9);
  CHECK(spec.options()[0].key == "games");
  CHECK(spec.options()[0].default_value == "7");
  CHECK(spec.options()[0].max == 100);
  CHECK(spec.Find("seed")->default_value == "3");
  CHECK(spec.Find("verbose")->default_value == "true");
  CHECK(spec.Find("mode")->choices.size() == 2);
  CHECK(spec.Find("mode")->default_value == "fast");
  CHECK(spec.Find("name")->default_value == "net");
  CHECK(spec.Find("poll_seconds")->type == OptionType::kDouble);
  CHECK(spec.Find("poll_seconds")->default_value == "1.5");
  CHECK(spec.Find("grace_seconds")->type == OptionType::kInt);
  CHECK(spec.Find("grace_seconds")->default_value == "60");
  CHECK(spec.Find("inner.rate")->default_value == "0.25");
  CHECK(spec.options()[8].key == "extra");
}

TEST_CASE("option table: other defaults come from the struct passed in") {
  Options defaults;
  defaults.games = 42;
  defaults.inner.rate = 0.5;
  ConfigSpec spec("tengen-test");
  Table().Declare(spec, defaults);
  CHECK(spec.Find("games")->default_value == "42");
  CHECK(spec.Find("inner.rate")->default_value == "0.5");
}

TEST_CASE("option table: Read copies every value into its member") {
  ConfigSpec spec("tengen-test");
  Table().Declare(spec);
  Config config(spec);
  config.Set("games", "12", "test");
  config.Set("seed", "999", "test");
  config.Set("verbose", "false", "test");
  config.Set("mode", "slow", "test");
  config.Set("name", "other", "test");
  config.Set("poll_seconds", "0.0021", "test");
  config.Set("grace_seconds", "7", "test");
  config.Set("inner.rate", "0.75", "test");
  Options options;
  Table().Read(config, &options);
  CHECK(options.games == 12);
  CHECK(options.seed == 999);
  CHECK_FALSE(options.verbose);
  CHECK(options.mode == "slow");
  CHECK(options.name == "other");
  // Rounded up to the member's unit, so a short positive interval never becomes zero.
  CHECK(options.poll == std::chrono::milliseconds(3));
  CHECK(options.grace == std::chrono::seconds(7));
  CHECK(options.inner.rate == 0.75);
}

TEST_CASE("option table: values keep the table's ranges and a row without a reader is skipped") {
  ConfigSpec spec("tengen-test");
  Table().Declare(spec);
  Config config(spec);
  CHECK_THROWS_AS(config.Set("games", "101", "test"), ConfigError);
  CHECK_THROWS_AS(config.Set("mode", "medium", "test"), ConfigError);
  config.Set("extra", "9", "test");
  Options options;
  options.games = -1;
  Table().Read(config, &options);
  CHECK(options.games == 7);  // the default, read back
  CHECK(config.GetInt("extra") == 9);
}

}  // namespace
}  // namespace tengen
