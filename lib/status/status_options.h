#pragma once
// The options of tengen-status and tengen-report (both read a base directory the same way): their
// keys, and their command line of options plus BASE.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "status/run_status.h"
#include "util/config.h"

namespace tengen::status {

// The keys of StatusOptions (stale_seconds, no_data_minutes, min_free_gb, min_free_percent,
// rising_loss_epochs, forget_hours, count_rows, ladder), shared by tengen-status and
// tengen-report, and the options they give.
void DeclareStatusOptions(ConfigSpec& spec);
StatusOptions StatusOptionsFromConfig(const Config& config);
// The base directory: the one positional argument, or the base_dir key (declared by
// DeclareStatusOptions). ConfigError when there is none, more than one, or both disagree.
std::string BaseDirFromArguments(const Config& config, const std::vector<std::string>& positional);
// The command line of tengen-status and tengen-report: options plus BASE as the one positional
// argument. Prints the help to help_out and returns nullopt for --help; otherwise the base
// directory (BaseDirFromArguments), which must be a directory (ConfigError naming it).
std::optional<std::string> ParseStatusCommandLine(const ConfigSpec& spec, int argc,
                                                  const char* const argv[], Config& config,
                                                  std::ostream& help_out);

}  // namespace tengen::status
