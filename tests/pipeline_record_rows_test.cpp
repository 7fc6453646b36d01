// Training rows from game records (pipeline/record_rows.h, tengen-sgf2npz): rows checked
// against the records they came from, handicap and setup stones included; results, skipped
// games, bad files, and the shards the program writes.

#include <doctest/doctest.h>
#include <boost/filesystem.hpp>

#include <string>
#include <vector>

#include "data/training_rows.h"
#include "go/sgf.h"
#include "go/sgf_game.h"
#include "nn/features.h"
#include "pipeline/base_dir.h"
#include "pipeline/record_rows.h"
#include "test_support.h"
#include "util/publish.h"
#include "util/subprocess.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

go::SgfRecord OneRecord(const std::string& text) {
  const std::vector<go::SgfRecord> records = go::ReadSgfRecords(text);
  REQUIRE(records.size() == 1);
  return records[0];
}

TEST_CASE("record rows: results") {
  struct Case {
    std::string re;
    go::Color winner;
    bool counted;
    double margin;
  };
  const Case cases[] = {
      {"B+3.5", go::Color::kBlack, true, 3.5},    {"W+12", go::Color::kWhite, true, -12},
      {" W+0.5 ", go::Color::kWhite, true, -0.5}, {"B+R", go::Color::kBlack, false, 0},
      {"W+Resign", go::Color::kWhite, false, 0},  {"B+T", go::Color::kBlack, false, 0},
      {"W+Time", go::Color::kWhite, false, 0},    {"B+F", go::Color::kBlack, false, 0},
      {"0", go::Color::kEmpty, true, 0},          {"Draw", go::Color::kEmpty, true, 0},
      {"Jigo", go::Color::kEmpty, true, 0}};
  for (const Case& c : cases) {
    CAPTURE(c.re);
    const std::optional<RecordResult> result = ParseRecordResult(c.re);
    REQUIRE(result);
    CHECK(result->winner == c.winner);
    CHECK(result->black_margin.has_value() == c.counted);
    if (c.counted) CHECK(*result->black_margin == c.margin);
  }
  for (const char* bad : {"", "?", "Void", "B+", "X+3", "B+lots", "W+-2"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseRecordResult(bad));
  }
}

TEST_CASE("record rows: a handicap game's rows match the positions replayed from its record") {
  // Two black stones set up, white first, a pass in the middle; white wins by 3.5 at komi 0.5.
  const go::SgfRecord record =
      OneRecord("(;GM[1]FF[4]SZ[9]KM[0.5]HA[2]AB[cc][gg]RE[W+3.5];W[ee];B[ce];W[];B[dd];W[ec])");
  const int pos_len = 9;
  const RecordRows game = RowsFromRecord(record, pos_len, 77);
  REQUIRE(game.skip == Skip::kNone);
  REQUIRE(game.rows.size() == 5);
  for (size_t i = 0; i < game.rows.size(); ++i) {
    CAPTURE(i);
    const data::TrainingRow& row = game.rows[i];
    const go::GameState state = go::ReplaySgf(record, static_cast<int>(i));
    const go::Move move = record.moves[i];
    REQUIRE(state.to_move() == move.color);
    // Inputs: the replayed position, the two handicap stones on the board.
    std::vector<float> spatial(static_cast<size_t>(nn::kNumSpatialFeatures) * pos_len * pos_len);
    std::vector<float> global(nn::kNumGlobalFeatures);
    nn::FillFeatures(state, pos_len, 0, spatial.data(), global.data());
    CHECK(row.spatial == spatial);
    CHECK(row.global == global);
    go::Loc c7 = go::kNullLoc;
    REQUIRE(go::ParseGtpVertex("C7", 9, &c7));
    CHECK(state.board().At(c7) == go::Color::kBlack);
    // Policy: the move played, one-hot (the pass at the pass entry).
    float sum = 0;
    for (float p : row.policy) sum += p;
    CHECK(sum == 1.0f);
    CHECK(row.policy[nn::PolicyIndex(move.loc, 9, pos_len)] == 1.0f);
    // Outcome from the mover's view: white won by 3.5.
    const bool white = move.color == go::Color::kWhite;
    CHECK(row.value[0] == (white ? 1.0f : 0.0f));
    CHECK(row.value[1] == (white ? 0.0f : 1.0f));
    CHECK(row.value[2] == 0.0f);
    CHECK(row.score == (white ? 3.5f : -3.5f));
    CHECK(row.score_weight == 1.0f);
    CHECK(row.ownership_weight == 0.0f);  // a record does not say who owns each point
    CHECK(std::count(row.ownership.begin(), row.ownership.end(), 0) == pos_len * pos_len);
    CHECK(row.game_id == 77);
    CHECK(row.turn == static_cast<int32_t>(i));
    CHECK(row.board_size == 9);
    CHECK(row.komi == 0.5f);
    // The opponent's reply: the next move, one-hot; none after the last move.
    if (i + 1 < game.rows.size()) {
      CHECK(row.opponent_policy_weight == 1.0f);
      CHECK(row.opponent_policy == game.rows[i + 1].policy);
    } else {
      CHECK(row.opponent_policy_weight == 0.0f);
    }
  }
  CHECK(game.rows[2].policy[static_cast<size_t>(pos_len * pos_len)] == 1.0f);  // W's pass

  // The same colour twice in a row: the second move is no reply to the first.
  const RecordRows twice = RowsFromRecord(
      OneRecord("(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];B[ce];W[dd];B[cc])"), pos_len, 78);
  REQUIRE(twice.rows.size() == 4);
  CHECK(twice.rows[0].opponent_policy_weight == 0.0f);
  CHECK(twice.rows[1].opponent_policy_weight == 1.0f);
  CHECK(twice.rows[2].opponent_policy_weight == 1.0f);
  CHECK(twice.rows[3].opponent_policy_weight == 0.0f);
}

TEST_CASE("record rows: a smaller board, resignation, two passes, and the games skipped") {
  // A 5x5 game for a pos_len 9 net, with a white stone set up; black won by resignation.
  const RecordRows small =
      RowsFromRecord(OneRecord("(;SZ[5]KM[7.5]AW[aa]RE[B+R];B[cc];W[];B[];W[bb])"), 9, 1);
  REQUIRE(small.skip == Skip::kNone);
  REQUIRE(small.rows.size() == 3);  // the move after two passes is cleanup, not a position
  for (const data::TrainingRow& row : small.rows) {
    CHECK(row.board_size == 5);
    CHECK(row.score_weight == 0.0f);  // resignation: no margin
    CHECK(row.score == 0.0f);
    CHECK(row.policy.size() == 82u);
  }
  CHECK(small.rows[0].value[0] == 1.0f);    // black to move, black won
  CHECK(small.rows[1].value[1] == 1.0f);    // white to move, white lost
  CHECK(small.rows[0].spatial[0] == 1.0f);  // A5 is on the board (plane 0, point 0)
  CHECK(small.rows[0].spatial[5] == 0.0f);  // F5 is not

  struct Case {
    std::string sgf;
    Skip skip;
    std::string says;
  };
  const Case cases[] = {
      {"(;SZ[9];B[ee])", Skip::kNoResult, "no result"},
      {"(;SZ[9]RE[?];B[ee])", Skip::kNoResult, "'?'"},
      {"(;SZ[13]RE[B+1];B[ee])", Skip::kTooLarge, "13x13"},
      {"(;SZ[9]RE[B+1];B[ee];W[ee])", Skip::kIllegal, "move 2 (W E5) is illegal: occupied"},
      {"(;SZ[9]RE[B+1])", Skip::kNoMoves, "no moves"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.sgf);
    const RecordRows game = RowsFromRecord(OneRecord(c.sgf), 9, 1);
    CHECK(game.skip == c.skip);
    CHECK(game.rows.empty());
    CHECK(Contains(game.why, c.says));
  }
}

TEST_CASE("record rows: a directory of records into shards; bad files and games skipped, counted") {
  testing::TempDir dir;
  const std::string in = dir / "records";
  EnsureDirectory(in + "/nested");
  dir.Write("records/good.sgf", "(;SZ[9]KM[7.5]RE[B+2.5];B[ee];W[cc];B[gg])");
  dir.Write("records/two.SGFS",
            "(;SZ[9]RE[W+R];B[ee];W[cc])\n(;SZ[9];B[ee];W[cc])\n");  // the second has no result
  dir.Write("records/bad.sgf", "this is not a game record (((");
  // A collection with a game whose move is off the board: that game goes, the other stays.
  dir.Write("records/mixed.sgfs", "(;SZ[9]RE[B+1];B[zz])\n(;SZ[9]RE[B+1];B[ee])\n");
  dir.Write("records/notes.txt", "(;SZ[9]RE[B+1];B[ee])");  // not a record file: not read
  dir.Write("records/nested/deep.sgf", "(;SZ[7]RE[0];B[dd];W[cc];B[ee];W[ff])");
  // Cut off in its second game: the first is kept, the rest counts as one malformed game.
  dir.Write("records/truncated.sgfs", "(;SZ[9]RE[B+1];B[ee])\n(;SZ[9]RE[B+1];B[ee];W[c");
  // A link to a record that is gone: a bad file, not silently nothing.
  boost::filesystem::create_symlink(dir / "gone.sgf", in + "/gone.sgf");
  ConvertOptions options;
  options.inputs = {in, dir / "missing.sgf"};
  options.output_dir = dir / "out";
  options.rows_per_shard = 4;
  Logger logger(LogLevel::kError);
  const ConvertSummary s = ConvertRecords(options, logger);
  CHECK(s.files == 6);
  CHECK(s.bad_files == 3);
  CHECK(s.games == 5);
  CHECK(s.skipped[static_cast<int>(Skip::kNoResult)] == 1);
  CHECK(s.skipped[static_cast<int>(Skip::kMalformed)] == 2);
  CHECK(s.rows == 3 + 2 + 4 + 1 + 1);
  CHECK(s.shards == 3);  // 4 + 4 + 3
  int64_t rows = 0;
  for (const std::string& name : ListPublished(options.output_dir)) {
    CAPTURE(name);
    const data::Shard shard = data::ReadShard(options.output_dir + "/" + name);
    CHECK(shard.model_name == "records");
    CHECK(shard.shape.pos_len == 9);
    CHECK(RowsInShardName(name) == static_cast<int64_t>(shard.rows.size()));
    for (const data::TrainingRow& row : shard.rows) CHECK(row.ownership_weight == 0.0f);
    rows += static_cast<int64_t>(shard.rows.size());
  }
  CHECK(rows == s.rows);
}

TEST_CASE("tengen-sgf2npz: a summary line, and usage errors that exit 2") {
  testing::TempDir dir;
  const std::string program = std::string(TENGEN_BIN_DIR) + "/tengen-sgf2npz";
  const std::string good = dir.Write("good.sgf", "(;SZ[9]RE[B+2.5];B[ee];W[cc];B[gg])");
  const std::string bad = dir.Write("bad.sgf", "((( no");
  const ProcessResult result =
      RunProcess({program, good, bad, "--output-dir", dir / "out", "--pos-len", "9"});
  CHECK(result.exit_code == 0);
  CHECK(Contains(result.output, bad));  // the bad file named
  CHECK(Contains(result.output,
                 "files: 2 read, 1 bad; games: 1 converted, skipped: none; "
                 "rows: 3 in 1 shards in " +
                     (dir / "out")));
  // Nothing converted: the summary, then an error.
  const ProcessResult none = RunProcess({program, bad, "--output-dir", dir / "none"});
  CHECK(none.exit_code == 1);
  CHECK(Contains(none.output, "games: 0 converted"));
  CHECK(Contains(none.output, "no game could be converted"));
  CHECK(RunProcess({program, good}).exit_code == 2);                         // no output_dir
  CHECK(RunProcess({program, "--output-dir", dir / "out"}).exit_code == 2);  // no input
  const ProcessResult help = RunProcess({program, "--help"});
  CHECK(help.exit_code == 0);
  CHECK(Contains(help.output, "FILE_OR_DIR"));
}

}  // namespace
}  // namespace tengen::pipeline
