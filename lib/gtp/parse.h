#pragma once
// Whole-string number parsing for GTP arguments, shared by the engine's commands.

#include <string>

namespace tengen::gtp {

// "12x", "" and values beyond +-1e9 are rejected.
bool ParseInt(const std::string& text, int* value);
// "nan" and "inf" are rejected (no sane komi or time).
bool ParseFloat(const std::string& text, double* value);

}  // namespace tengen::gtp
