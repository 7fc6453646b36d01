#pragma once
// The base directory's layout (docs/OPERATIONS.md describes each program's part of it) as
// functions, so that every program spells each path the same way:
//
//   <base>/selfplay/<model>/tdata/<unique>-r<rows>.npz  training shards (selfplay -> shuffler)
//   <base>/selfplay/<model>/sgfs/<unique>.sgfs     one SGF game per line (people, tools)
//   <base>/shuffleddata/<stamp>/                   shuffler output
//   <base>/train/<trainingname>/                   trainer checkpoints and metrics
//   <base>/torchmodels_toexport/<name>/            trainer -> exporter
//   <base>/modelstobetested/<name>/                exporter -> gatekeeper
//   <base>/models/<name>/                          accepted nets (-> selfplay, gatekeeper)
//   <base>/rejectedmodels/<name>/                  gatekeeper's rejects
//   <base>/gatekeepersgf/<name>/                   gatekeeper games
//   <base>/logs/<program>/                         one log file per process
//   <base>/status/<program>-<host>-<pid>.json      heartbeats
//
// Functions only join paths; nothing is created here (util/publish.h EnsureDirectory does
// that, race-safe, where a program writes).

#include <cstdint>
#include <optional>
#include <string>

namespace tengen::pipeline {

// Checks the base directory read from the required `output_dir` key: ConfigError when empty.
void RequireBaseDir(const std::string& base_dir);

// The model name under which selfplay data is filed before any net exists.
constexpr char kRandomModelName[] = "random";

std::string SelfplayDir(const std::string& base);  // base/selfplay
std::string SelfplayModelDir(const std::string& base, const std::string& model);
std::string TdataDir(const std::string& base, const std::string& model);  // .../<model>/tdata
std::string SgfsDir(const std::string& base, const std::string& model);   // .../<model>/sgfs
std::string ShuffledDataDir(const std::string& base);
std::string TrainDir(const std::string& base, const std::string& training_name);
std::string TorchModelsToExportDir(const std::string& base);
std::string ModelsToBeTestedDir(const std::string& base);
std::string ModelsDir(const std::string& base);
std::string RejectedModelsDir(const std::string& base);
std::string GatekeeperSgfDir(const std::string& base);
std::string LogsDir(const std::string& base, const std::string& program);  // base/logs/<program>
std::string StatusDir(const std::string& base);

// "<host>-<pid>": names a process's log file and heartbeat.
std::string HostPid();
// The host name ("unknown" when it cannot be read), with '/' replaced.
std::string HostName();

// "<UTC yyyymmdd-hhmmss>-<util/publish.h UniqueSuffix()>": sorts by creation time and is unique
// across machines and processes. Shards are "<stem>-r<rows>.npz" (ShardFileName), their games
// "<stem>.sgfs".
std::string UniqueFileStem();

// "<stem>-r<rows>.npz": the name says how many rows the shard holds, so that a reader of a
// directory of a million shards needs no file opened to count rows (docs/OPERATIONS.md).
std::string ShardFileName(const std::string& stem, int64_t rows);

// The rows a shard's name says (ShardFileName); nullopt for other names, such as shards of
// older versions ("<stem>.npz"), whose rows only their headers tell.
std::optional<int64_t> RowsInShardName(const std::string& name);

// The UTC time (seconds since the epoch) a name from UniqueFileStem starts with; nullopt when
// it starts otherwise.
std::optional<int64_t> TimeInFileName(const std::string& name);

}  // namespace tengen::pipeline
