#include "pipeline/gatekeeper.h"

#include <algorithm>
#include <atomic>
#include <boost/filesystem.hpp>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "go/sgf.h"
#include "nn/batching.h"
#include "pipeline/base_dir.h"
#include "pipeline/heartbeat.h"
#include "pipeline/net_leaf_evaluator.h"
#include "pipeline/rules_config.h"
#include "pipeline/selfplay_config.h"
#include "pipeline/service.h"
#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/rng.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;

// Ties go to the candidate (KataGo compares candidate points + 1e-10 with the threshold).
constexpr double kTieEpsilon = 1e-10;

std::string Join(const std::string& dir, const std::string& name) { return dir + "/" + name; }

// A game thread is a client of the batching server whose player is searching (see
// gatekeeper.h): the server then runs a batch as soon as every thread searching with its model
// has submitted, instead of waiting for threads that are searching with the other model.
class ActiveClient {
 public:
  ActiveClient() = default;
  ActiveClient(const ActiveClient&) = delete;
  ActiveClient& operator=(const ActiveClient&) = delete;
  ~ActiveClient() {
    if (current_ != nullptr) current_->RemoveClient();
  }
  void Use(nn::BatchingServer& server) {
    if (current_ == &server) return;
    if (current_ != nullptr) current_->RemoveClient();
    server.AddClient();
    current_ = &server;
  }

 private:
  nn::BatchingServer* current_ = nullptr;
};

// One player's evaluator in one game thread.
class ClientLeafEvaluator : public search::LeafEvaluator {
 public:
  ClientLeafEvaluator(nn::BatchingServer& server, Rng& rng, ActiveClient& client)
      : server_(server), client_(client), leaf_(server, rng) {}
  search::LeafEvaluation Evaluate(const go::GameState& state) override {
    client_.Use(server_);
    return leaf_.Evaluate(state);
  }

 private:
  nn::BatchingServer& server_;
  ActiveClient& client_;
  NetLeafEvaluator leaf_;
};

const char* DecisionName(bool accepted) { return accepted ? "accepted" : "rejected"; }

class Gatekeeper {
 public:
  Gatekeeper(const GatekeeperOptions& options, Logger& logger, StopToken stop)
      : options_(options),
        game_params_(GatekeeperGameParams(options.game)),
        logger_(logger),
        stop_(stop),
        seeds_(options.seed),
        heartbeat_(options.base_dir, "gatekeeper", options.heartbeat_interval, logger) {}

  GatekeeperStats Run();

 private:
  enum class Outcome { kNothingToTest, kDecided, kStopped };
  // What the game threads share during a match.
  struct Match {
    std::string candidate;
    std::string baseline;
    std::unique_ptr<nn::BatchingServer> candidate_server;
    std::unique_ptr<nn::BatchingServer> baseline_server;
    mutable std::mutex mutex;
    MatchScore score;
    int candidate_black_wins = 0;
    int claimed = 0;  // games started
    std::string sgf_text;
    GateDecision decision = GateDecision::kContinue;
    std::atomic<bool> decided{false};
    std::atomic<bool> failed{false};
    std::string failure;
    std::atomic<int> running{0};
  };

  Outcome TestOne();
  void PlayMatch(Match& match);
  void GameThread(Match& match, uint64_t thread_seed);
  // The newest model of `models` that loads (set in *loaded), else the random net (*loaded
  // empty).
  std::unique_ptr<nn::Evaluator> LoadBaseline(const std::vector<ModelInfo>& models,
                                              std::optional<ModelInfo>* loaded);
  // Entries of modelstobetested/ that are not directories are rejected (moved aside).
  void RejectPlainFiles();
  // Publishes the games (when there are any) and the record, then moves the candidate.
  void Conclude(const ModelInfo& candidate, MatchRecord record, const std::string& sgf_text);
  void RejectWithoutGames(const ModelInfo& candidate, const std::string& baseline,
                          const std::string& reason);
  void MoveCandidate(const ModelInfo& candidate, bool accepted);
  void Beat(const std::string& state, bool force, const Match* match);
  void LogProgress(const Match& match);

  const GatekeeperOptions& options_;
  const GameParams game_params_;
  Logger& logger_;
  StopToken stop_;
  SeedSource seeds_;
  ServiceHeartbeat heartbeat_;
  GatekeeperStats stats_;
  std::string testing_;  // the candidate being tested (for the heartbeat)
};

void Gatekeeper::Beat(const std::string& state, bool force, const Match* match) {
  HeartbeatInfo info;
  info.state = state;
  info.texts = {{"candidate", testing_}};
  if (match != nullptr) info.texts.emplace_back("baseline", match->baseline);
  info.counters = {{"accepted", static_cast<double>(stats_.accepted)},
                   {"rejected", static_cast<double>(stats_.rejected)},
                   {"rejected_without_games", static_cast<double>(stats_.rejected_without_games)},
                   {"games_total", static_cast<double>(stats_.games)}};
  if (match != nullptr) {
    std::lock_guard<std::mutex> lock(match->mutex);
    info.counters.emplace_back("match_games", match->score.games());
    info.counters.emplace_back("match_wins", match->score.wins);
    info.counters.emplace_back("match_losses", match->score.losses);
    info.counters.emplace_back("match_draws", match->score.draws);
  }
  heartbeat_.Beat(info, force);
}

void Gatekeeper::LogProgress(const Match& match) {
  MatchScore score;
  {
    std::lock_guard<std::mutex> lock(match.mutex);
    score = match.score;
  }
  const EloEstimate elo = EstimateElo(score);
  std::string text = "match " + match.candidate + " vs " + match.baseline + ": " +
                     std::to_string(score.games()) + "/" + std::to_string(options_.games) +
                     " games, candidate +" + std::to_string(score.wins) + " -" +
                     std::to_string(score.losses) + " =" + std::to_string(score.draws) + ", Elo " +
                     FormatFixed(elo.elo, 0) + " [" + FormatFixed(elo.low, 0) + ", " +
                     FormatFixed(elo.high, 0) + "]";
  if (options_.use_sprt)
    text += ", SPRT LLR " +
            FormatFixed(SprtLogLikelihoodRatio(score, options_.sprt.elo0, options_.sprt.elo1), 2);
  logger_.Info(text);
}

void Gatekeeper::GameThread(Match& match, uint64_t thread_seed) {
  try {
    Rng rng(thread_seed);
    ActiveClient client;
    ClientLeafEvaluator candidate_leaf(*match.candidate_server, rng, client);
    ClientLeafEvaluator baseline_leaf(*match.baseline_server, rng, client);
    const Player candidate{&candidate_leaf, match.candidate};
    const Player baseline{&baseline_leaf, match.baseline};
    const auto stop = [this, &match] {
      return stop_.stop_requested() || match.decided.load() || match.failed.load();
    };
    while (!stop()) {
      int index;
      {
        std::lock_guard<std::mutex> lock(match.mutex);
        if (match.claimed >= options_.games) break;
        index = match.claimed++;
      }
      // Alternating colours: the candidate is black in even-numbered games.
      const bool candidate_black = index % 2 == 0;
      FinishedGame game;
      if (!PlayGame(game_params_, candidate_black ? candidate : baseline,
                    candidate_black ? baseline : candidate, seeds_.NextSeed(), stop, &game))
        break;  // stopped or decided: the game in flight is dropped
      const go::Color candidate_color = candidate_black ? go::Color::kBlack : go::Color::kWhite;
      std::lock_guard<std::mutex> lock(match.mutex);
      if (match.decided) break;  // finished after the decision: not counted
      if (game.winner == go::Color::kEmpty) {
        ++match.score.draws;
      } else if (game.winner == candidate_color) {
        ++match.score.wins;
        if (candidate_black) ++match.candidate_black_wins;
      } else {
        ++match.score.losses;
      }
      match.sgf_text += go::WriteSgf(game.sgf) + "\n";
      const GateDecision decision = MatchDecision(match.score, options_);
      if (decision != GateDecision::kContinue) {
        match.decision = decision;
        match.decided = true;
      }
    }
  } catch (const std::exception& e) {
    logger_.Error(std::string("gatekeeper game thread failed, stopping the match: ") + e.what());
    std::lock_guard<std::mutex> lock(match.mutex);
    if (match.failure.empty()) match.failure = e.what();
    match.failed = true;
  }
  --match.running;
}

void Gatekeeper::PlayMatch(Match& match) {
  std::vector<std::thread> threads;
  std::exception_ptr monitor_error;
  try {
    for (int i = 0; i < options_.num_game_threads; ++i) {
      const uint64_t thread_seed = seeds_.NextSeed();
      ++match.running;
      try {
        threads.emplace_back([this, &match, thread_seed] { GameThread(match, thread_seed); });
      } catch (...) {
        --match.running;
        throw;
      }
    }
    auto last_log = Clock::now();
    bool stop_logged = false;
    while (match.running.load() > 0) {
      std::this_thread::sleep_for(kMonitorTick);
      if (stop_.stop_requested()) {
        if (!stop_logged)
          logger_.Info("stop requested: dropping the games in flight, moving nothing");
        stop_logged = true;
        continue;
      }
      Beat("testing", false, &match);
      if (Clock::now() - last_log >= options_.log_interval) {
        last_log = Clock::now();
        LogProgress(match);
      }
    }
  } catch (...) {
    monitor_error = std::current_exception();
    match.failed = true;
  }
  for (std::thread& thread : threads) thread.join();
  if (monitor_error) std::rethrow_exception(monitor_error);
}

std::unique_ptr<nn::Evaluator> Gatekeeper::LoadBaseline(const std::vector<ModelInfo>& models,
                                                        std::optional<ModelInfo>* loaded) {
  loaded->reset();
  for (const ModelInfo& model : models) {
    try {
      std::unique_ptr<nn::Evaluator> evaluator =
          MakeEvaluator(model, game_params_.pos_len, options_.device, options_.load_model);
      *loaded = model;
      return evaluator;
    } catch (const ConfigError&) {
      throw;
    } catch (const Error& e) {
      logger_.Error("cannot use model " + model.name +
                    " as the baseline, trying an older one: " + e.what());
    }
  }
  if (!models.empty()) logger_.Error("no model in models/ loads: the baseline is the random net");
  return MakeEvaluator(std::nullopt, game_params_.pos_len, options_.device, options_.load_model);
}

void Gatekeeper::MoveCandidate(const ModelInfo& candidate, bool accepted) {
  const std::string dir =
      accepted ? ModelsDir(options_.base_dir) : RejectedModelsDir(options_.base_dir);
  EnsureDirectory(dir);
  std::string target = Join(dir, candidate.name);
  boost::system::error_code error;
  if (fs::exists(target, error)) {
    target += "-" + UniqueFileStem();
    logger_.Warning(Join(dir, candidate.name) + " exists: moving " + candidate.name + " to " +
                    target);
  }
  fs::rename(candidate.path, target, error);
  if (!error) {
    logger_.Info(candidate.name + " " + DecisionName(accepted) + ": moved to " + target);
    return;
  }
  if (!fs::exists(candidate.path))
    logger_.Warning(candidate.path + " vanished before it could be moved (another gatekeeper?)");
  else
    throw IoError("cannot rename " + candidate.path + " to " + target + ": " + error.message());
}

void Gatekeeper::Conclude(const ModelInfo& candidate, MatchRecord record,
                          const std::string& sgf_text) {
  const std::string dir = Join(GatekeeperSgfDir(options_.base_dir), candidate.name);
  const std::string stem = UniqueFileStem();
  record.finished_utc = UtcTimestamp();
  EnsureDirectory(dir);
  if (!sgf_text.empty()) {
    record.sgf_file = stem + ".sgfs";
    PublishFile(Join(dir, record.sgf_file), sgf_text);
  }
  PublishFile(Join(dir, stem + ".json"),
              MatchRecordJson(record, options_.required_candidate_win_prop));
  MoveCandidate(candidate, record.accepted);
}

void Gatekeeper::RejectWithoutGames(const ModelInfo& candidate, const std::string& baseline,
                                    const std::string& reason) {
  logger_.Info("rejecting " + candidate.name + " without games: " + reason);
  MatchRecord record;
  record.candidate = candidate.name;
  record.baseline = baseline;
  record.games_planned = 0;
  record.accepted = false;
  record.reason = reason;
  record.sprt = options_.use_sprt;
  record.sprt_params = options_.sprt;
  record.started_utc = UtcTimestamp();
  Conclude(candidate, record, "");
  ++stats_.rejected_without_games;
}

void Gatekeeper::RejectPlainFiles() {
  const std::string dir = ModelsToBeTestedDir(options_.base_dir);
  for (const std::string& name : ListPublished(dir)) {
    ModelInfo entry;
    entry.name = name;
    entry.path = Join(dir, name);
    boost::system::error_code error;
    if (fs::is_directory(entry.path, error) || !fs::exists(entry.path, error)) continue;
    RejectWithoutGames(entry, "", "not a model directory");
  }
}

Gatekeeper::Outcome Gatekeeper::TestOne() {
  RejectPlainFiles();
  const std::vector<ModelInfo> candidates =
      ListModelsNewestFirst(ModelsToBeTestedDir(options_.base_dir));
  if (candidates.empty()) return Outcome::kNothingToTest;
  if (!options_.load_model)
    throw Error("candidates found in " + ModelsToBeTestedDir(options_.base_dir) +
                ", but this binary was built without libtorch and cannot run a net");
  // The best model is the newest in models/ that loads: a broken newest model (a truncated
  // copy) must not make every candidate look old.
  const std::vector<ModelInfo> models = ListModelsNewestFirst(ModelsDir(options_.base_dir));
  std::optional<ModelInfo> best_model;
  std::unique_ptr<nn::Evaluator> baseline_eval = LoadBaseline(models, &best_model);
  const std::string best = best_model ? best_model->name : std::string(kRandomModelName);
  std::optional<ModelInfo> chosen;
  // Oldest first: the list is newest first.
  for (auto it = candidates.rbegin(); it != candidates.rend() && !chosen; ++it) {
    if (stop_.stop_requested()) return Outcome::kStopped;
    boost::system::error_code error;
    if (best_model && it->samples <= best_model->samples) {
      RejectWithoutGames(*it, best,
                         "not newer than the best model " + best + " (s" +
                             std::to_string(it->samples) + " <= s" +
                             std::to_string(best_model->samples) + ")");
    } else if (fs::exists(Join(ModelsDir(options_.base_dir), it->name), error)) {
      RejectWithoutGames(*it, best, "a model of this name is already in models/");
    } else {
      chosen = *it;
    }
  }
  if (!chosen) return Outcome::kNothingToTest;
  testing_ = chosen->name;

  std::unique_ptr<nn::Evaluator> candidate_eval;
  try {
    candidate_eval =
        MakeEvaluator(*chosen, game_params_.pos_len, options_.device, options_.load_model);
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    RejectWithoutGames(*chosen, best, std::string("cannot load it: ") + e.what());
    return Outcome::kDecided;
  }

  Match match;
  match.candidate = chosen->name;
  match.baseline = baseline_eval->model_name();
  const int batch = std::min(options_.nn_max_batch_size, options_.num_game_threads);
  match.candidate_server =
      std::make_unique<nn::BatchingServer>(std::move(candidate_eval), nn::BatchingOptions{batch});
  match.baseline_server =
      std::make_unique<nn::BatchingServer>(std::move(baseline_eval), nn::BatchingOptions{batch});
  MatchRecord record;
  record.candidate = match.candidate;
  record.baseline = match.baseline;
  record.games_planned = options_.games;
  record.sprt = options_.use_sprt;
  record.sprt_params = options_.sprt;
  record.started_utc = UtcTimestamp();
  logger_.Info("testing " + match.candidate + " against " + match.baseline + ": up to " +
               std::to_string(options_.games) + " games, " +
               (options_.use_sprt
                    ? "SPRT elo0 " + FormatFixed(options_.sprt.elo0, 1) + " elo1 " +
                          FormatFixed(options_.sprt.elo1, 1)
                    : "accept at score >= " + FormatFixed(options_.required_candidate_win_prop, 3) +
                          " of the games") +
               ", " + std::to_string(options_.num_game_threads) + " game threads on " +
               options_.device);
  Beat("testing", true, &match);
  PlayMatch(match);
  stats_.games += match.score.games();
  if (match.failed) throw Error("the match of " + match.candidate + " failed: " + match.failure);
  if (stop_.stop_requested() || !match.decided) {
    logger_.Info("match of " + match.candidate + " interrupted after " +
                 std::to_string(match.score.games()) +
                 " games: nothing moved, the next run tests it again");
    return Outcome::kStopped;
  }
  LogProgress(match);
  record.score = match.score;
  record.candidate_black_wins = match.candidate_black_wins;
  record.accepted = match.decision == GateDecision::kAccept;
  const double threshold = options_.required_candidate_win_prop * options_.games;
  std::string reason = "score " + FormatFixed(match.score.points(), 1) + " in " +
                       std::to_string(match.score.games()) + " games";
  if (options_.use_sprt && Sprt(match.score, options_.sprt) != SprtDecision::kContinue) {
    reason += ", SPRT LLR " +
              FormatFixed(
                  SprtLogLikelihoodRatio(match.score, options_.sprt.elo0, options_.sprt.elo1), 3) +
              (record.accepted ? " reached the upper bound" : " reached the lower bound");
  } else {
    reason += record.accepted ? " reached "
                              : (match.score.games() < options_.games ? " can no longer reach "
                                                                      : " fell short of ");
    reason += FormatFixed(threshold, 1) + " (" +
              FormatFixed(options_.required_candidate_win_prop, 3) + " of " +
              std::to_string(options_.games) + ")";
  }
  record.reason = reason;
  logger_.Info(match.candidate + " " + DecisionName(record.accepted) + ": " + reason);
  Conclude(*chosen, record, match.sgf_text);
  if (record.accepted) {
    ++stats_.accepted;
  } else {
    ++stats_.rejected;
  }
  testing_.clear();
  return Outcome::kDecided;
}

GatekeeperStats Gatekeeper::Run() {
  TENGEN_CHECK(options_.games > 0, "games must be positive");
  TENGEN_CHECK(options_.num_game_threads > 0, "num_game_threads must be positive");
  CheckBoardSizes(game_params_);
  // Created up front, race-safe, so that selfplay processes never race to create it.
  EnsureDirectory(SelfplayDir(options_.base_dir));
  EnsureDirectory(ModelsToBeTestedDir(options_.base_dir));
  logger_.Info("gatekeeper seed " + std::to_string(seeds_.seed()) + ", watching " +
               ModelsToBeTestedDir(options_.base_dir));
  while (!stop_.stop_requested()) {
    Outcome outcome;
    try {
      outcome = TestOne();
    } catch (const IoError& e) {
      // A full disk or a network filesystem that lost its server: nothing was moved (a
      // candidate leaves modelstobetested/ last), so it is tested again once files can be
      // written; the records of an interrupted conclusion may be left without their match.
      logger_.Error("cannot test " + (testing_.empty() ? std::string("the candidates") : testing_) +
                    ": " + e.what() + "; trying again in " +
                    std::to_string(options_.poll_interval.count()) + " ms");
      testing_.clear();
      Beat("cannot write: retrying", true, nullptr);
      WaitUnlessStopped(stop_, options_.poll_interval,
                        [this] { Beat("cannot write: retrying", false, nullptr); });
      continue;
    }
    if (outcome == Outcome::kStopped) break;
    if (outcome == Outcome::kDecided) continue;
    if (options_.quit_if_no_nets_to_test) {
      logger_.Info("no nets to test: quitting");
      break;
    }
    Beat("waiting", true, nullptr);
    WaitUnlessStopped(stop_, options_.poll_interval, [this] { Beat("waiting", false, nullptr); });
  }
  Beat("stopped", true, nullptr);
  return stats_;
}

}  // namespace

GameParams GatekeeperGameParams(GameParams game) {
  game.playout_cap.cheap_visits = game.playout_cap.full_visits;
  game.playout_cap.full_probability = 0;
  game.search.dirichlet_weight = 0;
  game.record_rows = false;
  return game;
}

GateDecision FixedRuleDecision(const MatchScore& score, int total_games, double required_prop) {
  const double threshold = required_prop * total_games;
  if (score.points() + kTieEpsilon >= threshold) return GateDecision::kAccept;
  const int remaining = std::max(0, total_games - score.games());
  if (score.points() + remaining + kTieEpsilon < threshold) return GateDecision::kReject;
  return GateDecision::kContinue;
}

GateDecision MatchDecision(const MatchScore& score, const GatekeeperOptions& options) {
  if (options.use_sprt) {
    switch (Sprt(score, options.sprt)) {
      case SprtDecision::kAccept:
        return GateDecision::kAccept;
      case SprtDecision::kReject:
        return GateDecision::kReject;
      case SprtDecision::kContinue:
        break;
    }
    if (score.games() < options.games) return GateDecision::kContinue;
  }
  return FixedRuleDecision(score, options.games, options.required_candidate_win_prop);
}

std::string MatchRecordJson(const MatchRecord& record, double required_prop) {
  using Json = nlohmann::ordered_json;
  const MatchScore& s = record.score;
  const EloEstimate elo = EstimateElo(s);
  Json sprt = nullptr;
  if (record.sprt) {
    const SprtParams& p = record.sprt_params;
    sprt = {{"elo0", p.elo0},
            {"elo1", p.elo1},
            {"alpha", p.alpha},
            {"beta", p.beta},
            {"llr", s.games() > 0 ? SprtLogLikelihoodRatio(s, p.elo0, p.elo1) : 0.0},
            {"llr_lower", std::log(p.beta / (1 - p.alpha))},
            {"llr_upper", std::log((1 - p.beta) / p.alpha)}};
  }
  const Json json = {
      {"format", "tengen-gating"},
      {"format_version", 1},
      {"candidate", record.candidate},
      {"baseline", record.baseline},
      {"games_planned", record.games_planned},
      {"games", s.games()},
      {"candidate_wins", s.wins},
      {"candidate_losses", s.losses},
      {"draws", s.draws},
      {"score", s.points()},
      {"score_fraction", s.games() > 0 ? Json(s.points() / s.games()) : Json(nullptr)},
      {"candidate_black_wins", record.candidate_black_wins},
      {"candidate_white_wins", s.wins - record.candidate_black_wins},
      {"elo", elo.elo},
      {"elo_low", elo.low},
      {"elo_high", elo.high},
      {"mode", record.sprt ? "sprt" : "fixed"},
      {"required_candidate_win_prop", required_prop},
      {"sprt", sprt},
      {"decision", DecisionName(record.accepted)},
      {"reason", record.reason},
      {"sgf_file", record.sgf_file},
      {"started_utc", record.started_utc},
      {"finished_utc", record.finished_utc},
      {"gatekeeper", HostPid()}};
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

GatekeeperStats RunGatekeeper(const GatekeeperOptions& options, Logger& logger, StopToken stop) {
  Gatekeeper gatekeeper(options, logger, stop);
  return gatekeeper.Run();
}

void DeclareGatekeeperOptions(ConfigSpec& spec) {
  const auto options = std::make_unique<GatekeeperOptions>();  // on the heap: see selfplay_config
  const GatekeeperOptions& o = *options;
  const auto game_defaults = std::make_unique<GameParams>(o.game);
  spec.String("output_dir", "", "base directory (required)");
  spec.Int("games", o.games, 1, 100000, "games per candidate (fewer when decided early)");
  spec.Double("required_candidate_win_prop", o.required_candidate_win_prop, 0, 1,
              "accept when the candidate's score (wins + draws/2) reaches this share of games");
  spec.Bool("quit_if_no_nets_to_test", false, "exit 0 once modelstobetested/ has nothing to test");
  spec.Bool("sprt.enabled", false, "decide by an SPRT (Leela Zero's gating) instead");
  spec.Double("sprt.elo0", o.sprt.elo0, -1000, 1000, "SPRT null hypothesis: candidate +elo0");
  spec.Double("sprt.elo1", o.sprt.elo1, -1000, 1000, "SPRT alternative: candidate +elo1 (> elo0)");
  spec.Double("sprt.alpha", o.sprt.alpha, 1e-6, 0.5, "SPRT false accept rate");
  spec.Double("sprt.beta", o.sprt.beta, 1e-6, 0.5, "SPRT false reject rate");
  // KataGo's gatekeeper1.cfg: temperature 0.5 early, 0.2 late; pos_len for 9x9 nets.
  GameParams& defaults = *game_defaults;
  defaults.pos_len = 9;
  defaults.temperature_early = 0.5;
  defaults.temperature_late = 0.2;
  defaults.resign.enabled = false;
  DeclareGameOptions(spec, defaults);
  spec.Int("visits", 150, 1, 1000000, "visits per move (KataGo's gatekeeper: 150)");
  spec.Int("num_game_threads", o.num_game_threads, 1, 4096, "concurrent games");
  spec.Int("nn_max_batch_size", o.nn_max_batch_size, 1, 4096, "largest NN batch per model");
  spec.String("device", o.device, "device of both nets: cpu, cuda or cuda:N");
  DeclarePlayPrecisionOption(spec);
  spec.Int("seed", 0, 0, kMaxSeed, "master seed of the games (0: from entropy)");
  spec.Double("poll_seconds", 10, 0.1, 86400, "how often to look for candidates");
  spec.Double("log_seconds", 30, 0.1, 86400, "how often to log match progress");
  DeclareLogLevelOption(spec);
}

GatekeeperOptions GatekeeperOptionsFromConfig(const Config& config) {
  GatekeeperOptions o;
  o.base_dir = BaseDirFromConfig(config);
  o.games = static_cast<int>(config.GetInt("games"));
  o.required_candidate_win_prop = config.GetDouble("required_candidate_win_prop");
  o.quit_if_no_nets_to_test = config.GetBool("quit_if_no_nets_to_test");
  o.use_sprt = config.GetBool("sprt.enabled");
  o.sprt.elo0 = config.GetDouble("sprt.elo0");
  o.sprt.elo1 = config.GetDouble("sprt.elo1");
  o.sprt.alpha = config.GetDouble("sprt.alpha");
  o.sprt.beta = config.GetDouble("sprt.beta");
  if (o.use_sprt && !(o.sprt.elo1 > o.sprt.elo0))
    throw ConfigError("sprt.elo1 (" + FormatFixed(o.sprt.elo1, 1) + ") must exceed sprt.elo0 (" +
                      FormatFixed(o.sprt.elo0, 1) + ")");

  GameParams& g = o.game;
  ReadGameOptions(config, &g);
  g.playout_cap.full_visits = static_cast<int>(config.GetInt("visits"));
  g.resign.no_resign_fraction = 0;  // no need to measure wrong resignations here
  o.game = GatekeeperGameParams(g);

  o.num_game_threads = static_cast<int>(config.GetInt("num_game_threads"));
  o.nn_max_batch_size = static_cast<int>(config.GetInt("nn_max_batch_size"));
  const std::vector<std::string> devices = ParseDeviceList("device", config.GetString("device"));
  if (devices.size() != 1)
    throw ConfigError("bad value '" + config.GetString("device") +
                      "' for device: expected one device (cpu, cuda or cuda:N)");
  o.device = devices.front();
  o.seed = static_cast<uint64_t>(config.GetInt("seed"));
  o.poll_interval =
      std::chrono::milliseconds(static_cast<int64_t>(config.GetDouble("poll_seconds") * 1000));
  o.log_interval =
      std::chrono::milliseconds(static_cast<int64_t>(config.GetDouble("log_seconds") * 1000));
  return o;
}

}  // namespace tengen::pipeline
