#include "match/ladder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <boost/filesystem.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/error.h"
#include "util/log.h"
#include "util/publish.h"
#include "util/text.h"

namespace tengen::match {
namespace {

constexpr double kZ95 = 1.959963984540054;
// d/dElo of the expected score is kLogistic * E * (1 - E).
const double kLogistic = std::log(10.0) / 400.0;
// Virtual draws added to every pair that has played (see the header comment).
constexpr double kPriorDraws = 1.0;
constexpr int kMaxSweeps = 10000;
constexpr double kMaxStep = 400;

double Expected(double diff) { return 1.0 / (1.0 + std::pow(10.0, -diff / 400.0)); }

// An exclusive flock on <path>.lock for the lifetime of the object.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : path_(path + ".lock") {
    fd_ = open(path_.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0) throw IoError("cannot open lock file " + path_ + ": " + std::strerror(errno));
    while (flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      close(fd_);
      throw IoError("cannot lock " + path_ + ": " + std::strerror(error));
    }
  }
  ~FileLock() { close(fd_); }  // closing releases the lock
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

struct Edge {
  int other;
  double games;   // real games plus the virtual draws
  double points;  // this player's
};

}  // namespace

std::map<std::string, double> ParseAnchors(const std::string& text) {
  std::map<std::string, double> anchors;
  std::istringstream in(text);
  for (std::string entry; std::getline(in, entry, ',');) {
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    char* end = nullptr;
    const std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
    const double elo = std::strtod(value.c_str(), &end);
    if (eq == 0 || eq == std::string::npos || value.empty() || *end != '\0' ||
        !std::isfinite(elo)) {
      throw ConfigError("ladder_anchors: '" + entry + "' is not name=elo");
    }
    anchors[entry.substr(0, eq)] = elo;
  }
  return anchors;
}

namespace {

// A match's field `key`, checked: FormatError naming where it is and what it holds otherwise.
const nlohmann::json& MatchField(const nlohmann::json& match, const char* key,
                                 const std::string& where) {
  if (!match.is_object()) throw FormatError(where + ": expected an object, got " + match.dump());
  if (!match.contains(key)) throw FormatError(StrCat(where, ".", key, ": missing"));
  return match.at(key);
}

std::string StringField(const nlohmann::json& match, const char* key, const std::string& where) {
  const nlohmann::json& value = MatchField(match, key, where);
  if (!value.is_string()) {
    throw FormatError(StrCat(where, ".", key, ": expected a name, got ", value.dump()));
  }
  return value.get<std::string>();
}

int CountField(const nlohmann::json& match, const char* key, const std::string& where) {
  const nlohmann::json& value = MatchField(match, key, where);
  if (!value.is_number_integer()) {
    throw FormatError(StrCat(where, ".", key, ": expected a whole number, got ", value.dump()));
  }
  return value.get<int>();
}

}  // namespace

Ladder ReadLadder(const std::string& path) {
  Ladder ladder;
  if (!boost::filesystem::exists(path)) return ladder;
  try {
    const nlohmann::json j = nlohmann::json::parse(ReadFile(path));
    if (j.at("format").get<std::string>() != "tengen-ladder") {
      throw FormatError("not a tengen-ladder file");
    }
    if (j.at("format_version").get<int>() != 1) throw FormatError("unknown format_version");
    if (!j.at("anchors").is_object()) throw FormatError("anchors is not an object");
    if (!j.at("matches").is_array()) throw FormatError("matches is not an array");
    for (const auto& [name, elo] : j.at("anchors").items()) {
      if (!elo.is_number()) {
        throw FormatError(StrCat("anchors.", name, ": expected a number, got ", elo.dump()));
      }
      ladder.anchors[name] = elo.get<double>();
    }
    const nlohmann::json& matches = j.at("matches");
    for (size_t i = 0; i < matches.size(); ++i) {
      const nlohmann::json& m = matches[i];
      const std::string where = StrCat("matches[", i, "]");
      LadderMatch match;
      match.a = StringField(m, "a", where);
      match.b = StringField(m, "b", where);
      match.wins = CountField(m, "wins", where);
      match.losses = CountField(m, "losses", where);
      match.draws = CountField(m, "draws", where);
      match.board_size = m.value("board_size", 0);
      match.komi = m.value("komi", 0.0);
      match.time_utc = m.value("time_utc", "");
      match.match_dir = m.value("match_dir", "");
      if (match.wins < 0 || match.losses < 0 || match.draws < 0) {
        throw FormatError("negative game count in a match of " + match.a + " and " + match.b);
      }
      ladder.matches.push_back(match);
    }
  } catch (const nlohmann::json::exception& e) {
    throw FormatError("ladder file " + path + ": " + e.what());
  } catch (const FormatError& e) {
    throw FormatError("ladder file " + path + ": " + e.what());
  }
  return ladder;
}

bool HoldsMatch(const Ladder& ladder, const LadderMatch& match) {
  return std::any_of(ladder.matches.begin(), ladder.matches.end(), [&](const LadderMatch& m) {
    return m.a == match.a && m.b == match.b && m.wins == match.wins && m.losses == match.losses &&
           m.draws == match.draws && (m.match_dir.empty() || m.match_dir == match.match_dir);
  });
}

namespace {

// The pairs of players who met, as edges both ways: games and points pooled per pair, with
// the virtual draws; games[i] counts player i's games (without them).
std::vector<std::vector<Edge>> PairEdges(const Ladder& ladder,
                                         const std::map<std::string, int>& index,
                                         std::vector<int>* games) {
  const int n = static_cast<int>(games->size());
  std::map<std::pair<int, int>, std::pair<double, double>> pairs;  // games, points of i
  for (const LadderMatch& m : ladder.matches) {
    const int a = index.at(m.a), b = index.at(m.b);
    const int g = m.wins + m.losses + m.draws;
    if (a == b || g == 0) continue;
    (*games)[a] += g;
    (*games)[b] += g;
    const double points_a = m.wins + 0.5 * m.draws;
    auto& pair = pairs[{std::min(a, b), std::max(a, b)}];
    pair.first += g;
    pair.second += a < b ? points_a : g - points_a;
  }
  std::vector<std::vector<Edge>> edges(n);
  for (const auto& [key, stats] : pairs) {
    const double g = stats.first + kPriorDraws;
    const double p = stats.second + 0.5 * kPriorDraws;
    edges[key.first].push_back({key.second, g, p});
    edges[key.second].push_back({key.first, g, g - p});
  }
  return edges;
}

// Newton steps on each free rating in turn (Gauss-Seidel) until nothing moves.
void SolveRatings(const std::vector<std::vector<Edge>>& edges, const std::vector<bool>& fixed,
                  std::vector<double>* ratings) {
  std::vector<double>& r = *ratings;
  const int n = static_cast<int>(r.size());
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    double largest = 0;
    for (int i = 0; i < n; ++i) {
      if (fixed[i]) continue;
      double gradient = 0, curvature = 0;
      for (const Edge& e : edges[i]) {
        const double expected = Expected(r[i] - r[e.other]);
        gradient += e.points - e.games * expected;
        curvature += e.games * expected * (1 - expected);
      }
      if (curvature <= 0) continue;
      const double step = std::clamp(gradient / (kLogistic * curvature), -kMaxStep, kMaxStep);
      r[i] += step;
      largest = std::max(largest, std::abs(step));
    }
    if (largest < 1e-7) break;
  }
}

// The variance of each rating from the inverse of the Fisher information matrix over all free
// players (the negated Hessian of the log-likelihood at the fit), so that an opponent's own
// uncertainty widens the interval; 0 for fixed players. Every group of players holds a fixed
// one and the virtual draws keep each pair's information positive, so the matrix is positive
// definite: Cholesky, then one solve per player.
std::vector<double> RatingVariances(const std::vector<std::vector<Edge>>& edges,
                                    const std::vector<bool>& fixed, const std::vector<double>& r) {
  const int n = static_cast<int>(r.size());
  std::vector<int> free_index(n, -1);
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (!fixed[i]) free_index[i] = m++;
  }
  std::vector<double> h(static_cast<size_t>(m) * m, 0.0);
  for (int i = 0; i < n; ++i) {
    if (fixed[i]) continue;
    const int a = free_index[i];
    for (const Edge& e : edges[i]) {
      const double expected = Expected(r[i] - r[e.other]);
      const double information = e.games * expected * (1 - expected) * kLogistic * kLogistic;
      h[static_cast<size_t>(a) * m + a] += information;
      if (!fixed[e.other]) h[static_cast<size_t>(a) * m + free_index[e.other]] -= information;
    }
  }
  // h = L L^T in place (lower triangle).
  for (int j = 0; j < m; ++j) {
    for (int i = j; i < m; ++i) {
      double sum = h[static_cast<size_t>(i) * m + j];
      for (int k = 0; k < j; ++k) {
        sum -= h[static_cast<size_t>(i) * m + k] * h[static_cast<size_t>(j) * m + k];
      }
      if (i == j) {
        TENGEN_CHECK(sum > 0, "the ladder's information matrix is not positive definite");
        h[static_cast<size_t>(j) * m + j] = std::sqrt(sum);
      } else {
        h[static_cast<size_t>(i) * m + j] = sum / h[static_cast<size_t>(j) * m + j];
      }
    }
  }
  // The inverse's diagonal: (H^-1)_aa = |L^-1 e_a|^2, with L^-1 e_a by forward substitution.
  std::vector<double> variances(n, 0.0);
  std::vector<double> y(m);
  for (int i = 0; i < n; ++i) {
    if (fixed[i]) continue;
    const int a = free_index[i];
    double squares = 0;
    for (int row = 0; row < m; ++row) {
      double sum = row == a ? 1.0 : 0.0;
      for (int k = a; k < row; ++k) sum -= h[static_cast<size_t>(row) * m + k] * y[k];
      y[row] = row < a ? 0.0 : sum / h[static_cast<size_t>(row) * m + row];
      squares += y[row] * y[row];
    }
    variances[i] = squares;
  }
  return variances;
}

}  // namespace

std::vector<LadderRating> ComputeRatings(const Ladder& ladder) {
  std::vector<std::string> names;
  std::map<std::string, int> index;
  auto add = [&](const std::string& name) {
    if (index.emplace(name, static_cast<int>(names.size())).second) names.push_back(name);
  };
  for (const LadderMatch& m : ladder.matches) {
    add(m.a);
    add(m.b);
  }
  for (const auto& anchor : ladder.anchors) add(anchor.first);
  const int n = static_cast<int>(names.size());

  std::vector<int> games(n, 0);
  const std::vector<std::vector<Edge>> edges = PairEdges(ladder, index, &games);
  // Groups of connected players; each gets its anchors, or its first player, fixed.
  std::vector<LadderRating> ratings(n);
  std::vector<double> r(n, 0.0);
  std::vector<bool> fixed(n, false);
  std::vector<int> group(n, -1);
  for (int start = 0; start < n; ++start) {
    if (group[start] >= 0) continue;
    std::vector<int> members = {start};
    group[start] = start;
    for (size_t k = 0; k < members.size(); ++k) {
      for (const Edge& e : edges[members[k]]) {
        if (group[e.other] < 0) {
          group[e.other] = start;
          members.push_back(e.other);
        }
      }
    }
    int num_anchors = 0;
    double anchor_sum = 0;
    for (const int i : members) {
      const auto it = ladder.anchors.find(names[i]);
      if (it == ladder.anchors.end()) continue;
      ++num_anchors;
      fixed[i] = true;
      r[i] = it->second;
      anchor_sum += it->second;
      ratings[i].anchor = true;
    }
    if (num_anchors == 0) {
      fixed[start] = true;  // members[0] == start, the first in file order
      for (const int i : members) ratings[i].pinned_to = names[start];
    } else {
      for (const int i : members) {
        if (!fixed[i]) r[i] = anchor_sum / num_anchors;
      }
    }
  }

  SolveRatings(edges, fixed, &r);
  const std::vector<double> variances = RatingVariances(edges, fixed, r);
  for (int i = 0; i < n; ++i) {
    LadderRating& rating = ratings[i];
    rating.name = names[i];
    rating.elo = r[i];
    rating.games = games[i];
    const double half_width = kZ95 * std::sqrt(variances[i]);
    rating.low = r[i] - half_width;
    rating.high = r[i] + half_width;
  }
  std::stable_sort(ratings.begin(), ratings.end(),
                   [](const LadderRating& a, const LadderRating& b) { return a.elo > b.elo; });
  return ratings;
}

std::string LadderJson(const Ladder& ladder, const std::vector<LadderRating>& ratings) {
  nlohmann::json j;
  j["format"] = "tengen-ladder";
  j["format_version"] = 1;
  j["anchors"] = nlohmann::json::object();
  for (const auto& [name, elo] : ladder.anchors) j["anchors"][name] = elo;
  j["matches"] = nlohmann::json::array();
  for (const LadderMatch& m : ladder.matches) {
    j["matches"].push_back({{"a", m.a},
                            {"b", m.b},
                            {"wins", m.wins},
                            {"losses", m.losses},
                            {"draws", m.draws},
                            {"board_size", m.board_size},
                            {"komi", m.komi},
                            {"time_utc", m.time_utc},
                            {"match_dir", m.match_dir}});
  }
  j["ratings"] = nlohmann::json::array();
  for (const LadderRating& r : ratings) {
    j["ratings"].push_back({{"name", r.name},
                            {"elo", r.elo},
                            {"low", r.low},
                            {"high", r.high},
                            {"games", r.games},
                            {"anchor", r.anchor},
                            {"pinned_to", r.pinned_to}});
  }
  return j.dump(2) + "\n";
}

std::string FormatRatings(const std::vector<LadderRating>& ratings) {
  std::string text;
  char line[512];
  std::snprintf(line, sizeof(line), "%4s  %-40s %7s  %-17s %6s\n", "rank", "player", "Elo",
                "95% interval", "games");
  text += line;
  int rank = 0;
  for (const LadderRating& r : ratings) {
    char interval[64];
    if (r.anchor) {
      std::snprintf(interval, sizeof(interval), "anchor");
    } else {
      std::snprintf(interval, sizeof(interval), "[%+.0f, %+.0f]", r.low, r.high);
    }
    std::snprintf(line, sizeof(line), "%4d  %-40s %+7.0f  %-17s %6d", ++rank, r.name.c_str(), r.elo,
                  interval, r.games);
    text += line;
    if (!r.pinned_to.empty()) text += "  (no anchor: relative to " + r.pinned_to + ")";
    text += "\n";
  }
  return text;
}

std::vector<LadderRating> UpdateLadder(const std::string& path,
                                       const std::map<std::string, double>& anchors,
                                       const std::optional<LadderMatch>& match) {
  const boost::filesystem::path parent = boost::filesystem::path(path).parent_path();
  if (!parent.empty()) EnsureDirectory(parent.string());
  FileLock lock(path);
  Ladder ladder = ReadLadder(path);
  for (const auto& [name, elo] : anchors) ladder.anchors[name] = elo;
  if (match) {
    LadderMatch m = *match;
    if (m.time_utc.empty()) m.time_utc = UtcTimestamp();
    ladder.matches.push_back(m);
  }
  const std::vector<LadderRating> ratings = ComputeRatings(ladder);
  PublishFile(path, LadderJson(ladder, ratings));
  return ratings;
}

}  // namespace tengen::match
