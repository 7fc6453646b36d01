#include "pipeline/base_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <string_view>

#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::pipeline {

void RequireBaseDir(const std::string& base_dir) {
  if (base_dir.empty())
    throw ConfigError("output_dir is required (--output-dir DIR or output_dir = DIR)");
}
namespace {

std::string Join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  return a.back() == '/' ? a + b : a + "/" + b;
}

}  // namespace

std::string SelfplayDir(const std::string& base) { return Join(base, "selfplay"); }
std::string SelfplayModelDir(const std::string& base, const std::string& model) {
  return Join(SelfplayDir(base), model);
}
std::string TdataDir(const std::string& base, const std::string& model) {
  return Join(SelfplayModelDir(base, model), "tdata");
}
std::string SgfsDir(const std::string& base, const std::string& model) {
  return Join(SelfplayModelDir(base, model), "sgfs");
}
std::string ShuffledDataDir(const std::string& base) { return Join(base, "shuffleddata"); }
std::string TrainDir(const std::string& base, const std::string& training_name) {
  return Join(Join(base, "train"), training_name);
}
std::string TorchModelsToExportDir(const std::string& base) {
  return Join(base, "torchmodels_toexport");
}
std::string ModelsToBeTestedDir(const std::string& base) { return Join(base, "modelstobetested"); }
std::string ModelsDir(const std::string& base) { return Join(base, "models"); }
std::string RejectedModelsDir(const std::string& base) { return Join(base, "rejectedmodels"); }
std::string GatekeeperSgfDir(const std::string& base) { return Join(base, "gatekeepersgf"); }
std::string LogsDir(const std::string& base, const std::string& program) {
  return Join(Join(base, "logs"), program);
}
std::string StatusDir(const std::string& base) { return Join(base, "status"); }

std::string HostName() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) return "unknown";
  std::string name = host;
  std::replace(name.begin(), name.end(), '/', '_');
  return name.empty() ? "unknown" : name;
}

std::string HostPid() { return StrCat(HostName(), "-", getpid()); }

std::string UniqueFileStem() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  return std::string(stamp) + "-" + UniqueSuffix();
}

std::string ShardFileName(const std::string& stem, int64_t rows) {
  return StrCat(stem, "-r", rows, ".npz");
}

std::optional<int64_t> RowsInShardName(const std::string& name) {
  constexpr std::string_view kExtension = ".npz";
  if (!EndsWith(name, std::string(kExtension))) return std::nullopt;
  const size_t end = name.size() - kExtension.size();
  size_t digits = end;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  // At most 18 digits: the count fits in int64_t.
  if (digits == end || end - digits > 18 || digits < 2 || name[digits - 1] != 'r' ||
      name[digits - 2] != '-') {
    return std::nullopt;
  }
  return std::stoll(name.substr(digits, end - digits));
}

std::optional<int64_t> TimeInFileName(const std::string& name) {
  std::tm utc{};
  int consumed = 0;
  if (std::sscanf(name.c_str(), "%4d%2d%2d-%2d%2d%2d%n", &utc.tm_year, &utc.tm_mon, &utc.tm_mday,
                  &utc.tm_hour, &utc.tm_min, &utc.tm_sec, &consumed) != 6 ||
      consumed != 15) {
    return std::nullopt;
  }
  if (utc.tm_mon < 1 || utc.tm_mon > 12 || utc.tm_mday < 1 || utc.tm_mday > 31 ||
      utc.tm_hour > 23 || utc.tm_min > 59 || utc.tm_sec > 60 || utc.tm_year < 1970) {
    return std::nullopt;
  }
  utc.tm_year -= 1900;
  utc.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&utc));
}

}  // namespace tengen::pipeline
