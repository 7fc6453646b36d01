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
#include "pipeline/service.h"
#include "play/game_options.h"
#include "play/net_leaf_evaluator.h"
#include "play/rules_config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/option_table.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using Clock = std::chrono::steady_clock;

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
  play::NetLeafEvaluator leaf_;
};

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
  // TestOne's steps (see their definitions).
  std::optional<play::ModelInfo> ChooseCandidate(const std::vector<play::ModelInfo>& candidates,
                                                 const std::optional<play::ModelInfo>& best_model,
                                                 bool* stopped);
  void LogMatchStart(const Match& match);
  std::string DecisionReason(const Match& match, bool accepted) const;
  void PlayMatch(Match& match);
  void GameThread(Match& match, uint64_t thread_seed);
  // The newest model of `models` that loads (set in *loaded), else the random net (*loaded
  // empty).
  std::unique_ptr<nn::Evaluator> LoadBaseline(const std::vector<play::ModelInfo>& models,
                                              std::optional<play::ModelInfo>* loaded);
  // Entries of modelstobetested/ that are not directories are rejected (moved aside).
  void RejectPlainFiles();
  // Publishes the games (when there are any) and the record, then moves the candidate.
  void Conclude(const play::ModelInfo& candidate, MatchRecord record, const std::string& sgf_text);
  void RejectWithoutGames(const play::ModelInfo& candidate, const std::string& baseline,
                          const std::string& reason);
  void MoveCandidate(const play::ModelInfo& candidate, bool accepted);
  void Beat(const std::string& state, bool force, const Match* match);
  void LogProgress(const Match& match);

  const GatekeeperOptions& options_;
  const play::GameParams game_params_;
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
  std::string text = StrCat("match ", match.candidate, " vs ", match.baseline, ": ", score.games(),
                            "/", options_.games, " games, candidate +", score.wins, " -",
                            score.losses, " =", score.draws, ", Elo ", FormatFixed(elo.elo, 0),
                            " [", FormatFixed(elo.low, 0), ", ", FormatFixed(elo.high, 0), "]");
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
    const play::Player candidate{&candidate_leaf, match.candidate};
    const play::Player baseline{&baseline_leaf, match.baseline};
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
      play::FinishedGame game;
      if (!play::PlayGame(game_params_, candidate_black ? candidate : baseline,
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

std::unique_ptr<nn::Evaluator> Gatekeeper::LoadBaseline(const std::vector<play::ModelInfo>& models,
                                                        std::optional<play::ModelInfo>* loaded) {
  loaded->reset();
  for (const play::ModelInfo& model : models) {
    try {
      std::unique_ptr<nn::Evaluator> evaluator =
          play::MakeEvaluator(model, game_params_.pos_len, options_.device, options_.load_model);
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
  return play::MakeEvaluator(std::nullopt, game_params_.pos_len, options_.device,
                             options_.load_model);
}

void Gatekeeper::MoveCandidate(const play::ModelInfo& candidate, bool accepted) {
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

void Gatekeeper::Conclude(const play::ModelInfo& candidate, MatchRecord record,
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

void Gatekeeper::RejectWithoutGames(const play::ModelInfo& candidate, const std::string& baseline,
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
    play::ModelInfo entry;
    entry.name = name;
    entry.path = Join(dir, name);
    boost::system::error_code error;
    if (fs::is_directory(entry.path, error) || !fs::exists(entry.path, error)) continue;
    RejectWithoutGames(entry, "", "not a model directory");
  }
}

// The oldest candidate (`candidates` is newest first) that is newer than the best model and
// whose name is free in models/; the others are rejected without games on the way. nullopt
// when none is left, or when a stop is requested (*stopped).
std::optional<play::ModelInfo> Gatekeeper::ChooseCandidate(
    const std::vector<play::ModelInfo>& candidates,
    const std::optional<play::ModelInfo>& best_model, bool* stopped) {
  const std::string best = best_model ? best_model->name : std::string(kRandomModelName);
  std::optional<play::ModelInfo> chosen;
  // Oldest first: the list is newest first.
  for (auto it = candidates.rbegin(); it != candidates.rend() && !chosen; ++it) {
    if (stop_.stop_requested()) {
      *stopped = true;
      return std::nullopt;
    }
    boost::system::error_code error;
    if (best_model && it->samples <= best_model->samples) {
      RejectWithoutGames(*it, best,
                         StrCat("not newer than the best model ", best, " (s", it->samples, " <= s",
                                best_model->samples, ")"));
    } else if (fs::exists(Join(ModelsDir(options_.base_dir), it->name), error)) {
      RejectWithoutGames(*it, best, "a model of this name is already in models/");
    } else {
      chosen = *it;
    }
  }
  return chosen;
}

void Gatekeeper::LogMatchStart(const Match& match) {
  logger_.Info(
      StrCat("testing ", match.candidate, " against ", match.baseline, ": up to ", options_.games,
             " games, ",
             (options_.use_sprt
                  ? "SPRT elo0 " + FormatFixed(options_.sprt.elo0, 1) + " elo1 " +
                        FormatFixed(options_.sprt.elo1, 1)
                  : "accept at score >= " + FormatFixed(options_.required_candidate_win_prop, 3) +
                        " of the games"),
             ", ", options_.num_game_threads, " game threads on ", options_.device));
}

// Why the match was decided: the score, and the SPRT bound or the fixed threshold.
std::string Gatekeeper::DecisionReason(const Match& match, bool accepted) const {
  const double threshold = options_.required_candidate_win_prop * options_.games;
  std::string reason =
      StrCat("score ", FormatFixed(match.score.points(), 1), " in ", match.score.games(), " games");
  if (options_.use_sprt && Sprt(match.score, options_.sprt) != SprtDecision::kContinue) {
    reason += ", SPRT LLR " +
              FormatFixed(
                  SprtLogLikelihoodRatio(match.score, options_.sprt.elo0, options_.sprt.elo1), 3) +
              (accepted ? " reached the upper bound" : " reached the lower bound");
  } else {
    reason += accepted ? " reached "
                       : (match.score.games() < options_.games ? " can no longer reach "
                                                               : " fell short of ");
    reason +=
        StrCat(FormatFixed(threshold, 1), " (",
               FormatFixed(options_.required_candidate_win_prop, 3), " of ", options_.games, ")");
  }
  return reason;
}

Gatekeeper::Outcome Gatekeeper::TestOne() {
  RejectPlainFiles();
  const std::vector<play::ModelInfo> candidates =
      play::ListModelsNewestFirst(ModelsToBeTestedDir(options_.base_dir));
  if (candidates.empty()) return Outcome::kNothingToTest;
  if (!options_.load_model)
    throw Error("candidates found in " + ModelsToBeTestedDir(options_.base_dir) +
                ", but this binary was built without libtorch and cannot run a net");
  // The best model is the newest in models/ that loads: a broken newest model (a truncated
  // copy) must not make every candidate look old.
  const std::vector<play::ModelInfo> models =
      play::ListModelsNewestFirst(ModelsDir(options_.base_dir));
  std::optional<play::ModelInfo> best_model;
  std::unique_ptr<nn::Evaluator> baseline_eval = LoadBaseline(models, &best_model);
  const std::string best = best_model ? best_model->name : std::string(kRandomModelName);
  bool stopped = false;
  const std::optional<play::ModelInfo> chosen = ChooseCandidate(candidates, best_model, &stopped);
  if (stopped) return Outcome::kStopped;
  if (!chosen) return Outcome::kNothingToTest;
  testing_ = chosen->name;

  std::unique_ptr<nn::Evaluator> candidate_eval;
  try {
    candidate_eval =
        play::MakeEvaluator(*chosen, game_params_.pos_len, options_.device, options_.load_model);
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
  LogMatchStart(match);
  Beat("testing", true, &match);
  PlayMatch(match);
  stats_.games += match.score.games();
  if (match.failed) throw Error("the match of " + match.candidate + " failed: " + match.failure);
  if (stop_.stop_requested() || !match.decided) {
    logger_.Info(StrCat("match of ", match.candidate, " interrupted after ", match.score.games(),
                        " games: nothing moved, the next run tests it again"));
    return Outcome::kStopped;
  }
  LogProgress(match);
  record.score = match.score;
  record.candidate_black_wins = match.candidate_black_wins;
  record.accepted = match.decision == GateDecision::kAccept;
  const std::string reason = DecisionReason(match, record.accepted);
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
  play::CheckBoardSizes(game_params_);
  // Created up front, race-safe, so that selfplay processes never race to create it.
  EnsureDirectory(SelfplayDir(options_.base_dir));
  EnsureDirectory(ModelsToBeTestedDir(options_.base_dir));
  logger_.Info(StrCat("gatekeeper seed ", seeds_.seed(), ", watching ",
                      ModelsToBeTestedDir(options_.base_dir)));
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

GatekeeperStats RunGatekeeper(const GatekeeperOptions& options, Logger& logger, StopToken stop) {
  Gatekeeper gatekeeper(options, logger, stop);
  return gatekeeper.Run();
}

}  // namespace tengen::pipeline
