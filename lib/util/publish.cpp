#include "util/publish.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <boost/filesystem.hpp>

#include "util/error.h"
#include "util/rng.h"
#include "util/text.h"

namespace tengen {
namespace {

namespace fs = boost::filesystem;

[[noreturn]] void ThrowErrno(const std::string& what, const std::string& path, int error) {
  throw IoError("cannot " + what + " '" + path + "': " + std::strerror(error));
}

std::string ParentDirectory(const std::string& path) {
  const std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// close() can report a deferred write error (NFS does), so its result matters.
void CloseOrThrow(int fd, const std::string& path) {
  if (close(fd) != 0) ThrowErrno("close", path, errno);
}

void FsyncPath(const std::string& path, bool directory) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) ThrowErrno("open", path, errno);
  // Some filesystems cannot fsync a directory and say EINVAL; there is nothing more to do
  // there, and the rename itself is still atomic.
  if (fsync(fd) != 0 && !(directory && errno == EINVAL)) {
    const int error = errno;
    close(fd);
    ThrowErrno("fsync", path, error);
  }
  CloseOrThrow(fd, path);
}

// The rename is durable only once the directory entry itself is on disk.
void FsyncParent(const std::string& path) { FsyncPath(ParentDirectory(path), true); }

bool PathExists(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  ThrowErrno("stat", path, errno);
}

}  // namespace

bool IsTemporaryName(const std::string& name) { return name.find(".tmp") != std::string::npos; }

bool IsPlainName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != ".." &&
         !IsTemporaryName(name);
}

std::string UniqueSuffix() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "unknown");
  // A host name never contains '/', but the suffix becomes part of a path, so make sure.
  std::string host_name = host;
  std::replace(host_name.begin(), host_name.end(), '/', '_');
  // A fresh entropy-seeded generator per call: pid reuse across machines and restarts makes
  // host and pid alone insufficient, and this is not a hot path.
  Rng rng;
  char random_hex[17];
  std::snprintf(random_hex, sizeof(random_hex), "%016llx",
                static_cast<unsigned long long>(rng.Next()));
  return StrCat(host_name, "-", getpid(), "-", random_hex);
}

std::string TemporaryPathFor(const std::string& final_path) {
  return final_path + ".tmp." + UniqueSuffix();
}

void AppendLine(const std::string& path, const std::string& line) {
  const int fd = open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) ThrowErrno("open", path, errno);
  std::string text = line + "\n";
  struct stat info;
  char last = '\n';
  if (fstat(fd, &info) != 0 || (info.st_size > 0 && pread(fd, &last, 1, info.st_size - 1) != 1)) {
    const int error = errno;
    close(fd);
    ThrowErrno("read the end of", path, error);
  }
  if (last != '\n') text.insert(text.begin(), '\n');
  for (size_t done = 0; done < text.size();) {
    const ssize_t written = write(fd, text.data() + done, text.size() - done);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      const int error = written < 0 ? errno : EIO;
      close(fd);
      ThrowErrno("append to", path, error);
    }
    done += static_cast<size_t>(written);
  }
  if (fsync(fd) != 0) {
    const int error = errno;
    close(fd);
    ThrowErrno("fsync", path, error);
  }
  CloseOrThrow(fd, path);
}

AtomicFile::AtomicFile(const std::string& final_path)
    : final_path_(final_path), temp_path_(TemporaryPathFor(final_path)) {
  fd_ = open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) ThrowErrno("create", temp_path_, errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) close(fd_);
  if (!committed_) unlink(temp_path_.c_str());
}

void AtomicFile::Write(const void* data, size_t size) {
  if (fd_ < 0) throw IoError("cannot write '" + temp_path_ + "': already committed or failed");
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = write(fd_, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      // After a failed write the file's content is unknown: it must never be committed.
      const int error = errno;
      close(fd_);
      fd_ = -1;
      ThrowErrno("write", temp_path_, error);
    }
    bytes += written;
    size -= static_cast<size_t>(written);
  }
}

void AtomicFile::Commit() {
  if (fd_ < 0) throw IoError("cannot commit '" + temp_path_ + "': already committed or failed");
  if (fsync(fd_) != 0) {
    // Linux marks the failed pages clean, so a retried fsync would "succeed" on lost data:
    // give up on this temporary for good.
    const int error = errno;
    close(fd_);
    fd_ = -1;
    ThrowErrno("fsync", temp_path_, error);
  }
  const int fd = fd_;
  fd_ = -1;  // closed below whatever happens; the destructor must not close it again
  CloseOrThrow(fd, temp_path_);
  if (rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    ThrowErrno("rename '" + temp_path_ + "' to", final_path_, errno);
  }
  committed_ = true;
  FsyncParent(final_path_);
}

void PublishFile(const std::string& path, const std::string& contents) {
  AtomicFile file(path);
  file.Write(contents);
  file.Commit();
}

AtomicDirectory::AtomicDirectory(const std::string& final_path)
    : final_path_(final_path), temp_path_(TemporaryPathFor(final_path)) {
  if (mkdir(temp_path_.c_str(), 0755) != 0) ThrowErrno("create directory", temp_path_, errno);
}

AtomicDirectory::~AtomicDirectory() {
  if (committed_) return;
  boost::system::error_code ignored;
  fs::remove_all(temp_path_, ignored);
}

void AtomicDirectory::Commit() {
  if (committed_) throw IoError("cannot commit '" + final_path_ + "' twice");
  // Everything inside must be on disk before the name appears, or a crash could publish a
  // directory of empty files.
  boost::system::error_code error;
  for (fs::recursive_directory_iterator it(temp_path_, error), end; !error && it != end;
       it.increment(error)) {
    const fs::file_status status = it->symlink_status(error);
    if (error) break;
    if (fs::is_regular_file(status)) {
      FsyncPath(it->path().string(), false);
    } else if (fs::is_directory(status)) {
      FsyncPath(it->path().string(), true);
    }
  }
  if (error) throw IoError("cannot list '" + temp_path_ + "': " + error.message());
  FsyncPath(temp_path_, true);
  // rename(2) replaces an empty directory silently, so refuse an existing target first; a
  // non-empty one created in between still makes rename fail with ENOTEMPTY or EEXIST.
  if (PathExists(final_path_)) {
    throw IoError("cannot publish '" + final_path_ + "': it already exists");
  }
  if (rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    ThrowErrno("rename '" + temp_path_ + "' to", final_path_, errno);
  }
  committed_ = true;
  FsyncParent(final_path_);
}

void EnsureDirectory(const std::string& path) {
  // mkdir each prefix in turn and accept EEXIST when a directory is there: unlike an
  // exists-then-create check, this cannot fail when another process creates it in between.
  const fs::path full(path);
  fs::path prefix;
  for (const fs::path& part : full) {
    prefix /= part;
    const std::string current = prefix.string();
    if (part == "/" || part == "." || part.empty()) continue;
    if (mkdir(current.c_str(), 0755) == 0) continue;
    const int error = errno;
    struct stat info;
    if (error == EEXIST) {
      if (stat(current.c_str(), &info) == 0) {
        if (S_ISDIR(info.st_mode)) continue;
      } else {
        // It exists but cannot be looked at (a network filesystem that lost its server says
        // EIO here): that is the error to report, not mkdir's "File exists".
        ThrowErrno("stat", current, errno);
      }
    }
    ThrowErrno("create directory", current, error);
  }
}

std::vector<std::string> ListPublished(const std::string& dir, int64_t* temporaries) {
  std::vector<std::string> names;
  if (temporaries) *temporaries = 0;
  boost::system::error_code error;
  fs::directory_iterator it(dir, error);
  if (error) {
    if (error == boost::system::errc::no_such_file_or_directory) return names;
    throw IoError("cannot list '" + dir + "': " + error.message());
  }
  for (const fs::directory_iterator end; it != end; it.increment(error)) {
    if (error) break;
    const std::string name = it->path().filename().string();
    if (!IsTemporaryName(name)) {
      names.push_back(name);
    } else if (temporaries) {
      ++*temporaries;
    }
  }
  if (error) throw IoError("cannot list '" + dir + "': " + error.message());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// True only for names that TemporaryPathFor() makes: "<name>.tmp.<host>-<pid>-<16 hex>".
// Cleanup deletes, so it must not take a user's "notes.tmp" or "x.tmpl" for one of ours.
bool IsOurTemporaryName(const std::string& name) {
  const size_t marker = name.rfind(".tmp.");
  if (marker == std::string::npos) return false;
  const std::string suffix = name.substr(marker + 5);
  constexpr size_t kHexDigits = 16;
  if (suffix.size() < kHexDigits + 4) return false;
  const size_t hex_start = suffix.size() - kHexDigits;
  if (suffix[hex_start - 1] != '-') return false;
  for (size_t i = hex_start; i < suffix.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(suffix[i]))) return false;
  const size_t pid_dash = suffix.rfind('-', hex_start - 2);
  if (pid_dash == std::string::npos || pid_dash == 0 || pid_dash + 1 == hex_start - 1) return false;
  for (size_t i = pid_dash + 1; i < hex_start - 1; ++i)
    if (!std::isdigit(static_cast<unsigned char>(suffix[i]))) return false;
  return true;
}

// The newest modification time in a file or tree: a writer that keeps adding files to an old
// temporary directory is still alive.
std::time_t NewestModification(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) return 0;
  std::time_t newest = info.st_mtime;
  if (!S_ISDIR(info.st_mode)) return newest;
  boost::system::error_code error;
  for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
       it.increment(error)) {
    if (lstat(it->path().c_str(), &info) == 0) newest = std::max(newest, info.st_mtime);
  }
  return newest;
}

}  // namespace

int RemoveStaleTemporaries(const std::string& dir, std::chrono::seconds max_age, int64_t* young) {
  std::vector<std::string> stale;
  if (young) *young = 0;
  boost::system::error_code error;
  fs::directory_iterator it(dir, error);
  if (error) {
    if (error == boost::system::errc::no_such_file_or_directory) return 0;
    throw IoError("cannot list '" + dir + "': " + error.message());
  }
  const std::time_t now = std::time(nullptr);
  for (const fs::directory_iterator end; it != end; it.increment(error)) {
    if (error) break;
    if (!IsOurTemporaryName(it->path().filename().string())) continue;
    const std::time_t newest = NewestModification(it->path().string());
    if (newest == 0) continue;  // already gone: another cleaner
    if (now - newest >= max_age.count()) {
      stale.push_back(it->path().string());
    } else if (young) {
      ++*young;
    }
  }
  if (error) throw IoError("cannot list '" + dir + "': " + error.message());
  int removed = 0;
  for (const std::string& path : stale) {
    // Another cleaner may remove the same entry at the same time; losing that race is fine.
    fs::remove_all(path, error);
    if (error && error != boost::system::errc::no_such_file_or_directory) {
      throw IoError("cannot remove '" + path + "': " + error.message());
    }
    if (!error) ++removed;
  }
  return removed;
}

bool RemovePublished(const std::string& path) {
  const std::string temporary = TemporaryPathFor(path);
  if (rename(path.c_str(), temporary.c_str()) != 0) {
    if (errno == ENOENT) return false;
    ThrowErrno("rename '" + path + "' to", temporary, errno);
  }
  boost::system::error_code ignored;  // what is left is a temporary, removed once stale
  fs::remove_all(temporary, ignored);
  return true;
}

std::string ReadFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowErrno("open", path, errno);
  std::string contents;
  struct stat info;
  if (fstat(fd, &info) == 0 && info.st_size > 0) {
    contents.reserve(static_cast<size_t>(info.st_size));
  }
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      close(fd);
      ThrowErrno("read", path, error);
    }
    contents.append(buffer, static_cast<size_t>(got));
  }
  close(fd);
  return contents;
}

}  // namespace tengen
