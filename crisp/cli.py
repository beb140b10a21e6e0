"""The `crisp` command: `crisp serve`, `crisp simulate`, `crisp bench`."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crisp", description="The Crisp card game server.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server (settings from CRISP_* variables)")
    serve.add_argument("--host", help="interface to listen on (CRISP_HOST)")
    serve.add_argument("--port", type=int, help="port to listen on (CRISP_PORT)")
    serve.add_argument("--workers", type=int, help="worker processes (CRISP_WORKERS)")
    sim = sub.add_parser(
        "simulate", help="play bot-only games of a game; print speed or bot strength")
    sim.add_argument("--game", default=None, metavar="ID",
                     help="the game (its id in GET /api/games; default: the default game)")
    sim.add_argument("--players", type=int, default=None, metavar="N",
                     help="seats of random players (without --bots), within the game's seats "
                          "(default: 4, or the game's fewest)")
    sim.add_argument("--games", type=int, default=200, metavar="G")
    sim.add_argument("--seed", type=int, default=None, metavar="S")
    sim.add_argument("--bots", metavar="LEVELS",
                     help="one level per seat, e.g. hard,normal (easy, normal, hard, random), "
                          "or 'mixed': 2-8 seats of random levels; prints per level the "
                          "share of games won with a 95%% confidence interval")
    sim.add_argument("--options", choices=("default", "random", "all"), default="default",
                     help="with --bots: the default options, any combination per game, or "
                          "every combination in turn")
    sim.add_argument("--discard-draw", action="store_true",
                     help="with --bots and default options: allow discard-pile draws (R13)")
    sub.add_parser("bench", help="load-test a server with websocket clients (crisp bench -h)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script and `python -m crisp`."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:  # its options belong to crisp.bench's own parser
        from .bench import main as bench_main

        return bench_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from .server.main import run

        run(host=args.host, port=args.port, workers=args.workers)
        return 0
    if args.command == "simulate":
        return _simulate(args)
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from .games import registry

    try:
        game = registry.get(args.game or registry.DEFAULT)
    except registry.UnknownGame:
        names = ", ".join(g.id for g in registry.all_games())
        print(f"crisp simulate: no game {args.game!r} (games: {names})", file=sys.stderr)
        return 2
    players = args.players or max(game.seats.min, min(4, game.seats.max))
    if not game.seats.min <= players <= game.seats.max:
        print(f"crisp simulate: {game.id} takes {game.seats.min} to {game.seats.max} players",
              file=sys.stderr)
        return 2
    if game.id != registry.DEFAULT:
        return _selfplay(game, players, args)
    from .simulate import parse_levels, report, report_bots, simulate, simulate_bots

    if args.bots is None:
        print(report(simulate(players, args.games, args.seed)))
        return 0
    try:
        levels = parse_levels(args.bots)
    except ValueError as err:
        print(f"crisp simulate: {err}", file=sys.stderr)
        return 2
    figures = simulate_bots(levels, args.games, args.seed, args.options, args.discard_draw)
    print(report_bots(figures))
    return 1 if figures["refusals"] or figures["unfinished"] else 0


def _selfplay(game: Any, players: int, args: argparse.Namespace) -> int:
    """Any other game: its computer players through the game interface (games/selfplay.py)."""
    from .games.selfplay import play_games, report

    levels = args.bots.split(",") if args.bots else [game.bot_levels[0]] * players
    unknown = sorted(set(levels) - set(game.bot_levels))
    if unknown or not game.seats.min <= len(levels) <= game.seats.max:
        print(f"crisp simulate: {game.id} takes {game.seats.min} to {game.seats.max} seats "
              f"of levels {', '.join(game.bot_levels)}", file=sys.stderr)
        return 2
    figures = play_games(game, levels, args.games, args.seed)
    print(report(figures))
    return 1 if figures.refusals or figures.unfinished else 0


if __name__ == "__main__":
    sys.exit(main())
