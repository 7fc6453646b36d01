#pragma once
// The UTC times every program writes ("YYYY-MM-DDTHH:MM:SS[.fff]Z"), read and written as
// seconds since the epoch.

#include <optional>
#include <string>

namespace tengen::status {

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fff]Z"; nullopt when the text is not such a
// time.
std::optional<double> ParseUtc(const std::string& text);
// "YYYY-MM-DDTHH:MM:SSZ".
std::string FormatUtc(double seconds);

}  // namespace tengen::status
