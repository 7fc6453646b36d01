#pragma once
// The JSON analysis engine (tengen-analysis): KataGo's analysis protocol over a set of search
// workers. Each query line is parsed (analysis/analysis_query.h); its turns go into one queue,
// highest priority first and, among equals, in the order they came; each worker takes the next
// position, searches it with one tree of its own (search/mcts.h, the play search: no noise,
// every legal move searched) and writes its response (analysis/analysis_response.h). Workers
// search side by side, so behind a batching server their leaves meet in one batch on the net:
// the point of the protocol, a whole game record analysed in one go.
//
// Actions: query_version and clear_cache are answered at once (clear_cache empties the
// evaluation cache through AnalysisEngineOptions::clear_cache); terminate and terminate_all answer
// at once, drop the matching positions still queued (each answered with noResults) and stop the
// matching searches under way (each answered with what it found so far). Every position of a query
// ends with exactly one response whose isDuringSearch is false.
//
// A bad line is answered with an error response naming the field and never ends the process.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "analysis/analysis_query.h"
#include "search/leaf_evaluator.h"
#include "util/rng.h"

namespace tengen::analysis {

struct AnalysisEngineOptions {
  QueryDefaults defaults;
  std::string version;  // query_version's answer
  uint64_t seed = 1;
  std::function<void()> clear_cache;  // what clear_cache does (none: only answered)
};

// Called on a worker around each position's search: a batching server counts the searching
// workers as its clients, so that a batch runs once every one of them has a row in it.
struct WorkerHooks {
  std::function<void()> begin;
  std::function<void()> end;
};

class AnalysisEngine {
 public:
  // Writes one response line (no newline); called by one thread at a time.
  using Writer = std::function<void(const std::string& line)>;

  // One worker per evaluator (the positions searched at once); the evaluators must outlive
  // the engine.
  AnalysisEngine(AnalysisEngineOptions options, std::vector<search::LeafEvaluator*> evaluators,
                 Writer write, WorkerHooks hooks = {});
  // Stops the searches under way and drops what is queued, without answering it.
  ~AnalysisEngine();
  AnalysisEngine(const AnalysisEngine&) = delete;
  AnalysisEngine& operator=(const AnalysisEngine&) = delete;

  // Handles one line of input: answers errors and actions, queues the positions of a query.
  void Submit(const std::string& line);
  // Returns once every queued position has been answered (stdin closed).
  void Finish();

 private:
  struct Task {
    std::shared_ptr<const AnalysisQuery> query;
    size_t index = 0;  // into query->turns
    int priority = 0;
    uint64_t order = 0;
    std::shared_ptr<std::atomic<bool>> stop;
  };
  struct TaskAfter {  // the heap's order: the next task on top
    bool operator()(const Task& a, const Task& b) const {
      return a.priority != b.priority ? a.priority < b.priority : a.order > b.order;
    }
  };

  void Write(const nlohmann::json& response);
  void HandleAction(const ActionQuery& action);
  // Stops the queued and running positions of query `id` (every query when id is null) at
  // these turns (every turn when null).
  void Terminate(const std::string* id, const std::optional<std::vector<int>>& turns);
  void WorkerLoop(search::LeafEvaluator* evaluator, uint64_t seed);
  void Analyse(const Task& task, search::LeafEvaluator& evaluator, Rng& rng);

  AnalysisEngineOptions options_;
  Writer write_;
  WorkerHooks hooks_;
  std::mutex write_mutex_;

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable all_done_;
  std::vector<Task> queue_;    // a heap by TaskAfter
  std::vector<Task> running_;  // the tasks the workers are searching
  uint64_t next_order_ = 0;
  bool shutting_down_ = false;
  std::atomic<bool> abandon_{false};
  std::vector<std::thread> workers_;
};

}  // namespace tengen::analysis
