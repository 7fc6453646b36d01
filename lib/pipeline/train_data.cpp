#include "pipeline/train_data.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "go/symmetry.h"
#include "pipeline/base_dir.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

namespace fs = boost::filesystem;
using json = nlohmann::json;

// splitmix64: independent seeds for (run seed, epoch, batch) without drawing from a shared
// stream, so a batch's randomness does not depend on how many batches ran before a restart.
uint64_t Mix(uint64_t x) { return MixBits(x + 0x9e3779b97f4a7c15ULL); }

uint64_t DeriveSeed(uint64_t seed, int64_t a, int64_t b) {
  return Mix(Mix(Mix(seed) ^ static_cast<uint64_t>(a)) ^ static_cast<uint64_t>(b));
}

template <typename T>
T Field(const json& j, const char* key, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end()) throw FormatError(what + ": missing field '" + key + "'");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw FormatError(what + ": field '" + key + "' has the wrong type");
  }
}

}  // namespace

std::optional<ShuffleDir> FindNewestShuffle(const std::string& base_dir, Logger& logger) {
  const std::string root = ShuffledDataDir(base_dir);
  std::vector<std::string> names = ListPublished(root);
  std::sort(names.rbegin(), names.rend());
  for (const std::string& name : names) {
    const std::string path = root + "/" + name;
    boost::system::error_code error;
    if (!fs::is_directory(path, error)) continue;
    const std::string summary_path = path + "/summary.json";
    try {
      const json summary = json::parse(ReadFile(summary_path));
      ShuffleDir dir;
      dir.path = path;
      dir.name = name;
      dir.total_rows = Field<int64_t>(summary, "total_rows_all_files", summary_path);
      for (const std::string& file : ListPublished(path)) {
        if (file.size() > 4 && file.compare(file.size() - 4, 4, ".npz") == 0) {
          dir.files.push_back(path + "/" + file);
        }
      }
      return dir;
    } catch (const std::exception& e) {
      logger.Warning("skipping shuffle " + path + ": " + e.what());
    }
  }
  return std::nullopt;
}

std::string FileContentKey(const std::string& path) {
  const std::string bytes = ReadFile(path);
  return StrCat(bytes.size(), "-", Crc32Hex(bytes));
}

std::string TrainState::ToJson() const {
  json j;
  j["samples"] = samples;
  j["samples_before"] = samples_before;
  j["epochs"] = epochs;
  j["bucket_level"] = bucket_level;
  j["bucket_at_row"] = bucket_at_row;
  j["total_rows"] = total_rows;
  j["seed"] = std::to_string(seed);
  j["used_files"] = used_files;
  j["in_epoch"] = in_epoch;
  j["epoch_files"] = epoch_files;
  j["epoch_steps_done"] = epoch_steps_done;
  j["epoch_steps"] = epoch_steps;
  if (trainer_file_bytes >= 0) {
    j["trainer_file_bytes"] = trainer_file_bytes;
    j["trainer_file_crc32"] = trainer_file_crc32;
  }
  return j.dump(2) + "\n";
}

void TrainState::CheckTrainerFile(const std::string& bytes, const std::string& what) const {
  if (trainer_file_bytes < 0) return;  // an older checkpoint: nothing recorded
  if (static_cast<int64_t>(bytes.size()) != trainer_file_bytes) {
    throw FormatError(
        StrCat(what, " has ", bytes.size(), " bytes; state.json says ", trainer_file_bytes));
  }
  const std::string crc = Crc32Hex(bytes);
  if (crc != trainer_file_crc32) {
    throw FormatError(what + " has CRC-32 " + crc + "; state.json says " + trainer_file_crc32);
  }
}

TrainState TrainState::FromJson(const std::string& text, const std::string& what) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw FormatError(what + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw FormatError(what + ": not a JSON object");
  TrainState s;
  s.samples = Field<int64_t>(j, "samples", what);
  // Absent from checkpoints written before it existed: 0.
  if (j.contains("samples_before")) s.samples_before = Field<int64_t>(j, "samples_before", what);
  if (s.samples_before < 0) {
    throw FormatError(StrCat(what, ": field 'samples_before' is negative: ", s.samples_before));
  }
  s.epochs = Field<int64_t>(j, "epochs", what);
  s.bucket_level = Field<double>(j, "bucket_level", what);
  s.bucket_at_row = Field<int64_t>(j, "bucket_at_row", what);
  s.total_rows = Field<int64_t>(j, "total_rows", what);
  const std::string seed = Field<std::string>(j, "seed", what);
  try {
    s.seed = std::stoull(seed);
  } catch (const std::exception&) {
    throw FormatError(what + ": field 'seed' is not a number: " + seed);
  }
  s.used_files = Field<std::vector<std::string>>(j, "used_files", what);
  s.in_epoch = Field<bool>(j, "in_epoch", what);
  s.epoch_files = Field<std::vector<std::string>>(j, "epoch_files", what);
  s.epoch_steps_done = Field<int64_t>(j, "epoch_steps_done", what);
  s.epoch_steps = Field<int64_t>(j, "epoch_steps", what);
  if (j.contains("trainer_file_bytes")) {
    s.trainer_file_bytes = Field<int64_t>(j, "trainer_file_bytes", what);
    s.trainer_file_crc32 = Field<std::string>(j, "trainer_file_crc32", what);
  }
  return s;
}

TrainState FreshTrainState(const BucketOptions& bucket, uint64_t seed) {
  TrainState state;
  state.bucket_level = static_cast<double>(bucket.samples_per_epoch);
  state.seed = seed;
  return state;
}

double CreditNewRows(TrainState& state, int64_t total_rows, const BucketOptions& options,
                     Logger& logger) {
  state.total_rows = total_rows;
  if (state.bucket_at_row < 0) {
    state.bucket_at_row = total_rows;
    return 0;
  }
  if (total_rows < state.bucket_at_row) {
    logger.Warning(StrCat("the newest shuffle has ", total_rows, " rows in total, fewer than the ",
                          state.bucket_at_row,
                          " already credited (data deleted or another run?): crediting from here"));
    state.bucket_at_row = total_rows;
    return 0;
  }
  const double credit =
      options.per_new_data * static_cast<double>(total_rows - state.bucket_at_row);
  const double cap = std::max(options.max_size, static_cast<double>(options.samples_per_epoch));
  const double before = state.bucket_level;
  state.bucket_level = std::min(state.bucket_level + credit, cap);
  state.bucket_at_row = total_rows;
  return state.bucket_level - before;
}

bool TrySpendEpoch(TrainState& state, const BucketOptions& options) {
  if (options.per_new_data <= 0) return true;
  const double epoch = static_cast<double>(options.samples_per_epoch);
  if (state.bucket_level <= 0.99 * epoch) return false;
  state.bucket_level -= epoch;
  return true;
}

std::vector<std::string> PlanEpochFiles(const std::vector<std::string>& files,
                                        const std::vector<int64_t>& rows_per_file,
                                        const std::set<std::string>& used_keys,
                                        const std::vector<std::string>& keys, bool no_repeat,
                                        int64_t batch_size, uint64_t seed, int64_t epoch,
                                        int64_t* steps) {
  TENGEN_CHECK(files.size() == rows_per_file.size() && files.size() == keys.size(),
               "file lists differ in length");
  const int64_t wanted = *steps;
  std::vector<size_t> order;
  for (size_t i = 0; i < files.size(); ++i) {
    if (rows_per_file[i] / batch_size == 0) continue;
    if (no_repeat && used_keys.count(keys[i]) > 0) continue;
    order.push_back(i);
  }
  Rng rng(DeriveSeed(seed, epoch, -1));
  std::vector<std::string> plan;
  int64_t got = 0;
  while (got < wanted && !order.empty()) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) {
      if (got >= wanted) break;
      plan.push_back(files[i]);
      got += rows_per_file[i] / batch_size;
    }
    if (no_repeat) break;
  }
  *steps = std::min(got, wanted);
  return plan;
}

EpochBatches::EpochBatches(std::vector<std::string> files, int64_t batch_size, int rank,
                           int world_size, uint64_t seed, int64_t epoch)
    : files_(std::move(files)),
      batch_size_(batch_size),
      rank_(rank),
      world_size_(world_size),
      seed_(seed),
      epoch_(epoch) {
  TENGEN_CHECK(batch_size_ > 0 && world_size_ > 0 && batch_size_ % world_size_ == 0,
               "the batch size must be a positive multiple of the number of ranks");
}

bool EpochBatches::EnsureRows(Logger& logger) {
  while (row_ + static_cast<size_t>(batch_size_) > shard_.rows.size()) {
    if (next_file_ >= files_.size()) return false;
    const std::string& path = files_[next_file_++];
    try {
      shard_ = data::ReadShard(path);
    } catch (const std::exception& e) {
      logger.Warning("skipping unreadable training file " + path + ": " + e.what());
      shard_ = data::Shard{};
    }
    row_ = 0;
  }
  return true;
}

bool EpochBatches::Next(nn::TrainBatch* batch, Logger& logger) {
  if (!EnsureRows(logger)) return false;
  Rng rng(DeriveSeed(seed_, epoch_, batches_done_));
  const int sym = static_cast<int>(rng.Uniform(go::kNumSymmetries));
  const size_t share = static_cast<size_t>(batch_size_ / world_size_);
  const size_t begin = row_ + share * static_cast<size_t>(rank_);
  *batch = MakeBatch(shard_, begin, begin + share, sym);
  row_ += static_cast<size_t>(batch_size_);
  ++batches_done_;
  return true;
}

void EpochBatches::Skip(int64_t n, Logger& logger) {
  for (int64_t i = 0; i < n; ++i) {
    if (!EnsureRows(logger)) return;
    row_ += static_cast<size_t>(batch_size_);
    ++batches_done_;
  }
}

nn::TrainBatch MakeBatch(const data::Shard& shard, size_t begin, size_t end, int sym) {
  TENGEN_CHECK(begin <= end && end <= shard.rows.size(), "batch rows out of range");
  const data::RowShape& shape = shard.shape;
  const int l = shape.pos_len;
  const int area = l * l;
  nn::TrainBatch b;
  b.Reset(static_cast<int>(end - begin), l, shape.num_spatial, shape.num_global);
  std::vector<int> map(static_cast<size_t>(area));
  for (size_t r = begin; r < end; ++r) {
    const data::TrainingRow& row = shard.rows[r];
    const size_t i = r - begin;
    const int size = row.board_size;
    TENGEN_CHECK(size >= 1 && size <= l,
                 StrCat("row board size ", size, " does not fit pos_len ", l));
    // map[p] = where point p goes; points off the board stay where they are (all zero).
    for (int p = 0; p < area; ++p) map[static_cast<size_t>(p)] = p;
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        int sx = x;
        int sy = y;
        go::ApplySymmetry(sym, size, &sx, &sy);
        map[static_cast<size_t>(y * l + x)] = sy * l + sx;
      }
    }
    float* spatial = &b.spatial[i * static_cast<size_t>(shape.num_spatial) * area];
    for (int c = 0; c < shape.num_spatial; ++c) {
      const float* src = &row.spatial[static_cast<size_t>(c) * area];
      float* dst = spatial + static_cast<size_t>(c) * area;
      for (int p = 0; p < area; ++p) dst[map[static_cast<size_t>(p)]] = src[p];
    }
    std::copy(row.global.begin(), row.global.end(),
              b.global.begin() + static_cast<std::ptrdiff_t>(i * shape.num_global));
    const auto map_policy = [&](const std::vector<float>& from, std::vector<float>& to) {
      float* policy = &to[i * static_cast<size_t>(area + 1)];
      for (int p = 0; p < area; ++p) policy[map[static_cast<size_t>(p)]] = from[p];
      policy[area] = from[static_cast<size_t>(area)];
    };
    map_policy(row.policy, b.policy);
    if (!row.opponent_policy.empty()) map_policy(row.opponent_policy, b.opponent_policy);
    std::copy(row.value, row.value + 3, b.value.begin() + static_cast<std::ptrdiff_t>(i * 3));
    b.score[i] = row.score;
    float* ownership = &b.ownership[i * static_cast<size_t>(area)];
    for (int p = 0; p < area; ++p) ownership[map[static_cast<size_t>(p)]] = row.ownership[p];
    b.weight[i] = row.weight;
    b.score_weight[i] = row.score_weight;
    b.ownership_weight[i] = row.ownership_weight;
    b.opponent_policy_weight[i] = row.opponent_policy_weight;
    static_assert(data::kTdHorizons == nn::kTdHorizons, "one count of short-term horizons");
    constexpr size_t kTdValues = data::kTdHorizons * 3;
    std::copy(&row.td_value[0][0], &row.td_value[0][0] + kTdValues,
              b.td_value.begin() + static_cast<std::ptrdiff_t>(i * kTdValues));
    b.td_value_weight[i] = row.td_value_weight;
  }
  return b;
}

}  // namespace tengen::pipeline
