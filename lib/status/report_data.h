#pragma once
// The data of tengen-report's page (status/report.h lists its charts), read
// from a base directory: training losses, selfplay throughput, Elo of the
// models, gating decisions and how each model's selfplay games ended, as the
// JSON object the page embeds and its script draws.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "status/report.h"
#include "status/run_status.h"

namespace tengen::status {

// The page's data for base at time `now`; files it skips add notes. `status` is
// the run's status at `now` (the ladder's ratings come from it). Never throws
// for content read from base.
nlohmann::json ReportData(const std::string& base, const ReportOptions& options,
                          const RunStatus& status, double now, std::vector<std::string>* notes);

}  // namespace tengen::status
