"""``ludolab play`` (the local play page) and ``ludolab replay`` (a saved game played back)."""

from __future__ import annotations

import json
import sys

import click

from ludolab.analysis.cli_common import InputError, IntRange, user_errors

HOST = "127.0.0.1"  # the page is served on this machine only


def _port_free(port: int) -> bool:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # as the server binds (werkzeug reuses the address): the connections of a server just stopped,
        # waiting out their TIME_WAIT, do not make the port taken; a server listening on it does
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


@click.command(short_help="Play the games against the bots in a local web page, with hints.")
@click.option("--port", type=IntRange(1, 65535), default=8765, show_default=True,
              help="Port on 127.0.0.1 (the page is served on this machine only).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in the default browser.")
@user_errors
def play(port, no_browser):
    """Serve the play page on http://127.0.0.1:PORT/ and open it in the default browser.

    Choose a game, its rules and the number of players, the bots and your seat; the server holds
    the game, plays the bots and refuses an illegal move.  Hint shows every legal action with its
    value and 95% CI; after the game, your costliest decisions; the game saves as a JSON record
    that `ludolab replay` reads.  Ctrl+C stops the server.
    """
    if not _port_free(port):
        raise InputError(f"port {port} on {HOST} is taken: choose another with --port (1..65535)")
    import logging

    from werkzeug.serving import make_server

    from .server import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    server = make_server(HOST, port, create_app(), threaded=True)
    url = f"http://{HOST}:{port}/"
    click.echo(f"ludolab play: serving {url} (Ctrl+C stops it)")
    if not no_browser:
        import threading
        import webbrowser

        threading.Timer(0.5, lambda: webbrowser.open(url)).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped.")
    finally:
        server.server_close()


@click.command(short_help="Replay a game saved from the play page and print its scores.")
@click.argument("record", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True,
              help="Lines of text, or one JSON object.")
@user_errors
def replay(record, fmt):
    """Play RECORD (a JSON record saved from `ludolab play`) back through the game's kernels and print
    the score after each hand or round and the final score (the score so far for a game saved before
    its end).  A record whose actions are not legal
    where they stand (changed by hand, or of other rules) is refused."""
    from pathlib import Path

    from .session import replay_record

    from ludolab.stdlib.jsonfile import load_json, read_input

    from .games import PlayError

    # a path, or - for standard input; UTF-8 with or without a byte-order mark, within the input size limit
    src = read_input(sys.stdin, "record", PlayError) if record == "-" else Path(record)
    data = load_json(src, "record saved by ludolab play", PlayError)
    out = replay_record(data)
    if fmt == "json":
        click.echo(json.dumps(out, indent=2))
        return
    n = out["players"]
    seat = out.get("seat")
    names = ["you" if seat == p else f"seat {p + 1}" for p in range(n)]
    n_act = len(data["actions"])
    click.echo(f"{out['title']} ({out['variant']}, {n} player{'' if n == 1 else 's'}): {n_act} action{'' if n_act == 1 else 's'} replayed; "
               f"{out['units']}")
    width = max([len(m["name"]) for m in out["moments"]] + [5]) + 7
    click.echo(" " * width + "".join(f"{x:>9}" for x in names))
    for m in out["moments"]:
        click.echo(f"{'after ' + m['name']:<{width}}" + "".join(f"{x:>9g}" for x in m["scores"]))
    if not out["finished"]:
        click.echo(f"{'so far':<{width}}" + "".join(f"{x:>9g}" for x in out["running"]))
        k = out["actions"]
        click.echo(f"the game was saved before its end (after {k} action{'' if k == 1 else 's'})")
        return
    click.echo(f"{'final':<{width}}" + "".join(f"{x:>9g}" for x in out["final"]))
    f = out["final"]
    best = min(f) if out["lower_better"] else max(f)
    win = [names[p] for p in range(n) if f[p] == best]
    click.echo(f"best: {', '.join(win)} ({best:g})")
