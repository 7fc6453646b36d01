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

struct TranslatedArgs {
  std::vector<std::string> args;     // tengen-analysis options: --model M, --set key=value, ...
  std::vector<std::string> ignored;  // KataGo settings with no counterpart, "key (where)"
};

// Translates `analysis -model M [-config FILE] [-override-config K=V,...] [-analysis-threads N]
// [-quit-without-waiting]`. Throws ConfigError naming an argument it does not know or a value
// that is missing, IoError for a config file that cannot be read.
TranslatedArgs TranslateKataGoArgs(const std::vector<std::string>& args);

}  // namespace tengen::analysis
