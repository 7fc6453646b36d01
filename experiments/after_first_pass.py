#!/usr/bin/env python3
"""What the moves after the first pass of selfplay games do.

For each model directory under BASE/selfplay/ (or the models named), replays every game of its
.sgfs files (9x9 and other sizes, positional superko not needed: legal moves are taken as given)
and splits the moves played after the first pass into captures (the move removes stones) and
the rest, and compares the Tromp-Taylor area score at the first pass with the final one: when
the moves after the first pass change the score, they were worth playing under Tromp-Taylor
(dead stones must be captured to count), when they do not, they were pointless.

    experiments/after_first_pass.py BASE [MODEL...]

Prints one line per model: games; the median of moves after the first pass, passes counted (as
selfplay's own counter does: a game ending pass, pass has 1); games in which stones were played
after the first pass, and the median of those stones over all games; the share of them that
capture; in how many games the score moved after the first pass, and by how much (median
|change|); and the throw-ins: moves right after the opponent's pass onto a point Tromp-Taylor
counts for the opponent, capturing nothing. For those, how many there were and what they gained
the side that played them, from the board before the throw-in to the final one (mean points,
and in how many the gain was positive or negative): a throw-in that gains is an answer to a
premature pass, one that does not is a pointless move. Next, in how many games the other side
captured stones of the first passer after its pass: dead stones it left on the board, which
Tromp-Taylor counts for their owner until they are taken. Then the fills after a pass: moves
right after the opponent's pass onto a point Tromp-Taylor counts for the mover (they capture
nothing and change no score; search no longer plays them, no_fill): in how many
games there was one, and the median of moves after the first pass had each such game ended
with a pass in place of its first one. Then all the fills after the first pass (stones onto
the mover's own area at any time after it; no_fill = once_passed keeps them out of search), and how
many of them came right after a pass. Last, in how many games the first pass cost its player
points (the final score is worse for it than the score at its pass: the pass was premature, and
the moves after it were the game going on), the median of the points lost in those games, and
in how many of them the first passer lost the game (RE[]).
Nothing is written.
"""
import glob
import os
import re
import statistics
import sys
from typing import List, NamedTuple, Optional

MOVE = re.compile(r";([BW])\[([a-s]{0,2})\]")


def neighbours(p, n):
    x, y = p
    for q in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
        if 0 <= q[0] < n and 0 <= q[1] < n:
            yield q


def group(board, p, n):
    colour = board[p]
    stones, liberties, todo = {p}, set(), [p]
    while todo:
        for q in neighbours(todo.pop(), n):
            if board.get(q) is None:
                liberties.add(q)
            elif board[q] == colour and q not in stones:
                stones.add(q)
                todo.append(q)
    return stones, liberties


def play(board, colour, p, n):
    """Plays colour at p; returns the number of stones captured (suicide removes own)."""
    board[p] = colour
    captured = 0
    for q in neighbours(p, n):
        if board.get(q) not in (None, colour):
            stones, liberties = group(board, q, n)
            if not liberties:
                captured += len(stones)
                for s in stones:
                    del board[s]
    stones, liberties = group(board, p, n)
    if not liberties:
        for s in stones:
            del board[s]
    return captured


def empty_region(board, p, n):
    """The empty region holding the empty point p, and the colours of the stones around it."""
    region, borders, todo = {p}, set(), [p]
    while todo:
        for q in neighbours(todo.pop(), n):
            if q in board:
                borders.add(board[q])
            elif q not in region:
                region.add(q)
                todo.append(q)
    return region, borders


def area_score(board, n):
    """Black's area minus white's (Tromp-Taylor), without komi."""
    score = sum(1 if c == "B" else -1 for c in board.values())
    seen = set()
    for x in range(n):
        for y in range(n):
            p = (x, y)
            if p in board or p in seen:
                continue
            region, borders = empty_region(board, p, n)
            seen |= region
            if borders == {"B"}:
                score += len(region)
            elif borders == {"W"}:
                score -= len(region)
    return score


def region_owner(board, p, n):
    """The colour Tromp-Taylor gives the empty point p ("B", "W"), or None (dame)."""
    borders = empty_region(board, p, n)[1]
    return borders.pop() if len(borders) == 1 else None


class Tail(NamedTuple):
    """What one game did after its first pass."""
    all_after: int  # moves after the first pass, passes too
    after: int  # stones among them
    captures: int  # of those, stones that captured
    change: int  # final area score minus the one at the first pass (Black's minus White's)
    gains: List[int]  # what each throw-in after a pass gained its player
    passer_captured: bool  # stones of the first passer captured after its pass
    ended_at_fill: Optional[int]  # all_after had a pass replaced the first fill after a pass
    fills: int  # stones onto the mover's own area after the first pass
    fills_after_pass: int  # of them, right after a pass
    passer_cost: int  # points the first passer lost after its pass (0 when none or it gained)
    passer_lost: bool  # the first passer lost the game (RE[])


def analyse(game):
    """The game's Tail."""
    size = int(re.search(r"SZ\[(\d+)\]", game).group(1))
    board, first_pass_score, after, captures, all_after = {}, None, 0, 0, 0
    throw_ins, previous_pass = [], False  # throw_ins: (sign of the mover, score before it)
    first_passer, passer_captured = None, False
    ended_at_fill = None  # moves after the first pass had a pass replaced the first fill
    fills, fills_after_pass = 0, 0  # own-area stones after the first pass; right after a pass
    for colour, coords in MOVE.findall(game):
        is_pass = coords == "" or (coords == "tt" and size <= 19)
        if is_pass:
            if first_pass_score is None:
                first_pass_score = area_score(board, size)
                first_passer = colour
            else:
                all_after += 1
            previous_pass = True
            continue
        point = (ord(coords[0]) - 97, ord(coords[1]) - 97)
        owner = region_owner(board, point, size) if first_pass_score is not None else None
        fill = owner == colour
        fills += 1 if fill else 0
        fills_after_pass += 1 if fill and previous_pass else 0
        opponents = previous_pass and owner not in (None, colour)
        if fill and previous_pass and ended_at_fill is None:
            ended_at_fill = all_after + 1
        before = area_score(board, size) if opponents else 0
        captured = play(board, colour, point, size)
        if opponents and not captured:
            throw_ins.append((1 if colour == "B" else -1, before))
        previous_pass = False
        if first_pass_score is None:
            continue
        all_after += 1
        after += 1
        captures += 1 if captured else 0
        passer_captured = passer_captured or (captured > 0 and colour != first_passer)
    final = area_score(board, size)
    change = 0 if first_pass_score is None else final - first_pass_score
    gains = [sign * (final - s) for sign, s in throw_ins]
    passer_cost = max(0, -change if first_passer == "B" else change)
    winner = re.search(r"RE\[([BW])\+", game)
    passer_lost = winner is not None and first_passer not in (None, winner.group(1))
    return Tail(all_after, after, captures, change, gains, passer_captured, ended_at_fill, fills,
                fills_after_pass, passer_cost, passer_lost)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    base = sys.argv[1]
    models = sys.argv[2:] or sorted(
        os.listdir(os.path.join(base, "selfplay")),
        key=lambda m: int(re.search(r"-s(\d+)-", m).group(1)) if re.search(r"-s(\d+)-", m) else -1)
    print("model\tgames\tmedian after (passes too)\twith stones played after\tmedian stones after\t"
          "capturing share\t"
          "games whose score moved\tmedian |change|\tthrow-ins after a pass\t"
          "their mean gain\tgaining / losing\tfirst passer's stones captured after\t"
          "games with a fill after a pass\tmedian after, had they ended at it\t"
          "fills after the first pass\tof them right after a pass\t"
          "games in which the first pass cost its player points\tmedian points lost\t"
          "of them, lost by the first passer")
    for model in models:
        games = []
        for path in glob.glob(os.path.join(base, "selfplay", model, "sgfs", "*.sgfs")):
            with open(path) as f:
                games += [g for g in f.read().split("\n") if g.startswith("(;")]
        if not games:
            continue
        results = [analyse(g) for g in games]
        all_afters = [r.all_after for r in results]
        afters = [r.after for r in results]
        moves = sum(afters)
        captures = sum(r.captures for r in results)
        moved = [abs(r.change) for r in results if r.change != 0]
        gains = [g for r in results for g in r.gains]
        costs = [r.passer_cost for r in results if r.passer_cost > 0]
        had_ended = [r.all_after if r.ended_at_fill is None else r.ended_at_fill for r in results]
        print(f"{model}\t{len(games)}\t{statistics.median(all_afters):g}\t"
              f"{sum(1 for a in afters if a)}\t{statistics.median(afters):g}\t"
              f"{captures / moves if moves else 0:.2f}\t{len(moved)}\t"
              f"{statistics.median(moved) if moved else 0:g}\t{len(gains)}\t"
              f"{statistics.mean(gains) if gains else 0:.1f}\t"
              f"{sum(1 for g in gains if g > 0)} / {sum(1 for g in gains if g < 0)}\t"
              f"{sum(1 for r in results if r.passer_captured)}\t"
              f"{sum(1 for r in results if r.ended_at_fill is not None)}\t"
              f"{statistics.median(had_ended):g}\t"
              f"{sum(r.fills for r in results)}\t{sum(r.fills_after_pass for r in results)}\t"
              f"{len(costs)}\t{statistics.median(costs) if costs else 0:g}\t"
              f"{sum(1 for r in results if r.passer_cost > 0 and r.passer_lost)}")


if __name__ == "__main__":
    main()
