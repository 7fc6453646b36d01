#include "go/board.h"

#include <bitset>
#include <sstream>
#include <vector>

#include "go/zobrist.h"
#include "util/error.h"
#include "util/text.h"

namespace tengen::go {
namespace {

// Up to four distinct chain heads around a point.
struct HeadSet {
  Loc heads[4];
  int count = 0;
  bool Insert(Loc head) {
    for (int i = 0; i < count; ++i)
      if (heads[i] == head) return false;
    heads[count++] = head;
    return true;
  }
};

}  // namespace

Board::Board(int size) : size_(size) {
  TENGEN_CHECK(size >= kMinSize && size <= kMaxSize, StrCat("board size ", size));
  colors_.fill(Color::kWall);
  head_.fill(kNullLoc);
  next_.fill(kNullLoc);
  libs_.fill(0);
  stones_.fill(0);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) colors_[LocOf(x, y)] = Color::kEmpty;
}

Board Board::FromAscii(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string row;
    for (char c : line)
      if (c != ' ' && c != '\t' && c != '\r') row += c;
    if (!row.empty()) rows.push_back(row);
  }
  const int size = static_cast<int>(rows.size());
  if (size < kMinSize || size > kMaxSize)
    throw FormatError(StrCat("ascii board: ", size, " rows, expected 2..19"));
  Board board(size);
  for (int y = 0; y < size; ++y) {
    if (static_cast<int>(rows[y].size()) != size)
      throw FormatError(StrCat("ascii board: row ", y + 1, " '", rows[y], "' has ", rows[y].size(),
                               " points, expected ", size));
    for (int x = 0; x < size; ++x) {
      const char c = rows[y][x];
      Color color;
      if (c == 'X' || c == 'x' || c == 'B') {
        color = Color::kBlack;
      } else if (c == 'O' || c == 'o' || c == 'W') {
        color = Color::kWhite;
      } else if (c == '.' || c == '+') {
        color = Color::kEmpty;
      } else {
        throw FormatError(
            StrCat(std::string("ascii board: unknown point '"), c, "' in row ", y + 1));
      }
      board.colors_[board.LocOf(x, y)] = color;
    }
  }
  board.RebuildChains();
  board.CheckChainsHaveLiberties("ascii board");
  return board;
}

std::string Board::ToAscii() const {
  std::string out;
  for (int y = 0; y < size_; ++y) {
    for (int x = 0; x < size_; ++x) {
      const Color c = colors_[LocOf(x, y)];
      if (x > 0) out += ' ';
      out += c == Color::kBlack ? 'X' : c == Color::kWhite ? 'O' : '.';
    }
    out += '\n';
  }
  return out;
}

bool Board::IsSuicide(Loc loc, Color color) const {
  const Color opponent = Opponent(color);
  for (Loc n : Neighbors(loc)) {
    const Color c = colors_[n];
    if (c == Color::kEmpty) return false;
    if (c == color && libs_[head_[n]] > 1) return false;
    if (c == opponent && libs_[head_[n]] == 1) return false;
  }
  return true;
}

bool Board::IsLegal(Loc loc, Color color, bool allow_suicide) const {
  if (!OnBoard(loc) || colors_[loc] != Color::kEmpty) return false;
  if (loc == ko_loc_ && color == ko_banned_color_) return false;
  if (!IsSuicide(loc, color)) return true;
  if (!allow_suicide) return false;
  // A single stone that kills itself changes nothing; only multi-stone suicide is a move.
  for (Loc n : Neighbors(loc))
    if (colors_[n] == color) return true;
  return false;
}

uint64_t Board::HashAfter(Loc loc, Color color) const {
  uint64_t hash = hash_ ^ ZobristStone(loc, color);
  const Color opponent = Opponent(color);
  HeadSet captured;
  for (Loc n : Neighbors(loc)) {
    if (colors_[n] != opponent || libs_[head_[n]] != 1 || !captured.Insert(head_[n])) continue;
    Loc s = head_[n];
    do {
      hash ^= ZobristStone(s, opponent);
      s = next_[s];
    } while (s != head_[n]);
  }
  if (captured.count == 0 && IsSuicide(loc, color)) {
    // The new stone and every friendly chain around it leave the board.
    hash ^= ZobristStone(loc, color);
    HeadSet own;
    for (Loc n : Neighbors(loc)) {
      if (colors_[n] != color || !own.Insert(head_[n])) continue;
      Loc s = head_[n];
      do {
        hash ^= ZobristStone(s, color);
        s = next_[s];
      } while (s != head_[n]);
    }
  }
  return hash;
}

int Board::Play(Loc loc, Color color) {
  const Color opponent = Opponent(color);
  colors_[loc] = color;
  hash_ ^= ZobristStone(loc, color);
  (color == Color::kBlack ? num_black_ : num_white_)++;
  head_[loc] = loc;
  next_[loc] = loc;
  stones_[loc] = 1;

  // The new stone takes one liberty from every distinct chain it touches.
  HeadSet touched;
  int16_t empty_neighbors = 0;
  for (Loc n : Neighbors(loc)) {
    const Color c = colors_[n];
    if (c == Color::kEmpty) {
      ++empty_neighbors;
    } else if (IsStone(c) && touched.Insert(head_[n])) {
      --libs_[head_[n]];
    }
  }
  libs_[loc] = empty_neighbors;

  Loc own_head = loc;
  bool merged = false;
  for (int i = 0; i < touched.count; ++i) {
    if (colors_[touched.heads[i]] != color) continue;
    MergeChains(own_head, touched.heads[i]);
    own_head = head_[loc];
    merged = true;
  }
  // Liberties of merged chains overlap; count the union once.
  if (merged) libs_[own_head] = static_cast<int16_t>(CountLiberties(own_head));

  int removed = 0;
  Loc captured_loc = kNullLoc;
  for (int i = 0; i < touched.count; ++i) {
    const Loc h = touched.heads[i];
    if (colors_[h] != opponent || libs_[h] != 0) continue;
    removed += stones_[h];
    captured_loc = h;
    RemoveChain(h);
  }

  ko_loc_ = kNullLoc;
  ko_banned_color_ = Color::kEmpty;
  if (removed == 1 && stones_[own_head] == 1 && libs_[own_head] == 1) {
    ko_loc_ = captured_loc;
    ko_banned_color_ = opponent;
  }
  if (removed == 0 && libs_[own_head] == 0) {
    removed = stones_[own_head];
    RemoveChain(own_head);
  }
  return removed;
}

void Board::PlayPass() {
  ko_loc_ = kNullLoc;
  ko_banned_color_ = Color::kEmpty;
}

void Board::SetStone(Loc loc, Color color) {
  TENGEN_CHECK(OnBoard(loc), "setup stone off the board");
  colors_[loc] = color;
  RebuildChains();
  CheckChainsHaveLiberties("setup");
}

void Board::CheckChainsHaveLiberties(const char* what) const {
  for (int y = 0; y < size_; ++y) {
    for (int x = 0; x < size_; ++x) {
      const Loc l = LocOf(x, y);
      if (IsStone(colors_[l]) && libs_[head_[l]] == 0)
        throw FormatError(std::string(what) + ": the chain at " + LocToGtp(l, size_) +
                          " has no liberties");
    }
  }
}

bool Board::IsSimpleEye(Loc loc, Color color) const {
  if (colors_[loc] != Color::kEmpty) return false;
  for (Loc n : Neighbors(loc))
    if (colors_[n] != color && colors_[n] != Color::kWall) return false;
  const Loc s = static_cast<Loc>(stride());
  const Loc diagonals[4] = {static_cast<Loc>(loc - s - 1), static_cast<Loc>(loc - s + 1),
                            static_cast<Loc>(loc + s - 1), static_cast<Loc>(loc + s + 1)};
  int opponent_diagonals = 0;
  int wall_diagonals = 0;
  for (Loc d : diagonals) {
    if (colors_[d] == Color::kWall) {
      ++wall_diagonals;
    } else if (colors_[d] == Opponent(color)) {
      ++opponent_diagonals;
    }
  }
  return wall_diagonals > 0 ? opponent_diagonals == 0 : opponent_diagonals <= 1;
}

void Board::RebuildChains() {
  hash_ = 0;
  num_black_ = num_white_ = 0;
  ko_loc_ = kNullLoc;
  ko_banned_color_ = Color::kEmpty;
  head_.fill(kNullLoc);
  next_.fill(kNullLoc);
  std::vector<Loc> stack;
  for (int y = 0; y < size_; ++y) {
    for (int x = 0; x < size_; ++x) {
      const Loc start = LocOf(x, y);
      const Color color = colors_[start];
      if (!IsStone(color)) continue;
      hash_ ^= ZobristStone(start, color);
      (color == Color::kBlack ? num_black_ : num_white_)++;
      if (head_[start] != kNullLoc) continue;
      // Flood fill the chain, linking its stones into a circular list headed by `start`.
      head_[start] = start;
      next_[start] = start;
      int16_t count = 1;
      stack.assign(1, start);
      while (!stack.empty()) {
        const Loc s = stack.back();
        stack.pop_back();
        for (Loc n : Neighbors(s)) {
          if (colors_[n] != color || head_[n] != kNullLoc) continue;
          head_[n] = start;
          next_[n] = next_[start];
          next_[start] = n;
          ++count;
          stack.push_back(n);
        }
      }
      stones_[start] = count;
      libs_[start] = static_cast<int16_t>(CountLiberties(start));
    }
  }
}

int Board::CountLibertiesFromScratch(Loc loc) const {
  const Color color = colors_[loc];
  TENGEN_CHECK(IsStone(color), "no stone at " + LocToGtp(loc, size_));
  std::bitset<kMaxArraySize> visited;
  std::bitset<kMaxArraySize> liberties;
  std::vector<Loc> stack{loc};
  visited.set(loc);
  while (!stack.empty()) {
    const Loc s = stack.back();
    stack.pop_back();
    for (Loc n : Neighbors(s)) {
      if (colors_[n] == Color::kEmpty) liberties.set(n);
      if (colors_[n] == color && !visited.test(n)) {
        visited.set(n);
        stack.push_back(n);
      }
    }
  }
  return static_cast<int>(liberties.count());
}

void Board::RemoveChain(Loc head) {
  const Color color = colors_[head];
  const Color opponent = Opponent(color);
  const int16_t count = stones_[head];
  Loc s = head;
  do {
    colors_[s] = Color::kEmpty;
    hash_ ^= ZobristStone(s, color);
    s = next_[s];
  } while (s != head);
  // Each freed point is a new liberty of every distinct opponent chain beside it.
  s = head;
  do {
    HeadSet beside;
    for (Loc n : Neighbors(s))
      if (colors_[n] == opponent && beside.Insert(head_[n])) ++libs_[head_[n]];
    const Loc next = next_[s];
    head_[s] = kNullLoc;
    next_[s] = kNullLoc;
    s = next;
  } while (s != head);
  if (color == Color::kBlack) {
    num_black_ = static_cast<int16_t>(num_black_ - count);
    captured_black_ = static_cast<int16_t>(captured_black_ + count);
  } else {
    num_white_ = static_cast<int16_t>(num_white_ - count);
    captured_white_ = static_cast<int16_t>(captured_white_ + count);
  }
}

void Board::MergeChains(Loc a, Loc b) {
  // Relabel the smaller chain; splice the two circular lists by swapping successors.
  if (stones_[a] < stones_[b]) std::swap(a, b);
  Loc s = b;
  do {
    head_[s] = a;
    s = next_[s];
  } while (s != b);
  std::swap(next_[a], next_[b]);
  stones_[a] = static_cast<int16_t>(stones_[a] + stones_[b]);
}

int Board::CountLiberties(Loc head) const {
  std::bitset<kMaxArraySize> liberties;
  Loc s = head;
  do {
    for (Loc n : Neighbors(s))
      if (colors_[n] == Color::kEmpty) liberties.set(n);
    s = next_[s];
  } while (s != head);
  return static_cast<int>(liberties.count());
}

}  // namespace tengen::go
