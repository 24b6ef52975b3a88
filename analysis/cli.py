"""The ``ludolab`` command line: a click group with a subgroup per registered game.

The subgroups come from the game registry (:mod:`ludolab.stdlib.registry`):
game ``m`` contributes ``ludolab.analysis.m_cli.group``, loaded only when it
is used, so ``ludolab --help`` stays quick.  Shared options, printing and
error handling live in :mod:`ludolab.analysis.cli_common`.
"""

from __future__ import annotations

import json
import sys

import click

from ludolab.stdlib import registry

from .cli_common import (CommandGroup, FloatRange, InputError, IntRange, check_out, refuse, refuse_foreign_digits,
                         user_errors)


class GameGroup(CommandGroup):
    """The root group: the game subgroups are read from the registry on demand; an unknown
    command is refused with the list of valid ones (games and tools)."""

    what = "command or game"

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | {g.cli_name for g in registry.GAMES})

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None:
            return cmd
        for g in registry.GAMES:
            if g.cli_name == name:
                from .ladder_cli import make_ladder_command
                from .scale import add_scale_options

                group = g.entry("cli_group")
                if "ladder" not in group.commands:
                    group.add_command(make_ladder_command(g.id))
                return add_scale_options(group)
        return None

    def parse_args(self, ctx, args):
        """Remember the command line (for the provenance of saved results and ``show --rerun``)."""
        from .scale import set_argv

        set_argv([a for a in args if a not in ("-h", "--help")])
        refuse_foreign_digits(args)  # click's number options would read "３" as 3
        return super().parse_args(ctx, args)


@click.group(cls=GameGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ludolab")
def cli():
    """ludolab: exact and Monte Carlo strategy analysis for Shut the Box, Shut The Books,
    Shelve the Book and Beverbende."""


@cli.command(short_help="The registered games, their rules texts and status.")
@click.option("--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True,
              help="A table, or JSON records.")
def games(fmt):
    """List the games: id, title, command group, rules clauses file, rules version and status."""
    rows = [g.as_dict() for g in registry.GAMES]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for g in registry.GAMES:
        click.echo(f"{g.cli_name:<12} {g.title:<16} rules {g.rules_file} (v{g.rules_version})  {g.status}")


def _add_shared_commands():
    from .balance_cli import balance
    from .play.cli import play, replay

    cli.add_command(balance)
    cli.add_command(play)
    cli.add_command(replay)


_add_shared_commands()


# --------------------------------------------------------------- bench/report
@cli.command(short_help="Kernel speed against the pure-Python reference.")
@click.option("--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True,
              help="A table, or JSON records (kernel, per_second, reference_per_second, ratio, ...).")
@click.option("--games", type=IntRange(1000, 10**9), default=5_000_000, show_default=True,
              help="Games for the Monte Carlo kernel timing.")
@click.option("--reference-seconds", type=FloatRange(0.1, 60.0), default=1.0, show_default=True,
              help="How long the pure-Python references run: each reference's calls are sized to about this "
                   "long, and its repeats last at least this or --scale seconds, by record (below 1 s the "
                   "box foresight and rule-of-thumb rows time 6 tiles instead of 9).")
@click.option("--scale", type=FloatRange(0.001, 100.0), default=1.0, show_default=True,
              help="Each kernel timing repeat lasts at least this many seconds of work (after a warm-up call; "
                   "see --reference-seconds for the references); a rate is the fastest of its repeats, one from "
                   "each pass over the bench (--passes), shown with their median and slowest.")
@click.option("--passes", type=IntRange(1, 20), default=5, show_default=True,
              help="Passes over the whole bench, one repeat of every timing a pass (so a record's repeats lie "
                   "minutes apart).")
@click.option("--game", "game_ids", multiple=True,
              help="Time only this game (repeat the option); default: every registered game (see `ludolab games`).")
@click.option("--scaling", is_flag=True,
              help="Instead: scaling of a long run from 1 to 2 local threads, and a 2-worker Dask LocalCluster "
                   "against the local backend.")
@click.option("--scaling-seconds", type=FloatRange(0.5, 600.0), default=8.0, show_default=True,
              help="With --scaling: about how long the run takes on one thread.")
@click.option("--startup", is_flag=True,
              help="Instead: warm start-up of the commands answered at the table (box advise, box solve, shelf "
                   "score, and the advise commands of the card games with the least search), each a whole "
                   "process, median of 3 runs.")
@user_errors
def bench(fmt, games, reference_seconds, scale, passes, game_ids, scaling, scaling_seconds, startup):
    """Speed of every kernel against its pure-Python reference (same process)."""
    from ludolab.analysis.bench import format_table, run_bench

    if startup and scaling:
        raise InputError("--startup and --scaling are two different benches: give one of them")
    if startup:
        refuse(["games", "reference_seconds", "scale", "passes", "game_ids", "scaling_seconds"],
               "does not apply with --startup (it times whole commands, each a fixed answer)")
    elif scaling:
        refuse(["games", "reference_seconds", "scale", "passes", "game_ids"],
               "does not apply with --scaling (its one setting is --scaling-seconds)")
    else:
        refuse(["scaling_seconds"], "applies only with --scaling")
    seen = set()
    for g in game_ids:
        if g in seen:
            raise InputError(f"--game {g} is given twice: name each game once")
        seen.add(g)
    if startup:
        from ludolab.analysis.bench import startup_bench

        rows = startup_bench(say=lambda m: click.echo(m, err=True) if fmt == "table" else None)
        if fmt == "json":
            click.echo(json.dumps(rows, indent=2))
            return
        from ludolab.analysis.bench import format_startup

        click.echo(format_startup(rows))
        return

    if scaling:
        from ludolab.analysis.bench import scaling_bench

        rows = scaling_bench(scaling_seconds, 2, repeats=3, say=lambda m: click.echo(m, err=True) if fmt == "table" else None)
        if fmt == "json":
            click.echo(json.dumps(rows, indent=2))
            return
        for r in rows:
            extra = (f"  efficiency {r['efficiency']:.0%}" if "efficiency" in r else
                     f"  {r['vs_local']:.2f} x the local wall time" if "vs_local" in r else "")
            click.echo(f"{r['setup']:<30} {r['seconds']:7.2f} s  {r['games_per_second']:>14,.0f} games/s{extra}")
        return

    rows = run_bench(games=games, reference_seconds=reference_seconds, progress=(fmt == "table"),
                     game_ids=game_ids or None, scale=scale, passes=passes)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(format_table(rows))


@cli.command(short_help="The main job: a report (Markdown and HTML) with tables and charts.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="ludolab-report",
              show_default=True, help="Folder for report.md, report.html, their tables and charts.")
@click.option("--quick", is_flag=True, help="Fewer simulated games (a smoke run).")
@click.option("--seed", type=IntRange(min=0), default=2026, show_default=True,
              help="Root seed of every simulation in the report.")
@click.option("--backend", type=click.Choice(("local", "dask")), default="local", show_default=True,
              help="Where the Monte Carlo runs execute (the numbers are the same).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="With --backend dask: a running Dask scheduler.")
@click.option("--workers", type=IntRange(1, 1024), default=None,
              help="With --backend dask: start a LocalCluster of this many workers.")
@click.option("--quiet", is_flag=True, help="No progress messages.")
@click.option("--force", is_flag=True, help="Replace files in --out that ludolab did not write (refused otherwise).")
@click.option("--deep", "deep_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="First continue the deep runs of strong play in DIR (hours of work, --quick does not shorten "
                   "them; stop at any time, run again to go on: finished chunks are kept), then show their "
                   "results in the report.")
@user_errors
def report(out_dir, quick, seed, backend, scheduler, workers, quiet, force, deep_dir):
    """The main job: a report of every registered game, as report.md and a self-contained
    report.html (charts embedded, a table of contents, the provenance of every figure).

    Studies of strong play too slow for one build are deep runs: the report shows their stored
    results (those kept with ludolab, or a complete run in `--deep DIR`) and says when they were made,
    or why they are refused. With `--deep DIR` the report is written once the deep runs are complete."""
    from .cli_common import given

    if (scheduler or workers) and backend == "local":
        if given("backend"):
            raise InputError(f"{'--scheduler' if scheduler else '--workers'} applies with --backend dask, "
                             "not --backend local")
        backend = "dask"
    out_dir = check_out(out_dir)
    from ludolab.analysis.report import build_report
    from ludolab.sim.runner import execution

    from .scale import check_scheduler, settings_from

    settings = settings_from(scheduler=scheduler, workers=workers, backend=backend)
    say = None if quiet else (lambda m: click.echo(m, err=True))
    with execution(settings) as sess:
        check_scheduler(sess)  # before any work or folder
        if deep_dir is not None:
            from pathlib import Path

            from ludolab.analysis.deep import run_all

            from .outputs import refuse_foreign

            if not deep_dir.strip():
                raise InputError("--deep needs a folder name")
            if Path(deep_dir).exists() and not Path(deep_dir).is_dir():
                raise InputError(f"--deep {deep_dir!r} is a file: give a folder for the deep runs")
            refuse_foreign(Path(out_dir), ("report.md", "report.html"), force)  # before hours of deep runs
            try:
                run_all(deep_dir, progress=None if not quiet else False, log=say)
            except KeyboardInterrupt:
                click.echo(f"\nstopped: every finished chunk of the deep runs is kept in {deep_dir}; the same "
                           "command goes on from there", err=True)
                raise SystemExit(130) from None
        path = build_report(out_dir, quick=quick, seed=seed, force=force, log=say, deep_dir=deep_dir)
    click.echo(str(path))
    html = path.with_name("report.html")
    if html.exists():
        click.echo(str(html))


@cli.command(short_help="Print a saved result with its provenance; --rerun repeats its run.")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--rerun", is_flag=True, help="Repeat the command that made FILE and say whether the numbers match.")
@click.option("--rows", type=IntRange(0), default=20, show_default=True, help="Rows of the table to print.")
@user_errors
def show(file, rerun, rows):
    """Print a table saved with --out (CSV with its .meta.json sidecar, or Parquet) and its provenance."""
    import tempfile
    from pathlib import Path

    from .scale import compare_tables, provenance_lines, read_result, rerun_args, rerun_inputs

    df, meta = read_result(file)
    click.echo(f"{file}: {len(df)} rows x {len(df.columns)} columns")
    shown = df.head(rows)
    if rows:
        click.echo(shown.to_string(index=False, float_format=lambda x: f"{x:.6g}"))
    if len(df) > len(shown):
        click.echo(f"... {len(df) - len(shown)} more rows")
    click.echo("\nprovenance")
    for line in provenance_lines(meta):
        click.echo(line)
    if not rerun:
        return
    argv = meta.get("argv")
    if not argv:
        raise InputError("this result records no command line, so it cannot be rerun (results saved by ludolab record theirs)")
    name = Path(file).name
    with tempfile.TemporaryDirectory(prefix="ludolab-rerun-") as tmp:
        args = rerun_args(rerun_inputs(argv, meta.get("inputs"), tmp), str(Path(tmp) / "out"))
        click.echo(f"\nrerunning: ludolab {' '.join(args[:-3])}", err=True)
        import contextlib
        import io

        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                cli.main(args=args, prog_name="ludolab", standalone_mode=False)
        except click.ClickException as exc:
            raise click.ClickException(f"the rerun failed: {exc.format_message()}") from None
        found = sorted((Path(tmp) / "out").rglob(name))
        if not found:
            raise click.ClickException(f"the rerun wrote no {name}")
        again, _ = read_result(found[0])
    same, words = compare_tables(df, again)
    click.echo(("match: " if same else "DIFFER: ") + words)
    if not same:
        raise SystemExit(1)


def _no_such_option(exc) -> str:
    """An unknown option, the closest one if one is close, and every option the command takes."""
    import difflib

    cmd = exc.ctx.command if exc.ctx is not None else None
    opts = sorted({o for p in (cmd.params if cmd else []) for o in p.opts if o.startswith("--")} | {"--help"})
    close = difflib.get_close_matches(exc.option_name, opts, n=1, cutoff=0.7)
    hint = f" (did you mean {close[0]}?)" if close else ""
    allowed = f": this command takes {', '.join(opts)}"
    return f"no such option {exc.option_name}{hint}{allowed}"


def main(argv=None):
    """Console entry point: click usage errors become one ``Error:`` line, exit code 2."""
    try:
        rv = cli.main(args=argv, prog_name="ludolab", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help())
        sys.exit(0)
    except click.exceptions.NoSuchOption as exc:
        click.echo(f"Error: {_no_such_option(exc)}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        msg = exc.format_message().strip().splitlines()
        click.echo(f"Error: {' '.join(m.strip() for m in msg)}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
