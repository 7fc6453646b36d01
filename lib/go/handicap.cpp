#include "go/handicap.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace tengen::go {
namespace {

constexpr int kMaxFixedSize = 25;

// Position on one axis: 0 = near (A side / row 1 side), 1 = middle, 2 = far.
struct Spot {
  int x;  // 0..2 along the columns
  int y;  // 0..2 along the rows, 0 = row 1 (the bottom)
};

// The four corners in the GTP table's order.
const std::vector<Spot>& Corners() {
  static const std::vector<Spot> kSpots = {{0, 0}, {2, 2}, {0, 2}, {2, 0}};
  return kSpots;
}

// The GTP table's points for n stones: the corners (up to 4), then the side points in pairs
// (6 and 8 stones), and the middle for an odd number from 5 on.
std::vector<Spot> Pattern(int stones) {
  std::vector<Spot> spots = Corners();
  spots.resize(std::min(stones, 4));
  if (stones >= 6) {
    spots.push_back({0, 1});
    spots.push_back({2, 1});
  }
  if (stones >= 8) {
    spots.push_back({1, 0});
    spots.push_back({1, 2});
  }
  if (stones % 2 == 1 && stones >= 5) spots.push_back({1, 1});
  return spots;
}

Loc SpotLoc(const Spot& spot, int size) {
  const int edge = size >= 12 ? 4 : 3;  // line of the star points, counted from 1 (GNU Go's)
  const int coords[3] = {edge - 1, size / 2, size - edge};
  // Rows count up from the bottom; Loc's y counts down from the top.
  return MakeLoc(coords[spot.x], size - 1 - coords[spot.y], size);
}

}  // namespace

int MaxFixedHandicap(int size) {
  if (size < 7 || size > kMaxFixedSize) return 0;
  return (size % 2 == 0 || size == 7) ? 4 : 9;
}

std::vector<Loc> FixedHandicapPoints(int size, int stones) {
  std::vector<Loc> points;
  if (stones < 2 || stones > MaxFixedHandicap(size)) return points;
  for (const Spot& spot : Pattern(stones)) points.push_back(SpotLoc(spot, size));
  return points;
}

std::vector<Loc> FreeHandicapPoints(int size, int stones) {
  const int area = size * size;
  stones = std::clamp(stones, 0, area - 1);
  std::vector<Loc> points = FixedHandicapPoints(size, std::min(stones, MaxFixedHandicap(size)));
  std::vector<bool> taken(area, false);
  for (const Loc loc : points) taken[LocY(loc, size) * size + LocX(loc, size)] = true;
  // Off the first two lines while there is room there (a 5x5 board has only its centre).
  const int margin = size >= 7 ? 2 : 0;
  while (static_cast<int>(points.size()) < stones) {
    int best = -1;
    long best_key = std::numeric_limits<long>::min();
    for (int i = 0; i < area; ++i) {
      if (taken[i]) continue;
      const int x = i % size, y = i / size;
      const bool inner = x >= margin && y >= margin && x < size - margin && y < size - margin;
      int nearest = 2 * size;
      for (const Loc loc : points) {
        nearest = std::min(nearest, std::abs(LocX(loc, size) - x) + std::abs(LocY(loc, size) - y));
      }
      const long key = (inner ? 1000L : 0L) + nearest;
      if (key > best_key) {
        best_key = key;
        best = i;
      }
    }
    taken[best] = true;
    points.push_back(MakeLoc(best % size, best / size, size));
  }
  return points;
}

}  // namespace tengen::go
