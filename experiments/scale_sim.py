#!/usr/bin/env python3
"""Inflates a real base directory into a synthetic one the size of a large cluster's.

    experiments/scale_sim.py SEED OUT [--files 1000000] [--hosts 1000] [--models 100] [--days 7]
                       [--no-sgfs]

SEED is a base directory from a real (tiny) run: OUT starts as a copy of it, then gets FILES
more shards spread over MODELS synthetic selfplay/<model>/ directories (oldest model first),
written by HOSTS synthetic selfplay hosts over DAYS days (names and modification times both
say when), each shard a copy of one of SEED's shards under a name of the same form, with an
.sgfs companion per shard unless --no-sgfs; and one fresh selfplay heartbeat per host in
status/. bench/scale_bench.sh times the programs on the result (docs/BENCHMARKS.md).
"""
import argparse
import json
import os
import random
import re
import shutil
import sys
import time

# A shard name: <yyyymmdd>-<hhmmss>-<host>-<pid>-<16 hex>[-r<rows>].npz (lib/pipeline/base_dir.cpp)
SHARD_NAME = re.compile(r"^\d{8}-\d{6}-.+-\d+-[0-9a-f]{16}(-r(\d+))?\.npz$")


def fail(message):
    sys.exit(f"scale_sim.py: {message}")


def find_template(seed):
    """The first shard of SEED (with its .sgfs companion) and its row suffix ('' when none)."""
    selfplay = os.path.join(seed, "selfplay")
    for model in sorted(os.listdir(selfplay)):
        tdata = os.path.join(selfplay, model, "tdata")
        for name in sorted(os.listdir(tdata)) if os.path.isdir(tdata) else []:
            match = SHARD_NAME.match(name)
            if not match:
                continue
            stem = name[: -len(".npz") - len(match.group(1) or "")]
            sgfs = os.path.join(selfplay, model, "sgfs", stem + ".sgfs")
            with open(os.path.join(tdata, name), "rb") as f:
                shard = f.read()
            sgf_text = b""
            if os.path.exists(sgfs):
                with open(sgfs, "rb") as f:
                    sgf_text = f.read()
            return shard, sgf_text, match.group(1) or ""
    fail(f"no shard under {selfplay}/*/tdata to copy")


def heartbeat_template(seed):
    status = os.path.join(seed, "status")
    for name in sorted(os.listdir(status)):
        if name.startswith("selfplay-") and name.endswith(".json"):
            with open(os.path.join(status, name)) as f:
                return json.loads(f.read())
    fail(f"no selfplay heartbeat in {status}")


def write_file(path, data, mtime):
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (mtime, mtime))


def write_heartbeats(out, template, hosts, now):
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(now))
    for h in range(hosts):
        beat = dict(template, host=f"host{h:04d}", pid=1000 + h, time_utc=stamp, state="running")
        text = json.dumps(beat)
        path = os.path.join(out, "status", f"selfplay-host{h:04d}-{1000 + h}.json")
        write_file(path, (text + " " * max(0, 4095 - len(text)) + "\n").encode(), now)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("seed")
    parser.add_argument("out")
    parser.add_argument("--files", type=int, default=1_000_000)
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--days", type=float, default=7)
    parser.add_argument("--no-sgfs", action="store_true")
    args = parser.parse_args()
    if os.path.exists(args.out):
        fail(f"{args.out} exists; remove it first")
    if min(args.files, args.hosts, args.models) < 1:
        fail("--files, --hosts and --models must be positive")
    shard, sgf_text, rows_suffix = find_template(args.seed)
    beat = heartbeat_template(args.seed)
    shutil.copytree(args.seed, args.out, symlinks=True)
    rng = random.Random(1)
    now = time.time()
    start = now - args.days * 86400
    per_model = -(-args.files // args.models)
    written = 0
    for m in range(args.models):
        model = f"sim-b20c256-s{(m + 1) * 1000000}-d{(m + 1) * 250000}"
        tdata = os.path.join(args.out, "selfplay", model, "tdata")
        sgfs = os.path.join(args.out, "selfplay", model, "sgfs")
        os.makedirs(tdata)
        if not args.no_sgfs:
            os.makedirs(sgfs)
        count = min(per_model, args.files - written)
        for i in range(count):
            when = start + (now - start - 60) * (written + i) / args.files
            host = rng.randrange(args.hosts)
            stem = (time.strftime("%Y%m%d-%H%M%S", time.gmtime(when)) +
                    f"-host{host:04d}-{1000 + host}-{rng.getrandbits(64):016x}")
            write_file(os.path.join(tdata, stem + rows_suffix + ".npz"), shard, when)
            if not args.no_sgfs:
                write_file(os.path.join(sgfs, stem + ".sgfs"), sgf_text, when)
        # The directories changed last when their newest shard arrived, as in a real run.
        last = start + (now - start - 60) * (written + count - 1) / args.files
        for directory in [tdata] + ([] if args.no_sgfs else [sgfs]):
            os.utime(directory, (last, last))
        written += count
        print(f"{model}: {count} shards ({written} of {args.files})", flush=True)
    write_heartbeats(args.out, beat, args.hosts, now)
    print(f"{args.out}: {written} shards in {args.models} models from {args.hosts} hosts")


if __name__ == "__main__":
    main()
