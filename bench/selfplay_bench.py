#!/usr/bin/env python3
"""Selfplay's steady rate and CPU cost per NN evaluation, measured from outside.

Runs tengen-selfplay (the random net, or whatever --set options say) in a fresh base directory,
lets it warm up, then reads its heartbeat (status/selfplay-*.json: NN evals/s and uptime) and
the process's CPU time (/proc/PID/stat) at the first heartbeat after the warm-up and at the
first one after the measured window; NN evals/s and CPU microseconds per eval (cores x
seconds / evals) come from the differences, so start-up and the first batches do not count.
Stops selfplay with two SIGINTs (then SIGKILL if it lingers). Repeats --runs times and prints each
run and the median. With an evaluation cache (--set nn_cache_entries=N) it also gives the share
of positions the cache answered in the window and the positions searched per second (the net's
evaluations plus the cache's answers): the rate the games see.

    bench/selfplay_bench.py --bin build/release/bin --seconds 30 --runs 3 \
        --set devices=cpu,cpu --set num_game_threads=1024 --set nn_max_batch_size=256
"""
import argparse
import glob
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime are fields 14 and 15 of the full line; fields[0] here is field 3.
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def read_beat(base):
    files = glob.glob(os.path.join(base, "status", "selfplay-*.json"))
    if not files:
        return None
    try:
        with open(files[0]) as f:
            beat = json.load(f)
    except (OSError, ValueError):
        return None
    counters = beat.get("counters", beat)
    return counters


def next_beat(base, pid, after_uptime, deadline):
    """The first heartbeat with an uptime past after_uptime, and the CPU time read just then."""
    while time.time() < deadline:
        beat = read_beat(base)
        if beat and beat.get("uptime_seconds", 0) > after_uptime:
            return beat, cpu_seconds(pid)
        time.sleep(0.02)
    raise RuntimeError("no heartbeat from selfplay in time (see the log under the base dir)")


def run_once(args, extra):
    base = tempfile.mkdtemp(prefix="selfplay-bench-")
    cmd = [os.path.join(args.bin, "tengen-selfplay"), "--output-dir", base]
    for config in args.config:
        cmd += ["--config", config]
    cmd += ["--set", "log_seconds=5"]
    for item in extra:
        cmd += ["--set", item]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(args.warmup)
        limit = time.time() + args.warmup + args.seconds + 60
        first, cpu0 = next_beat(base, proc.pid, 0, limit)
        time.sleep(args.seconds)
        last, cpu1 = next_beat(base, proc.pid, first["uptime_seconds"] + args.seconds - 1, limit)
    finally:
        # Two SIGINTs: the second drops the games in flight at once (the first alone would let
        # them finish, for up to finish_games_seconds).
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    evals0 = first["nn_evals_per_second"] * first["uptime_seconds"]
    evals1 = last["nn_evals_per_second"] * last["uptime_seconds"]
    seconds = last["uptime_seconds"] - first["uptime_seconds"]
    evals = evals1 - evals0
    hits = last.get("nn_cache_hits", 0) - first.get("nn_cache_hits", 0)
    lookups = last.get("nn_cache_lookups", 0) - first.get("nn_cache_lookups", 0)
    return {
        "evals_per_second": evals / seconds,
        "positions_per_second": (evals + hits) / seconds,
        "cache_hit_rate": hits / lookups if lookups else 0.0,
        "cpu_micros_per_eval": (cpu1 - cpu0) / evals * 1e6,
        "cpu_cores_busy": (cpu1 - cpu0) / seconds,
        "mean_batch": last.get("mean_batch_size", 0),
        "seconds": seconds,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="folder holding tengen-selfplay")
    parser.add_argument("--config", action="append", default=[],
                        help="a selfplay .cfg to read first (repeatable: later ones win)")
    parser.add_argument("--seconds", type=float, default=30, help="measured window")
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--set", action="append", default=[], help="key=value for selfplay")
    parser.add_argument("--keep", action="store_true", help="keep the base directories")
    args = parser.parse_args()
    results = []
    for run in range(args.runs):
        r = run_once(args, args.set)
        results.append(r)
        print(f"run {run + 1}: {r['evals_per_second']:.0f} NN evals/s, "
              f"{r['cpu_micros_per_eval']:.1f} CPU us/eval ({r['cpu_cores_busy']:.2f} cores busy), "
              f"mean batch {r['mean_batch']:.1f}, {r['seconds']:.0f} s, "
              f"{r['positions_per_second']:.0f} positions/s "
              f"(cache hits {100 * r['cache_hit_rate']:.1f}%)", flush=True)
    median = lambda key: statistics.median(r[key] for r in results)
    print(f"median of {len(results)}: {median('evals_per_second'):.0f} NN evals/s, "
          f"{median('cpu_micros_per_eval'):.1f} CPU us/eval, "
          f"{median('positions_per_second'):.0f} positions/s "
          f"(cache hits {100 * median('cache_hit_rate'):.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
