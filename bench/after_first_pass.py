#!/usr/bin/env python3
"""What the moves after the first pass of selfplay games do.

For each model directory under BASE/selfplay/ (or the models named), replays every game of its
.sgfs files (9x9 and other sizes, positional superko not needed: legal moves are taken as given)
and splits the moves played after the first pass into captures (the move removes stones) and
the rest, and compares the Tromp-Taylor area score at the first pass with the final one: when
the moves after the first pass change the score, they were worth playing under Tromp-Taylor
(dead stones must be captured to count), when they do not, they were pointless.

    bench/after_first_pass.py BASE [MODEL...]

Prints one line per model: games; the median of moves after the first pass, passes counted (as
selfplay's own counter does: a game ending pass, pass has 1); games in which stones were played
after the first pass, and the median of those stones over all games; the share of them that
capture; in how many games the score moved after the first pass, and by how much (median
|change|). Nothing is written.
"""
import glob
import os
import re
import statistics
import sys

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


def area_score(board, n):
    """Black's area minus white's (Tromp-Taylor), without komi."""
    score = sum(1 if c == "B" else -1 for c in board.values())
    seen = set()
    for x in range(n):
        for y in range(n):
            p = (x, y)
            if p in board or p in seen:
                continue
            region, borders, todo = {p}, set(), [p]
            while todo:
                for q in neighbours(todo.pop(), n):
                    if q in board:
                        borders.add(board[q])
                    elif q not in region:
                        region.add(q)
                        todo.append(q)
            seen |= region
            if borders == {"B"}:
                score += len(region)
            elif borders == {"W"}:
                score -= len(region)
    return score


def analyse(game):
    size = int(re.search(r"SZ\[(\d+)\]", game).group(1))
    board, first_pass_score, after, captures, all_after = {}, None, 0, 0, 0
    for colour, coords in MOVE.findall(game):
        is_pass = coords == "" or (coords == "tt" and size <= 19)
        if first_pass_score is None:
            if is_pass:
                first_pass_score = area_score(board, size)
            else:
                play(board, colour, (ord(coords[0]) - 97, ord(coords[1]) - 97), size)
            continue
        all_after += 1
        if is_pass:
            continue
        after += 1
        if play(board, colour, (ord(coords[0]) - 97, ord(coords[1]) - 97), size):
            captures += 1
    change = 0 if first_pass_score is None else area_score(board, size) - first_pass_score
    return all_after, after, captures, change


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    base = sys.argv[1]
    models = sys.argv[2:] or sorted(
        os.listdir(os.path.join(base, "selfplay")),
        key=lambda m: int(re.search(r"-s(\d+)-", m).group(1)) if re.search(r"-s(\d+)-", m) else -1)
    print("model\tgames\tmedian after (passes too)\twith stones played after\tmedian stones after\t"
          "capturing share\t"
          "games whose score moved\tmedian |change|")
    for model in models:
        games = []
        for path in glob.glob(os.path.join(base, "selfplay", model, "sgfs", "*.sgfs")):
            with open(path) as f:
                games += [g for g in f.read().split("\n") if g.startswith("(;")]
        if not games:
            continue
        results = [analyse(g) for g in games]
        all_afters = [a for a, _, _, _ in results]
        afters = [a for _, a, _, _ in results]
        moves = sum(afters)
        captures = sum(c for _, _, c, _ in results)
        moved = [abs(d) for _, _, _, d in results if d != 0]
        print(f"{model}\t{len(games)}\t{statistics.median(all_afters):g}\t"
              f"{sum(1 for a in afters if a)}\t{statistics.median(afters):g}\t"
              f"{captures / moves if moves else 0:.2f}\t{len(moved)}\t"
              f"{statistics.median(moved) if moved else 0:g}")


if __name__ == "__main__":
    main()
