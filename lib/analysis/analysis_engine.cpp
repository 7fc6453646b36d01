#include "analysis/analysis_engine.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "analysis/analysis_response.h"
#include "gtp/search_player.h"
#include "util/error.h"

namespace tengen::analysis {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

bool Matches(const AnalysisQuery& query, int turn, const std::string* id,
             const std::optional<std::vector<int>>& turns) {
  if (id != nullptr && query.id != *id) return false;
  return !turns || std::find(turns->begin(), turns->end(), turn) != turns->end();
}

}  // namespace

AnalysisEngine::AnalysisEngine(AnalysisEngineOptions options,
                               std::vector<search::LeafEvaluator*> evaluators, Writer write,
                               WorkerHooks hooks)
    : options_(std::move(options)), write_(std::move(write)), hooks_(std::move(hooks)) {
  TENGEN_CHECK(!evaluators.empty(), "the analysis engine needs at least one evaluator");
  Rng seeder(options_.seed);
  for (search::LeafEvaluator* evaluator : evaluators) {
    const uint64_t seed = seeder.Next();
    workers_.emplace_back([this, evaluator, seed] { WorkerLoop(evaluator, seed); });
  }
}

AnalysisEngine::~AnalysisEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = true;
    abandon_ = true;
    for (Task& task : running_) *task.stop = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void AnalysisEngine::Write(const nlohmann::json& response) {
  // A parse error quotes the line, which may hold bytes that are not UTF-8: they are written as
  // U+FFFD rather than making dump() throw and take the engine down.
  const std::string line = response.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(write_mutex_);
  write_(line);
}

void AnalysisEngine::Submit(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // blank lines
  ParsedQuery parsed;
  try {
    parsed = ParseQuery(line, options_.defaults);
  } catch (const QueryError& error) {
    Write(ErrorResponse(error));
    return;
  }
  if (parsed.action) {
    HandleAction(*parsed.action);
    return;
  }
  auto query = std::make_shared<const AnalysisQuery>(std::move(*parsed.analysis));
  for (const QueryWarning& warning : parsed.warnings) Write(WarningResponse(query->id, warning));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < query->turns.size(); ++i) {
      queue_.push_back({query, i, query->turns[i].priority, next_order_++,
                        std::make_shared<std::atomic<bool>>(false)});
      std::push_heap(queue_.begin(), queue_.end(), TaskAfter());
    }
  }
  work_ready_.notify_all();
}

void AnalysisEngine::HandleAction(const ActionQuery& action) {
  nlohmann::json answer = action.echo;
  if (action.action == "query_version") {
    answer["version"] = options_.version;
    answer["git_hash"] = options_.version;
  } else if (action.action == "clear_cache") {
    if (options_.clear_cache) options_.clear_cache();
  } else if (action.action == "terminate") {
    Terminate(&action.terminate_id, action.turn_numbers);
  } else if (action.action == "terminate_all") {
    Terminate(nullptr, action.turn_numbers);
  }
  Write(answer);
}

void AnalysisEngine::Terminate(const std::string* id,
                               const std::optional<std::vector<int>>& turns) {
  std::vector<Task> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Task& task : running_) {
      if (Matches(*task.query, task.query->turns[task.index].turn, id, turns)) *task.stop = true;
    }
    const auto kept = std::stable_partition(queue_.begin(), queue_.end(), [&](const Task& task) {
      return !Matches(*task.query, task.query->turns[task.index].turn, id, turns);
    });
    dropped.assign(kept, queue_.end());
    queue_.erase(kept, queue_.end());
    std::make_heap(queue_.begin(), queue_.end(), TaskAfter());
  }
  std::sort(dropped.begin(), dropped.end(),
            [](const Task& a, const Task& b) { return a.order < b.order; });
  for (const Task& task : dropped) {
    Write(NoResultsResponse(task.query->id, task.query->turns[task.index].turn));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (queue_.empty() && running_.empty()) all_done_.notify_all();
}

void AnalysisEngine::Finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  all_done_.wait(lock, [&] { return queue_.empty() && running_.empty(); });
}

void AnalysisEngine::WorkerLoop(search::LeafEvaluator* evaluator, uint64_t seed) {
  Rng rng(seed);
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [&] { return shutting_down_ || !queue_.empty(); });
      if (shutting_down_) return;
      std::pop_heap(queue_.begin(), queue_.end(), TaskAfter());
      task = std::move(queue_.back());
      queue_.pop_back();
      running_.push_back(task);
    }
    try {
      Analyse(task, *evaluator, rng);
    } catch (const std::exception& e) {
      // The position's one final response, so that the client does not wait for it forever.
      const std::string turn = std::to_string(task.query->turns[task.index].turn);
      Write(ErrorResponse(QueryError(task.query->id, "", "turn " + turn + ": " + e.what())));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    running_.erase(std::find_if(running_.begin(), running_.end(),
                                [&](const Task& t) { return t.stop == task.stop; }));
    if (queue_.empty() && running_.empty()) all_done_.notify_all();
  }
}

void AnalysisEngine::Analyse(const Task& task, search::LeafEvaluator& evaluator, Rng& rng) {
  const AnalysisQuery& query = *task.query;
  const Turn& turn = query.turns[task.index];
  if (*task.stop) {
    Write(NoResultsResponse(query.id, turn.turn));
    return;
  }
  // The hooks pair up even when the search throws.
  struct HookScope {
    explicit HookScope(const WorkerHooks& worker_hooks) : hooks(worker_hooks) {
      if (hooks.begin) hooks.begin();
    }
    ~HookScope() {
      if (hooks.end) hooks.end();
    }
    const WorkerHooks& hooks;
  };
  std::optional<HookScope> scope(std::in_place, hooks_);
  search::Search search(query.search, evaluator, rng);
  const go::GameState position = PositionAt(query, turn.turn);
  search.SetPosition(gtp::SearchState(position, position.to_move()));
  const Clock::time_point start = Clock::now();
  const bool timed = query.max_time > 0;
  const Clock::time_point deadline = start + Seconds(query.max_time);
  const bool reporting = query.report_every > 0;
  Clock::time_point next_report = start + Seconds(query.report_every);
  auto ended = [&] { return *task.stop || (timed && Clock::now() >= deadline); };
  search::SearchResult result;
  for (;;) {
    result = search.Run(query.max_visits, /*full_search=*/false,
                        [&] { return ended() || (reporting && Clock::now() >= next_report); });
    if (ended() || search.root_visits() >= query.max_visits) break;
    Write(SearchResponse(query, turn, search, result, /*during_search=*/true));
    next_report += Seconds(query.report_every);
  }
  scope.reset();
  if (abandon_) return;
  Write(SearchResponse(query, turn, search, result, /*during_search=*/false));
}

}  // namespace tengen::analysis
