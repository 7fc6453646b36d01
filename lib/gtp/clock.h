#pragma once
// The game clock as GTP controllers report it (time_settings, kgs-time_settings, time_left),
// and the share of it that genmove may spend (gtp/gtp_engine.h applies both).

#include "go/board.h"

namespace tengen::gtp {

// The time system (time_settings, kgs-time_settings). time_settings M T S is Canadian byo-yomi
// (S stones in each period of T seconds) when T > 0, absolute when only M > 0, none when both
// are 0. kgs-time_settings adds Japanese byo-yomi: P periods of T seconds, each move within
// one; KGS then sends the periods left where time_left has stones.
enum class TimeSystem { kNone, kAbsolute, kCanadian, kByoyomi };

struct TimeControl {
  TimeSystem system = TimeSystem::kNone;
  double main_seconds = 0;
  double period_seconds = 0;
  int period_count = 0;  // Canadian: stones per period; byo-yomi: periods
};

// The controller's clock for one colour (time_settings / time_left), also run down by the
// engine itself between time_left commands (a controller need not send them).
struct ClockState {
  bool known = false;    // set by time_settings or time_left
  double seconds = 0;    // left in main time, or in the current period
  int stones = 0;        // in overtime: stones to play in the period (Canadian) or periods left
                         // (Japanese byo-yomi); 0 in main time
  bool byoyomi = false;  // Japanese byo-yomi: each overtime move may use the rest of its period
};

// Seconds to spend on this move given the clock: in main time a 1/max(10, empty points / 3)
// share (so a 9x9 game with 60 s left spends 2 s on move one), in Canadian overtime a
// 1/stones share of the period, in Japanese byo-yomi the rest of the period; 90% of that, and
// never more than leaves a reserve of 0.25 s (pipes, process scheduling, the playout that runs
// past the deadline) for this move and each other stone of the period. 0 (no limit) when the
// clock is unknown; a clock at or below zero still gets a moment, never "no limit".
double MoveTimeBudget(const ClockState& clock, const go::Board& board);

// What a move that took `seconds` leaves on the clock under `control`: main time runs down into
// overtime; a Canadian period that is played out starts afresh; a byo-yomi move within its
// period keeps the period, one that overruns uses up a period.
void RunDownClock(const TimeControl& control, double seconds, ClockState* clock);

}  // namespace tengen::gtp
