#pragma once
// The selfplay loop (the tengen-selfplay program is a thin main around RunSelfplay): game
// threads play the newest model against itself and publish training shards and SGFs under
// the base directory, until stopped or until --max-games-total games have been started.
//
// Threads. num_game_threads games are in flight, each a game slot that plays one game after
// another (play/game_runner.h) with its own search trees and Rng. The slots run on fibers
// (play/fiber_pool.h), slot i on search thread i % num_search_threads: a game that waits
// for the net suspends and its thread plays the next one, so thousands of games cost no more
// per evaluation than a few. Every entry of `devices` gets its own evaluator (one LoadModel
// call each; the random net when there is no model) inside its own nn::BatchingServer, whose
// thread runs that device's batches; slot i sends its leaves to server i % devices.size(), and
// a server's batches hold up to min(nn_max_batch_size, slots assigned to it) positions. Naming
// a device twice ("cpu,cpu") runs two servers on it: on a CPU each evaluator uses one torch
// thread, so a second server uses a second core; on a GPU one batch fills while another runs.
// The calling thread is the monitor: it logs progress, refreshes the heartbeat and polls
// models/ for a newer net.
//
// Output, per model (pipeline/base_dir.h):
//   selfplay/<model>/tdata/<stem>.npz   rows of finished games (data/training_rows.h format)
//   selfplay/<model>/sgfs/<stem>.sgfs   one SGF per line: the games whose first rows are in
//                                       the .npz of the same stem (plus games that recorded
//                                       no row), published just before that .npz
// A shard is published once it holds max_rows_per_file rows (a game's rows may continue in
// the next shard); the first shard of a process holds a uniform random 1..max_rows_per_file
// rows instead (KataGo does the same) so that processes started together do not publish in
// lockstep. A shorter shard is published once its oldest game finished max_shard_age_seconds
// ago, so a crash loses at most that much play. Files are published atomically and never
// modified afterwards.
//
// A shard that cannot be published (disk full, directory deleted) keeps its rows and SGFs and
// its file stem; a warning is logged and it is published again, before anything newer, when the
// next shard is ready or after min(max_shard_age_seconds, 30 s) (whichever comes first; the
// directories are created again each time). Play goes on; once the unpublished shards hold
// more than 4 * max_rows_per_file rows, play pauses (the games in flight finish, no new game
// starts; the heartbeat's state says "paused: cannot publish") while the retries go on, and
// resumes by itself once they succeed: a full disk or a network filesystem that lost its
// server for a while costs no rows and needs no restart. Shards of a previous model are
// retried the same way while the next one plays; on the way out each gets one last try, and
// RunSelfplay throws Error naming the rows it could not publish.
//
// Models. At start-up selfplay plays the newest model that loads (play/model_registry.h):
// a model that fails to load is logged and the next older one tried, down to the random net
// when none loads, so a broken newest model does not stop every restart. A ConfigError (bad
// device, net pos_len smaller than the largest board) and a model without a LoadModel hook
// are fatal at start-up. Every model_check_interval the monitor looks for a model newer than
// the current one that loads (again newest first). It loads it (once per device) while games
// go on; then no new games start with the old net, the games in flight finish, the old model's
// partial shard is published, and play resumes with the new net. A model that fails to load is
// logged and remembered by name and directory modification time: it is tried again when its
// directory changes (files still arriving by a non-atomic copy) or model_retry_interval
// after the failure.
//
// Stopping. When `stop` is requested, no game starts and the games in flight play to the end,
// for at most finish_games_seconds (then they are dropped); an urgent stop
// (StopToken::urgent_requested: a second SIGINT) drops them at once. Then the finished games'
// rows and SGFs are published and RunSelfplay returns. With max_games_total > 0, games are
// counted when they start; once that many have started, the running ones finish, everything is
// published and RunSelfplay returns. A game that throws logs the error and drops the others;
// RunSelfplay then publishes what is finished and throws Error.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "nn/evaluator.h"
#include "play/game_runner.h"
#include "play/model_registry.h"
#include "util/log.h"
#include "util/signals.h"

namespace tengen::pipeline {

struct SelfplayOptions {
  std::string base_dir;    // data goes to <base_dir>/selfplay/<model>, status to <base>/status
  std::string models_dir;  // where nets appear; normally <base_dir>/models
  play::GameParams game;   // board sizes, komi, rules, search, playout cap, pos_len
  // Games in flight (the key keeps its old name: each game had a thread of its own; they now
  // run on fibers, num_search_threads threads sharing them).
  int num_game_threads = 16;
  // Threads that run the games (0: one per core, at most num_game_threads).
  int num_search_threads = 0;
  // Largest NN batch of each server; capped at the number of game threads of that server (a
  // thread has one position in flight).
  int nn_max_batch_size = 16;
  // How long a partial batch waits for stragglers (nn::BatchingOptions::max_wait).
  int nn_max_wait_micros = 2000;
  // Slots of the evaluation cache that the games of one model share (nn/eval_cache.h; a new
  // model starts an empty one); 0: none. With a cache, which game evaluates a position first
  // decides the symmetry every game then sees for it: the seed no longer fixes the moves alone.
  int64_t nn_cache_entries = 0;
  // One batching server per entry ("cpu", "cuda", "cuda:N"; repeats allowed); at least one
  // entry and no more entries than game threads.
  // "sim" entries (all or none) are the stand-in GPU of nn/evaluator.h: the random net
  // answered after sim_timing's wait, for measuring the games' side alone.
  std::vector<std::string> devices{"cpu"};
  nn::SimulatedDeviceTiming sim_timing;
  // 0 = play forever (until stopped).
  int64_t max_games_total = 0;
  int max_rows_per_file = 10000;  // KataGo's maxRowsPerTrainFile is 25000 for bigger runs
  uint64_t seed = 0;              // master seed of the per-game seeds; 0 = from entropy
  std::chrono::milliseconds model_check_interval{10000};
  // A model that failed to load is tried again once its directory's modification time changes
  // or after this long (its files may still have been arriving).
  std::chrono::milliseconds model_retry_interval{600000};
  // A partial shard is published once its oldest game finished this long ago, so that a crash
  // loses at most this much play; also how long a failed publication waits for its retry
  // (unless a full shard comes first). Must be positive.
  double max_shard_age_seconds = 600;
  // After a stop request, how long the games in flight may take to finish before they are
  // dropped (0: dropped at once); an urgent stop (a second SIGINT) drops them at once.
  double finish_games_seconds = 60;
  std::chrono::milliseconds log_interval{30000};
  std::chrono::milliseconds heartbeat_interval{5000};
  // How to run a model from models/ (model_registry.h). Empty: only the random net works.
  play::LoadModel load_model;
};

struct SelfplayStats {
  int64_t games = 0;          // finished games whose rows and SGF were kept
  int64_t dropped_games = 0;  // games abandoned on stop
  int64_t rows = 0;           // rows published
  int64_t shards = 0;         // .npz files published
  int64_t nn_positions = 0;   // positions evaluated by the net (all servers)
  int64_t nn_batches = 0;
  int64_t nn_cache_lookups = 0;  // positions looked up in the evaluation cache
  int64_t nn_cache_hits = 0;     // ... and answered from it
  double seconds = 0;
};

SelfplayStats RunSelfplay(const SelfplayOptions& options, Logger& logger, StopToken stop);

// The threads that run the games: num_search_threads, or one per core when that is 0; never
// more than num_game_threads.
int SearchThreads(const SelfplayOptions& options);

}  // namespace tengen::pipeline
