"""KaTrain's own engine class (katrain.core.engine.KataGoEngine, from PyPI) with tengen-analysis
as its engine: KaTrain starts it, analyses a game record, ponders and stops, meets an error,
and this script checks what KaTrain parsed. Headless: no window, KaTrain's app replaced by the
two things the engine class calls on it (log, and a popup call on a fatal error).

usage: katrain_client.py TENGEN_ANALYSIS MODEL_DIR SGF_FILE
"""

import math
import os
import sys
import time

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")

from katrain.core.constants import OUTPUT_ERROR  # noqa: E402
from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game import BaseGame, KaTrainSGF  # noqa: E402

VISITS = 40
TIMEOUT = 300


class Host:
    """What KataGoEngine calls on KaTrain's app."""

    def __init__(self):
        self.errors = []
        self.popups = []

    def log(self, message, level=0):
        if level == OUTPUT_ERROR:
            self.errors.append(str(message))

    def __call__(self, *args):
        self.popups.append(args)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def wait_for(condition, what):
    deadline = time.time() + TIMEOUT
    while not condition():
        if time.time() > deadline:
            fail("timed out waiting for " + what)
        time.sleep(0.05)


def main_line(root):
    nodes = [root]
    while nodes[-1].children:
        nodes.append(nodes[-1].children[0])
    return nodes


def check_node(node, size, game):
    where = f"move {node.depth}"
    if not node.analysis_complete:
        fail(where + ": analysis not complete")
    if not 0 <= node.winrate <= 1:
        fail(f"{where}: winrate {node.winrate}")
    if not math.isfinite(node.score):
        fail(f"{where}: score {node.score}")
    if node.root_visits < VISITS:
        fail(f"{where}: {node.root_visits} visits, asked for {VISITS}")
    best = node.candidate_moves[0]
    game.set_current_node(node)  # KaTrain's own board, captures taken
    occupied = {stone.gtp() for stone in game.stones}
    if best["order"] != 0 or best["move"] in occupied:
        fail(f"{where}: best move {best}")
    ownership = node.ownership
    if len(ownership) != size * size or not all(-1 <= x <= 1 for x in ownership):
        fail(f"{where}: ownership {ownership}")
    if len(node.policy) != size * size + 1:
        fail(f"{where}: policy of {len(node.policy)} entries")


def main():
    binary, model, sgf = sys.argv[1:4]
    host = Host()
    config = {
        "backend": "custom",
        # exec: KaTrain ends its engine with a signal to the process it started (the shell).
        "altcommand": f"exec {binary} --model {model} --analysis_threads 8 --seed 7",
        "max_visits": VISITS,
        "fast_visits": 10,
        "max_time": 60.0,
        "wide_root_noise": 0.04,
        "_enable_ownership": True,
        "allow_recovery": False,
    }
    engine = KataGoEngine(host, config)

    # A whole game record, every position queued at once as KaTrain does on loading a file.
    root = KaTrainSGF.parse_file(sgf)
    root.set_property("RU", "tromp-taylor")
    size = root.board_size[0]
    nodes = main_line(root)
    for node in nodes:
        node.analyze(engine, visits=VISITS)
    wait_for(lambda: all(n.analysis_complete for n in nodes), "the game's analysis")
    game = BaseGame(host, move_tree=root)
    for node in nodes:
        check_node(node, size, game)
    result = root.get_property("RE")
    winner_sign = 1 if result.startswith("B+") else -1
    for node in nodes[-5:]:
        if node.score * winner_sign <= 0 or (node.winrate - 0.5) * winner_sign <= 0:
            fail(f"move {node.depth}: score {node.score}, winrate {node.winrate}, game {result}")
    print(f"analysed {len(nodes)} positions: first winrate {nodes[0].winrate:.3f}, "
          f"last score {nodes[-1].score:+.1f} (game {result}), "
          f"best first move {nodes[0].candidate_moves[0]['move']}")

    # Pondering: reports during the search, then KaTrain's terminate ends it.
    middle = nodes[len(nodes) // 2]
    middle.analysis["completed"] = False
    middle.analyze(engine, ponder=True)
    wait_for(lambda: middle.root_visits > 10 * VISITS, "pondering reports")
    engine.stop_pondering()
    wait_for(engine.is_idle, "the pondering search to end")
    print(f"pondered to {middle.root_visits} visits")

    # Rules tengen does not play: an error KaTrain hands to the error callback; the engine lives.
    errors = []
    japanese = KaTrainSGF.parse_sgf("(;GM[1]FF[4]SZ[9]KM[6.5]RU[japanese];B[ee])")
    last = main_line(japanese)[-1]
    engine.request_analysis(last, callback=lambda *a: fail("answer for japanese rules"),
                            error_callback=errors.append, visits=VISITS)
    wait_for(lambda: errors, "the rules error")
    if errors[0].get("field") != "rules" or "TERRITORY" not in errors[0]["error"]:
        fail(f"error {errors[0]}")
    if not engine.check_alive():
        fail("the engine died after an error")
    print(f"error for japanese rules: {errors[0]['error']}")

    engine.shutdown(finish=True)

    # KaTrain's local engine settings: tengen-analysis as "the KataGo executable", started with
    # KataGo's command line (analysis -model M -config KaTrain's own config -override-config).
    local = KataGoEngine(host, {**config, "backend": "local", "katago": binary, "model": model,
                                "config": "katrain/KataGo/analysis_config.cfg"})
    if not isinstance(local.command, list) or local.command[1] != "analysis":
        fail(f"KaTrain's local command {local.command}")
    first_moves = main_line(KaTrainSGF.parse_file(sgf))
    first_moves[0].root.set_property("RU", "tromp-taylor")
    for node in first_moves[:6]:
        node.analyze(local, visits=VISITS)
    wait_for(lambda: all(n.analysis_complete for n in first_moves[:6]), "the local engine")
    for node in first_moves[:6]:
        check_node(node, size, BaseGame(host, move_tree=first_moves[0].root))
    local.shutdown(finish=True)
    print(f"local engine: {' '.join(local.command[:2])} ..., 6 positions analysed")

    if host.errors or host.popups:
        fail(f"KaTrain logged errors {host.errors} or popups {host.popups}")
    print("OK")


if __name__ == "__main__":
    main()
