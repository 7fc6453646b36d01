#include "gtp/clock.h"

#include <algorithm>

namespace tengen::gtp {
namespace {

// Seconds the clock keeps back beyond a move's budget, for each move still to be played in the
// period: the pipes to the controller, process scheduling, and the playout (a net evaluation)
// that runs past the deadline.
constexpr double kTimeReserveSeconds = 0.25;
// The least a move is given, even on a clock that has run out.
constexpr double kMinMoveSeconds = 0.01;

}  // namespace

double MoveTimeBudget(const ClockState& clock, const go::Board& board) {
  if (!clock.known) return 0;
  double share = clock.seconds;  // Japanese byo-yomi: the rest of the period
  double available = clock.seconds - kTimeReserveSeconds;
  if (clock.stones > 0 && !clock.byoyomi) {
    // Canadian: a share of the period, and every stone left in it keeps its reserve.
    share = clock.seconds / clock.stones;
    available = clock.seconds - clock.stones * kTimeReserveSeconds;
  } else if (clock.stones == 0) {
    int empty = 0;
    for (int y = 0; y < board.size(); ++y) {
      for (int x = 0; x < board.size(); ++x) {
        if (board.At(board.LocOf(x, y)) == go::Color::kEmpty) ++empty;
      }
    }
    share = clock.seconds / std::max(10, empty / 3);
  }
  // A clock that has run out still gets a moment rather than "no limit".
  return std::max(std::min(0.9 * share, available), kMinMoveSeconds);
}

void RunDownClock(const TimeControl& control, double seconds, ClockState* clock) {
  if (!clock->known || control.system == TimeSystem::kNone) return;
  clock->seconds -= seconds;
  const bool overtime =
      control.system == TimeSystem::kCanadian || control.system == TimeSystem::kByoyomi;
  if (clock->stones == 0) {
    // Main time, until it runs out.
    if (clock->seconds > 0 || !overtime) return;
    const double overrun = -clock->seconds;
    clock->seconds = control.period_seconds;
    clock->stones = control.period_count;
    if (control.system == TimeSystem::kCanadian) clock->seconds -= overrun;
    return;
  }
  if (control.system == TimeSystem::kCanadian) {
    if (--clock->stones == 0) {
      clock->seconds = control.period_seconds;
      clock->stones = control.period_count;
    }
    return;
  }
  // Byo-yomi: a move within the period keeps it; each overrun of a whole period costs one.
  while (clock->seconds < 0 && clock->stones > 1) {
    clock->seconds += control.period_seconds;
    --clock->stones;
  }
  if (clock->seconds >= 0) clock->seconds = control.period_seconds;
}

}  // namespace tengen::gtp
