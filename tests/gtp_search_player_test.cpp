// The MCTS move generator behind tengen-gtp (gtp/search_player.h) and the cleanup rule
// (gtp/cleanup.h), in process with the uniform evaluator and small fakes: legal moves, tree
// reuse, root-parallel threads, resignation, dead stones and kgs-genmove_cleanup.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "go/board.h"
#include "go/game.h"
#include "go/score.h"
#include "gtp/cleanup.h"
#include "gtp/gtp_engine.h"
#include "gtp/search_player.h"
#include "search/leaf_evaluator.h"
#include "search/mcts.h"
#include "util/rng.h"

namespace tengen::gtp {
namespace {

// Every position has the same value for black: `black_value` for black to move, its negation
// for white.
class BlackValueEvaluator : public search::LeafEvaluator {
 public:
  explicit BlackValueEvaluator(float black_value) : black_value_(black_value) {}
  search::LeafEvaluation Evaluate(const go::GameState& state) override {
    search::LeafEvaluation eval = uniform_.Evaluate(state);
    eval.value = state.to_move() == go::Color::kBlack ? black_value_ : -black_value_;
    return eval;
  }

 private:
  float black_value_;
  search::UniformEvaluator uniform_;
};

struct Fixture {
  explicit Fixture(int threads = 1) : evaluators(threads) {
    for (auto& e : evaluators) pointers.push_back(&e);
  }
  std::vector<search::UniformEvaluator> evaluators;
  std::vector<search::LeafEvaluator*> pointers;
};

GenMoveRequest Request(go::Color color, bool cleanup = false) {
  GenMoveRequest request;
  request.color = color;
  request.cleanup = cleanup;
  return request;
}

go::GameState FromAscii(const std::string& rows, go::Color to_move) {
  return go::GameState(go::Board::FromAscii(rows), go::Rules(), to_move);
}

TEST_CASE(
    "search player: after the opponent's pass, the vital point of its own eye space is searched") {
  // Black's group has one eye space, the straight three on the top edge: black lives only by
  // playing its middle point (1, 0), which Tromp-Taylor already counts as black's area. White
  // has just passed. Selfplay's fill rules would keep that point out of the search; the
  // players' own rules (PlaySearchParams, tengen-gtp's defaults) search every legal move.
  go::GameState game = FromAscii(R"(
    . . . X O . .
    X X X X O . .
    O O O O O . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .)",
                                 go::Color::kWhite);
  game.Play({go::kPassLoc, go::Color::kWhite});
  const int vital = search::MoveIndex(go::MakeLoc(1, 0, 7), 7);
  const auto visits_on_vital_point = [&](const search::SearchParams& params) {
    search::UniformEvaluator evaluator;
    Rng rng(41);
    search::Search search(params, evaluator, rng);
    search.SetPosition(game);
    return search.Run(200, false).visits[vital];
  };
  const search::SearchParams play = SearchPlayerParams().search;
  CHECK(play.no_fill == search::NoFill::kOff);
  CHECK(visits_on_vital_point(play) > 0);
  for (const search::NoFill rule : {search::NoFill::kAfterPass, search::NoFill::kOncePassed}) {
    CAPTURE(search::NoFillName(rule));
    search::SearchParams selfplay_rule = play;
    selfplay_rule.no_fill = rule;
    CHECK(visits_on_vital_point(selfplay_rule) == 0);
  }
}

TEST_CASE("search player: legal moves and the visits asked for") {
  Fixture fixture;
  SearchPlayerParams params;
  params.visits = 50;
  SearchPlayer player(params, fixture.pointers, 1);
  go::GameState game(5);
  for (int turn = 0; turn < 30 && !game.IsOver(); ++turn) {
    const go::Color color = game.to_move();
    const GenMoveReply reply = player.GenerateMove(game, Request(color));
    REQUIRE_FALSE(reply.resign);
    REQUIRE(game.IsLegal({reply.loc, color}));
    CHECK(player.last_summary().visits >= 50);
    game.Play({reply.loc, color});
  }
}

TEST_CASE("search player: LCB selection plays the surest good move among the well visited") {
  // Three moves of a 2x2 board's 5 (pass last): A the most visited, B fewer visits but a
  // clearly better utility, C better still but under the 15% share of A's visits.
  search::SearchResult r;
  r.visits = {150, 40, 20, 0, 0};
  r.utility = {0.1f, 0.5f, 0.9f, 0, 0};
  r.utility_stdev = {0.5f, 0.3f, 0.1f, 0, 0};
  const search::SearchParams params = PlaySearchParams();
  CHECK(LcbMoveIndex({&r}, 5.0, 0.15, params) == 1);
  CHECK(LcbMoveIndex({&r}, 5.0, 0.1, params) == 2);  // C now has enough visits
  // With a wide spread B's bound falls below A's: the most visited is kept.
  r.utility_stdev[1] = 2.0f;
  CHECK(LcbMoveIndex({&r}, 5.0, 0.15, params) == 0);

  // Two trees pool into one sample: B's playouts split 20 / 20 with means 0 and 1 and spreads
  // 0.3 have the mean 0.5 and the spread sqrt(0.09 + 0.25) = 0.58, which 10 stdevs make count.
  search::SearchResult a = r, b = r;
  a.visits = {75, 20, 10, 0, 0};
  b.visits = {75, 20, 10, 0, 0};
  a.utility_stdev = b.utility_stdev = {0.5f, 0.3f, 0.1f, 0, 0};
  a.utility[1] = 0.0f;
  b.utility[1] = 1.0f;
  const double pooled = search::UtilityLcb(0.5, std::sqrt(0.34), 40, 10.0, 1.4);
  const double single = search::UtilityLcb(0.1, 0.5, 150, 10.0, 1.4);
  REQUIRE(pooled < single);  // so the pooled spread decides
  CHECK(LcbMoveIndex({&a, &b}, 10.0, 0.15, params) == 0);
  a.utility[1] = b.utility[1] = 0.5f;  // the same mean, each tree's own spread only
  CHECK(LcbMoveIndex({&a, &b}, 10.0, 0.15, params) == 1);
}

TEST_CASE("search player: with LCB selection on, two trees still play legal moves to the end") {
  Fixture fixture(2);
  SearchPlayerParams params;
  params.visits = 60;
  params.lcb_stdevs = 5;
  SearchPlayer player(params, fixture.pointers, 2);
  go::GameState game(5, go::Rules(), 60);
  while (!game.IsOver()) {
    const go::Color color = game.to_move();
    const GenMoveReply reply = player.GenerateMove(game, Request(color));
    REQUIRE_FALSE(reply.resign);
    REQUIRE(game.IsLegal({reply.loc, color}));
    game.Play({reply.loc, color});
  }
  CHECK(game.moves().size() >= 2);
}

TEST_CASE("search player: the tree is reused when the game follows on, not after undo") {
  Fixture fixture;
  SearchPlayerParams params;
  params.visits = 80;
  SearchPlayer player(params, fixture.pointers, 2);
  go::GameState game(5);
  const GenMoveReply first = player.GenerateMove(game, Request(go::Color::kBlack));
  CHECK(player.last_summary().reused_visits == 0);
  game.Play({first.loc, go::Color::kBlack});
  // White's root is the subtree of black's move: the most visited child, so it has visits.
  const GenMoveReply second = player.GenerateMove(game, Request(go::Color::kWhite));
  CHECK(player.last_summary().reused_visits > 0);
  CHECK(player.last_summary().visits >= 80);
  game.Play({second.loc, go::Color::kWhite});
  // Undo: the game no longer extends the tree's root, so the search starts afresh.
  REQUIRE(game.Undo());
  REQUIRE(game.Undo());
  player.GenerateMove(game, Request(go::Color::kBlack));
  CHECK(player.last_summary().reused_visits == 0);
  // A changed komi is a different game for the search.
  go::GameState other(5);
  other.set_komi(0.5);
  player.GenerateMove(other, Request(go::Color::kBlack));
  CHECK(player.last_summary().reused_visits == 0);

  SearchPlayerParams no_reuse = params;
  no_reuse.reuse_tree = false;
  SearchPlayer fresh(no_reuse, fixture.pointers, 3);
  go::GameState g2(5);
  g2.Play({fresh.GenerateMove(g2, Request(go::Color::kBlack)).loc, go::Color::kBlack});
  fresh.GenerateMove(g2, Request(go::Color::kWhite));
  CHECK(fresh.last_summary().reused_visits == 0);
}

TEST_CASE("search player: several threads sum their trees' visits") {
  Fixture fixture(3);
  SearchPlayerParams params;
  params.visits = 90;
  SearchPlayer player(params, fixture.pointers, 4);
  go::GameState game(7);
  for (int turn = 0; turn < 6; ++turn) {
    const go::Color color = game.to_move();
    const GenMoveReply reply = player.GenerateMove(game, Request(color));
    REQUIRE(game.IsLegal({reply.loc, color}));
    CHECK(player.last_summary().visits >= 90);
    game.Play({reply.loc, color});
  }
}

TEST_CASE("search player: a time limit alone ends the search") {
  Fixture fixture;
  SearchPlayerParams params;
  params.visits = 0;
  params.seconds_per_move = 0.05;
  SearchPlayer player(params, fixture.pointers, 5);
  go::GameState game(5);
  const GenMoveReply reply = player.GenerateMove(game, Request(go::Color::kBlack));
  CHECK(game.IsLegal({reply.loc, go::Color::kBlack}));
  CHECK(player.last_summary().visits >= 1);
  // Neither limit is a configuration error.
  SearchPlayerParams none = params;
  none.seconds_per_move = 0;
  CHECK_THROWS(SearchPlayer(none, fixture.pointers, 5));
}

TEST_CASE("search player: resigns only when enabled, after the given number of own moves") {
  BlackValueEvaluator evaluator(-1.0f);  // black is lost in every position
  std::vector<search::LeafEvaluator*> pointers = {&evaluator};
  SearchPlayerParams params;
  params.visits = 20;
  params.resign_turns = 2;
  params.resign_threshold = -0.9;
  {
    SearchPlayer player(params, pointers, 6);  // resign off by default
    go::GameState game(5);
    for (int turn = 0; turn < 6; ++turn) {
      const GenMoveReply reply = player.GenerateMove(game, Request(game.to_move()));
      REQUIRE_FALSE(reply.resign);
      game.Play({reply.loc, game.to_move()});
    }
  }
  params.resign = true;
  SearchPlayer player(params, pointers, 6);
  go::GameState game(5);
  GenMoveReply reply = player.GenerateMove(game, Request(go::Color::kBlack));
  REQUIRE_FALSE(reply.resign);
  CHECK(player.last_summary().value < -0.9);
  game.Play({reply.loc, go::Color::kBlack});
  reply = player.GenerateMove(game, Request(go::Color::kWhite));  // white is winning
  REQUIRE_FALSE(reply.resign);
  game.Play({reply.loc, go::Color::kWhite});
  reply = player.GenerateMove(game, Request(go::Color::kBlack));
  CHECK(reply.resign);
  // Never in cleanup mode.
  CHECK_FALSE(player.GenerateMove(game, Request(go::Color::kBlack, true)).resign);
}

// Black owns the left, white the right; a white stone sits dead in black's area (A4) and a
// black stone dead in white's (G4).
const char* const kDeadStones =
    ". . X . O . .\n"
    ". . X . O . .\n"
    ". . X . O . .\n"
    "O . X . O . X\n"
    ". . X . O . .\n"
    ". . X . O . .\n"
    ". . X . O . .\n";

TEST_CASE("cleanup: random playouts find the dead stones") {
  const go::GameState game = FromAscii(kDeadStones, go::Color::kBlack);
  Rng rng(7);
  const std::vector<float> ownership = PlayoutOwnership(game, 200, rng);
  const go::Board& board = game.board();
  const std::vector<go::Loc> dead_white = DeadStones(board, ownership, go::Color::kWhite, 0.5);
  const std::vector<go::Loc> dead_black = DeadStones(board, ownership, go::Color::kBlack, 0.5);
  REQUIRE(dead_white.size() == 1);
  CHECK(dead_white[0] == board.LocOf(0, 3));
  REQUIRE(dead_black.size() == 1);
  CHECK(dead_black[0] == board.LocOf(6, 3));
  CHECK(DeadStonesOfBoth(board, ownership, 0.5) ==
        std::vector<go::Loc>{board.LocOf(6, 3), board.LocOf(0, 3)});
  // The walls are alive: their points belong to their owner in most playouts.
  CHECK(ownership[0 * 7 + 2] > 0.5);
  CHECK(ownership[0 * 7 + 4] < -0.5);
}

TEST_CASE("cleanup: captures first, then safe liberties, passes with nothing dead") {
  // Ownership made up for the test: black owns columns A-C, white D-G.
  auto ownership_for = [](int size) {
    std::vector<float> o(size * size);
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) o[y * size + x] = x <= 2 ? 1.0f : -1.0f;
    }
    return o;
  };
  const std::vector<float> ownership = ownership_for(7);
  Rng rng(8);
  {
    // A white stone in atari at A4 (its last liberty is A3): capturing it comes first.
    const go::GameState game = FromAscii(
        ". . X O . . .\n"
        ". . X O . . .\n"
        "X . X O . . .\n"
        "O X X O . . .\n"
        ". . X O . . .\n"
        ". . X O . . .\n"
        ". . X O . . .\n",
        go::Color::kBlack);
    CHECK(ChooseCleanupMove(game, go::Color::kBlack, ownership, 0.5, {}, rng) ==
          game.board().LocOf(0, 4));
  }
  {
    // Two liberties (A3, A5): both are safe for black; then after A5, A3 captures.
    go::GameState game = FromAscii(
        ". . X O . . .\n"
        ". . X O . . .\n"
        ". . X O . . .\n"
        "O X X O . . .\n"
        ". . X O . . .\n"
        ". . X O . . .\n"
        ". . X O . . .\n",
        go::Color::kBlack);
    for (int move_number = 0; move_number < 2; ++move_number) {
      const go::Loc move = ChooseCleanupMove(game, go::Color::kBlack, ownership, 0.5, {}, rng);
      REQUIRE(move != go::kPassLoc);
      game.Play({move, go::Color::kBlack});
      game.Play({go::kPassLoc, go::Color::kWhite});
    }
    CHECK(game.board().At(game.board().LocOf(0, 3)) == go::Color::kEmpty);
    // Nothing dead any more: passing is allowed.
    CHECK(ChooseCleanupMove(game, go::Color::kBlack, ownership, 0.5, {}, rng) == go::kPassLoc);
  }
  {
    // Black has only its own eyes (A7, B4, A1) left in its area. A dead white stone on the
    // white side (F1, made dead by the made-up ownership) is attacked from its liberties,
    // which touch the dead chain; the eyes are never filled.
    const std::string rows =
        ". X X O . . .\n"
        "X X X O . . .\n"
        "X X X O . . .\n"
        "X . X O . . .\n"
        "X X X O . . .\n"
        "X X X O . . .\n"
        ". X X O . O .\n";
    const go::GameState game = FromAscii(rows, go::Color::kBlack);
    const go::Board& b = game.board();
    std::vector<float> o = ownership;
    o[6 * 7 + 5] = 1.0f;
    const go::Loc move = ChooseCleanupMove(game, go::Color::kBlack, o, 0.5, {}, rng);
    CHECK((move == b.LocOf(4, 6) || move == b.LocOf(6, 6) || move == b.LocOf(5, 5)));
    // With nothing dead, black passes rather than fill an eye.
    CHECK(ChooseCleanupMove(game, go::Color::kBlack, ownership, 0.5, {}, rng) == go::kPassLoc);
  }
}

TEST_CASE("cleanup: kgs-genmove_cleanup captures the dead stones before passing") {
  Fixture fixture;
  SearchPlayerParams params;
  params.visits = 30;
  GtpOptions options;
  options.board_size = 7;
  GtpEngine engine(options, std::make_unique<SearchPlayer>(params, fixture.pointers, 9));
  bool quit = false;
  // Set up kDeadStones, then both pass.
  const std::vector<std::string> setup = {"b c1", "w e1", "b c2", "w e2", "b c3",   "w e3",
                                          "b c4", "w e4", "b c5", "w e5", "b c6",   "w e6",
                                          "b c7", "w e7", "b g4", "w a4", "b pass", "w pass"};
  for (const std::string& move : setup)
    REQUIRE(engine.HandleLine("play " + move, &quit) == "= \n\n");
  // The dead white stone is listed dead; the walls are alive.
  CHECK(engine.HandleLine("final_status_list dead", &quit) == "= A4\nG4\n\n");
  const std::string alive = engine.HandleLine("final_status_list alive", &quit);
  CHECK(alive.find("C4") != std::string::npos);
  CHECK(alive.find("E4") != std::string::npos);
  CHECK(alive.find("A4") == std::string::npos);
  CHECK(engine.HandleLine("final_status_list seki", &quit) == "= \n\n");
  int black_moves = 0;
  while (engine.game().board().At(engine.game().board().LocOf(0, 3)) == go::Color::kWhite) {
    REQUIRE(black_moves < 10);
    const std::string answer = engine.HandleLine("kgs-genmove_cleanup b", &quit);
    REQUIRE(answer != "= pass\n\n");
    REQUIRE(answer[0] == '=');
    ++black_moves;
    REQUIRE(engine.HandleLine("play w pass", &quit) == "= \n\n");
  }
  CHECK(black_moves >= 2);  // A4 had three liberties
}

TEST_CASE("cleanup: the settled count takes the dead stones off the board") {
  // kDeadStones with made-up ownership: black owns columns A-C and its stone G4, white columns
  // E-G. So the white stone A4 is dead and the black stone G4 is not.
  std::vector<float> ownership(7 * 7);
  for (int y = 0; y < 7; ++y) {
    for (int x = 0; x < 7; ++x) ownership[y * 7 + x] = x <= 2 ? 1.0f : x >= 4 ? -1.0f : 0.0f;
  }
  ownership[3 * 7 + 6] = 1.0f;
  const go::Board board = go::Board::FromAscii(kDeadStones);
  // As the board stands, A4 and G4 make both sides' areas dame: 8 stones each.
  CHECK(go::TrompTaylorScore(board, 0.5) == doctest::Approx(-0.5));
  // Without A4, columns A-C are black's (21) and G4 counts (1); white has column E (7).
  CHECK(SettledScore(board, ownership, 0.5, 0.5) == doctest::Approx(22 - 7 - 0.5));
  // With G4 dead too, both sides have 21.
  ownership[3 * 7 + 6] = -1.0f;
  CHECK(SettledScore(board, ownership, 0.5, 0.5) == doctest::Approx(-0.5));
}

TEST_CASE("cleanup: the cleanup phase starts after the game's first two passes") {
  go::GameState game(7);
  const go::Board& b = game.board();
  game.Play({b.LocOf(2, 2), go::Color::kBlack});
  game.Play({go::kPassLoc, go::Color::kWhite});
  game.Play({b.LocOf(4, 4), go::Color::kBlack});  // a pass, then a move: not the end
  game.Play({go::kPassLoc, go::Color::kWhite});
  CHECK(CleanupStart(game).moves().size() == game.moves().size());  // no two passes yet
  game.Play({go::kPassLoc, go::Color::kBlack});
  game.Play({b.LocOf(3, 3), go::Color::kWhite});
  game.Play({go::kPassLoc, go::Color::kBlack});
  game.Play({go::kPassLoc, go::Color::kWhite});
  const go::GameState start = CleanupStart(game);
  CHECK(start.moves().size() == 5);
  CHECK(start.board().At(b.LocOf(3, 3)) == go::Color::kEmpty);
  CHECK(start.board().StoneCount(go::Color::kBlack) == 2);
}

// 7x7 at komi 7.5: black D4, white F4, both pass (white wins by komi).
go::GameState OneStoneEachBothPassed() {
  go::GameState game(7);
  game.set_komi(7.5);
  const go::Board& b = game.board();
  game.Play({b.LocOf(3, 3), go::Color::kBlack});
  game.Play({b.LocOf(5, 3), go::Color::kWhite});
  game.Play({go::kPassLoc, go::Color::kBlack});
  game.Play({go::kPassLoc, go::Color::kWhite});
  return game;
}

TEST_CASE("cleanup: the count is taken away only by the opponent's stones since both passed") {
  // One stone each, both pass: white wins by komi.
  go::GameState game = OneStoneEachBothPassed();
  const go::Board& b = game.board();
  // Ownership made up for the test: black owns every point, so white's stone is dead and the
  // settled count is black's.
  const std::vector<float> all_black(7 * 7, 1.0f);
  CleanupParams params;
  // The same board as when both passed: whatever an estimate says, nothing was taken.
  CHECK_FALSE(CountTakenAway(game, go::Color::kWhite, all_black, params));
  game.Play({b.LocOf(3, 0), go::Color::kBlack});
  CHECK(CountTakenAway(game, go::Color::kWhite, all_black, params));
  // Black was behind when both passed: nothing was taken from black.
  CHECK_FALSE(CountTakenAway(game, go::Color::kBlack, all_black, params));
}

TEST_CASE("cleanup: the search's own judgement before both passed counts for this game only") {
  go::GameState game(7);
  const go::Board& b = game.board();
  game.Play({b.LocOf(3, 3), go::Color::kBlack});
  game.Play({b.LocOf(5, 3), go::Color::kWhite});
  const SearchJudgement ahead{game.moves(), 0.6f};
  game.Play({go::kPassLoc, go::Color::kBlack});
  game.Play({go::kPassLoc, go::Color::kWhite});
  CHECK(JudgedAheadBeforeCleanup(ahead, game));
  CHECK_FALSE(JudgedAheadBeforeCleanup(SearchJudgement{ahead.moves, -0.2f}, game));
  game.Play({b.LocOf(1, 1), go::Color::kBlack});
  // Made in the cleanup phase, or in another game: not a judgement of this game's end.
  CHECK_FALSE(JudgedAheadBeforeCleanup(SearchJudgement{game.moves(), 0.6f}, game));
  CHECK_FALSE(JudgedAheadBeforeCleanup(
      SearchJudgement{{{b.LocOf(2, 2), go::Color::kBlack}, {b.LocOf(5, 3), go::Color::kWhite}},
                      0.6f},
      game));
  CHECK(JudgedAheadBeforeCleanup(ahead, game));
}

TEST_CASE(
    "cleanup: judged ahead by its search, the engine plays on though the settled count was lost") {
  // One stone each, both pass: white wins by komi by the settled count. White plays on.
  go::GameState game = OneStoneEachBothPassed();
  const go::Board& b = game.board();
  game.Play({go::kPassLoc, go::Color::kBlack});
  game.Play({b.LocOf(1, 1), go::Color::kWhite});
  // Ownership made up for the test: the count is white's now, or black's.
  const std::vector<float> all_white(7 * 7, -1.0f);
  const std::vector<float> all_black(7 * 7, 1.0f);
  CleanupParams params;
  CHECK_FALSE(CountTakenAway(game, go::Color::kBlack, all_white, params));
  CHECK(CountTakenAway(game, go::Color::kBlack, all_white, params, /*judged_ahead=*/true));
  CHECK_FALSE(CountTakenAway(game, go::Color::kBlack, all_black, params, /*judged_ahead=*/true));
}

// The search player's kgs-genmove_cleanup for black on 7x7 at komi 7.5 after white has filled
// the left three columns but for two eyes (21 points: black, with at most the other 28, cannot
// win), black's own genmove (its search valuing every position at `black_value`), both
// passing, and white filling one of its eyes: does black play on?
bool BlackPlaysOnAfterOwnGenmove(float black_value) {
  BlackValueEvaluator evaluator(black_value);
  SearchPlayerParams params;
  params.visits = 30;
  SearchPlayer player(params, {&evaluator}, 13);
  go::GameState game(7);
  game.set_komi(7.5);
  const go::Board& b = game.board();
  const go::Loc eye = b.LocOf(0, 0);
  std::vector<go::Loc> white;
  for (int y = 0; y < 7; ++y) {
    for (int x = 0; x < 3; ++x) {
      if (x > 0 || (y != 0 && y != 6)) white.push_back(b.LocOf(x, y));
    }
  }
  for (size_t i = 0; i < white.size(); ++i) {
    game.Play({i == 0 ? b.LocOf(3, 3) : go::kPassLoc, go::Color::kBlack});
    game.Play({white[i], go::Color::kWhite});
  }
  const GenMoveReply own = player.GenerateMove(game, Request(go::Color::kBlack));
  REQUIRE_FALSE(own.resign);
  game.Play({own.loc, go::Color::kBlack});
  if (own.loc != go::kPassLoc) {
    game.Play({go::kPassLoc, go::Color::kWhite});
    game.Play({go::kPassLoc, go::Color::kBlack});
  }
  game.Play({go::kPassLoc, go::Color::kWhite});
  game.Play({go::kPassLoc, go::Color::kBlack});
  game.Play({eye, go::Color::kWhite});
  player.GenerateMove(game, Request(go::Color::kBlack, /*cleanup=*/true));
  return player.last_summary().plays_on;
}

TEST_CASE("cleanup: the search player asks its own last genmove whether the count was its") {
  CHECK(BlackPlaysOnAfterOwnGenmove(0.8f));
  CHECK_FALSE(BlackPlaysOnAfterOwnGenmove(-0.8f));
}

struct CleanupAnswer {
  std::string answer;
  bool plays_on = false;
};

// The engine's answer to kgs-genmove_cleanup after `moves` (GTP play arguments) on 7x7 at
// komi 7.5.
CleanupAnswer AskCleanup(const std::vector<std::string>& moves, const std::string& color) {
  Fixture fixture;
  SearchPlayerParams params;
  params.visits = 30;
  GtpOptions options;
  options.board_size = 7;
  auto player = std::make_unique<SearchPlayer>(params, fixture.pointers, 11);
  const SearchPlayer* search_player = player.get();
  GtpEngine engine(options, std::move(player));
  bool quit = false;
  REQUIRE(engine.HandleLine("komi 7.5", &quit) == "= \n\n");
  for (const std::string& move : moves) {
    REQUIRE(engine.HandleLine("play " + move, &quit) == "= \n\n");
  }
  CleanupAnswer result;
  result.answer = engine.HandleLine("kgs-genmove_cleanup " + color, &quit);
  result.plays_on = search_player->last_summary().plays_on;
  return result;
}

// Moves after `start` in which `color` plays `points` one by one and the other colour passes
// in between.
std::vector<std::string> Wall(std::vector<std::string> start, const std::string& color,
                              const std::string& other) {
  for (const char* point : {"d1", "d2", "d3", "d5", "d6", "d7"}) {
    start.push_back(color + " " + point);
    start.push_back(other + " pass");
  }
  start.pop_back();
  return start;
}

TEST_CASE("cleanup: plays on when the opponent's moves take away a count that was won") {
  // One stone each, both pass: white wins by komi. Then black walls off the left three
  // columns in the cleanup phase while white passes: the count is black's now.
  const CleanupAnswer white = AskCleanup(Wall({"b d4", "w f4", "b pass", "w pass"}, "b", "w"), "w");
  REQUIRE(white.answer[0] == '=');
  CHECK(white.answer != "= pass\n\n");
  CHECK(white.plays_on);
  // The same wall built by white against black, who was behind when both passed: black has
  // nothing to clean up and passes.
  const CleanupAnswer black = AskCleanup(Wall({"b f4", "w d4", "b pass", "w pass"}, "w", "b"), "b");
  CHECK(black.answer == "= pass\n\n");
  CHECK_FALSE(black.plays_on);
}

TEST_CASE("cleanup: a count that stays won ends with a pass once the dead stones are off") {
  // kDeadStones without G4: white wins by komi once A4 is off. Black captures A4 in the
  // cleanup phase; white has nothing dead to capture and passes.
  const std::vector<std::string> moves = {
      "b c1", "w e1", "b c2", "w e2", "b c3", "w e3",   "b c4",   "w e4", "b c5",   "w e5", "b c6",
      "w e6", "b c7", "w e7", "b b4", "w a4", "b pass", "w pass", "b a3", "w pass", "b a5"};
  const CleanupAnswer white = AskCleanup(moves, "w");
  CHECK(white.answer == "= pass\n\n");
  CHECK_FALSE(white.plays_on);
}

}  // namespace
}  // namespace tengen::gtp
