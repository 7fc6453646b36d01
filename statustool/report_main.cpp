// tengen-report: writes one self-contained HTML page about a run (charts of the losses per
// head, selfplay games and rows per hour, Elo of the models, gating decisions, and the status
// summary), read from its base directory. The page is lib/status/report.h; this file reads
// options.
//
//   tengen-report BASE --output run.html

#include <iostream>
#include <optional>
#include <string>

#include "status/report.h"
#include "status/status_options.h"
#include "util/config.h"
#include "util/error.h"
#include "util/program.h"

namespace tengen {
namespace {

int Main(int argc, const char* const argv[]) {
  ConfigSpec spec("tengen-report",
                  "Writes a self-contained HTML report (charts and summary) of the run in base "
                  "directory BASE: tengen-report BASE --output FILE.html");
  status::DeclareStatusOptions(spec);
  spec.String("output", "", "the HTML file to write (published atomically; required)");
  spec.String("title", "", "page title (\"\": tengen run <base>)");
  spec.Bool("count_games", true,
            "read every SGF file: games per hour, the selfplay games before each model, how "
            "each model's games end (false: rows only, and no game-ends table)");
  Config config(spec);
  const std::optional<std::string> parsed =
      status::ParseStatusCommandLine(spec, argc, argv, config, std::cout);
  if (!parsed) return 0;
  const std::string& base = *parsed;
  const std::string output = config.GetString("output");
  if (output.empty()) throw ConfigError("output: the HTML file to write is needed");
  status::ReportOptions options;
  options.status = status::StatusOptionsFromConfig(config);
  options.title = config.GetString("title");
  options.count_games = config.GetBool("count_games");
  status::WriteReport(base, options, status::NowSeconds(), output);
  std::cout << "wrote " << output << "\n";
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-report", [&] { return tengen::Main(argc, argv); });
}
