// Net input features, hand-checked on a small ko position, symmetry consistency, policy
// indices, architecture names and the uniform evaluator.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "go/game.h"
#include "go/playout.h"
#include "go/symmetry.h"
#include "nn/evaluator.h"
#include "nn/features.h"
#include "nn/model_config.h"
#include "util/error.h"

using namespace tengen;
using namespace tengen::go;
using namespace tengen::nn;

namespace {

struct Features {
  std::vector<float> spatial;
  std::vector<float> global;
};

Features Fill(const GameState& state, int pos_len, int symmetry, const RulesInputs& told = {}) {
  // Filled with garbage first so that a plane left unwritten shows.
  Features f{std::vector<float>(kNumSpatialFeatures * pos_len * pos_len, 9.0f),
             std::vector<float>(kNumGlobalFeatures, 9.0f)};
  FillFeatures(state, pos_len, symmetry, f.spatial.data(), f.global.data(), told);
  return f;
}

// One plane as rows of '1' and '.', top row first, every other value as '?'.
std::string PlaneText(const Features& f, int plane, int pos_len) {
  std::string text;
  for (int y = 0; y < pos_len; ++y) {
    for (int x = 0; x < pos_len; ++x) {
      const float v = f.spatial[(plane * pos_len + y) * pos_len + x];
      text += v == 1.0f ? '1' : v == 0.0f ? '.' : '?';
    }
    text += '\n';
  }
  return text;
}

// The classic ko on a 5x5 board, black having just taken at (2, 1):
//   . X O . .
//   X . X O .      white may not retake at (1, 1)
//   . X O . .
// Moves: B(1,0) W(2,0) B(0,1) W(1,1) B(1,2) W(2,2) B pass W(3,1) B(2,1)x(1,1).
GameState KoPosition() {
  const int n = 5;
  GameState g(n, Rules(), 0);
  const Loc pass = kPassLoc;
  const Loc moves[] = {MakeLoc(1, 0, n),
                       MakeLoc(2, 0, n),
                       MakeLoc(0, 1, n),
                       MakeLoc(1, 1, n),
                       MakeLoc(1, 2, n),
                       MakeLoc(2, 2, n),
                       pass,
                       MakeLoc(3, 1, n),
                       MakeLoc(2, 1, n)};
  for (Loc loc : moves) g.Play({loc, g.to_move()});
  return g;
}

// Checks that the features for every symmetry are those of symmetry 0 moved point by point.
void CheckSymmetryConsistency(const GameState& state, int pos_len) {
  const int n = state.size();
  const Features base = Fill(state, pos_len, 0);
  for (int s = 0; s < kNumSymmetries; ++s) {
    CAPTURE(s);
    const Features f = Fill(state, pos_len, s);
    CHECK(f.global == base.global);
    for (int plane = 0; plane < kNumSpatialFeatures; ++plane) {
      std::vector<float> expected(pos_len * pos_len, 0.0f);
      for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
          const Loc image = SymmetricLoc(MakeLoc(x, y, n), s, n);
          expected[PolicyIndex(image, n, pos_len)] =
              base.spatial[(plane * pos_len + y) * pos_len + x];
        }
      }
      const std::vector<float> got(f.spatial.begin() + plane * pos_len * pos_len,
                                   f.spatial.begin() + (plane + 1) * pos_len * pos_len);
      CAPTURE(plane);
      CHECK(got == expected);
    }
  }
}

TEST_CASE("features: a board must fit the net's pos_len") {
  CHECK_NOTHROW(CheckBoardFits(9, 9));
  CHECK_THROWS_WITH_AS(CheckBoardFits(13, 9), "board size 13 exceeds pos_len 9", ConfigError);
}

}  // namespace

TEST_CASE("features: hand-checked planes of a 5x5 ko position with pos_len 7") {
  const int pos_len = 7;
  GameState g = KoPosition();
  REQUIRE(g.to_move() == Color::kWhite);
  REQUIRE(g.board().ko_loc() == MakeLoc(1, 1, 5));
  REQUIRE(g.board().ko_banned_color() == Color::kWhite);
  const Features f = Fill(g, pos_len, 0);

  CHECK(PlaneText(f, 0, pos_len) ==
        "11111..\n11111..\n11111..\n11111..\n11111..\n.......\n.......\n");
  // White to move: own = white, opponent = black.
  CHECK(PlaneText(f, 1, pos_len) ==
        "..1....\n...1...\n..1....\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 2, pos_len) ==
        ".1.....\n1.1....\n.1.....\n.......\n.......\n.......\n.......\n");
  // Liberties: W(2,0) and B(2,1) have 1; B(1,0) and W(2,2) have 2; the rest 3 or more.
  CHECK(PlaneText(f, 3, pos_len) ==
        "..1....\n..1....\n.......\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 4, pos_len) ==
        ".1.....\n.......\n..1....\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 5, pos_len) ==
        ".......\n1..1...\n.1.....\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 6, pos_len) ==
        ".......\n.1.....\n.......\n.......\n.......\n.......\n.......\n");
  // Last moves, most recent first: B(2,1), W(3,1), B pass, W(2,2), B(1,2).
  CHECK(PlaneText(f, 7, pos_len) ==
        ".......\n..1....\n.......\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 8, pos_len) ==
        ".......\n...1...\n.......\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 9, pos_len) ==
        ".......\n.......\n.......\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 10, pos_len) ==
        ".......\n.......\n..1....\n.......\n.......\n.......\n.......\n");
  CHECK(PlaneText(f, 11, pos_len) ==
        ".......\n.......\n.1.....\n.......\n.......\n.......\n.......\n");
  // Komi 7.5 for white to move, positional superko, no suicide, the 3rd last move a pass.
  const std::vector<float> globals = {7.5f / 20, 1, 0, 0, 0, 1, 0, 0};
  CHECK(f.global == globals);

  SUBCASE("the other side to move swaps own and opponent, flips komi and drops the ko") {
    g.set_to_move(Color::kBlack);
    const Features b = Fill(g, pos_len, 0);
    CHECK(PlaneText(b, 1, pos_len) == PlaneText(f, 2, pos_len));
    CHECK(PlaneText(b, 2, pos_len) == PlaneText(f, 1, pos_len));
    for (int plane : {0, 3, 4, 5, 7, 8, 9, 10, 11}) {
      CHECK(PlaneText(b, plane, pos_len) == PlaneText(f, plane, pos_len));
    }
    CHECK(PlaneText(b, 6, pos_len) == PlaneText(f, 9, pos_len));  // all empty
    CHECK(b.global[0] == doctest::Approx(-7.5 / 20));
  }

  SUBCASE("rules globals and pass history") {
    g.set_komi(-3);
    g.Play({kPassLoc, Color::kWhite});  // clears the ko ban
    Rules rules;
    rules.ko = KoRule::kSimple;
    rules.suicide = true;
    GameState s(5, rules, 0);
    s.set_komi(6.5);
    s.Play({kPassLoc, Color::kBlack});
    const Features fs = Fill(s, pos_len, 0);
    // White to move after one black pass.
    const std::vector<float> expected_simple = {6.5f / 20, 0, 1, 1, 0, 0, 0, 0};
    CHECK(fs.global == expected_simple);
    const Features fg = Fill(g, pos_len, 0);
    // Black to move, komi -3: +3/20 from black's view; passes 1 and 4 moves ago.
    const std::vector<float> expected = {3.0f / 20, 1, 0, 1, 0, 0, 1, 0};
    CHECK(fg.global == expected);
    CHECK(PlaneText(fg, 6, pos_len) == PlaneText(f, 9, pos_len));
    CHECK(PlaneText(fg, 8, pos_len) == PlaneText(f, 7, pos_len));  // last move shifted

    // Told other rules, the net sees them in globals 1 and 2 and nothing else changes.
    RulesInputs told;
    told.ko = KoRule::kPositional;
    told.suicide = false;
    const Features ft = Fill(s, pos_len, 0, told);
    const std::vector<float> expected_told = {6.5f / 20, 1, 0, 1, 0, 0, 0, 0};
    CHECK(ft.global == expected_told);
    CHECK(ft.spatial == fs.spatial);
    RulesInputs suicide_only;
    suicide_only.suicide = false;
    const std::vector<float> expected_suicide_only = {6.5f / 20, 0, 0, 1, 0, 0, 0, 0};
    CHECK(Fill(s, pos_len, 0, suicide_only).global == expected_suicide_only);
  }
}

TEST_CASE("features: every symmetry moves the planes of symmetry 0") {
  CheckSymmetryConsistency(KoPosition(), 7);
  CheckSymmetryConsistency(KoPosition(), 5);
  Rng rng(11);
  for (int pos_len : {9, 11}) {
    GameState g(9, Rules(), 0);
    for (int i = 0; i < 50; ++i) g.Play({RandomNonEyeMove(g, rng), g.to_move()});
    CheckSymmetryConsistency(g, pos_len);
  }
  // A transposing symmetry really moves a stone: (1, 0) goes to (0, 1).
  const Features t = Fill(KoPosition(), 7, 4);
  CHECK(t.spatial[2 * 49 + 1 * 7 + 0] == 1.0f);
  CHECK(t.spatial[2 * 49 + 0 * 7 + 1] == 1.0f);  // B(0,1) moved to (1,0)
  CHECK(t.spatial[6 * 49 + 1 * 7 + 1] == 1.0f);  // ko point on the diagonal stays
  CHECK(t.spatial[1 * 49 + 2 * 7 + 0] == 1.0f);  // W(2,0) moved to (0,2)
}

TEST_CASE("features: policy indices") {
  CHECK(PolicyIndex(MakeLoc(0, 0, 19), 19, 19) == 0);
  CHECK(PolicyIndex(MakeLoc(18, 18, 19), 19, 19) == 360);
  CHECK(PolicyIndex(kPassLoc, 19, 19) == 361);
  CHECK(PolicyIndex(MakeLoc(3, 2, 9), 9, 19) == 2 * 19 + 3);
  CHECK(PolicyIndex(MakeLoc(4, 4, 5), 5, 7) == 4 * 7 + 4);
  CHECK(PolicyIndex(kPassLoc, 5, 7) == 49);
  CHECK_THROWS_AS(PolicyIndex(kNullLoc, 5, 7), CheckError);
}

TEST_CASE("model config: architecture names") {
  ModelConfig c;
  CHECK(c.Architecture() == "b6c96");
  ParseArchitecture("b10c128", &c);
  CHECK(c.blocks == 10);
  CHECK(c.channels == 128);
  CHECK(c.Architecture() == "b10c128");
  ParseArchitecture("b1c8", &c);
  CHECK(c.Architecture() == "b1c8");
  ParseArchitecture("b64c1024", &c);
  CHECK(c.Architecture() == "b64c1024");
  for (const char* bad :
       {"", "b", "c96", "b6", "b6c", "6c96", "b6c96x", " b6c96", "B6C96", "b0c96", "b65c96", "b6c7",
        "b6c1025", "b-6c96", "b+6c96", "b06c96", "b6c99999999999", "b6 c96"}) {
    CAPTURE(bad);
    ModelConfig d;
    CHECK_THROWS_AS(ParseArchitecture(bad, &d), ConfigError);
    CHECK(d.Architecture() == "b6c96");  // unchanged
  }
  try {
    ParseArchitecture("b6c2000", &c);
    FAIL("no exception");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("'b6c2000'") != std::string::npos);
  }
}

TEST_CASE("evaluator: batch rows and the uniform evaluator") {
  EvalBatch batch;
  batch.Resize(3, 7);
  CHECK(batch.spatial.size() == 3u * kNumSpatialFeatures * 49);
  CHECK(batch.global.size() == 3u * kNumGlobalFeatures);
  CHECK(batch.SpatialRow(2) - batch.SpatialRow(0) == 2 * kNumSpatialFeatures * 49);
  CHECK(batch.GlobalRow(1) - batch.GlobalRow(0) == kNumGlobalFeatures);
  FillFeatures(KoPosition(), 7, 0, batch.SpatialRow(1), batch.GlobalRow(1));

  RandomNetEvaluator eval(7);
  CHECK(eval.model_name() == "random");
  CHECK(eval.pos_len() == 7);
  EvalOutput out;
  out.policy_logits.assign(1000, 5.0f);
  out.value_logits.assign(10, 5.0f);
  out.score.assign(10, 5.0f);
  out.ownership.assign(1000, 5.0f);
  eval.Evaluate(batch, &out);
  CHECK(out.size == 3);
  CHECK(out.pos_len == 7);
  CHECK(out.policy_logits == std::vector<float>(3 * 50, 0.0f));
  CHECK(out.value_logits == std::vector<float>(3 * 3, 0.0f));
  CHECK(out.score == std::vector<float>(3, 0.0f));
  CHECK(out.ownership == std::vector<float>(3 * 49, 0.0f));
}
