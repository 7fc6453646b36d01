#pragma once
// Helpers shared by the benchmark programs.

#include <algorithm>
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

}  // namespace tengen::bench
