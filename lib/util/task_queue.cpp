#include "util/task_queue.h"

#include <algorithm>
#include <utility>

namespace tengen {

TaskQueue::TaskQueue(int limit) : limit_(std::max(1, limit)) {}

TaskQueue::~TaskQueue() {
  for (std::future<void>& task : pending_)
    if (task.valid()) task.wait();
}

void TaskQueue::Run(std::function<void()> task) {
  if (limit_ <= 1) {
    task();
    return;
  }
  while (static_cast<int>(pending_.size()) >= limit_) PopOldest();
  pending_.push_back(std::async(std::launch::async, std::move(task)));
}

void TaskQueue::Wait() {
  while (!pending_.empty()) PopOldest();
}

void TaskQueue::PopOldest() {
  std::future<void> task = std::move(pending_.front());
  pending_.pop_front();
  task.get();
}

}  // namespace tengen
