#pragma once
// A cache of net evaluations shared by every game or search thread that plays one model
// (KataGo's NN cache): a position whose inputs were evaluated before is answered from memory
// instead of taking a row of a batch. Positions recur across the games of one model (the
// opening moves of every game) and within a search (the same stones reached by moves in
// another order: transpositions).
//
// The key is a 128-bit hash of the net's inputs under the identity symmetry (nn/features.h),
// so it covers exactly what the net sees (stones, liberties, ko, the last moves and passes,
// komi, rules, the board's size) and nothing else; legality (superko) is not part of it, and
// the caller applies it to the cached logits as to fresh ones. The outputs are stored as the
// net gave them for the identity orientation (the caller maps a net's answer for another
// symmetry back first), so a hit answers for whatever symmetry was drawn: like KataGo's, the
// cache keeps the first symmetry's answer.
//
// A fixed number of slots, each holding one position; a new position takes its slot from
// whatever was there (no eviction order to keep up). Thread-safe: the slots are guarded by a
// set of striped locks, held only to copy one position's outputs in or out.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "nn/batching.h"

namespace tengen::nn {

struct EvalCacheKey {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const EvalCacheKey& other) const { return a == other.a && b == other.b; }
};

// The key of a position's inputs (spatial_count and global_count floats).
EvalCacheKey InputKey(const float* spatial, size_t spatial_count, const float* global,
                      size_t global_count);

class EvalCache {
 public:
  // `entries` slots (at least 1) for outputs of a net of this pos_len; about
  // 4 * (2 * pos_len^2 + 5) + 17 bytes each (680 bytes at pos_len 9, 2.9 KB at 19).
  EvalCache(int64_t entries, int pos_len);

  // Copies the outputs stored under `key` into *out (its vectors resized to pos_len's) and
  // returns true; false when the key is not there. Counts a hit or a miss.
  bool Lookup(const EvalCacheKey& key, RowOutput* out);
  // Stores identity-oriented outputs under `key`, replacing whatever held its slot.
  void Store(const EvalCacheKey& key, const RowOutput& outputs);
  // Forgets every stored position (the counts stay); safe beside Lookup and Store.
  void Clear();

  int64_t entries() const { return entries_; }
  int64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  int64_t lookups() const { return lookups_.load(std::memory_order_relaxed); }

  // Bytes of memory for `entries` slots at this pos_len (what the constructor allocates).
  static int64_t BytesFor(int64_t entries, int pos_len);

 private:
  size_t SlotOf(const EvalCacheKey& key) const {
    return static_cast<size_t>(key.a % static_cast<uint64_t>(entries_));
  }
  std::mutex& LockOf(size_t slot) const { return locks_[slot % kLockStripes]; }
  float* Payload(size_t slot) { return payload_.data() + slot * payload_floats_; }

  static constexpr size_t kLockStripes = 64;
  int64_t entries_;
  int area_;               // pos_len^2
  size_t payload_floats_;  // policy (area + 1), value (3), score (1), ownership (area)
  std::unique_ptr<std::mutex[]> locks_;
  std::vector<EvalCacheKey> keys_;
  std::vector<uint8_t> used_;
  std::vector<float> payload_;
  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> lookups_{0};
};

}  // namespace tengen::nn
