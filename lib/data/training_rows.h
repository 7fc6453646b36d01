#pragma once
// The training-row format: what selfplay writes and the shuffler and trainer read. One .npz
// file (a "shard") holds N rows from one model, all for one pos_len (L), as these arrays
// (docs/DATA_FORMAT.md is the prose version; tests pin both):
//
//   spatial_packed  uint8   [N][C][ceil(L*L/8)]  input planes (nn/features.h), all 0/1, point
//                                                p = y*L + x packed big-endian within a byte
//                                                (numpy.unpackbits(..., axis=-1)[..., :L*L])
//   global          float32 [N][G]               global inputs (nn/features.h)
//   policy          float32 [N][L*L+1]           policy target: root visit distribution
//                                                after forced-playout pruning, pass last,
//                                                sums to 1
//   value           float32 [N][3]               final result for the side to move:
//                                                win, loss, draw (one-hot)
//   score           float32 [N]                  final Tromp-Taylor score (komi included)
//                                                from the side to move's view
//   ownership       int8    [N][L*L]             final area owner: +1 side to move, -1
//                                                opponent, 0 dame or off the board
//   weight          float32 [N]                  row weight for every loss term
//   score_weight    float32 [N]                  extra weight of the score target: 0 when
//                                                the final score is unknown (resignation),
//                                                else 1; a shard without it (older tengen)
//                                                reads as all 1
//   ownership_weight float32 [N]                 extra weight of the ownership target: 0 when
//                                                the final owners are unknown (resignation,
//                                                a game record), else 1; a shard without it
//                                                (older tengen) reads as its score_weight
//   game_id         int64   [N]                  random 63-bit id of the game (shared by its
//                                                rows and written into its SGF as GN)
//   turn            int32   [N]                  moves played before this position
//   board_size      int8    [N]
//   komi            float32 [N]                  komi of the game (white's bonus)
//   rules           int8    [N][2]               [ko positional (1) or simple (0),
//                                                 multi-stone suicide allowed (1)]
//   opponent_policy float32 [N][L*L+1]           the opponent's reply: the root visit
//                                                distribution of the search at the next turn
//                                                (cheap or full; a game record's next move),
//                                                pass last, sums to 1; all 0 where there is none
//   opponent_policy_weight float32 [N]           1 where opponent_policy is known, else 0 (the
//                                                game's last move); a shard without these two
//                                                arrays (older tengen) reads as all 0
//   td_value        float32 [N][3][3]            short-term value targets (KataGo's TD values)
//                                                for three horizons, long to short: win, loss,
//                                                draw for the side to move, an exponentially
//                                                weighted mean of the searches' root values
//                                                from this turn on and of the final result
//   td_value_weight float32 [N]                  1 where td_value is known (selfplay), else 0
//                                                (game records); a shard without these two
//                                                arrays (older tengen) reads as all 0
//   model_name      uint8   [bytes]              UTF-8 name of the model that played
//   feature_version int32   [1]                  nn::kFeatureVersion of the planes
//
// The layer below nn/ cannot know the feature counts, so C and G are given by the writer.

#include <cstdint>
#include <string>
#include <vector>

namespace tengen::data {

// Horizons of the short-term value targets (td_value).
constexpr int kTdHorizons = 3;

struct RowShape {
  int pos_len = 19;
  int num_spatial = 0;  // C
  int num_global = 0;   // G
  int feature_version = 0;
};

struct TrainingRow {
  std::vector<float> spatial;  // [C][L*L], each 0 or 1
  std::vector<float> global;   // [G]
  std::vector<float> policy;   // [L*L+1]
  float value[3] = {0, 0, 0};  // win, loss, draw
  float score = 0;
  std::vector<int8_t> ownership;  // [L*L]
  float weight = 1;
  float score_weight = 1;               // score target (0: unknown final score)
  float ownership_weight = 1;           // ownership target (0: unknown final owners)
  std::vector<float> opponent_policy;   // [L*L+1]; all 0 when unknown
  float opponent_policy_weight = 0;     // 1 when opponent_policy is known
  float td_value[kTdHorizons][3] = {};  // per horizon, long to short: win, loss, draw
  float td_value_weight = 0;            // 1 when td_value is known
  int64_t game_id = 0;
  int32_t turn = 0;
  int8_t board_size = 0;
  float komi = 0;
  int8_t ko_positional = 1;
  int8_t suicide = 0;
};

// A row as the raw bytes of its per-row arrays back to back, in the order of the table above
// (spatial_packed, global, policy, value, score, ownership, weight, score_weight,
// ownership_weight, game_id, turn, board_size, komi, rules, opponent_policy,
// opponent_policy_weight, td_value, td_value_weight): ShardWriter keeps rows packed until it
// writes them, and the shuffler moves them between files without decoding (about 6x less memory
// than a TrainingRow at pos_len 9, and no bit unpacking). One table in training_rows.cpp
// (RowArrays) defines the layout for the writer, both readers and PackRow/UnpackRow.
using PackedRow = std::string;

// Accumulates rows of one model and writes them as one shard, atomically.
class ShardWriter {
 public:
  // compression_level: zlib's 1 (fast) .. 9 (small), -1 its default (6), 0 stored; level 1
  // writes ~1.8x faster for ~20% more bytes (the shuffler's choice).
  ShardWriter(RowShape shape, std::string model_name, int compression_level = -1);
  // CheckError if the row's vectors do not match the shape.
  void Add(const TrainingRow& row);
  int rows() const { return static_cast<int>(rows_.size()); }
  // Writes all rows to `path` (published atomically) and clears them.
  void WriteAndClear(const std::string& path);

 private:
  RowShape shape_;
  std::string model_name_;
  int compression_level_ = -1;
  std::vector<PackedRow> rows_;  // packed at Add: ~6x smaller than a TrainingRow
};

// A shard read back (tests, shuffler, trainer). Throws FormatError naming the file for a
// missing array, a wrong dtype or shapes that disagree.
struct Shard {
  RowShape shape;
  std::string model_name;
  std::vector<TrainingRow> rows;
};
Shard ReadShard(const std::string& path);
// Rows in a shard from the npy headers alone (no inflating of the arrays).
int64_t CountShardRows(const std::string& path);
// The row shape of a shard (pos_len, feature counts, feature version) from its headers and its
// one-element feature_version array; FormatError naming the file as ReadShard.
RowShape ReadShardShape(const std::string& path);

struct PackedShard {
  RowShape shape;
  std::string model_name;
  std::vector<PackedRow> rows;
};
// Bytes of one packed row of this shape.
size_t PackedRowBytes(const RowShape& shape);
// A row packed and back; PackRow throws CheckError when the row's vectors do not match the shape,
// UnpackRow when the packed row has the wrong size.
PackedRow PackRow(const RowShape& shape, const TrainingRow& row);
TrainingRow UnpackRow(const RowShape& shape, const PackedRow& row);
// Reads a shard as packed rows; the same checks and errors as ReadShard.
PackedShard ReadPackedShard(const std::string& path);
// Writes packed rows of one shape as a shard at `path`, published atomically. CheckError when a
// row's size does not match the shape.
void WritePackedShard(const RowShape& shape, const std::string& model_name,
                      const std::vector<PackedRow>& rows, const std::string& path,
                      int compression_level = -1);

}  // namespace tengen::data
