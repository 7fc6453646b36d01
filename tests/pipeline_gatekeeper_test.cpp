// The gatekeeper in process with fake nets (no libtorch): which candidate it picks, automatic
// rejection of older ones, accept / reject with the directories moved, early stopping, SPRT,
// the SGFs and the match record, --quit-if-no-nets-to-test and a stop request.
//
// The fake nets make results deterministic through resignation (resign.enabled, threshold
// -0.5, one turn): a "weak" net says the side to move wins, so every reply it considers looks
// won for its opponent, its root value is about -0.75 and it resigns on its first move; a
// "strong" net says every position is even (value 0, like the random net) and never resigns.
// Two even nets play real games with random results.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <boost/filesystem.hpp>
#include <memory>
#include <string>
#include <vector>

#include "go/sgf.h"
#include "nn/evaluator.h"
#include "pipeline/base_dir.h"
#include "pipeline/gatekeeper.h"
#include "pipeline/gatekeeper_options.h"
#include "selfplay_check.h"
#include "test_support.h"
#include "util/config.h"
#include "util/error.h"
#include "util/publish.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using testing::FilesWith;

// Policy uniform; the value logits say the side to move wins (weak) or nothing (strong).
class FakeNet : public nn::Evaluator {
 public:
  FakeNet(std::string name, int pos_len, bool strong, std::atomic<bool>* stop_after = nullptr)
      : name_(std::move(name)), pos_len_(pos_len), strong_(strong), stop_after_(stop_after) {}
  void Evaluate(const nn::EvalBatch& batch, nn::EvalOutput* output) override {
    output->Resize(batch.size, batch.pos_len);
    std::fill(output->policy_logits.begin(), output->policy_logits.end(), 0.0f);
    std::fill(output->score.begin(), output->score.end(), 0.0f);
    std::fill(output->ownership.begin(), output->ownership.end(), 0.0f);
    for (int i = 0; i < batch.size; ++i) {
      output->value_logits[3 * i] = strong_ ? 0.0f : 10.0f;
      output->value_logits[3 * i + 1] = 0.0f;
      output->value_logits[3 * i + 2] = 0.0f;
    }
    // Requests a stop after a number of evaluations (the stop test).
    if (stop_after_ != nullptr && (evaluations_ += batch.size) > 200) *stop_after_ = true;
  }
  std::string model_name() const override { return name_; }
  int pos_len() const override { return pos_len_; }

 private:
  std::string name_;
  int pos_len_;
  bool strong_;
  std::atomic<bool>* stop_after_;
  int evaluations_ = 0;
};

// Models named "*weak*" are weak, "*broken*" fail to load, the rest are strong.
play::LoadModel FakeLoader(std::atomic<bool>* stop_after = nullptr) {
  return [stop_after](const play::ModelInfo& model, int pos_len,
                      const std::string&) -> std::unique_ptr<nn::Evaluator> {
    if (model.name.find("broken") != std::string::npos)
      throw FormatError(model.path + "/weights.pt: truncated");
    const bool strong = model.name.find("weak") == std::string::npos;
    return std::make_unique<FakeNet>(model.name, pos_len, strong, stop_after);
  };
}

GatekeeperOptions SmallOptions(const std::string& base) {
  GatekeeperOptions o;
  o.base_dir = base;
  o.game.board_sizes = {{5, 1.0}};
  o.game.komis = {{7.5, 1.0}};
  o.game.pos_len = 5;
  o.game.playout_cap.full_visits = 8;
  o.game.resign.enabled = true;
  o.game.resign.threshold = -0.5;
  o.game.resign.consecutive_turns = 1;
  o.game.resign.no_resign_fraction = 0;
  o.games = 20;
  o.num_game_threads = 2;
  o.nn_max_batch_size = 2;
  o.quit_if_no_nets_to_test = true;
  o.seed = 7;
  o.poll_interval = std::chrono::milliseconds(50);
  o.load_model = FakeLoader();
  return o;
}

void AddModel(const std::string& dir, const std::string& name) {
  EnsureDirectory(dir + "/" + name);
  PublishFile(dir + "/" + name + "/model.json", "{}\n");
}

GatekeeperStats Run(const GatekeeperOptions& options, const std::atomic<bool>* flag = nullptr) {
  static const std::atomic<bool> never{false};
  Logger logger(LogLevel::kWarning, false);
  return RunGatekeeper(options, logger, StopToken(flag != nullptr ? flag : &never));
}

bool IsDir(const std::string& path) { return fs::is_directory(path); }

// The only match record of a candidate.
std::string Record(const std::string& base, const std::string& candidate) {
  const std::vector<std::string> records =
      FilesWith(GatekeeperSgfDir(base) + "/" + candidate, ".json");
  REQUIRE(records.size() == 1);
  return ReadFile(records.front());
}

bool Has(const std::string& json, const std::string& field) {
  return json.find(field) != std::string::npos;
}

TEST_CASE("gatekeeper: fixed rule decisions and early stops") {
  MatchScore s;
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kContinue);
  s.wins = 10;
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kAccept);  // reached: cannot change
  s = MatchScore{9, 0, 1};                                        // 9.5 points
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kContinue);
  s = MatchScore{0, 11, 0};  // 0 + 9 remaining < 10
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kReject);
  s = MatchScore{0, 10, 0};  // 0 + 10 remaining can still tie, and ties go to the candidate
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kContinue);
  s = MatchScore{9, 10, 1};  // all played: 9.5 < 10
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kReject);
  s = MatchScore{9, 9, 2};  // exactly 10: the tie goes to the candidate
  CHECK(FixedRuleDecision(s, 20, 0.5) == GateDecision::kAccept);
  s = MatchScore{14, 6, 0};
  CHECK(FixedRuleDecision(s, 20, 0.75) == GateDecision::kReject);

  GatekeeperOptions sprt;
  sprt.use_sprt = true;
  sprt.games = 200;
  CHECK(MatchDecision(MatchScore{2, 1, 0}, sprt) == GateDecision::kContinue);
  CHECK(MatchDecision(MatchScore{30, 0, 0}, sprt) == GateDecision::kAccept);
  CHECK(MatchDecision(MatchScore{0, 30, 0}, sprt) == GateDecision::kReject);
  // Undecided by the SPRT after all games: the fixed rule decides.
  sprt.games = 4;
  CHECK(MatchDecision(MatchScore{2, 2, 0}, sprt) == GateDecision::kAccept);
  // A floor above the games leaves the decision to the fixed rule: a plain 4-game gate.
  sprt.sprt.min_games = 10;
  CHECK(MatchDecision(MatchScore{3, 0, 0}, sprt) == GateDecision::kContinue);
  CHECK(MatchDecision(MatchScore{3, 1, 0}, sprt) == GateDecision::kAccept);
  CHECK(MatchDecision(MatchScore{1, 3, 0}, sprt) == GateDecision::kReject);
}

TEST_CASE("gatekeeper: game parameters have no noise, no rows and one visit count") {
  play::GameParams game;
  game.playout_cap.full_visits = 40;
  const play::GameParams g = GatekeeperGameParams(game);
  CHECK(g.playout_cap.cheap_visits == 40);
  CHECK(g.playout_cap.full_probability == 0);
  CHECK(g.search.dirichlet_weight == 0);
  CHECK_FALSE(g.record_rows);
}

TEST_CASE("gatekeeper: accepts a stronger candidate early, with SGFs and the record") {
  testing::TempDir base;
  const std::string tested = ModelsToBeTestedDir(base.path());
  AddModel(ModelsDir(base.path()), "run-t-s100-d10-weak");  // unparsable: counts as s0
  AddModel(tested, "run-t-s200-d20");
  const GatekeeperStats stats = Run(SmallOptions(base.path()));
  CHECK(stats.accepted == 1);
  CHECK(stats.rejected == 0);
  CHECK(IsDir(ModelsDir(base.path()) + "/run-t-s200-d20"));
  CHECK_FALSE(IsDir(tested + "/run-t-s200-d20"));
  CHECK(IsDir(SelfplayDir(base.path())));

  // Accepted once its score reached 10 of 20: exactly 10 games, all won.
  const std::string record = Record(base.path(), "run-t-s200-d20");
  INFO(record);
  CHECK(Has(record, "\"decision\": \"accepted\""));
  CHECK(Has(record, "\"games\": 10,"));
  CHECK(Has(record, "\"games_planned\": 20,"));
  CHECK(Has(record, "\"candidate_wins\": 10,"));
  CHECK(Has(record, "\"baseline\": \"run-t-s100-d10-weak\""));
  CHECK(Has(record, "\"mode\": \"fixed\""));
  CHECK(Has(record, "\"elo_low\": "));
  CHECK(stats.games == 10);

  const std::vector<std::string> sgfs =
      FilesWith(GatekeeperSgfDir(base.path()) + "/run-t-s200-d20", ".sgfs");
  REQUIRE(sgfs.size() == 1);
  const std::vector<go::SgfRecord> games = go::ReadSgfFile(sgfs.front());
  CHECK(games.size() == 10);
  int candidate_black = 0;
  for (const go::SgfRecord& game : games) {
    CHECK(game.size == 5);
    CHECK(game.result.find("+R") != std::string::npos);
    const bool black = game.black_player == "run-t-s200-d20";
    candidate_black += black;
    CHECK((black ? game.white_player : game.black_player) == "run-t-s100-d10-weak");
    CHECK(game.result[0] == (black ? 'B' : 'W'));
  }
  // Colours alternate (which 10 games finish first depends on the threads).
  CHECK(candidate_black >= 3);
  CHECK(candidate_black <= 7);
  CHECK(Has(record, "\"candidate_black_wins\": " + std::to_string(candidate_black) + ","));
  CHECK_FALSE(testing::AnyTemporary(base.path()));
}

TEST_CASE("gatekeeper: rejects a weaker candidate as soon as it cannot reach the threshold") {
  testing::TempDir base;
  AddModel(ModelsDir(base.path()), "run-t-s100-d10");
  AddModel(ModelsToBeTestedDir(base.path()), "run-weak-s200-d20");
  const GatekeeperStats stats = Run(SmallOptions(base.path()));
  CHECK(stats.rejected == 1);
  CHECK(IsDir(RejectedModelsDir(base.path()) + "/run-weak-s200-d20"));
  CHECK_FALSE(IsDir(ModelsDir(base.path()) + "/run-weak-s200-d20"));
  const std::string record = Record(base.path(), "run-weak-s200-d20");
  INFO(record);
  CHECK(Has(record, "\"decision\": \"rejected\""));
  CHECK(Has(record, "\"games\": 11,"));  // 0 points + 9 games left < 10
  CHECK(Has(record, "\"candidate_losses\": 11,"));
}

TEST_CASE("gatekeeper: the random net is the baseline while models/ is empty") {
  testing::TempDir base;
  AddModel(ModelsToBeTestedDir(base.path()), "run-t-s50-d5");
  GatekeeperOptions options = SmallOptions(base.path());
  options.games = 4;
  const GatekeeperStats stats = Run(options);
  CHECK(stats.accepted + stats.rejected == 1);
  const std::string record = Record(base.path(), "run-t-s50-d5");
  CHECK(Has(record, "\"baseline\": \"random\""));
  CHECK(IsDir((stats.accepted ? ModelsDir(base.path()) : RejectedModelsDir(base.path())) +
              "/run-t-s50-d5"));
}

TEST_CASE("gatekeeper: older candidates are rejected without games, the oldest newer one first") {
  testing::TempDir base;
  const std::string tested = ModelsToBeTestedDir(base.path());
  AddModel(ModelsDir(base.path()), "run-weak-s200-d20");
  AddModel(tested, "run-t-s100-d10");       // older than the best: no games
  AddModel(tested, "run-t-s200-d15");       // as old as the best: no games
  AddModel(tested, "run-t-s400-d40");       // tested second, against s300
  AddModel(tested, "run-t-s300-d30");       // tested first, against the weak s200
  AddModel(tested, "run-broken-s350-d35");  // does not load: rejected without games
  GatekeeperOptions options = SmallOptions(base.path());
  options.games = 2;
  const GatekeeperStats stats = Run(options);
  CHECK(stats.rejected_without_games == 3);
  CHECK(ListPublished(tested).empty());
  for (const char* name : {"run-t-s100-d10", "run-t-s200-d15", "run-broken-s350-d35"}) {
    CAPTURE(name);
    CHECK(IsDir(RejectedModelsDir(base.path()) + "/" + name));
    const std::string record = Record(base.path(), name);
    CHECK(Has(record, "\"games\": 0,"));
    CHECK(Has(record, "\"decision\": \"rejected\""));
    CHECK(FilesWith(GatekeeperSgfDir(base.path()) + "/" + name, ".sgfs").empty());
  }
  CHECK(Has(Record(base.path(), "run-broken-s350-d35"), "cannot load"));
  CHECK(Has(Record(base.path(), "run-t-s100-d10"), "not newer than the best model"));
  CHECK(IsDir(ModelsDir(base.path()) + "/run-t-s300-d30"));
  CHECK(Has(Record(base.path(), "run-t-s300-d30"), "\"baseline\": \"run-weak-s200-d20\""));
  // s400 came after s300 was accepted, so s300 was its baseline.
  CHECK(Has(Record(base.path(), "run-t-s400-d40"), "\"baseline\": \"run-t-s300-d30\""));
}

TEST_CASE("gatekeeper: SPRT decides long before the game limit, not before min_games") {
  testing::TempDir base;
  AddModel(ModelsDir(base.path()), "run-weak-s100-d10");
  AddModel(ModelsToBeTestedDir(base.path()), "run-t-s200-d20");
  GatekeeperOptions options = SmallOptions(base.path());
  options.games = 200;
  options.use_sprt = true;
  options.sprt.min_games = 12;
  const GatekeeperStats stats = Run(options);
  CHECK(stats.accepted == 1);
  CHECK(stats.games >= 12);
  CHECK(stats.games < 40);
  const std::string record = Record(base.path(), "run-t-s200-d20");
  INFO(record);
  CHECK(Has(record, "\"mode\": \"sprt\""));
  CHECK(Has(record, "\"min_games\": 12"));
  CHECK(Has(record, "\"llr\": "));
  CHECK(Has(record, "reached the upper bound"));
  CHECK(Has(record, "\"decision\": \"accepted\""));
}

TEST_CASE("gatekeeper: --quit-if-no-nets-to-test returns at once and creates selfplay/") {
  testing::TempDir base;
  const GatekeeperStats stats = Run(SmallOptions(base.path()));
  CHECK(stats.accepted + stats.rejected + stats.rejected_without_games == 0);
  CHECK(IsDir(SelfplayDir(base.path())));
}

TEST_CASE("gatekeeper: a stop request mid-match moves nothing and writes no record") {
  testing::TempDir base;
  AddModel(ModelsDir(base.path()), "run-t-s100-d10");
  AddModel(ModelsToBeTestedDir(base.path()), "run-t-s200-d20");
  std::atomic<bool> stop{false};
  GatekeeperOptions options = SmallOptions(base.path());
  options.game.resign.enabled = false;  // strong against strong: long games
  options.load_model = FakeLoader(&stop);
  options.quit_if_no_nets_to_test = false;  // only the stop ends the run
  const GatekeeperStats stats = Run(options, &stop);
  CHECK(stop.load());
  CHECK(stats.accepted + stats.rejected == 0);
  CHECK(IsDir(ModelsToBeTestedDir(base.path()) + "/run-t-s200-d20"));
  CHECK(ListPublished(RejectedModelsDir(base.path())).empty());
  CHECK(ListPublished(ModelsDir(base.path())) == std::vector<std::string>{"run-t-s100-d10"});
  CHECK(FilesWith(GatekeeperSgfDir(base.path()) + "/run-t-s200-d20", ".json").empty());
}

TEST_CASE("gatekeeper: options from the command line, bad values name the key") {
  ConfigSpec spec("tengen-gatekeeper");
  DeclareGatekeeperOptions(spec);
  const auto parse = [&spec](std::vector<std::string> args) {
    Config config(spec);
    args.insert(args.begin(), {"tengen-gatekeeper", "--output-dir", "/tmp/unused"});
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    ParseCommandLine(spec, static_cast<int>(argv.size()), argv.data(), config);
    return GatekeeperOptionsFromConfig(config);
  };
  const GatekeeperOptions o =
      parse({"--games", "30", "--required-candidate-win-prop", "0.55", "--quit-if-no-nets-to-test",
             "--set", "sprt.enabled=true", "--set", "visits=12", "--set", "board_sizes=7"});
  CHECK(o.games == 30);
  CHECK(o.required_candidate_win_prop == doctest::Approx(0.55));
  CHECK(o.quit_if_no_nets_to_test);
  CHECK(o.use_sprt);
  CHECK(o.game.playout_cap.full_visits == 12);
  CHECK(o.game.playout_cap.cheap_visits == 12);
  CHECK(o.game.search.dirichlet_weight == 0);
  CHECK_FALSE(o.game.record_rows);
  CHECK(parse({}).games == 200);
  CHECK_THROWS_WITH_AS(parse({"--games", "0"}), doctest::Contains("games"), ConfigError);
  CHECK_THROWS_WITH_AS(parse({"--set", "sprt.enabled=true", "--set", "sprt.elo1=-5"}),
                       doctest::Contains("sprt.elo1"), ConfigError);
  CHECK_THROWS_WITH_AS(parse({"--device", "cpu,cpu"}), doctest::Contains("device"), ConfigError);
  CHECK_THROWS_WITH_AS(parse({"--set", "board_sizes=11"}), doctest::Contains("pos_len"),
                       ConfigError);
}

}  // namespace
}  // namespace tengen::pipeline
