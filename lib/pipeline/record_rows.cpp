#include "pipeline/record_rows.h"

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "go/sgf_game.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "play/game_runner.h"
#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

// The row of `state` (its side to move about to play `move`): the position, the move played as
// the policy target, no ownership target; the outcome is SetOutcome's.
data::TrainingRow MoveRow(const go::GameState& state, go::Loc move, int pos_len, int64_t game_id) {
  data::TrainingRow row = play::PositionRow(state, pos_len, game_id);
  row.policy[nn::PolicyIndex(move, state.size(), pos_len)] = 1.0f;
  row.ownership.assign(static_cast<size_t>(pos_len) * pos_len, 0);
  row.ownership_weight = 0;
  return row;
}

void SetOutcome(const RecordResult& result, go::Color mover, data::TrainingRow* row) {
  row->value[0] = result.winner == mover ? 1.0f : 0.0f;
  row->value[1] = result.winner == go::Opponent(mover) ? 1.0f : 0.0f;
  row->value[2] = result.winner == go::Color::kEmpty ? 1.0f : 0.0f;
  row->score = 0;
  row->score_weight = 0;
  if (result.black_margin) {
    const double margin = *result.black_margin;
    row->score = static_cast<float>(mover == go::Color::kBlack ? margin : -margin);
    row->score_weight = 1;
  }
}

bool IsRecordFile(const boost::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension == ".sgf" || extension == ".sgfs";
}

// The record files under `inputs`, directories searched recursively, each directory's in name
// order; inputs that do not exist, and record names in a directory that are not readable files
// (broken links), are reported and counted as bad files.
std::vector<std::string> ListRecordFiles(const std::vector<std::string>& inputs, Logger& logger,
                                         ConvertSummary* summary) {
  namespace fs = boost::filesystem;
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    boost::system::error_code error;
    if (fs::is_regular_file(input, error)) {
      files.push_back(input);
    } else if (fs::is_directory(input, error)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(input, error), end; !error && it != end;
           it.increment(error)) {
        if (!IsRecordFile(it->path())) continue;
        boost::system::error_code file_error;
        if (fs::is_regular_file(it->path(), file_error)) {
          found.push_back(it->path().string());
        } else if (!fs::is_directory(it->path(), file_error)) {
          logger.Warning(it->path().string() +
                         ": not a file that can be read (a broken link?); skipped");
          ++summary->bad_files;
        }
      }
      if (error) logger.Warning(input + ": " + error.message() + "; the files found so far count");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      logger.Warning(input + ": no such file or directory; skipped");
      ++summary->bad_files;
    }
  }
  return files;
}

// A 63-bit id for game `index` of `path` (FNV-1a): the same file gives the same ids.
int64_t RecordGameId(const std::string& path, size_t index) {
  uint64_t hash = 14695981039346656037ULL;
  for (const char c : path + "#" + std::to_string(index)) {
    hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
  }
  return static_cast<int64_t>(hash & 0x7fffffffffffffffULL);
}

}  // namespace

std::optional<RecordResult> ParseRecordResult(const std::string& re) {
  const std::string text = Trim(re);
  RecordResult result;
  if (text == "0" || text == "Draw" || text == "draw" || text == "Jigo" || text == "jigo") {
    result.black_margin = 0.0;
    return result;
  }
  if (text.size() < 3 || (text[0] != 'B' && text[0] != 'W') || text[1] != '+') return std::nullopt;
  result.winner = text[0] == 'B' ? go::Color::kBlack : go::Color::kWhite;
  const std::string how = text.substr(2);
  for (const char* word : {"R", "Resign", "T", "Time", "F", "Forfeit"}) {
    if (how == word) return result;  // a winner, no margin
  }
  char* end = nullptr;
  const double margin = std::strtod(how.c_str(), &end);
  if (end == how.c_str() || *end != '\0' || !std::isfinite(margin) || margin < 0) {
    return std::nullopt;
  }
  result.black_margin = result.winner == go::Color::kBlack ? margin : -margin;
  return result;
}

const char* SkipName(Skip skip) {
  switch (skip) {
    case Skip::kNone:
      return "none";
    case Skip::kNoResult:
      return "no result";
    case Skip::kTooLarge:
      return "board larger than pos_len";
    case Skip::kIllegal:
      return "illegal move or setup";
    case Skip::kNoMoves:
      return "no moves";
    case Skip::kMalformed:
      return "malformed record";
  }
  return "unknown";
}

RecordRows RowsFromRecord(const go::SgfRecord& record, int pos_len, int64_t game_id) {
  RecordRows out;
  const auto skip = [&out](Skip why, const std::string& text) {
    out.rows.clear();
    out.skip = why;
    out.why = text;
    return out;
  };
  const std::optional<RecordResult> result = ParseRecordResult(record.result);
  if (!result) {
    return skip(
        Skip::kNoResult,
        "no result" + (record.result.empty() ? std::string() : " ('" + record.result + "')"));
  }
  if (record.size > pos_len) {
    return skip(Skip::kTooLarge, StrCat("a ", record.size, "x", record.size,
                                        " board, larger than pos_len ", pos_len));
  }
  go::GameState state;
  try {
    state = go::ReplaySgf(record, /*num_moves=*/0);
  } catch (const FormatError& e) {
    return skip(Skip::kIllegal, e.what());
  }
  for (size_t i = 0; i < record.moves.size() && !state.IsOver(); ++i) {
    const go::Move& move = record.moves[i];
    state.set_to_move(move.color);  // a record may give one colour two moves in a row
    const go::Illegal reason = state.Check(move);
    if (reason != go::Illegal::kNone) {
      return skip(Skip::kIllegal, StrCat("move ", i + 1, " (", go::ColorLetter(move.color), " ",
                                         go::LocToGtp(move.loc, record.size),
                                         ") is illegal: ", go::IllegalName(reason)));
    }
    // This move is the reply to the row before it when the opponent played that one.
    if (i > 0 && record.moves[i - 1].color != move.color) {
      data::TrainingRow& previous = out.rows.back();
      previous.opponent_policy.assign(previous.policy.size(), 0.0f);
      previous.opponent_policy[nn::PolicyIndex(move.loc, state.size(), pos_len)] = 1.0f;
      previous.opponent_policy_weight = 1;
    }
    out.rows.push_back(MoveRow(state, move.loc, pos_len, game_id));
    SetOutcome(*result, move.color, &out.rows.back());
    state.Play(move);
  }
  if (out.rows.empty()) return skip(Skip::kNoMoves, "no moves");
  return out;
}

ConvertSummary ConvertRecords(const ConvertOptions& options, Logger& logger) {
  ConvertSummary summary;
  const std::vector<std::string> files = ListRecordFiles(options.inputs, logger, &summary);
  EnsureDirectory(options.output_dir);
  data::RowShape shape;
  shape.pos_len = options.pos_len;
  shape.num_spatial = nn::kNumSpatialFeatures;
  shape.num_global = nn::kNumGlobalFeatures;
  shape.feature_version = nn::kFeatureVersion;
  data::ShardWriter writer(shape, options.model_name);
  const auto flush = [&] {
    if (writer.rows() == 0) return;
    const int64_t rows = writer.rows();
    writer.WriteAndClear(options.output_dir + "/" + ShardFileName(UniqueFileStem(), rows));
    ++summary.shards;
  };
  auto next_progress = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (const std::string& file : files) {
    ++summary.files;
    std::vector<go::SgfGame> records;
    try {
      records = go::ReadSgfFileGames(file);
    } catch (const Error& e) {
      logger.Warning(std::string(e.what()) + "; file skipped");
      ++summary.bad_files;
      continue;
    }
    for (size_t g = 0; g < records.size(); ++g) {
      if (!records[g].error.empty()) {
        logger.Warning(StrCat(file, ": ", records[g].error, "; game skipped"));
        ++summary.skipped[static_cast<int>(Skip::kMalformed)];
        continue;
      }
      const RecordRows game =
          RowsFromRecord(records[g].record, options.pos_len, RecordGameId(file, g));
      if (game.skip != Skip::kNone) {
        logger.Info(StrCat(file, ": game ", g + 1, " skipped: ", game.why));
        ++summary.skipped[static_cast<int>(game.skip)];
        continue;
      }
      ++summary.games;
      for (const data::TrainingRow& row : game.rows) {
        writer.Add(row);
        ++summary.rows;
        if (writer.rows() >= options.rows_per_shard) flush();
      }
    }
    if (std::chrono::steady_clock::now() >= next_progress) {
      logger.Info(StrCat("read ", summary.files, " of ", files.size(), " files: ", summary.games,
                         " games, ", summary.rows, " rows"));
      next_progress += std::chrono::seconds(10);
    }
  }
  flush();
  return summary;
}

}  // namespace tengen::pipeline
