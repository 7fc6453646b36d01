#include "pipeline/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/error.h"
#include "util/text.h"

namespace tengen::pipeline {
namespace {

// One number of an lr_schedule entry; ConfigError naming the key, the whole text and the item.
double ParseScheduleNumber(const std::string& key, const std::string& text,
                           const std::string& item) {
  const char* begin = item.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (item.empty() || end != begin + item.size() || !std::isfinite(value))
    throw ConfigError("bad value '" + text + "' for " + key + ": '" + item +
                      "' is not a number (expected SAMPLES:FACTOR pairs, e.g. "
                      "\"1000000:0.3,2000000:0.1\")");
  return value;
}

}  // namespace

LrSchedule ParseLrSchedule(const std::string& key, const std::string& text) {
  LrSchedule schedule;
  if (Trim(text).empty()) return schedule;
  std::stringstream stream(text);
  std::string entry;
  while (std::getline(stream, entry, ',')) {
    entry = Trim(entry);
    const size_t colon = entry.find(':');
    if (colon == std::string::npos)
      throw ConfigError("bad value '" + text + "' for " + key + ": '" + entry +
                        "' has no ':' (expected SAMPLES:FACTOR pairs, e.g. "
                        "\"1000000:0.3,2000000:0.1\")");
    const double samples = ParseScheduleNumber(key, text, Trim(entry.substr(0, colon)));
    const double factor = ParseScheduleNumber(key, text, Trim(entry.substr(colon + 1)));
    if (samples < 0 || samples != std::floor(samples) || samples > 1e18)
      throw ConfigError("bad value '" + text + "' for " + key + ": '" + entry +
                        "': samples must be a whole number >= 0");
    if (factor < 0)
      throw ConfigError("bad value '" + text + "' for " + key + ": '" + entry +
                        "': the factor must be >= 0");
    const auto from = static_cast<int64_t>(samples);
    if (!schedule.empty() && from <= schedule.back().from_samples)
      throw ConfigError("bad value '" + text + "' for " + key + ": '" + entry +
                        "': samples must increase from one step to the next");
    schedule.push_back({from, factor});
  }
  return schedule;
}

std::string FormatLrSchedule(const LrSchedule& schedule) {
  std::ostringstream text;
  for (size_t i = 0; i < schedule.size(); ++i)
    text << (i ? "," : "") << schedule[i].from_samples << ":" << schedule[i].factor;
  return text.str();
}

double LrScheduleFactor(const LrSchedule& schedule, int64_t samples) {
  double factor = 1.0;
  for (const LrStep& step : schedule) {
    if (step.from_samples > samples) break;
    factor = step.factor;
  }
  return factor;
}

double WarmupFactor(int64_t samples, int64_t warmup_samples) {
  if (warmup_samples <= 0 || samples >= warmup_samples) return 1.0;
  // KataGo's steps at 250k-sample intervals of a 2M warm-up.
  static constexpr double kFactors[] = {1 / 20.0, 1 / 14.0, 1 / 10.0, 1 / 7.0,
                                        1 / 5.0,  1 / 3.0,  1 / 2.0,  1 / 1.4};
  const int64_t step = samples * 8 / warmup_samples;
  return kFactors[std::clamp<int64_t>(step, 0, 7)];
}

}  // namespace tengen::pipeline
