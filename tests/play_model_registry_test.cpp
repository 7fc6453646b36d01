// The model registry: model names, the newest model, the evaluator a model (or none) gives.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "play/model_registry.h"
#include "test_support.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen::play {
namespace {

TEST_CASE("model registry: newest by samples, then by time, hook required for a model") {
  int64_t samples = 0, rows = 0;
  CHECK(ParseModelName("run1-train-s1000-d50", &samples, &rows));
  CHECK(samples == 1000);
  CHECK(rows == 50);
  CHECK_FALSE(ParseModelName("b6c96-fresh", &samples, &rows));
  CHECK_FALSE(ParseModelName("run-train-s12x-d5", &samples, &rows));

  testing::TempDir base;
  const std::string models = base.path() + "/models";
  CHECK_FALSE(FindNewestModel(models).has_value());
  EnsureDirectory(models + "/fresh-b6c96");
  CHECK(FindNewestModel(models)->name == "fresh-b6c96");
  EnsureDirectory(models + "/run-t-s200-d10");
  EnsureDirectory(models + "/run-t-s1000-d5");
  EnsureDirectory(models + "/run-t-s300-d99");
  EnsureDirectory(models + "/run-t-s5000-d1.tmp.x");  // being published: skipped
  base.Write("models/run-t-s9000-d1", "a file, not a model");
  const auto newest = FindNewestModel(models);
  REQUIRE(newest.has_value());
  CHECK(newest->name == "run-t-s1000-d5");
  CHECK(newest->samples == 1000);

  const auto random = MakeEvaluator(std::nullopt, 9, "cpu", nullptr);
  CHECK(random->model_name() == "random");
  CHECK(random->pos_len() == 9);
  CHECK_THROWS_AS(MakeEvaluator(newest, 9, "cpu", nullptr), Error);
}

}  // namespace
}  // namespace tengen::play
