#pragma once
// KataGo's command line for its analysis engine, as programs that start KataGo build it
// (KaTrain's local engine: `katago analysis -model M -config C -override-config K=V,...`),
// turned into tengen-analysis's own options, so that such a program can start tengen-analysis
// where it would start KataGo. The settings of KataGo's config file and -override-config that
// have a counterpart are taken (maxVisits, maxTime, numAnalysisThreads,
// reportAnalysisWinratesAs, analysisPVLen); the others are listed as ignored.

#include <string>
#include <vector>

namespace tengen::analysis {

// Whether argv (without the program name) is KataGo's form: it starts with "analysis".
bool IsKataGoCommandLine(const std::vector<std::string>& args);

// A KataGo setting taken over: its tengen-analysis form and where it came from, so that an error
// in its value can name what the user wrote.
struct TranslatedSetting {
  std::string assignment;  // "max_visits=100"
  std::string origin;      // "maxVisits = 100 (in FILE)", "maxVisits = 100 (in -override-config)"
};

struct TranslatedArgs {
  std::vector<std::string> args;     // tengen-analysis options: --model M, --set key=value, ...
  std::vector<std::string> ignored;  // KataGo settings with no counterpart, "key (where)"
  std::vector<TranslatedSetting> settings;  // the --set arguments that came from KataGo settings
};

// Translates `analysis -model M [-config FILE] [-override-config K=V,...] [-analysis-threads N]
// [-quit-without-waiting]`. Throws ConfigError naming an argument it does not know or a value
// that is missing, IoError for a config file that cannot be read.
TranslatedArgs TranslateKataGoArgs(const std::vector<std::string>& args);

}  // namespace tengen::analysis
