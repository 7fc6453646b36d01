#include "go/pass_alive.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace tengen::go {
namespace {

// A region of points not of the colour whose life is asked about.
struct Region {
  std::vector<Loc> points;
  std::vector<Loc> borders;  // heads of the bordering chains of the colour
  std::vector<Loc> vital;    // heads of the chains every empty point of the region touches
  bool alive = true;
};

std::vector<Loc> SortedUnique(std::vector<Loc> locs) {
  std::sort(locs.begin(), locs.end());
  locs.erase(std::unique(locs.begin(), locs.end()), locs.end());
  return locs;
}

bool Contains(const std::vector<Loc>& sorted, Loc loc) {
  return std::binary_search(sorted.begin(), sorted.end(), loc);
}

// Heads of the chains of `color` next to `loc`.
std::vector<Loc> AdjacentHeads(const Board& board, Loc loc, Color color) {
  std::vector<Loc> heads;
  for (Loc n : board.Neighbors(loc))
    if (board.At(n) == color) heads.push_back(board.ChainHead(n));
  return SortedUnique(heads);
}

Region FloodRegion(const Board& board, Loc start, Color color,
                   std::array<bool, kMaxArraySize>* visited) {
  Region region;
  std::vector<Loc> stack{start};
  (*visited)[start] = true;
  bool first_empty = true;
  while (!stack.empty()) {
    const Loc loc = stack.back();
    stack.pop_back();
    region.points.push_back(loc);
    const std::vector<Loc> heads = AdjacentHeads(board, loc, color);
    region.borders.insert(region.borders.end(), heads.begin(), heads.end());
    if (board.At(loc) == Color::kEmpty) {
      if (first_empty) {
        region.vital = heads;
        first_empty = false;
      } else {
        std::vector<Loc> both;
        std::set_intersection(region.vital.begin(), region.vital.end(), heads.begin(), heads.end(),
                              std::back_inserter(both));
        region.vital = both;
      }
    }
    for (Loc n : board.Neighbors(loc)) {
      if (board.OnBoard(n) && board.At(n) != color && !(*visited)[n]) {
        (*visited)[n] = true;
        stack.push_back(n);
      }
    }
  }
  region.borders = SortedUnique(region.borders);
  // Without an empty point (not on a legal board: its stones would have no liberty) the
  // region is vital to every chain around it.
  if (first_empty) region.vital = region.borders;
  return region;
}

std::vector<Region> Regions(const Board& board, Color color) {
  std::vector<Region> regions;
  std::array<bool, kMaxArraySize> visited{};
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      const Loc loc = board.LocOf(x, y);
      if (board.At(loc) != color && !visited[loc])
        regions.push_back(FloodRegion(board, loc, color, &visited));
    }
  }
  return regions;
}

bool AllAlive(const std::vector<Loc>& heads, const std::vector<Loc>& alive) {
  return std::all_of(heads.begin(), heads.end(), [&](Loc h) { return Contains(alive, h); });
}

// Benson's iteration: the heads of the unconditionally alive chains of `color`; `regions`
// come back with alive set for the regions bordered by those chains only.
std::vector<Loc> AliveChains(const Board& board, Color color, std::vector<Region>* regions) {
  std::vector<Loc> alive;
  for (int y = 0; y < board.size(); ++y) {
    for (int x = 0; x < board.size(); ++x) {
      const Loc loc = board.LocOf(x, y);
      if (board.At(loc) == color) alive.push_back(board.ChainHead(loc));
    }
  }
  alive = SortedUnique(alive);
  for (bool changed = true; changed;) {
    std::vector<Loc> kept;
    for (Loc head : alive) {
      int eyes = 0;
      for (const Region& region : *regions)
        if (region.alive && Contains(region.vital, head)) ++eyes;
      if (eyes >= 2) kept.push_back(head);
    }
    changed = kept.size() != alive.size();
    alive = kept;
    for (Region& region : *regions) {
      if (region.alive && !AllAlive(region.borders, alive)) {
        region.alive = false;
        changed = true;
      }
    }
  }
  return alive;
}

void MarkArea(const Board& board, Color color, std::array<Color, kMaxArraySize>* area) {
  std::vector<Region> regions = Regions(board, color);
  const std::vector<Loc> alive = AliveChains(board, color, &regions);
  for (Loc head : alive) {
    Loc loc = head;
    do {
      (*area)[loc] = color;
      loc = board.NextInChain(loc);
    } while (loc != head);
  }
  for (const Region& region : regions) {
    const bool eye = region.alive && !region.borders.empty() &&
                     std::any_of(region.vital.begin(), region.vital.end(),
                                 [&](Loc h) { return Contains(alive, h); });
    if (eye)
      for (Loc loc : region.points) (*area)[loc] = color;
  }
}

}  // namespace

std::array<Color, kMaxArraySize> PassAliveArea(const Board& board) {
  std::array<Color, kMaxArraySize> area;
  area.fill(Color::kEmpty);
  MarkArea(board, Color::kBlack, &area);
  MarkArea(board, Color::kWhite, &area);
  return area;
}

bool WholeBoardPassAlive(const Board& board) {
  const auto area = PassAliveArea(board);
  for (int y = 0; y < board.size(); ++y)
    for (int x = 0; x < board.size(); ++x)
      if (area[board.LocOf(x, y)] == Color::kEmpty) return false;
  return true;
}

}  // namespace tengen::go
