// The learning rate's factors over a run: KataGo's warm-up and the user's lr_schedule.
#include <doctest/doctest.h>

#include "pipeline/lr_schedule.h"
#include "util/error.h"

namespace tengen::pipeline {
namespace {

TEST_CASE("learning rate warm-up follows KataGo's steps") {
  CHECK(WarmupFactor(0, 2000000) == doctest::Approx(1 / 20.0));
  CHECK(WarmupFactor(600000, 2000000) == doctest::Approx(1 / 10.0));
  CHECK(WarmupFactor(1999999, 2000000) == doctest::Approx(1 / 1.4));
  CHECK(WarmupFactor(2000000, 2000000) == 1.0);
  CHECK(WarmupFactor(5, 0) == 1.0);
}

TEST_CASE("lr_schedule: each step's factor holds from its sample count to the next step's") {
  const LrSchedule schedule = ParseLrSchedule("lr_schedule", " 1000000:0.3, 2e6:0.1 ");
  REQUIRE(schedule.size() == 2);
  CHECK(schedule[0].from_samples == 1000000);
  CHECK(schedule[1].from_samples == 2000000);
  CHECK(LrScheduleFactor(schedule, 0) == 1.0);
  CHECK(LrScheduleFactor(schedule, 999999) == 1.0);
  CHECK(LrScheduleFactor(schedule, 1000000) == 0.3);
  CHECK(LrScheduleFactor(schedule, 1999999) == 0.3);
  CHECK(LrScheduleFactor(schedule, 2000000) == 0.1);
  CHECK(LrScheduleFactor(schedule, int64_t{1} << 50) == 0.1);
  // A step at 0 replaces the factor from the start; no schedule is a factor of 1.
  CHECK(LrScheduleFactor(ParseLrSchedule("k", "0:0.5"), 0) == 0.5);
  CHECK(ParseLrSchedule("k", "").empty());
  CHECK(LrScheduleFactor({}, 12345) == 1.0);
  // What FormatLrSchedule writes reads back as the same steps.
  const LrSchedule again = ParseLrSchedule("k", FormatLrSchedule(schedule));
  REQUIRE(again.size() == 2);
  CHECK(again[1].from_samples == 2000000);
  CHECK(again[1].factor == 0.1);
}

TEST_CASE("lr_schedule: a bad value names the key and the entry") {
  const auto refused = [](const char* text, const char* says) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(ParseLrSchedule("lr_schedule", text),
                         doctest::Contains(std::string("lr_schedule").c_str()), ConfigError);
    CHECK_THROWS_WITH_AS(ParseLrSchedule("lr_schedule", text), doctest::Contains(says),
                         ConfigError);
  };
  refused("1000000", "'1000000' has no ':'");
  refused("1000000:x", "'x' is not a number");
  refused("1e6:0.3,,2e6:0.1", "'' has no ':'");
  refused("1.5:0.3", "samples must be a whole number");
  refused("-5:0.3", "samples must be a whole number");
  refused("1000:-1", "the factor must be >= 0");
  refused("2000:0.3,1000:0.1", "'1000:0.1': samples must increase");
  refused("1000:0.3,1000:0.1", "samples must increase");
}

}  // namespace
}  // namespace tengen::pipeline
