#pragma once
// Atomic publication on a shared (possibly NFS) base directory. A file is written under a
// temporary name in its target directory, fsynced and renamed; a directory is built under a
// temporary name and renamed whole. Temporary names contain ".tmp" plus the host, pid and
// random bits, so concurrent writers on several machines never collide and every reader can
// skip them. Readers list with ListPublished(), which never returns a temporary.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tengen {

// True for names that a writer is still working on (they contain ".tmp").
bool IsTemporaryName(const std::string& name);
// True for a name a published entry may have: one path component (not empty, no '/', not "."
// or ".."), not temporary.
bool IsPlainName(const std::string& name);
// "<host>-<pid>-<16 hex digits>": unique across machines and processes.
std::string UniqueSuffix();
// "<final name>.tmp.<UniqueSuffix()>" in the same directory as final_path.
std::string TemporaryPathFor(const std::string& final_path);

// Writes a file atomically: Write() into a temporary, then Commit() (fsync, rename over the
// target, fsync the directory). Destroying it uncommitted removes the temporary.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& final_path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void Write(const void* data, size_t size);
  void Write(const std::string& data) { Write(data.data(), data.size()); }
  void Commit();
  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }

 private:
  std::string final_path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// Publishes `contents` at `path` atomically (replacing an existing file).
void PublishFile(const std::string& path, const std::string& contents);

// Appends `line` and a newline to the file at `path` (created if missing; one writer at a time),
// fsynced. When an earlier append was cut short (a full disk, a lost server) the file ends
// inside a line: that torn line is ended first, so the new one stands on its own line and only
// the torn one is lost to readers. Throws IoError naming the file.
void AppendLine(const std::string& path, const std::string& line);

// Builds a directory atomically: write files under path(), then Commit() fsyncs them and
// renames the directory to its final name. Commit throws IoError if the target exists.
// Destroying it uncommitted removes the temporary tree.
class AtomicDirectory {
 public:
  explicit AtomicDirectory(const std::string& final_path);
  ~AtomicDirectory();
  AtomicDirectory(const AtomicDirectory&) = delete;
  AtomicDirectory& operator=(const AtomicDirectory&) = delete;

  const std::string& path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  void Commit();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
};

// Creates a directory and its parents; safe when other processes create it at the same time.
void EnsureDirectory(const std::string& path);
// Names (not paths) of published entries of dir, sorted; temporaries are skipped (and counted
// in *temporaries when given). A missing directory lists as empty.
std::vector<std::string> ListPublished(const std::string& dir, int64_t* temporaries = nullptr);
// Removes a published file or directory so that no reader, and no run restarted after a crash,
// ever sees it half-deleted: it is renamed to a temporary name first, then deleted. Returns
// false when it was already gone (another process removed it). Throws IoError naming the path
// when it cannot be renamed; a renamed temporary that cannot be deleted is left for
// RemoveStaleTemporaries.
bool RemovePublished(const std::string& path);
// Removes temporaries (files or trees) in dir whose modification time is older than max_age.
// Returns how many were removed; *young (when given) gets how many younger ones are left. Only
// age makes a temporary stale: its writer may be alive on another machine, so max_age must
// exceed the longest write.
int RemoveStaleTemporaries(const std::string& dir, std::chrono::seconds max_age,
                           int64_t* young = nullptr);
// Whole file as bytes; throws IoError naming the path.
std::string ReadFile(const std::string& path);

}  // namespace tengen
