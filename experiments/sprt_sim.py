#!/usr/bin/env python3
"""How often the gatekeeper's SPRT accepts a candidate of a given true strength.

Simulates gating matches the way tengen-gatekeeper decides them (lib/pipeline/elo.cpp and
gatekeeper_rules.cpp): after each game, no decision before MIN_GAMES games; then the
log-likelihood ratio of elo1 against elo0, with the score variance floored at 1/(4n), accepts at
log((1 - beta) / alpha) and rejects at log(beta / (1 - alpha)); undecided after GAMES games,
a score of at least half accepts. Games are won or lost (no draws).

    experiments/sprt_sim.py [--matches N] [--games G] [--elo0 E0] [--elo1 E1] [--alpha A]
                      [--beta B] [--min-games M,M,...] [--true-elo=E,E,...] [--seed S]

Lists take commas; write --true-elo=-50,0 (with "=": the values may start with "-"). Prints,
for each floor and true Elo difference, the share of matches that accept the candidate
and the median games played.
"""
import argparse
import math
import random
import statistics


def expected_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def llr(wins, losses, elo0, elo1):
    n = wins + losses
    x = wins / n
    variance = max((wins * (1 - x) ** 2 + losses * x ** 2) / n, 0.25 / n)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * x - s0 - s1) / (2 * variance)


def match(p_win, args, min_games, rng):
    """(accepted, games played) of one gating match."""
    upper = math.log((1 - args.beta) / args.alpha)
    lower = math.log(args.beta / (1 - args.alpha))
    wins = 0
    for n in range(1, args.games + 1):
        wins += rng.random() < p_win
        if n < min_games:
            continue
        ratio = llr(wins, n - wins, args.elo0, args.elo1)
        if ratio >= upper:
            return True, n
        if ratio <= lower:
            return False, n
    return wins >= 0.5 * args.games, args.games


def numbers(text, kind):
    return [kind(v) for v in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=4000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--elo0", type=float, default=0)
    parser.add_argument("--elo1", type=float, default=50)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--min-games", default="0,10", help="floors to compare, comma-separated")
    parser.add_argument("--true-elo", default="-50,0,50", help="candidates' true Elo differences")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("min_games\ttrue Elo\taccepted\tmedian games")
    for min_games in numbers(args.min_games, int):
        for elo in numbers(args.true_elo, float):
            results = [match(expected_score(elo), args, min_games, rng) for _ in range(args.matches)]
            accepted = sum(1 for a, _ in results if a) / args.matches
            games = statistics.median(n for _, n in results)
            print(f"{min_games}\t{elo:+g}\t{accepted:.3f}\t{games:g}")


if __name__ == "__main__":
    main()
