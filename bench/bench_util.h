#pragma once
// Helpers shared by the benchmark programs.

#include <algorithm>
#include <vector>

namespace tengen::bench {

// The median of several measurements (the upper one of the middle two for an even count).
inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace tengen::bench
