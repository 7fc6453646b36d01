#pragma once
// Notes of one kind, at most kMaxNotesPerKind per scan: the rest are counted in one more note.

#include <string>
#include <utility>
#include <vector>

#include "util/text.h"

namespace tengen::status {

constexpr int kMaxNotesPerKind = 5;

class NoteLimiter {
 public:
  NoteLimiter(std::vector<std::string>* notes, std::string what)
      : notes_(notes), what_(std::move(what)) {}
  ~NoteLimiter() {
    if (notes_ != nullptr && dropped_ > 0)
      notes_->push_back(StrCat(dropped_, " more ", what_, " skipped"));
  }
  NoteLimiter(const NoteLimiter&) = delete;
  NoteLimiter& operator=(const NoteLimiter&) = delete;
  void Add(const std::string& note) {
    if (notes_ == nullptr) return;
    if (added_ < kMaxNotesPerKind) {
      notes_->push_back(note);
      ++added_;
    } else {
      ++dropped_;
    }
  }

 private:
  std::vector<std::string>* notes_;
  std::string what_;
  int added_ = 0;
  int dropped_ = 0;
};

}  // namespace tengen::status
