// tengen-sgf2npz: training shards from game records, for a run that learns from records
// instead of (or before) self-play. The conversion is pipeline/record_rows.h's; docs/TRAINING.md,
// "Training from game records", has the workflow.

#include <iostream>
#include <string>

#include "pipeline/record_rows.h"
#include "util/config.h"
#include "util/error.h"
#include "util/log.h"
#include "util/program.h"
#include "util/text.h"

namespace tengen {
namespace {

ConfigSpec MakeSpec() {
  ConfigSpec spec("tengen-sgf2npz",
                  "tengen-sgf2npz FILE_OR_DIR... --output-dir DIR: training shards from SGF "
                  "game records (files of one or more games; directories searched for *.sgf "
                  "and *.sgfs), in selfplay's shard format.");
  spec.String("output_dir", "",
              "where the shards go (BASE/selfplay/records/tdata for the shuffler to find them)");
  spec.Int("pos_len", 9, 2, go::kMaxSize, "the net's pos_len: larger boards are skipped");
  spec.Int("rows_per_shard", 20000, 1, 10000000, "rows per shard");
  spec.String("model_name", "records", "the name the shards give as the model that played");
  return spec;
}

int Main(int argc, const char* const argv[]) {
  const ConfigSpec spec = MakeSpec();
  Config config(spec);
  const CommandLine command_line =
      ParseCommandLine(spec, argc, argv, config, /*allow_positional=*/true);
  if (AnswerHelpOrPrintConfig(spec, command_line, config, std::cout)) return 0;
  pipeline::ConvertOptions options;
  options.inputs = command_line.positional;
  options.output_dir = config.GetString("output_dir");
  options.pos_len = static_cast<int>(config.GetInt("pos_len"));
  options.rows_per_shard = static_cast<int>(config.GetInt("rows_per_shard"));
  options.model_name = config.GetString("model_name");
  if (options.inputs.empty()) throw ConfigError("no SGF file or directory given");
  if (options.output_dir.empty()) throw ConfigError("output_dir: required");
  Logger logger(LogLevel::kInfo);
  const pipeline::ConvertSummary s = pipeline::ConvertRecords(options, logger);
  std::string skipped;
  for (int k = 1; k < pipeline::kNumSkips; ++k) {
    if (s.skipped[k] == 0) continue;
    skipped += StrCat(skipped.empty() ? "" : ", ", s.skipped[k], " ",
                      pipeline::SkipName(static_cast<pipeline::Skip>(k)));
  }
  std::cout << StrCat("files: ", s.files, " read, ", s.bad_files, " bad; games: ", s.games,
                      " converted, skipped: ", skipped.empty() ? "none" : skipped,
                      "; rows: ", s.rows, " in ", s.shards, " shards in ", options.output_dir)
            << std::endl;
  if (s.games == 0) throw FormatError("no game could be converted (the lines above say why)");
  return 0;
}

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  return tengen::RunProgram("tengen-sgf2npz", [&] { return tengen::Main(argc, argv); });
}
