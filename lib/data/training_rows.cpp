#include "data/training_rows.h"

#include "data/npz.h"
#include "util/error.h"

namespace tengen::data {
namespace {

int64_t PackedBytes(int pos_len) { return (static_cast<int64_t>(pos_len) * pos_len + 7) / 8; }

void CheckRow(const RowShape& s, const TrainingRow& row) {
  const size_t area = static_cast<size_t>(s.pos_len) * s.pos_len;
  TENGEN_CHECK(row.spatial.size() == static_cast<size_t>(s.num_spatial) * area, "row spatial size");
  TENGEN_CHECK(row.global.size() == static_cast<size_t>(s.num_global), "row global size");
  TENGEN_CHECK(row.policy.size() == area + 1, "row policy size");
  TENGEN_CHECK(row.ownership.size() == area, "row ownership size");
}

// The shape of an array, or a FormatError naming the file and array.
std::vector<int64_t> ExpectShape(const NpzReader& reader, const std::string& name,
                                 const std::string& dtype, size_t dims) {
  const NpyHeader header = reader.ArrayHeader(name);
  if (header.dtype != dtype || header.shape.size() != dims)
    throw FormatError(reader.path() + ": array '" + name + "' has dtype " + header.dtype + " and " +
                      std::to_string(header.shape.size()) + " dimensions, expected " + dtype +
                      " and " + std::to_string(dims));
  return header.shape;
}

}  // namespace

ShardWriter::ShardWriter(RowShape shape, std::string model_name, int compression_level)
    : shape_(shape), model_name_(std::move(model_name)), compression_level_(compression_level) {}

void ShardWriter::Add(const TrainingRow& row) {
  CheckRow(shape_, row);
  rows_.push_back(row);
}

void ShardWriter::WriteAndClear(const std::string& path) {
  const int64_t n = rows();
  const int64_t area = static_cast<int64_t>(shape_.pos_len) * shape_.pos_len;
  const int64_t packed = PackedBytes(shape_.pos_len);
  std::vector<uint8_t> spatial(static_cast<size_t>(n * shape_.num_spatial * packed), 0);
  std::vector<float> global, policy, value, score, komi, weight;
  std::vector<int8_t> ownership, board_size, rules;
  std::vector<int64_t> game_id;
  std::vector<int32_t> turn;
  for (int64_t r = 0; r < n; ++r) {
    const TrainingRow& row = rows_[static_cast<size_t>(r)];
    for (int64_t c = 0; c < shape_.num_spatial; ++c) {
      uint8_t* out = spatial.data() + (r * shape_.num_spatial + c) * packed;
      for (int64_t p = 0; p < area; ++p)
        if (row.spatial[static_cast<size_t>(c * area + p)] != 0) out[p / 8] |= 0x80 >> (p % 8);
    }
    global.insert(global.end(), row.global.begin(), row.global.end());
    policy.insert(policy.end(), row.policy.begin(), row.policy.end());
    value.insert(value.end(), row.value, row.value + 3);
    score.push_back(row.score);
    ownership.insert(ownership.end(), row.ownership.begin(), row.ownership.end());
    weight.push_back(row.weight);
    game_id.push_back(row.game_id);
    turn.push_back(row.turn);
    board_size.push_back(row.board_size);
    komi.push_back(row.komi);
    rules.push_back(row.ko_positional);
    rules.push_back(row.suicide);
  }
  NpzWriter writer(path, compression_level_);
  writer.Add("spatial_packed", spatial, {n, shape_.num_spatial, packed});
  writer.Add("global", global, {n, shape_.num_global});
  writer.Add("policy", policy, {n, area + 1});
  writer.Add("value", value, {n, 3});
  writer.Add("score", score, {n});
  writer.Add("ownership", ownership, {n, area});
  writer.Add("weight", weight, {n});
  writer.Add("game_id", game_id, {n});
  writer.Add("turn", turn, {n});
  writer.Add("board_size", board_size, {n});
  writer.Add("komi", komi, {n});
  writer.Add("rules", rules, {n, 2});
  const std::vector<uint8_t> name(model_name_.begin(), model_name_.end());
  writer.Add("model_name", name, {static_cast<int64_t>(name.size())});
  writer.Add("feature_version", std::vector<int32_t>{shape_.feature_version}, {1});
  writer.Finish();
  rows_.clear();
}

Shard ReadShard(const std::string& path) {
  const NpzReader reader(path);
  const std::vector<int64_t> spatial_shape = ExpectShape(reader, "spatial_packed", "|u1", 3);
  const int64_t n = spatial_shape[0];
  const std::vector<int64_t> policy_shape = ExpectShape(reader, "policy", "<f4", 2);
  Shard shard;
  shard.shape.num_spatial = static_cast<int>(spatial_shape[1]);
  int pos_len = 0;
  while (static_cast<int64_t>(pos_len + 1) * (pos_len + 1) + 1 <= policy_shape[1]) ++pos_len;
  if (static_cast<int64_t>(pos_len) * pos_len + 1 != policy_shape[1] ||
      PackedBytes(pos_len) != spatial_shape[2] || policy_shape[0] != n)
    throw FormatError(path + ": arrays 'policy' and 'spatial_packed' disagree on rows or pos_len");
  shard.shape.pos_len = pos_len;
  const int64_t area = static_cast<int64_t>(pos_len) * pos_len;
  const int64_t packed = spatial_shape[2];

  auto read = [&](const std::string& name, auto tag, std::vector<int64_t> expected) {
    using T = decltype(tag);
    std::vector<int64_t> shape;
    std::vector<T> values = reader.Read<T>(name, &shape);
    if (shape != expected)
      throw FormatError(path + ": array '" + name + "' has the wrong shape for " +
                        std::to_string(n) + " rows");
    return values;
  };
  const auto spatial = read("spatial_packed", uint8_t{}, spatial_shape);
  const std::vector<int64_t> global_shape = ExpectShape(reader, "global", "<f4", 2);
  shard.shape.num_global = static_cast<int>(global_shape[1]);
  const auto global = read("global", float{}, {n, global_shape[1]});
  const auto policy = read("policy", float{}, {n, area + 1});
  const auto value = read("value", float{}, {n, 3});
  const auto score = read("score", float{}, {n});
  const auto ownership = read("ownership", int8_t{}, {n, area});
  const auto weight = read("weight", float{}, {n});
  const auto game_id = read("game_id", int64_t{}, {n});
  const auto turn = read("turn", int32_t{}, {n});
  const auto board_size = read("board_size", int8_t{}, {n});
  const auto komi = read("komi", float{}, {n});
  const auto rules = read("rules", int8_t{}, {n, 2});
  const auto name = reader.Read<uint8_t>("model_name");
  shard.model_name.assign(name.begin(), name.end());
  const auto version = read("feature_version", int32_t{}, {1});
  shard.shape.feature_version = version[0];

  const int64_t c_count = shard.shape.num_spatial;
  const int64_t g_count = shard.shape.num_global;
  shard.rows.resize(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    TrainingRow& row = shard.rows[static_cast<size_t>(r)];
    row.spatial.resize(static_cast<size_t>(c_count * area));
    for (int64_t c = 0; c < c_count; ++c) {
      const uint8_t* in = spatial.data() + (r * c_count + c) * packed;
      for (int64_t p = 0; p < area; ++p)
        row.spatial[static_cast<size_t>(c * area + p)] = (in[p / 8] >> (7 - p % 8)) & 1;
    }
    row.global.assign(global.begin() + r * g_count, global.begin() + (r + 1) * g_count);
    row.policy.assign(policy.begin() + r * (area + 1), policy.begin() + (r + 1) * (area + 1));
    std::copy(value.begin() + 3 * r, value.begin() + 3 * r + 3, row.value);
    row.score = score[static_cast<size_t>(r)];
    row.ownership.assign(ownership.begin() + r * area, ownership.begin() + (r + 1) * area);
    row.weight = weight[static_cast<size_t>(r)];
    row.game_id = game_id[static_cast<size_t>(r)];
    row.turn = turn[static_cast<size_t>(r)];
    row.board_size = board_size[static_cast<size_t>(r)];
    row.komi = komi[static_cast<size_t>(r)];
    row.ko_positional = rules[static_cast<size_t>(2 * r)];
    row.suicide = rules[static_cast<size_t>(2 * r + 1)];
  }
  return shard;
}

int64_t CountShardRows(const std::string& path) {
  const NpzReader reader(path);
  const std::vector<int64_t> shape = ExpectShape(reader, "policy", "<f4", 2);
  return shape[0];
}

}  // namespace tengen::data
