#include "status/status_options.h"

#include <boost/filesystem.hpp>

#include "util/error.h"
#include "util/option_table.h"
#include "util/text.h"

namespace tengen::status {
namespace {

// base_dir is read by BaseDirFromArguments (it may come as the argument instead).
OptionTable<StatusOptions> StatusOptionTable() {
  using O = StatusOptions;
  return OptionTable<O>()
      .Custom(
          [](ConfigSpec& spec, const O&) {
            spec.String("base_dir", "", "the run's base directory (or give it as the argument)");
          },
          {})
      .Double("stale_seconds", &O::stale_seconds, 1, 1e9,
              "a heartbeat older than this many seconds is stale (programs beat every few s)")
      .Double("no_data_minutes", &O::no_data_minutes, 0, 1e9,
              "warn when the newest selfplay shard is older than this (0: never)")
      .Double("min_free_gb", &O::min_free_gb, 0, 1e9,
              "warn when the base directory's filesystem has less free space (GB, 1e9 bytes)")
      .Double("min_free_percent", &O::min_free_percent, 0, 100,
              "warn when less than this share of the filesystem is free")
      .Int("rising_loss_epochs", &O::rising_loss_epochs, 0, 1000,
           "warn when loss_total rose strictly over this many epochs in a row (0 or 1: never)")
      .Double("forget_hours", &O::forget_hours, 0.001, 1e9,
              "heartbeats older than this are counted, not listed")
      .Bool("count_rows", &O::count_rows,
            "count the rows of shards whose names do not say them (older versions) from their "
            "npy headers (false: their rows are not counted)")
      .Int("max_listed", &O::max_listed, 0, 1000000000,
           "in the text, list at most this many processes per program and condition, selfplay "
           "hosts and warnings of one kind; the others are counted (0: list all; --json lists "
           "all)")
      .String("ladder", &O::ladder_file, "Elo ladder file (\"\": <base>/ladder/ladder.json)");
}

}  // namespace

void DeclareStatusOptions(ConfigSpec& spec) { StatusOptionTable().Declare(spec); }

StatusOptions StatusOptionsFromConfig(const Config& config) {
  StatusOptions o;
  StatusOptionTable().Read(config, &o);
  return o;
}

std::optional<std::string> ParseStatusCommandLine(const ConfigSpec& spec, int argc,
                                                  const char* const argv[], Config& config,
                                                  std::ostream& help_out) {
  const CommandLine command_line = ParseCommandLine(spec, argc, argv, config, true);
  if (AnswerHelpOrPrintConfig(spec, command_line, config, help_out)) return std::nullopt;
  const std::string base = BaseDirFromArguments(config, command_line.positional);
  boost::system::error_code error;
  if (!boost::filesystem::is_directory(base, error))
    throw ConfigError("base_dir: " + base + " is not a directory (a run's base directory)");
  return base;
}

std::string BaseDirFromArguments(const Config& config, const std::vector<std::string>& positional) {
  if (positional.size() > 1)
    throw ConfigError(StrCat("one base directory expected, got ", positional.size(), " arguments"));
  const std::string key = config.GetString("base_dir");
  if (!positional.empty() && !key.empty() && positional[0] != key)
    throw ConfigError("base_dir: " + key + " disagrees with the argument " + positional[0]);
  const std::string base = positional.empty() ? key : positional[0];
  if (base.empty()) throw ConfigError("base_dir: give the run's base directory (BASE)");
  return base;
}

}  // namespace tengen::status
