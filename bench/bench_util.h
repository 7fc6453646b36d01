#pragma once
// Helpers shared by the benchmark programs.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace tengen::bench {

// The median of several measurements (the upper one of the middle two for an even count).
inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The non-empty comma-separated parts of an option value ("fp32,bf16").
inline std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// Items per second of `step` (called repeatedly; it returns how many items it did) over at least
// `seconds`.
template <typename Step>
double TimedRate(Step step, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  int64_t items = 0;
  double elapsed = 0;
  do {
    items += step();
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<double>(items) / elapsed;
}

}  // namespace tengen::bench
