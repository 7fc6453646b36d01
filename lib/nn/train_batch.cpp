#include "nn/train_batch.h"

#include "util/error.h"

namespace tengen::nn {
namespace {

template <typename T>
std::vector<T> SliceRows(const std::vector<T>& v, int per_row, int begin, int end) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(begin) * per_row,
                        v.begin() + static_cast<std::ptrdiff_t>(end) * per_row);
}

}  // namespace

void TrainBatch::Reset(int rows, int pos_len_, int num_spatial_, int num_global_) {
  size = rows;
  pos_len = pos_len_;
  num_spatial = num_spatial_;
  num_global = num_global_;
  const size_t n = static_cast<size_t>(rows);
  const size_t area = static_cast<size_t>(pos_len) * pos_len;
  spatial.assign(n * num_spatial * area, 0.0f);
  global.assign(n * num_global, 0.0f);
  policy.assign(n * (area + 1), 0.0f);
  value.assign(n * 3, 0.0f);
  score.assign(n, 0.0f);
  ownership.assign(n * area, 0.0f);
  weight.assign(n, 0.0f);
  score_weight.assign(n, 0.0f);
  ownership_weight.assign(n, 0.0f);
  opponent_policy.assign(n * (area + 1), 0.0f);
  opponent_policy_weight.assign(n, 0.0f);
  td_value.assign(n * kTdHorizons * 3, 0.0f);
  td_value_weight.assign(n, 0.0f);
}

TrainBatch TrainBatch::Slice(int begin, int end) const {
  TENGEN_CHECK(0 <= begin && begin <= end && end <= size, "bad batch slice");
  const int area = pos_len * pos_len;
  TrainBatch out;
  out.size = end - begin;
  out.pos_len = pos_len;
  out.num_spatial = num_spatial;
  out.num_global = num_global;
  out.spatial = SliceRows(spatial, num_spatial * area, begin, end);
  out.global = SliceRows(global, num_global, begin, end);
  out.policy = SliceRows(policy, area + 1, begin, end);
  out.value = SliceRows(value, 3, begin, end);
  out.score = SliceRows(score, 1, begin, end);
  out.ownership = SliceRows(ownership, area, begin, end);
  out.weight = SliceRows(weight, 1, begin, end);
  out.score_weight = SliceRows(score_weight, 1, begin, end);
  out.ownership_weight = SliceRows(ownership_weight, 1, begin, end);
  out.opponent_policy = SliceRows(opponent_policy, area + 1, begin, end);
  out.opponent_policy_weight = SliceRows(opponent_policy_weight, 1, begin, end);
  out.td_value = SliceRows(td_value, kTdHorizons * 3, begin, end);
  out.td_value_weight = SliceRows(td_value_weight, 1, begin, end);
  return out;
}

}  // namespace tengen::nn
