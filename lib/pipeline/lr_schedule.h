#pragma once
// The factors the trainer's per-sample learning rate is multiplied by over a run: KataGo's
// warm-up steps, and a piecewise-constant schedule given by the user (the trainer's
// `lr_schedule` key, KataGo's `-lr-schedule`), both keyed on samples trained.

#include <cstdint>
#include <string>
#include <vector>

namespace tengen::pipeline {

// From `from_samples` samples on (until the next step), the learning rate is multiplied by
// `factor`.
struct LrStep {
  int64_t from_samples = 0;
  double factor = 1.0;
};

// Steps in increasing order of from_samples; before the first, the factor is 1. Empty: no
// schedule.
using LrSchedule = std::vector<LrStep>;

// Parses "SAMPLES:FACTOR,..." ("1000000:0.3,2000000:0.1"); "" is no schedule. SAMPLES are
// whole numbers (1e6 is fine) in strictly increasing order, FACTOR >= 0. Throws ConfigError
// naming `key` and the text.
LrSchedule ParseLrSchedule(const std::string& key, const std::string& text);

// The text ParseLrSchedule reads back into `schedule`.
std::string FormatLrSchedule(const LrSchedule& schedule);

// The schedule's factor after `samples`: that of the last step at or below it, 1 before any.
double LrScheduleFactor(const LrSchedule& schedule, int64_t samples);

// KataGo's warm-up steps, scaled to `warmup_samples` (KataGo: 2M): the factor for the
// learning rate after `samples` (1/20 at the start, 1 from warmup_samples on).
double WarmupFactor(int64_t samples, int64_t warmup_samples);

}  // namespace tengen::pipeline
