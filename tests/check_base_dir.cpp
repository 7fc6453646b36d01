// check_base_dir: the fault tests' inspector. Reads every published file of a base directory
// with the project's own readers and reports what is partial or corrupt:
//   selfplay/<model>/tdata/*.npz            data::ReadShard (every array, zip CRCs)
//   selfplay/<model>/sgfs/*.sgfs            go::ParseSgfCollection
//   shuffleddata/<shuffle>/                 summary.json parses, every data-*.npz reads, and
//                                           their rows add up to the summary's output_rows
//   train/<name>/checkpoints/ckpt-*/        state.json (TrainState::FromJson), trainer.pt (its
//                                           size and CRC-32 as state.json records them)
//   models/ modelstobetested/ rejectedmodels/ torchmodels_toexport(_extra)/
//                                           every entry is a model directory that
//                                           nn::TorchModel::Load accepts (size, CRC-32,
//                                           tensors); training.json / export.json parse
//   gatekeepersgf/<candidate>/              *.json parse, *.sgfs parse
//   status/*.json                           parse
// Names containing ".tmp" are skipped (a writer's, or a killed writer's, temporaries), and so
// is anything that vanishes while it is read (moved or cleaned up by a running program).
//
//   check_base_dir BASE [--seen FILE] [--ignore SUBSTRING]... [--cache-seconds N]
//
// --seen FILE remembers the files already verified (path, size, mtime: published files are
// never modified) so that repeated checks of a growing directory stay fast. --ignore skips
// paths containing SUBSTRING (files a test planted on purpose). --cache-seconds N is for a
// reader whose caches may show a removed entry for up to N seconds (an sshfs mount with
// attribute and directory caches): an entry that fails its check but still seems to exist is
// looked at again N seconds later, and counts as vanished if it is gone by then. For every
// checkpoint it prints
//   state PATH samples epochs in_epoch bucket_level bucket_at_row total_rows
// on stdout; problems go to stderr as "CORRUPT path: reason". Exit 0 when nothing is corrupt,
// 1 otherwise, 2 for usage errors.

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "data/training_rows.h"
#include "go/sgf.h"
#include "nn/torch/model.h"
#include "pipeline/base_dir.h"
#include "pipeline/train_data.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen {
namespace {

struct FileStamp {
  int64_t size = -1;
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp& o) const { return size == o.size && mtime_ns == o.mtime_ns; }
};

bool Stat(const std::string& path, FileStamp* stamp, bool* is_dir) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  stamp->size = static_cast<int64_t>(st.st_size);
  stamp->mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  *is_dir = S_ISDIR(st.st_mode);
  return true;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

class Checker {
 public:
  void set_cache_seconds(int seconds) { cache_seconds_ = seconds; }
  Checker(std::string base, std::vector<std::string> ignore, std::string seen_file)
      : base_(std::move(base)), ignore_(std::move(ignore)), seen_file_(std::move(seen_file)) {
    if (seen_file_.empty()) return;
    std::ifstream in(seen_file_);
    std::string path;
    FileStamp stamp;
    while (in >> stamp.size >> stamp.mtime_ns && std::getline(in >> std::ws, path))
      seen_[path] = stamp;
  }

  int Run() {
    CheckSelfplay();
    CheckShuffles();
    CheckCheckpoints();
    for (const std::string& dir :
         {pipeline::ModelsDir(base_), pipeline::ModelsToBeTestedDir(base_),
          pipeline::RejectedModelsDir(base_), pipeline::TorchModelsToExportDir(base_),
          pipeline::TorchModelsToExportDir(base_) + "_extra"})
      CheckModelDir(dir);
    for (const std::string& candidate : List(pipeline::GatekeeperSgfDir(base_)))
      CheckJsonAndSgfs(pipeline::GatekeeperSgfDir(base_) + "/" + candidate);
    CheckJsonAndSgfs(pipeline::StatusDir(base_));
    SaveSeen();
    std::cerr << "check_base_dir " << base_ << ": " << checked_ << " checked, " << cached_
              << " unchanged, " << vanished_ << " vanished while read, " << corrupt_
              << " corrupt\n";
    return corrupt_ == 0 ? 0 : 1;
  }

 private:
  bool Ignored(const std::string& path) const {
    for (const std::string& s : ignore_)
      if (path.find(s) != std::string::npos) return true;
    return false;
  }
  std::vector<std::string> List(const std::string& dir) {
    std::vector<std::string> names;
    for (const std::string& name : ListPublished(dir))
      if (!Ignored(dir + "/" + name)) names.push_back(name);
    return names;
  }
  // Runs `check` on `path` unless it was verified unchanged before; a failure is corruption
  // unless `path` (or `gone_if_missing`) has vanished meanwhile.
  template <typename F>
  void Check(const std::string& path, const std::string& stamp_path, F check,
             const std::string& gone_if_missing = "") {
    FileStamp stamp;
    bool is_dir = false;
    if (!Stat(stamp_path, &stamp, &is_dir)) {
      ++vanished_;
      return;
    }
    const auto it = seen_.find(stamp_path);
    if (it != seen_.end() && it->second == stamp) {
      ++cached_;
      return;
    }
    try {
      check();
      ++checked_;
      seen_[stamp_path] = stamp;
    } catch (const std::exception& e) {
      if (!Exists(path) || !Exists(stamp_path) ||
          (!gone_if_missing.empty() && !Exists(gone_if_missing)) || GoneAfterCache(path)) {
        ++vanished_;
        return;
      }
      ++corrupt_;
      std::cerr << "CORRUPT " << path << ": " << e.what() << "\n";
    }
  }
  // With --cache-seconds: whether `path`, which failed its check but seems to exist, is gone once
  // the reader's caches have expired (a stale cache showed an entry already removed).
  bool GoneAfterCache(const std::string& path) const {
    if (cache_seconds_ <= 0) return false;
    std::this_thread::sleep_for(std::chrono::seconds(cache_seconds_));
    return !Exists(path);
  }
  void Corrupt(const std::string& path, const std::string& reason) {
    ++corrupt_;
    std::cerr << "CORRUPT " << path << ": " << reason << "\n";
  }
  static nlohmann::json ParseJson(const std::string& path) {
    return nlohmann::json::parse(ReadFile(path));
  }
  void CheckJsonFile(const std::string& path) {
    Check(path, path, [&] { ParseJson(path); });
  }
  void CheckSgfsFile(const std::string& path) {
    Check(path, path, [&] {
      const auto games = go::ParseSgfCollection(ReadFile(path));
      if (games.empty()) throw std::runtime_error("no game in the file");
    });
  }
  void CheckJsonAndSgfs(const std::string& dir) {
    for (const std::string& name : List(dir)) {
      if (EndsWith(name, ".json")) CheckJsonFile(dir + "/" + name);
      if (EndsWith(name, ".sgfs")) CheckSgfsFile(dir + "/" + name);
    }
  }

  void CheckSelfplay() {
    const std::string root = pipeline::SelfplayDir(base_);
    for (const std::string& model : List(root)) {
      const std::string tdata = pipeline::TdataDir(base_, model);
      for (const std::string& name : List(tdata)) {
        const std::string path = tdata + "/" + name;
        if (!EndsWith(name, ".npz")) {
          Corrupt(path, "not a shard");
          continue;
        }
        Check(path, path, [&] {
          if (data::ReadShard(path).rows.empty()) throw std::runtime_error("no rows");
        });
      }
      const std::string sgfs = pipeline::SgfsDir(base_, model);
      for (const std::string& name : List(sgfs)) CheckSgfsFile(sgfs + "/" + name);
    }
  }

  void CheckShuffles() {
    const std::string root = pipeline::ShuffledDataDir(base_);
    for (const std::string& name : List(root)) {
      const std::string dir = root + "/" + name;
      const std::string summary = dir + "/summary.json";
      Check(dir, summary, [&] {
        const nlohmann::json j = ParseJson(summary);
        const int64_t output_rows = j.at("output_rows").get<int64_t>();
        const int64_t output_files = j.at("output_files").get<int64_t>();
        int64_t rows = 0;
        int64_t files = 0;
        for (const std::string& file : ListPublished(dir)) {
          if (!EndsWith(file, ".npz")) continue;
          rows += static_cast<int64_t>(data::ReadShard(dir + "/" + file).rows.size());
          ++files;
        }
        if (rows != output_rows || files != output_files)
          throw std::runtime_error("holds " + std::to_string(rows) + " rows in " +
                                   std::to_string(files) + " files, the summary says " +
                                   std::to_string(output_rows) + " in " +
                                   std::to_string(output_files));
      });
    }
  }

  void CheckCheckpoints() {
    const std::string train = base_ + "/train";
    for (const std::string& training : List(train)) {
      const std::string dir = train + "/" + training + "/checkpoints";
      for (const std::string& name : List(dir)) {
        const std::string ckpt = dir + "/" + name;
        const std::string state_path = ckpt + "/state.json";
        try {
          const pipeline::TrainState s =
              pipeline::TrainState::FromJson(ReadFile(state_path), state_path);
          FileStamp stamp;
          bool is_dir = false;
          if (!Stat(ckpt + "/trainer.pt", &stamp, &is_dir) || stamp.size <= 0)
            throw std::runtime_error("trainer.pt is missing or empty");
          if (s.trainer_file_bytes >= 0)
            s.CheckTrainerFile(ReadFile(ckpt + "/trainer.pt"), ckpt + "/trainer.pt");
          std::cout << "state " << ckpt << " " << s.samples << " " << s.epochs << " "
                    << (s.in_epoch ? 1 : 0) << " " << std::fixed << std::setprecision(3)
                    << s.bucket_level << std::defaultfloat << " " << s.bucket_at_row << " "
                    << s.total_rows << "\n";
          ++checked_;
        } catch (const std::exception& e) {
          if (!Exists(ckpt) || GoneAfterCache(ckpt)) {
            ++vanished_;
            continue;
          }
          Corrupt(ckpt, e.what());
        }
      }
    }
  }

  void CheckModelDir(const std::string& root) {
    for (const std::string& name : List(root)) {
      const std::string dir = root + "/" + name;
      Check(
          dir, dir + "/" + nn::kModelWeightsFile,
          [&] {
            nn::TorchModel::Load(dir);
            for (const char* extra : {"training.json", "export.json"}) {
              const std::string path = dir + "/" + extra;
              if (Exists(path)) ParseJson(path);
            }
          },
          dir);
    }
  }

  void SaveSeen() const {
    if (seen_file_.empty()) return;
    std::ostringstream out;
    for (const auto& [path, stamp] : seen_)
      out << stamp.size << " " << stamp.mtime_ns << " " << path << "\n";
    PublishFile(seen_file_, out.str());
  }

  std::string base_;
  std::vector<std::string> ignore_;
  std::string seen_file_;
  std::map<std::string, FileStamp> seen_;
  int checked_ = 0;
  int cached_ = 0;
  int vanished_ = 0;
  int cache_seconds_ = 0;
  int corrupt_ = 0;
};

}  // namespace
}  // namespace tengen

int main(int argc, char** argv) {
  std::string base;
  std::string seen;
  std::vector<std::string> ignore;
  int cache_seconds = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--seen" || arg == "--ignore") && i + 1 < argc) {
      (arg == "--seen" ? seen : (ignore.emplace_back(), ignore.back())) = argv[++i];
    } else if (arg == "--cache-seconds" && i + 1 < argc) {
      cache_seconds = std::atoi(argv[++i]);
    } else if (base.empty() && arg.rfind("--", 0) != 0) {
      base = arg;
    } else {
      std::cerr << "usage: check_base_dir BASE [--seen FILE] [--ignore SUBSTRING]... "
                   "[--cache-seconds N]\n";
      return 2;
    }
  }
  if (base.empty()) {
    std::cerr
        << "usage: check_base_dir BASE [--seen FILE] [--ignore SUBSTRING]... [--cache-seconds N]\n";
    return 2;
  }
  try {
    tengen::Checker checker(base, ignore, seen);
    checker.set_cache_seconds(cache_seconds);
    return checker.Run();
  } catch (const std::exception& e) {
    std::cerr << "check_base_dir: " << e.what() << "\n";
    return 2;
  }
}
