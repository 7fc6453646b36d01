#include "pipeline/base_dir.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>

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

}  // namespace tengen::pipeline
