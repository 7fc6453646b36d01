#include "analysis/katago_args.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "util/error.h"
#include "util/text.h"

namespace tengen::analysis {
namespace {

// KataGo's setting -> tengen-analysis's key.
const std::map<std::string, std::string>& SettingKeys() {
  static const std::map<std::string, std::string> keys = {
      {"maxVisits", "max_visits"},
      {"maxTime", "max_time"},
      {"numAnalysisThreads", "analysis_threads"},
      {"reportAnalysisWinratesAs", "report_analysis_winrates_as"},
      {"analysisPVLen", "analysis_pv_len"}};
  return keys;
}

void AddSetting(const std::string& key, const std::string& value, const std::string& where,
                TranslatedArgs* out) {
  const auto it = SettingKeys().find(key);
  if (it == SettingKeys().end()) {
    out->ignored.push_back(key + " (" + where + ")");
    return;
  }
  // KataGo's queries take the view in any case; its config takes it upper case.
  const std::string taken = key == "reportAnalysisWinratesAs" ? UpperCase(value) : value;
  out->args.push_back("--set");
  out->args.push_back(it->second + "=" + taken);
  out->settings.push_back({it->second + "=" + taken, key + " = " + value + " (in " + where + ")"});
}

// KataGo's config format: "key = value" lines, '#' starting a comment.
void ReadConfigFile(const std::string& path, TranslatedArgs* out) {
  std::ifstream in(path);
  if (!in) throw IoError("-config: cannot read " + path + ": " + std::strerror(errno));
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = Trim(line.substr(0, eq));
    if (!key.empty()) AddSetting(key, Trim(line.substr(eq + 1)), path, out);
  }
}

}  // namespace

bool IsKataGoCommandLine(const std::vector<std::string>& args) {
  return !args.empty() && args[0] == "analysis";
}

TranslatedArgs TranslateKataGoArgs(const std::vector<std::string>& args) {
  TranslatedArgs out;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "-quit-without-waiting") {
      out.ignored.push_back(flag + " (queued positions are always answered)");
      continue;
    }
    if (i + 1 >= args.size()) throw ConfigError("KataGo command line: no value after " + flag);
    const std::string& value = args[++i];
    if (flag == "-model") {
      out.args.push_back("--model");
      out.args.push_back(value);
    } else if (flag == "-config") {
      ReadConfigFile(value, &out);
    } else if (flag == "-override-config") {
      std::istringstream pairs(value);
      std::string pair;
      while (std::getline(pairs, pair, ',')) {
        const size_t eq = pair.find('=');
        if (eq == std::string::npos) {
          throw ConfigError("-override-config: '" + pair + "' is not key=value");
        }
        AddSetting(Trim(pair.substr(0, eq)), Trim(pair.substr(eq + 1)), "-override-config", &out);
      }
    } else if (flag == "-analysis-threads") {
      out.args.push_back("--set");
      out.args.push_back("analysis_threads=" + value);
    } else {
      throw ConfigError("KataGo command line: " + flag +
                        " is not one tengen-analysis knows (-model, -config, -override-config, "
                        "-analysis-threads, -quit-without-waiting)");
    }
  }
  return out;
}

}  // namespace tengen::analysis
