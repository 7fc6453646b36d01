#!/usr/bin/env python3
"""Positions per second of a whole game analysed by tengen-analysis (every position of one query,
searched --threads at a time, their leaves batched on the net) against the same positions analysed
one by one through tengen-gtp (clear_board, the game's moves, genmove, with tree reuse off so that
each position gets the same fresh search as in the analysis engine).

The game is the first --moves moves of an SGF record (its main line); positions are turns 0..N.
Each way runs --runs times; the script prints every run and the medians.

    bench/analysis_bench.py --bin build/release/bin --model nets/run-b4c64-s1857024-d234352 \\
        --sgf results/run-b4c64-s1857024-d234352/fill-rules-off-vs-gnugo-l10/game-012.sgf \\
        --moves 60 --visits 100 --threads 1,8,32 --runs 3
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import time


def sgf_moves(path, count):
    text = open(path).read()
    moves = []
    for color, point in re.findall(r";([BW])\[([a-s]{0,2})\]", text):
        if not point:
            vertex = "pass"
        else:
            x, y = ord(point[0]) - ord("a"), ord(point[1]) - ord("a")
            size = int(re.search(r"SZ\[(\d+)\]", text).group(1))
            vertex = "ABCDEFGHJKLMNOPQRST"[x] + str(size - y)
        moves.append([color, vertex])
    return moves[:count], int(re.search(r"SZ\[(\d+)\]", text).group(1))


def analysis_run(args, moves, size, threads):
    query = {"id": "game", "rules": "tromp-taylor", "komi": 7.5, "boardXSize": size,
             "boardYSize": size, "moves": moves, "analyzeTurns": list(range(len(moves) + 1)),
             "maxVisits": args.visits}
    engine = subprocess.Popen(
        [f"{args.bin}/tengen-analysis", "--model", args.model, "--analysis_threads", str(threads),
         "--seed", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    # The net loads before the first answer: a version query first, then the clock starts.
    engine.stdin.write(json.dumps({"id": "v", "action": "query_version"}) + "\n")
    engine.stdin.flush()
    engine.stdout.readline()
    start = time.monotonic()
    engine.stdin.write(json.dumps(query) + "\n")
    engine.stdin.flush()
    answered = 0
    while answered < len(moves) + 1:
        response = json.loads(engine.stdout.readline())
        if "error" in response:
            sys.exit(f"tengen-analysis: {response}")
        answered += not response.get("isDuringSearch", False)
    seconds = time.monotonic() - start
    engine.stdin.close()
    engine.wait()
    return (len(moves) + 1) / seconds


def gtp_run(args, moves, size):
    engine = subprocess.Popen(
        [f"{args.bin}/tengen-gtp", "--model", args.model, "--visits", str(args.visits),
         "--reuse_tree", "false", "--verbose", "false", "--seed", "1", "--board_size", str(size)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(command):
        engine.stdin.write(command + "\n")
        engine.stdin.flush()
        lines = []
        while True:
            line = engine.stdout.readline()
            if line == "\n" and lines:
                break
            lines.append(line)
        if not lines[0].startswith("="):
            sys.exit(f"tengen-gtp: {command}: {lines}")

    send("komi 7.5")
    start = time.monotonic()
    for turn in range(len(moves) + 1):
        send("clear_board")
        for color, vertex in moves[:turn]:
            send(f"play {color} {vertex}")
        to_move = "b" if turn == 0 else ("w" if moves[turn - 1][0] == "B" else "b")
        send(f"genmove {to_move}")
    seconds = time.monotonic() - start
    send("quit")
    engine.wait()
    return (len(moves) + 1) / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="build/release/bin")
    parser.add_argument("--model", required=True)
    parser.add_argument("--sgf", required=True)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--visits", type=int, default=100)
    parser.add_argument("--threads", default="1,8,32", help="analysis_threads values to measure")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    moves, size = sgf_moves(args.sgf, args.moves)
    print(f"{len(moves) + 1} positions ({len(moves)} moves, {size}x{size}), "
          f"{args.visits} visits each")
    gtp = [gtp_run(args, moves, size) for _ in range(args.runs)]
    print(f"tengen-gtp one by one: {' '.join(f'{x:.2f}' for x in gtp)} positions/s, "
          f"median {statistics.median(gtp):.2f}")
    for threads in [int(t) for t in args.threads.split(",")]:
        rates = [analysis_run(args, moves, size, threads) for _ in range(args.runs)]
        median = statistics.median(rates)
        print(f"tengen-analysis, {threads} at once: {' '.join(f'{x:.2f}' for x in rates)} "
              f"positions/s, median {median:.2f} ({median / statistics.median(gtp):.2f}x)")


if __name__ == "__main__":
    main()
