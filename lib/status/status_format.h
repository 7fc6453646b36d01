#pragma once
// A RunStatus (status/run_status.h) written out: as text for people (tengen-status, the summary
// of tengen-report) and as JSON (tengen-status --set json=true), plus the ways numbers, times,
// sizes and processes are written in both and in the status warnings.

#include <string>

#include "status/run_status.h"

namespace tengen::status {

// For people: sections, one line per process, warnings last (see OPERATIONS.md).
std::string FormatStatus(const RunStatus& status);
// The same as one JSON object (keys documented in OPERATIONS.md).
std::string StatusJson(const RunStatus& status);

// "45 s", "12 min", "3.5 h", "2.1 d".
std::string FormatDuration(double seconds);
// "512 B", "12.3 MB", "1.20 GB".
std::string FormatBytes(double bytes);
// Integers as integers, other values with a few significant digits; "-" when unknown.
std::string Num(double value);
// "12.5%" for 0.125.
std::string Percent(double fraction);
// "3 min ago" from the times in seconds ("in ... (clock skew?)" for a time well ahead of now).
std::string Ago(double now, double then);
// "selfplay on host (pid 123)".
std::string Who(const HeartbeatRecord& heartbeat);

}  // namespace tengen::status
