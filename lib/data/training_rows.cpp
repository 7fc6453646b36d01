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

// A per-row array of the format: name, dtype, per-row dimensions and bytes per row.
struct RowArray {
  const char* name;
  const char* dtype;
  std::vector<int64_t> dims;
  size_t bytes;
};

std::vector<RowArray> RowArrays(const RowShape& s) {
  const int64_t area = static_cast<int64_t>(s.pos_len) * s.pos_len;
  const int64_t packed = PackedBytes(s.pos_len);
  const auto f4 = [](int64_t n) { return static_cast<size_t>(4 * n); };
  return {{"spatial_packed",
           "|u1",
           {s.num_spatial, packed},
           static_cast<size_t>(s.num_spatial * packed)},
          {"global", "<f4", {s.num_global}, f4(s.num_global)},
          {"policy", "<f4", {area + 1}, f4(area + 1)},
          {"value", "<f4", {3}, f4(3)},
          {"score", "<f4", {}, f4(1)},
          {"ownership", "|i1", {area}, static_cast<size_t>(area)},
          {"weight", "<f4", {}, f4(1)},
          {"game_id", "<i8", {}, 8},
          {"turn", "<i4", {}, 4},
          {"board_size", "|i1", {}, 1},
          {"komi", "<f4", {}, f4(1)},
          {"rules", "|i1", {2}, 2}};
}

// The row shape and row count of a shard, from its headers (FormatError naming the file when
// the arrays disagree).
RowShape ReadRowShape(const NpzReader& reader, int64_t* rows) {
  const std::vector<int64_t> spatial_shape = ExpectShape(reader, "spatial_packed", "|u1", 3);
  const std::vector<int64_t> policy_shape = ExpectShape(reader, "policy", "<f4", 2);
  const std::vector<int64_t> global_shape = ExpectShape(reader, "global", "<f4", 2);
  RowShape shape;
  shape.num_spatial = static_cast<int>(spatial_shape[1]);
  shape.num_global = static_cast<int>(global_shape[1]);
  int pos_len = 0;
  while (static_cast<int64_t>(pos_len + 1) * (pos_len + 1) + 1 <= policy_shape[1]) ++pos_len;
  if (static_cast<int64_t>(pos_len) * pos_len + 1 != policy_shape[1] ||
      PackedBytes(pos_len) != spatial_shape[2] || policy_shape[0] != spatial_shape[0])
    throw FormatError(reader.path() +
                      ": arrays 'policy' and 'spatial_packed' disagree on rows or pos_len");
  shape.pos_len = pos_len;
  *rows = spatial_shape[0];
  return shape;
}

// The model name and feature version arrays, shared by both readers.
void ReadShardMetadata(const NpzReader& reader, std::string* model_name, RowShape* shape) {
  const auto name = reader.Read<uint8_t>("model_name");
  model_name->assign(name.begin(), name.end());
  std::vector<int64_t> dims;
  const auto version = reader.Read<int32_t>("feature_version", &dims);
  if (dims != std::vector<int64_t>{1})
    throw FormatError(reader.path() + ": array 'feature_version' has the wrong shape");
  shape->feature_version = version[0];
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
  Shard shard;
  int64_t n = 0;
  shard.shape = ReadRowShape(reader, &n);
  const int64_t area = static_cast<int64_t>(shard.shape.pos_len) * shard.shape.pos_len;
  const int64_t packed = PackedBytes(shard.shape.pos_len);

  auto read = [&](const std::string& name, auto tag, std::vector<int64_t> expected) {
    using T = decltype(tag);
    std::vector<int64_t> shape;
    std::vector<T> values = reader.Read<T>(name, &shape);
    if (shape != expected)
      throw FormatError(path + ": array '" + name + "' has the wrong shape for " +
                        std::to_string(n) + " rows");
    return values;
  };
  const auto spatial = read("spatial_packed", uint8_t{}, {n, shard.shape.num_spatial, packed});
  const auto global = read("global", float{}, {n, shard.shape.num_global});
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
  ReadShardMetadata(reader, &shard.model_name, &shard.shape);

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

size_t PackedRowBytes(const RowShape& shape) {
  size_t bytes = 0;
  for (const RowArray& a : RowArrays(shape)) bytes += a.bytes;
  return bytes;
}

PackedShard ReadPackedShard(const std::string& path) {
  const NpzReader reader(path);
  PackedShard shard;
  int64_t n = 0;
  shard.shape = ReadRowShape(reader, &n);
  const std::vector<RowArray> arrays = RowArrays(shard.shape);
  std::vector<NpyArray> data;
  data.reserve(arrays.size());
  for (const RowArray& a : arrays) {
    NpyArray array = reader.ReadArray(a.name);
    std::vector<int64_t> expected = {n};
    expected.insert(expected.end(), a.dims.begin(), a.dims.end());
    if (array.dtype != a.dtype || array.shape != expected)
      throw FormatError(path + ": array '" + a.name + "' has the wrong dtype or shape for " +
                        std::to_string(n) + " rows");
    data.push_back(std::move(array));
  }
  ReadShardMetadata(reader, &shard.model_name, &shard.shape);
  const size_t row_bytes = PackedRowBytes(shard.shape);
  shard.rows.resize(static_cast<size_t>(n));
  for (size_t r = 0; r < shard.rows.size(); ++r) {
    PackedRow& row = shard.rows[r];
    row.reserve(row_bytes);
    for (size_t i = 0; i < arrays.size(); ++i)
      row.append(data[i].data, r * arrays[i].bytes, arrays[i].bytes);
  }
  return shard;
}

void WritePackedShard(const RowShape& shape, const std::string& model_name,
                      const std::vector<PackedRow>& rows, const std::string& path,
                      int compression_level) {
  const std::vector<RowArray> arrays = RowArrays(shape);
  const size_t row_bytes = PackedRowBytes(shape);
  const int64_t n = static_cast<int64_t>(rows.size());
  NpzWriter writer(path, compression_level);
  size_t offset = 0;
  for (const RowArray& a : arrays) {
    NpyArray array;
    array.dtype = a.dtype;
    array.shape = {n};
    array.shape.insert(array.shape.end(), a.dims.begin(), a.dims.end());
    array.data.reserve(rows.size() * a.bytes);
    for (const PackedRow& row : rows) {
      TENGEN_CHECK(row.size() == row_bytes, "packed row of the wrong size");
      array.data.append(row, offset, a.bytes);
    }
    offset += a.bytes;
    writer.Add(a.name, array);
  }
  const std::vector<uint8_t> name(model_name.begin(), model_name.end());
  writer.Add("model_name", name, {static_cast<int64_t>(name.size())});
  writer.Add("feature_version", std::vector<int32_t>{shape.feature_version}, {1});
  writer.Finish();
}

RowShape ReadShardShape(const std::string& path) {
  const NpzReader reader(path);
  int64_t rows = 0;
  RowShape shape = ReadRowShape(reader, &rows);
  std::string model_name;
  ReadShardMetadata(reader, &model_name, &shape);
  return shape;
}

int64_t CountShardRows(const std::string& path) {
  const NpzReader reader(path);
  const std::vector<int64_t> shape = ExpectShape(reader, "policy", "<f4", 2);
  return shape[0];
}

}  // namespace tengen::data
