#include "data/training_rows.h"

#include <cstring>

#include "data/npz.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::data {
namespace {

int64_t PackedBytes(int pos_len) { return (static_cast<int64_t>(pos_len) * pos_len + 7) / 8; }

void CheckRow(const RowShape& s, const TrainingRow& row) {
  const size_t area = static_cast<size_t>(s.pos_len) * s.pos_len;
  TENGEN_CHECK(row.spatial.size() == static_cast<size_t>(s.num_spatial) * area, "row spatial size");
  TENGEN_CHECK(row.global.size() == static_cast<size_t>(s.num_global), "row global size");
  TENGEN_CHECK(row.policy.size() == area + 1, "row policy size");
  TENGEN_CHECK(row.ownership.size() == area, "row ownership size");
  TENGEN_CHECK(row.opponent_policy.empty() || row.opponent_policy.size() == area + 1,
               "row opponent_policy size");
  TENGEN_CHECK(!row.opponent_policy.empty() || row.opponent_policy_weight == 0,
               "row opponent_policy_weight without an opponent_policy");
}

// The shape of an array, or a FormatError naming the file and array.
std::vector<int64_t> ExpectShape(const NpzReader& reader, const std::string& name,
                                 const std::string& dtype, size_t dims) {
  const NpyHeader header = reader.ArrayHeader(name);
  if (header.dtype != dtype || header.shape.size() != dims)
    throw FormatError(StrCat(reader.path(), ": array '", name, "' has dtype ", header.dtype,
                             " and ", header.shape.size(), " dimensions, expected ", dtype, " and ",
                             dims));
  return header.shape;
}

// Added to the format later than the others: older shards lack them, and read score_weight
// as all 1, ownership_weight as their score_weight (one weight served both targets), and the
// opponent's policy, the short-term values and their weights as all 0 (unknown).
constexpr const char* kScoreWeight = "score_weight";
constexpr const char* kOwnershipWeight = "ownership_weight";
constexpr const char* kOpponentPolicy = "opponent_policy";
constexpr const char* kOpponentPolicyWeight = "opponent_policy_weight";
constexpr const char* kTdValue = "td_value";
constexpr const char* kTdValueWeight = "td_value_weight";

bool UnknownInOlderShards(const char* name) {
  for (const char* later : {kOpponentPolicy, kOpponentPolicyWeight, kTdValue, kTdValueWeight})
    if (std::strcmp(name, later) == 0) return true;
  return false;
}

// A float32 array of `rows` rows of `dims` per row, every element `value`.
NpyArray Filled(int64_t rows, const std::vector<int64_t>& dims, float value) {
  std::vector<int64_t> shape = {rows};
  shape.insert(shape.end(), dims.begin(), dims.end());
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return NpyArray::Of(std::vector<float>(static_cast<size_t>(count), value), shape);
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
          {"score_weight", "<f4", {}, f4(1)},
          {"ownership_weight", "<f4", {}, f4(1)},
          {"game_id", "<i8", {}, 8},
          {"turn", "<i4", {}, 4},
          {"board_size", "|i1", {}, 1},
          {"komi", "<f4", {}, f4(1)},
          {"rules", "|i1", {2}, 2},
          {kOpponentPolicy, "<f4", {area + 1}, f4(area + 1)},
          {kOpponentPolicyWeight, "<f4", {}, f4(1)},
          {kTdValue, "<f4", {kTdHorizons, 3}, f4(kTdHorizons * 3)},
          {kTdValueWeight, "<f4", {}, f4(1)}};
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

// A packed row's fields are the arrays' little-endian element bytes (npy.h asserts the host is
// little-endian), so fields are copied as they are.
template <typename T>
void Put(PackedRow& row, const T* values, size_t n) {
  row.append(reinterpret_cast<const char*>(values), n * sizeof(T));
}

template <typename T>
const char* Get(const char* at, T* values, size_t n) {
  std::memcpy(values, at, n * sizeof(T));
  return at + n * sizeof(T);
}

}  // namespace

ShardWriter::ShardWriter(RowShape shape, std::string model_name, int compression_level)
    : shape_(shape), model_name_(std::move(model_name)), compression_level_(compression_level) {}

void ShardWriter::Add(const TrainingRow& row) { rows_.push_back(PackRow(shape_, row)); }

void ShardWriter::WriteAndClear(const std::string& path) {
  WritePackedShard(shape_, model_name_, rows_, path, compression_level_);
  rows_.clear();
}

Shard ReadShard(const std::string& path) {
  PackedShard packed = ReadPackedShard(path);
  Shard shard;
  shard.shape = packed.shape;
  shard.model_name = std::move(packed.model_name);
  shard.rows.reserve(packed.rows.size());
  for (const PackedRow& row : packed.rows) shard.rows.push_back(UnpackRow(shard.shape, row));
  return shard;
}

size_t PackedRowBytes(const RowShape& shape) {
  size_t bytes = 0;
  for (const RowArray& a : RowArrays(shape)) bytes += a.bytes;
  return bytes;
}

PackedRow PackRow(const RowShape& shape, const TrainingRow& row) {
  CheckRow(shape, row);
  const int64_t area = static_cast<int64_t>(shape.pos_len) * shape.pos_len;
  const int64_t packed = PackedBytes(shape.pos_len);
  PackedRow out;
  out.reserve(PackedRowBytes(shape));
  for (int64_t c = 0; c < shape.num_spatial; ++c) {
    std::string bits(static_cast<size_t>(packed), '\0');
    for (int64_t p = 0; p < area; ++p)
      if (row.spatial[static_cast<size_t>(c * area + p)] != 0)
        bits[static_cast<size_t>(p / 8)] = static_cast<char>(
            static_cast<uint8_t>(bits[static_cast<size_t>(p / 8)]) | (0x80 >> (p % 8)));
    out += bits;
  }
  const int8_t rules[2] = {row.ko_positional, row.suicide};
  Put(out, row.global.data(), row.global.size());
  Put(out, row.policy.data(), row.policy.size());
  Put(out, row.value, 3);
  Put(out, &row.score, 1);
  Put(out, row.ownership.data(), row.ownership.size());
  Put(out, &row.weight, 1);
  Put(out, &row.score_weight, 1);
  Put(out, &row.ownership_weight, 1);
  Put(out, &row.game_id, 1);
  Put(out, &row.turn, 1);
  Put(out, &row.board_size, 1);
  Put(out, &row.komi, 1);
  Put(out, rules, 2);
  if (row.opponent_policy.empty()) {
    const std::vector<float> none(static_cast<size_t>(area + 1), 0.0f);
    Put(out, none.data(), none.size());
  } else {
    Put(out, row.opponent_policy.data(), row.opponent_policy.size());
  }
  Put(out, &row.opponent_policy_weight, 1);
  Put(out, &row.td_value[0][0], kTdHorizons * 3);
  Put(out, &row.td_value_weight, 1);
  return out;
}

TrainingRow UnpackRow(const RowShape& shape, const PackedRow& in) {
  TENGEN_CHECK(in.size() == PackedRowBytes(shape), "packed row of the wrong size");
  const size_t area = static_cast<size_t>(shape.pos_len) * shape.pos_len;
  const size_t packed = static_cast<size_t>(PackedBytes(shape.pos_len));
  TrainingRow row;
  row.spatial.resize(static_cast<size_t>(shape.num_spatial) * area);
  const auto* bits = reinterpret_cast<const uint8_t*>(in.data());
  for (size_t c = 0; c < static_cast<size_t>(shape.num_spatial); ++c) {
    for (size_t p = 0; p < area; ++p)
      row.spatial[c * area + p] = (bits[c * packed + p / 8] >> (7 - p % 8)) & 1;
  }
  const char* at = in.data() + static_cast<size_t>(shape.num_spatial) * packed;
  row.global.resize(static_cast<size_t>(shape.num_global));
  row.policy.resize(area + 1);
  row.ownership.resize(area);
  int8_t rules[2] = {0, 0};
  at = Get(at, row.global.data(), row.global.size());
  at = Get(at, row.policy.data(), row.policy.size());
  at = Get(at, row.value, 3);
  at = Get(at, &row.score, 1);
  at = Get(at, row.ownership.data(), row.ownership.size());
  at = Get(at, &row.weight, 1);
  at = Get(at, &row.score_weight, 1);
  at = Get(at, &row.ownership_weight, 1);
  at = Get(at, &row.game_id, 1);
  at = Get(at, &row.turn, 1);
  at = Get(at, &row.board_size, 1);
  at = Get(at, &row.komi, 1);
  at = Get(at, rules, 2);
  row.opponent_policy.resize(area + 1);
  at = Get(at, row.opponent_policy.data(), row.opponent_policy.size());
  at = Get(at, &row.opponent_policy_weight, 1);
  at = Get(at, &row.td_value[0][0], kTdHorizons * 3);
  Get(at, &row.td_value_weight, 1);
  row.ko_positional = rules[0];
  row.suicide = rules[1];
  return row;
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
    std::vector<int64_t> expected = {n};
    if (std::strcmp(a.name, kScoreWeight) == 0 && !reader.Has(kScoreWeight)) {
      data.push_back(Filled(n, {}, 1.0f));  // written before the array existed
      continue;
    }
    if (UnknownInOlderShards(a.name) && !reader.Has(a.name)) {
      data.push_back(Filled(n, a.dims, 0.0f));
      continue;
    }
    if (std::strcmp(a.name, kOwnershipWeight) == 0 && !reader.Has(kOwnershipWeight)) {
      data.push_back(data.back());  // score_weight's, read just before it
      continue;
    }
    NpyArray array = reader.ReadArray(a.name);
    expected.insert(expected.end(), a.dims.begin(), a.dims.end());
    if (array.dtype != a.dtype || array.shape != expected)
      throw FormatError(
          StrCat(path, ": array '", a.name, "' has the wrong dtype or shape for ", n, " rows"));
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
