// Games on fibers: RunFibers runs every body to its end (sleepers included) and passes on an
// escaped exception, and a game played on a fiber through the batching server gives exactly
// the moves and training rows it gives on a thread of its own, for the same seed, with or
// without an evaluation cache shared by the games; the cache answers the positions seen
// before with the answer of the symmetry that first evaluated them.
#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "go/game.h"
#include "go/symmetry.h"
#include "nn/batching.h"
#include "nn/eval_cache.h"
#include "nn/features.h"
#include "play/fiber_pool.h"
#include "play/game_runner.h"
#include "play/net_leaf_evaluator.h"
#include "util/error.h"

namespace tengen::play {
namespace {

TEST_CASE("fiber pool: every body runs to its end, sleepers and errors included") {
  std::vector<std::string> log;
  std::vector<std::function<void(FiberTask&)>> bodies;
  for (int i = 0; i < 3; ++i) {
    bodies.push_back([&log, i](FiberTask& task) {
      log.push_back("start " + std::to_string(i));
      task.SleepFor(std::chrono::milliseconds(10 * (3 - i)));  // the last one wakes first
      log.push_back("end " + std::to_string(i));
    });
  }
  const auto start = std::chrono::steady_clock::now();
  RunFibers(std::move(bodies));
  // The three sleeps overlap: about 30 ms in all, not 60.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(55));
  CHECK(log ==
        std::vector<std::string>{"start 0", "start 1", "start 2", "end 2", "end 1", "end 0"});

  std::atomic<int> finished{0};
  std::vector<std::function<void(FiberTask&)>> failing;
  failing.push_back([](FiberTask&) { throw std::runtime_error("slot broke"); });
  failing.push_back([&finished](FiberTask& task) {
    task.SleepFor(std::chrono::milliseconds(5));
    ++finished;
  });
  CHECK_THROWS_WITH_AS(RunFibers(std::move(failing)), "slot broke", std::runtime_error);
  CHECK(finished == 1);  // the others still ran to their end
}

// A deterministic net that is not uniform: each point's policy logit and ownership come from
// the input planes at that point only, so the answer does not depend on the symmetry drawn,
// and the value and score from the global inputs and the stone counts.
class PointwiseEvaluator : public nn::Evaluator {
 public:
  explicit PointwiseEvaluator(int pos_len) : pos_len_(pos_len) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    output->Resize(batch.size, pos_len_);
    const int area = pos_len_ * pos_len_;
    for (int i = 0; i < batch.size; ++i) {
      const float* spatial =
          batch.spatial.data() + static_cast<size_t>(i) * nn::kNumSpatialFeatures * area;
      const float* global = batch.global.data() + static_cast<size_t>(i) * nn::kNumGlobalFeatures;
      float stones = 0;
      for (int p = 0; p < area; ++p) {
        float logit = 0;
        for (int c = 0; c < nn::kNumSpatialFeatures; ++c)
          logit += spatial[c * area + p] * static_cast<float>((c * 7) % 5 - 2) * 0.3f;
        output->policy_logits[static_cast<size_t>(i) * (area + 1) + p] = logit;
        output->ownership[static_cast<size_t>(i) * area + p] =
            spatial[area + p] - spatial[2 * area + p];
        stones += spatial[area + p] - spatial[2 * area + p];
      }
      output->policy_logits[static_cast<size_t>(i) * (area + 1) + area] = -1.0f;
      output->value_logits[3 * i] = 0.1f * stones + global[0];
      output->value_logits[3 * i + 1] = -0.1f * stones;
      output->value_logits[3 * i + 2] = -3.0f;
      output->score[i] = stones;
    }
  }
  std::string model_name() const override { return "pointwise"; }
  int pos_len() const override { return pos_len_; }

 private:
  int pos_len_;
};

GameParams SmallGame() {
  GameParams params;
  params.board_sizes = {{5, 1.0}};
  params.pos_len = 5;
  params.komis = {{6.5, 1.0}};
  params.playout_cap = {16, 6, 0.5};
  return params;
}

// Everything a game produced that depends on its search: moves, result and every row's targets.
std::string Fingerprint(const FinishedGame& game) {
  std::ostringstream text;
  text << game.sgf.result << " moves";
  for (const go::Move& move : game.sgf.moves) text << ' ' << move.loc;
  for (const data::TrainingRow& row : game.rows) {
    text << "\nturn " << row.turn << " value " << row.value[0] << ' ' << row.value[1] << " score "
         << row.score << " policy";
    for (float p : row.policy) text << ' ' << p;
  }
  return text.str();
}

// Plays the games of `seeds` at once on fibers of two threads, batched on one server (and one
// cache when given); the fingerprints in the order of the seeds.
std::vector<std::string> PlayOnFibers(const GameParams& params, const std::vector<uint64_t>& seeds,
                                      nn::BatchingServer& server, nn::EvalCache* cache) {
  const auto never = [] { return false; };
  std::vector<std::string> fingerprints(seeds.size());
  std::vector<std::vector<std::function<void(FiberTask&)>>> bodies(2);
  for (size_t i = 0; i < seeds.size(); ++i) {
    bodies[i % 2].push_back([&, i](FiberTask& task) {
      Rng rng(100 + i);  // a different symmetry stream: the answers must not depend on it
      NetLeafEvaluator leaf(server, rng, true, &task, cache);
      server.AddClient();
      const Player player{&leaf, "pointwise"};
      FinishedGame game;
      // Assertions stay on the main thread: a failed game leaves its fingerprint empty.
      if (PlayGame(params, player, player, seeds[i], never, &game))
        fingerprints[i] = Fingerprint(game);
      server.RemoveClient();
    });
  }
  std::thread other([&bodies] { RunFibers(std::move(bodies[1])); });
  RunFibers(std::move(bodies[0]));
  other.join();
  return fingerprints;
}

TEST_CASE("fiber pool: a game on a fiber plays as on a thread of its own, seed for seed") {
  const GameParams params = SmallGame();
  const std::vector<uint64_t> seeds = {11, 12, 13, 14, 15, 16};
  const auto never = [] { return false; };

  // Each game alone on this thread, blocking on the server for every leaf.
  std::vector<std::string> alone;
  {
    nn::BatchingServer server(std::make_unique<PointwiseEvaluator>(5), nn::BatchingOptions{1});
    Rng rng(1);
    NetLeafEvaluator leaf(server, rng);
    const Player player{&leaf, "pointwise"};
    for (uint64_t seed : seeds) {
      FinishedGame game;
      REQUIRE(PlayGame(params, player, player, seed, never, &game));
      alone.push_back(Fingerprint(game));
    }
  }

  SUBCASE("all six at once on fibers of two threads, batched together") {
    nn::BatchingServer server(std::make_unique<PointwiseEvaluator>(5), nn::BatchingOptions{6});
    const std::vector<std::string> on_fibers = PlayOnFibers(params, seeds, server, nullptr);
    for (size_t i = 0; i < seeds.size(); ++i) {
      INFO("seed " << seeds[i]);
      CHECK(on_fibers[i] == alone[i]);
      CHECK(on_fibers[i].find("turn") != std::string::npos);  // rows were recorded
    }
    // Batched: the six games shared batches.
    CHECK(server.stats().MeanBatchSize() > 1.5);
  }

  SUBCASE("the same, sharing an evaluation cache") {
    nn::BatchingServer server(std::make_unique<PointwiseEvaluator>(5), nn::BatchingOptions{6});
    nn::EvalCache cache(1 << 12, 5);
    const std::vector<std::string> on_fibers = PlayOnFibers(params, seeds, server, &cache);
    for (size_t i = 0; i < seeds.size(); ++i) {
      INFO("seed " << seeds[i]);
      CHECK(on_fibers[i] == alone[i]);
    }
    // Every position was either found in the cache or evaluated by the net, and the six games
    // from one empty board met positions already evaluated.
    CHECK(cache.hits() + server.stats().positions == cache.lookups());
    CHECK(cache.hits() > 0);
  }
}

// A net that sees where things are: each point's logit is its index in the input planes, so
// the answer mapped back depends on the symmetry the position was fed in.
class PlacedEvaluator : public nn::Evaluator {
 public:
  explicit PlacedEvaluator(int pos_len) : pos_len_(pos_len) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    output->Resize(batch.size, pos_len_);
    const int area = pos_len_ * pos_len_;
    for (int i = 0; i < batch.size; ++i) {
      for (int p = 0; p <= area; ++p)
        output->policy_logits[static_cast<size_t>(i) * (area + 1) + p] = 0.1f * p;
      for (int p = 0; p < area; ++p)
        output->ownership[static_cast<size_t>(i) * area + p] = 0.01f * p;
    }
  }
  std::string model_name() const override { return "placed"; }
  int pos_len() const override { return pos_len_; }

 private:
  int pos_len_;
};

TEST_CASE("eval cache: a position seen before gets the answer of its first symmetry") {
  nn::BatchingServer server(std::make_unique<PlacedEvaluator>(5), nn::BatchingOptions{1});
  nn::EvalCache cache(64, 5);
  go::GameState state(5);
  state.Play({go::MakeLoc(1, 2, 5), go::Color::kBlack});

  Rng identity_rng(1);
  NetLeafEvaluator identity(server, identity_rng, /*random_symmetry=*/false);
  const search::LeafEvaluation plain = identity.Evaluate(state);

  // A random-symmetry evaluator on the cache whose first draw is not the identity.
  uint64_t seed = 1;
  while (Rng(seed).Uniform(go::kNumSymmetries) == 0) ++seed;
  Rng rng(seed);
  NetLeafEvaluator first(server, rng, /*random_symmetry=*/true, nullptr, &cache);
  const search::LeafEvaluation seen = first.Evaluate(state);
  REQUIRE(seen.policy != plain.policy);  // the net's answer depends on the symmetry

  // An identity-only evaluator on the same cache answers from it: the first symmetry's answer,
  // not its own, and the net is not asked again.
  const int64_t evaluated = server.stats().positions;
  Rng cached_rng(1);
  NetLeafEvaluator cached(server, cached_rng, /*random_symmetry=*/false, nullptr, &cache);
  const search::LeafEvaluation answer = cached.Evaluate(state);
  CHECK(answer.policy == seen.policy);
  CHECK(answer.ownership == seen.ownership);
  CHECK(server.stats().positions == evaluated);
  CHECK(cache.hits() == 1);

  // Another position (the same stones after White's pass) is the net's again.
  go::GameState passed = state;
  passed.Play({go::kPassLoc, go::Color::kWhite});
  cached.Evaluate(passed);
  CHECK(server.stats().positions == evaluated + 1);
}

void CheckClose(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-5));
}

TEST_CASE("root symmetries: the averaged evaluation is a fresh one for each orientation") {
  go::GameState state(5);
  state.Play({go::MakeLoc(1, 2, 5), go::Color::kBlack});
  state.Play({go::MakeLoc(3, 3, 5), go::Color::kWhite});

  SUBCASE("a net that sees no orientation gives its one answer, the cache untouched") {
    nn::BatchingServer server(std::make_unique<PointwiseEvaluator>(5), nn::BatchingOptions{1});
    nn::EvalCache cache(64, 5);
    Rng rng(2);
    NetLeafEvaluator leaf(server, rng, true, nullptr, &cache);
    const search::LeafEvaluation one = leaf.Evaluate(state);
    const search::LeafEvaluation mean = leaf.EvaluateSymmetries(state, 8);
    CHECK(server.stats().positions == 1 + 8);
    CHECK(cache.lookups() == 1);
    CheckClose(mean.policy, one.policy);
    CheckClose(mean.ownership, one.ownership);
    CHECK(mean.value == doctest::Approx(one.value));
    CHECK(mean.score == doctest::Approx(one.score));
  }

  SUBCASE("a net that sees where things are: all eight averaged, whatever the order drawn") {
    nn::BatchingServer server(std::make_unique<PlacedEvaluator>(5), nn::BatchingOptions{1});
    Rng rng_a(2), rng_b(9);
    NetLeafEvaluator a(server, rng_a, /*random_symmetry=*/false);
    NetLeafEvaluator b(server, rng_b, /*random_symmetry=*/false);
    const search::LeafEvaluation identity = a.Evaluate(state);
    const search::LeafEvaluation mean_a = a.EvaluateSymmetries(state, 8);
    const search::LeafEvaluation mean_b = b.EvaluateSymmetries(state, 8);
    CheckClose(mean_a.policy, mean_b.policy);
    CheckClose(mean_a.ownership, mean_b.ownership);
    CHECK(mean_a.policy != identity.policy);
    float total = 0;
    for (float p : mean_a.policy) total += p;
    CHECK(total == doctest::Approx(1.0));
    // Two orientations of eight, drawn without replacement: an average of two answers.
    const search::LeafEvaluation two = a.EvaluateSymmetries(state, 2);
    total = 0;
    for (float p : two.policy) total += p;
    CHECK(total == doctest::Approx(1.0));
    CHECK_THROWS_AS(a.EvaluateSymmetries(state, 9), CheckError);
  }
}

}  // namespace
}  // namespace tengen::play
