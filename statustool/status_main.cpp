// tengen-status: prints the state of a run from its base directory: every program's
// heartbeat (alive, stale, dead or ended), selfplay rates per host, data totals, bytes written
// in the last hour, the newest shuffle, training progress and losses, models and gating, disk,
// and warnings. The reading is lib/status/run_status.h; this file reads options.
//
//   tengen-status BASE [--json] [--stale-seconds 300] [--no-data-minutes 30] ...

#include <iostream>
#include <optional>
#include <string>

#include "status/run_status.h"
#include "status/status_format.h"
#include "status/status_options.h"
#include "util/config.h"
#include "util/program.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-status",
                  "Prints the state of a run read from its base directory BASE (tengen-status "
                  "BASE): heartbeats, rates, data, training, models, disk and warnings.");
  status::DeclareStatusOptions(spec);
  spec.Bool("json", false, "print the status as one JSON object instead of text");
  Config config(spec);
  const std::optional<std::string> parsed =
      status::ParseStatusCommandLine(spec, argc, argv, config, std::cout);
  if (!parsed) return 0;
  const std::string& base = *parsed;
  const status::RunStatus run =
      status::CollectStatus(base, status::StatusOptionsFromConfig(config), status::NowSeconds());
  std::cout << (config.GetBool("json") ? status::StatusJson(run) : status::FormatStatus(run));
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-status", [&] { return tengen::Main(argc, argv); });
}
