// tengen-bench-batching: rows per second through one batching server (nn/batching.h) whose net
// costs nothing or what --sim-batch-micros / --sim-row-micros say (the stand-in GPU), from
// client threads that only hand over rows whose inputs are ready (a memcpy each): the hand-off's
// own ceiling, whatever the search costs. Median of --runs runs.
//
//   async (default): each client thread keeps --rows-in-flight rows submitted, writing each
//     straight into the batch (Reserve, memcpy, Submit) and waking once per batch on its
//     doorbell, as selfplay's search threads do with their games on fibers;
//   blocking: --clients threads each call Evaluate() for one row at a time, as a thread per
//     game did (and GTP's search threads still do).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "nn/batching.h"
#include "nn/evaluator.h"
#include "nn/features.h"
#include "util/config.h"
#include "util/error.h"
#include "util/program.h"

namespace tengen {
namespace {

using Clock = std::chrono::steady_clock;

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-bench-batching",
                  "Rows/s through one batching server from client threads with ready rows.");
  spec.Choice("mode", "async", {"async", "blocking"},
              "async: rows written into the batch, one wake per batch; blocking: Evaluate()");
  spec.Int("clients", 2, 1, 65536, "client threads");
  spec.Int("rows_in_flight", 512, 1, 1 << 20, "async: rows each client keeps submitted");
  spec.Int("batch_size", 256, 1, 65536, "largest batch");
  spec.Int("pos_len", 9, 5, 19, "board edge of the inputs");
  spec.Double("sim_batch_micros", 0, 0, 1e7, "stand-in net: microseconds per batch");
  spec.Double("sim_row_micros", 0, 0, 1e6, "stand-in net: microseconds per row");
  spec.Int("runs", 5, 1, 100, "timed runs; the median is shown");
  spec.Double("seconds", 2.0, 0.1, 600, "length of one timed run");
  return spec;
}

struct Settings {
  bool async = true;
  int clients = 2;
  int rows_in_flight = 512;
  int pos_len = 9;
  double seconds = 2;
};

// One client thread of the async mode: keeps its rows in flight until `stop`; returns the rows
// answered.
int64_t AsyncClient(nn::BatchingServer& server, const Settings& s,
                    const std::vector<float>& spatial, const std::vector<float>& global,
                    const std::atomic<bool>& stop) {
  nn::Doorbell bell;
  std::vector<nn::RowOutput> outputs(static_cast<size_t>(s.rows_in_flight));
  const auto submit = [&](uint64_t tag) {
    const nn::BatchingServer::Slot slot = server.Reserve();
    std::memcpy(slot.spatial, spatial.data(), sizeof(float) * spatial.size());
    std::memcpy(slot.global, global.data(), sizeof(float) * global.size());
    server.Submit(slot, &outputs[tag], &bell, tag);
  };
  for (int i = 0; i < s.rows_in_flight; ++i) submit(static_cast<uint64_t>(i));
  int64_t answered = 0;
  int64_t in_flight = s.rows_in_flight;
  std::vector<uint64_t> tags;
  while (in_flight > 0) {
    tags.clear();
    bell.Wait(&tags);
    answered += static_cast<int64_t>(tags.size());
    in_flight -= static_cast<int64_t>(tags.size());
    if (stop.load(std::memory_order_relaxed)) continue;  // drain
    for (uint64_t tag : tags) submit(tag);
    in_flight += static_cast<int64_t>(tags.size());
  }
  return answered;
}

int64_t BlockingClient(nn::BatchingServer& server, const std::vector<float>& spatial,
                       const std::vector<float>& global, const std::atomic<bool>& stop) {
  nn::RowOutput output;
  int64_t answered = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    server.Evaluate(spatial.data(), global.data(), &output);
    ++answered;
  }
  return answered;
}

double OneRun(const Settings& s, const nn::BatchingOptions& options,
              const nn::SimulatedDeviceTiming& timing) {
  nn::BatchingServer server(std::make_unique<nn::SimulatedDeviceEvaluator>(s.pos_len, timing),
                            options);
  const std::vector<float> spatial(
      static_cast<size_t>(nn::kNumSpatialFeatures) * s.pos_len * s.pos_len, 1.0f);
  const std::vector<float> global(nn::kNumGlobalFeatures, 0.5f);
  std::atomic<bool> stop{false};
  std::vector<int64_t> answered(static_cast<size_t>(s.clients), 0);
  const int registered = s.async ? s.clients * s.rows_in_flight : s.clients;
  for (int i = 0; i < registered; ++i) server.AddClient();
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < s.clients; ++c) {
    threads.emplace_back([&, c] {
      answered[static_cast<size_t>(c)] = s.async ? AsyncClient(server, s, spatial, global, stop)
                                                 : BlockingClient(server, spatial, global, stop);
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(s.seconds));
  stop = true;
  // Rows keep landing while the clients drain: count them all over the whole time.
  for (std::thread& thread : threads) thread.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (int i = 0; i < registered; ++i) server.RemoveClient();
  int64_t total = 0;
  for (int64_t rows : answered) total += rows;
  return static_cast<double>(total) / elapsed;
}

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec = MakeSpec();
  Config config(spec);
  if (!ParseCommandLineOrHelp(spec, argc, argv, config, std::cout)) return 0;
  Settings s;
  s.async = config.GetString("mode") == "async";
  s.clients = static_cast<int>(config.GetInt("clients"));
  s.rows_in_flight = static_cast<int>(config.GetInt("rows_in_flight"));
  s.pos_len = static_cast<int>(config.GetInt("pos_len"));
  s.seconds = config.GetDouble("seconds");
  nn::BatchingOptions options;
  options.max_batch_size = static_cast<int>(config.GetInt("batch_size"));
  nn::SimulatedDeviceTiming timing;
  timing.batch_micros = config.GetDouble("sim_batch_micros");
  timing.row_micros = config.GetDouble("sim_row_micros");
  std::vector<double> rates;
  for (int run = 0; run < config.GetInt("runs"); ++run) {
    rates.push_back(OneRun(s, options, timing));
    std::printf("run %d: %.0f rows/s\n", run + 1, rates.back());
    std::fflush(stdout);
  }
  std::printf(
      "median of %zu: %.0f rows/s (%s, %d clients%s, batch %d, pos_len %d, sim %.1f + %.3f "
      "us/row)\n",
      rates.size(), bench::Median(rates), s.async ? "async" : "blocking", s.clients,
      s.async ? (", " + std::to_string(s.rows_in_flight) + " rows in flight each").c_str() : "",
      options.max_batch_size, s.pos_len, timing.batch_micros, timing.row_micros);
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-bench-batching", [&] { return tengen::Main(argc, argv); });
}
