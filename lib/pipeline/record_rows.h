#pragma once
// Training rows from game records (tengen-sgf2npz): one row per position before each move of a
// game's main line, in the format selfplay writes (data/training_rows.h), so that the shards go
// through the shuffler and the trainer unchanged. The targets are what a record knows:
//   policy      the move played (one-hot; a pass is the pass entry)
//   value       the result (RE): win or loss for the side to move, or a draw
//   score       the margin of a counted result (B+3.5), from the side to move's view, weight 1;
//               a result by resignation, time or forfeit has none (score_weight 0)
//   ownership   never known from a record (ownership_weight 0, the target all 0)
//   opponent_policy  the next move (one-hot) when the opponent played it, weight 1; none for
//               the last move or when the same colour moves twice in a row (weight 0)
// A game without a usable result (no RE, "?", "Void"), on a board larger than pos_len, with an
// illegal move or setup, or without moves is skipped with the reason; so is a game of a
// collection whose record is malformed (a bad size or coordinate), the file's others kept.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/training_rows.h"
#include "go/sgf.h"
#include "util/log.h"

namespace tengen::pipeline {

// What a record's RE says.
struct RecordResult {
  go::Color winner = go::Color::kEmpty;  // kEmpty: a draw
  std::optional<double> black_margin;    // black minus white, when the result was counted
};

// Parses RE ("B+3.5", "W+R", "B+Resign", "W+T", "B+F", "0", "Draw", "Jigo"); nullopt for no
// usable result ("", "?", "Void", anything else).
std::optional<RecordResult> ParseRecordResult(const std::string& re);

enum class Skip { kNone, kNoResult, kTooLarge, kIllegal, kNoMoves, kMalformed };
constexpr int kNumSkips = 6;
const char* SkipName(Skip skip);  // "no result", "board larger than pos_len", ...

struct RecordRows {
  std::vector<data::TrainingRow> rows;
  Skip skip = Skip::kNone;
  std::string why;  // the skip in words, with the details
};

// The rows of one game for a net of this pos_len; game_id goes into every row.
RecordRows RowsFromRecord(const go::SgfRecord& record, int pos_len, int64_t game_id);

struct ConvertOptions {
  std::vector<std::string> inputs;  // SGF files (.sgf, .sgfs: one or more games) and directories
  std::string output_dir;
  int pos_len = 9;
  int rows_per_shard = 20000;
  std::string model_name = "records";  // the shards' model_name
};

struct ConvertSummary {
  int64_t files = 0;
  int64_t bad_files = 0;            // unreadable, missing or not SGF: reported and skipped
  int64_t games = 0;                // games that gave rows
  int64_t skipped[kNumSkips] = {};  // games skipped, by Skip
  int64_t rows = 0;
  int64_t shards = 0;
};

// Converts every record under `inputs` (directories searched recursively for *.sgf and *.sgfs,
// in name order) into shards of up to rows_per_shard rows in output_dir, named as selfplay
// names its shards. Each bad file and skipped game is logged with its path (and game number)
// and counted; none stops the rest. Logs progress every 10 s. Throws IoError when output_dir
// cannot be written.
ConvertSummary ConvertRecords(const ConvertOptions& options, Logger& logger);

}  // namespace tengen::pipeline
