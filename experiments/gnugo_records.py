#!/usr/bin/env python3
"""Game records of GNU Go playing itself, for training from records (tengen-sgf2npz).

GNU Go plays the same game again from the same position whatever its seed, so every game starts
from its own random setup: 1 to --setup-stones stones of each colour on empty points apart from
each other, written as AB/AW, black to move. From there GNU Go (one process playing both sides)
plays until two passes, a resignation or --max-moves; its final_score is the result.
Writes collections of --games-per-file games to OUTPUT_DIR/gnugo-l<level>-<seed>-<NNN>.sgfs
and prints a line every file.

  experiments/gnugo_records.py --games 3000 --level 1 --jobs 2 --output-dir /tmp/records
"""
import argparse
import os
import random
import subprocess
import sys
import time
from multiprocessing import Pool

GNUGO = "/usr/games/gnugo"
LETTERS = "ABCDEFGHJKLMNOPQRST"


class Gtp:
    def __init__(self, level, seed):
        cmd = [GNUGO, "--mode", "gtp", "--chinese-rules", "--positional-superko",
               "--level", str(level), "--seed", str(seed)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    def send(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"gnugo ended after '{command}'")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        reply = " ".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"gnugo refused '{command}': {reply}")
        return reply[1:].strip()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def sgf_point(vertex, size):
    """GTP vertex (D4) to SGF point (row a = top); '' for a pass."""
    if vertex.lower() == "pass":
        return ""
    col = LETTERS.index(vertex[0].upper())
    row = size - int(vertex[1:])
    return chr(ord("a") + col) + chr(ord("a") + row)


def random_setup(rng, size, per_colour):
    """Points for per_colour black and white stones, none next to another."""
    taken = set()
    stones = {"B": [], "W": []}
    for colour in ("B", "W"):
        while len(stones[colour]) < per_colour:
            x, y = rng.randrange(size), rng.randrange(size)
            near = {(x + dx, y + dy) for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))}
            if near & taken:
                continue
            taken.add((x, y))
            stones[colour].append(f"{LETTERS[x]}{y + 1}")
    return stones


def play_game(gtp, rng, args):
    size = args.board_size
    gtp.send("clear_board")
    per_colour = rng.randint(1, args.setup_stones)
    setup = random_setup(rng, size, per_colour)
    for colour, vertices in setup.items():
        for vertex in vertices:
            gtp.send(f"play {colour} {vertex}")
    moves, passes, result = [], 0, None
    colour = "B"
    while len(moves) < args.max_moves:
        vertex = gtp.send(f"genmove {colour}")
        if vertex.lower() == "resign":
            result = ("W" if colour == "B" else "B") + "+R"
            break
        moves.append(f";{colour}[{sgf_point(vertex, size)}]")
        passes = passes + 1 if vertex.lower() == "pass" else 0
        if passes == 2:
            break
        colour = "W" if colour == "B" else "B"
    if result is None:
        if passes < 2:
            return None
        result = gtp.send("final_score")
    ab = "".join(f"[{sgf_point(v, size)}]" for v in setup["B"])
    aw = "".join(f"[{sgf_point(v, size)}]" for v in setup["W"])
    return (f"(;FF[4]GM[1]SZ[{size}]KM[{args.komi}]RU[Chinese]PB[GNU Go l{args.level}]"
            f"PW[GNU Go l{args.level}]RE[{result}]AB{ab}AW{aw}PL[B]{''.join(moves)})\n")


def collection_path(args, index):
    return os.path.join(args.output_dir, f"gnugo-l{args.level}-{args.seed}-{index:03d}.sgfs")


def write_file(task):
    args, index = task
    seed = args.seed * 100003 + index
    rng = random.Random(seed)
    gtp = Gtp(args.level, seed)
    gtp.send(f"boardsize {args.board_size}")
    gtp.send(f"komi {args.komi}")
    games = []
    while len(games) < args.games_per_file:
        game = play_game(gtp, rng, args)
        if game is not None:
            games.append(game)
    gtp.close()
    name = collection_path(args, index)
    with open(name + ".tmp", "w") as out:
        out.writelines(games)
    os.replace(name + ".tmp", name)
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument("--board-size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--setup-stones", type=int, default=3)
    parser.add_argument("--max-moves", type=int, default=300)
    parser.add_argument("--games-per-file", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    if not os.access(GNUGO, os.X_OK):
        sys.exit(f"gnugo_records.py: {GNUGO} not found (apt-get install gnugo)")
    os.makedirs(args.output_dir, exist_ok=True)
    files = -(-args.games // args.games_per_file)
    todo = [(args, i) for i in range(files) if not os.path.exists(collection_path(args, i))]
    start = time.time()
    with Pool(args.jobs) as pool:
        for done, name in enumerate(pool.imap_unordered(write_file, todo), 1):
            print(f"{done}/{len(todo)} files, {time.time() - start:.0f} s: {name}", flush=True)


if __name__ == "__main__":
    main()
