#pragma once
// A bounded set of tasks on threads of their own, for work that is whole files at a time
// (writing the shuffler's bucket and output files): Run starts a task on its own thread, or
// runs it inline when the limit is 1, and blocks while `limit` tasks are pending, so that at
// most that many files' data are in flight. Tasks are collected oldest first: Wait (and Run,
// when it makes room) rethrows a task's exception. The destructor waits for what is still
// running and swallows its exceptions (a caller that cares calls Wait).

#include <deque>
#include <functional>
#include <future>

namespace tengen {

class TaskQueue {
 public:
  // `limit` tasks at once; 1 or less runs each task inline, in Run.
  explicit TaskQueue(int limit);
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;
  ~TaskQueue();

  void Run(std::function<void()> task);
  // Waits for every pending task; rethrows the first exception, in the order of Run.
  void Wait();

 private:
  void PopOldest();

  int limit_;
  std::deque<std::future<void>> pending_;
};

}  // namespace tengen
