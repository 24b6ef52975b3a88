"""Pieces every game's command line shares: errors, option bundles, printing, saving.

Bad input reaches the user as one line, ``Error: ...``, naming what is wrong
and what is allowed, on stderr with exit code 2 and no traceback.  Exactly
these count as bad input: :class:`~ludolab.stdlib.errors.LudolabError` (raised
by the library in the game's terms), click's usage errors, and files that
cannot be read or written (any ``OSError``: a missing file, a full or read-only
disk, a missing permission), named with the cause.  Any other exception is a bug and shows as one.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import click

from ludolab.stdlib.errors import LudolabError

FORMATS = ("table", "json", "csv")


class CommandGroup(click.Group):
    """A command group that refuses an unknown command in one line: the closest name, if one is
    close, and every command the group has."""

    #: What a name in this group is, for the message.
    what = "command"

    def get_command(self, ctx, name):
        """The command ``name``; a command (not a group) refuses a single-valued option given twice
        (:func:`ludolab.analysis.scale.refuse_repeated_options`): click would keep the last silently."""
        cmd = super().get_command(ctx, name)
        if cmd is not None and not isinstance(cmd, click.Group):
            from .scale import refuse_repeated_options

            refuse_repeated_options(cmd)
        return cmd

    def resolve_command(self, ctx, args):
        name = click.utils.make_str(args[0]) if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            allowed = self.list_commands(ctx)
            close = difflib.get_close_matches(name, allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise click.UsageError(f"unknown {self.what} {name!r}{hint}: allowed are {', '.join(allowed)}", ctx)
        return super().resolve_command(ctx, args)


class _PlainRange:
    """A number option's range in words, and one message for a value that is not a number or is
    outside the range (click's own names neither the kind of number nor the range)."""

    #: What a value must be, in the message ("whole numbers", "numbers"), and one of them.
    kind = "numbers"
    one = "a number"

    def _describe_range(self) -> str:
        """click's note of the range in a help text (``x>=1``); none for a number with no bound (click's
        own would read ``x<=None``)."""
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()

    def allowed(self) -> str:
        """The allowed values in words, e.g. ``whole numbers from 1 to 1000000``."""
        low = None if self.min is None else f"{'above' if self.min_open else 'from'} {self.min}"
        high = None if self.max is None else f"{'below' if self.max_open else 'to'} {self.max}"
        if low and high:
            return f"{self.kind} {low} {high}" if low.startswith("from") else f"{self.kind} {low} and {high}"
        if low:
            return f"{self.kind} {self.min} or more" if not self.min_open else f"{self.kind} {low}"
        if high:
            return f"{self.kind} {self.max} or less" if not self.max_open else f"{self.kind} {high}"
        return self.kind

    def convert(self, value, param, ctx):
        """``value`` as a number inside the range; otherwise :class:`click.BadParameter` naming
        the allowed values."""
        try:
            number = self._number_class(value)
        except (TypeError, ValueError, OverflowError):
            self.fail(f"{value!r} is not {self.one}: allowed are {self.allowed()}", param, ctx)
        if (self.min is not None or self.max is not None) and not math.isfinite(number):  # NaN passes click's
            self.fail(f"{value} is not a finite number: allowed are {self.allowed()}", param, ctx)  # comparisons
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"{value} is out of range: allowed are {self.allowed()}", param, ctx)


class IntRange(_PlainRange, click.IntRange):
    """:class:`click.IntRange` whose message says what is allowed in words (``whole numbers from
    1 to 100``)."""

    name = "integer"
    kind = "whole numbers"
    one = "a whole number"


class FloatRange(_PlainRange, click.FloatRange):
    """:class:`click.FloatRange` whose message says what is allowed in words (``numbers from 0.0
    to 1.0``)."""

    name = "float"
    kind = "numbers"
    one = "a number"


class InputError(click.ClickException):
    """Bad input: shown as one ``Error:`` line, exit code 2."""

    exit_code = 2


def refuse_foreign_digits(args) -> None:
    """Refuse a command-line argument written with digits other than ASCII 0-9 (e.g. ``--roll ３``).

    click's whole-number and number options, like Python's ``int`` and ``float``, read fullwidth and
    other scripts' digits as numbers; every number and card a user types must use 0-9.  An argument
    naming a file or folder that exists is left alone (a file name may use any characters).

    Args:
        args: the command line after the program name (a list of str).

    Raises:
        InputError: naming the option (or the argument) and the digit that is not 0-9.
    """
    import os

    from ludolab.stdlib.errors import ascii_digits, non_ascii_digit

    for i, a in enumerate(args):
        if non_ascii_digit(a) is None:
            continue
        name, eq, value = a.partition("=")
        if a.startswith("--") and eq:
            what, text = name, value
        else:
            prev = args[i - 1] if i else ""
            what, text = (prev if prev.startswith("-") and "=" not in prev else "argument"), a
        if not os.path.exists(text):
            ascii_digits(text, what, InputError)


def user_errors(fn):
    """Turn the library's :class:`LudolabError` and unusable files into one-line CLI errors."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except click.ClickException:
            raise
        except LudolabError as exc:
            raise InputError(str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__) from None
        except BrokenPipeError:
            raise
        except OSError as exc:  # a file that cannot be read or written: full or read-only disk, ...
            from ludolab.analysis.outputs import cause

            where = f" {exc.filename!r}" if getattr(exc, "filename", None) else ""
            raise InputError(f"cannot use{where}: {cause(exc)}") from None

    return wrapper


def seed_options(default_games: int, names: tuple = ("--games",), dest: str = "games",
                 help: str = "Number of simulated games."):
    """The count of a run, --seed and --chunks.

    Args:
        default_games: default count; names: the count's option names (the
            first is shown, e.g. ``("--hands",)`` or ``("--rounds", "--games")``);
        dest: the command's parameter that receives the count; help: its help text.
    """

    def deco(fn):
        opts = [
            click.option(*names, dest, type=IntRange(1, 10**12), default=default_games, show_default=True,
                         help=help),
            click.option("--seed", type=IntRange(min=0), default=0, show_default=True,
                         help="Root seed; the same seed gives the same numbers on any thread count."),
            click.option("--chunks", type=IntRange(1, 4096), default=64, show_default=True,
                         help="Chunks the run is cut into (part of what the seed means)."),
        ]
        for o in reversed(opts):
            fn = o(fn)
        return fn

    return deco


def output_options(fn):
    """--format, --out, --table-format, --force, --quiet."""
    opts = [
        click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                     help="How results are printed."),
        click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
                     help="Also write tables (with provenance) and PNG charts to this folder."),
        click.option("--table-format", type=click.Choice(("csv", "parquet")), default="csv", show_default=True,
                     help="File format of tables written with --out."),
        force_option,
        click.option("--quiet", is_flag=True, help="No progress bar."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def given(name: str) -> bool:
    """Whether the option ``name`` was given on the command line (not a default)."""
    from click.core import ParameterSource

    src = click.get_current_context().get_parameter_source(name)
    return src in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def refuse(names, why: str):
    """Refuse options that do not apply here, naming them as the user typed them."""
    ctx = click.get_current_context()
    for name in names:
        if given(name):
            flag = next((p.opts[0] for p in ctx.command.params if p.name == name), f"--{name}")
            raise InputError(f"{flag} {why}")


def check_out(out_dir):
    """Validate --out before any work and return it as a Path (or None).

    The folder must be one that can be written: not a file, not under a file, and
    creatable (its missing folders and a file inside them are made and removed again
    as a probe, so a read-only or special file system, a name too long or a missing
    permission is refused here, before any progress or work is printed).

    Raises:
        InputError: naming --out and why it cannot be used.
    """
    if out_dir is None:
        if "table_format" in click.get_current_context().params:
            refuse(["table_format"], "applies only with --out DIR")
        return None
    if str(out_dir).strip() == "":
        raise InputError("--out needs a folder name")
    import os
    import tempfile

    path = Path(out_dir)

    def cannot(why):
        return InputError(f"cannot write to --out {str(out_dir)!r}: {why}")

    try:
        if path.exists() and not path.is_dir():
            raise InputError(f"--out {str(out_dir)!r} is a file: give a folder")
        # the nearest existing folder must take new files
        base = path.absolute()
        missing = []
        while not base.exists():
            missing.append(base)
            base = base.parent
    except OSError as exc:  # e.g. a folder name too long
        from ludolab.analysis.outputs import cause

        raise cannot(cause(exc)) from None
    if not base.is_dir():
        raise cannot("it lies under a file")
    if not os.access(base, os.W_OK | os.X_OK):
        try:
            ro = bool(os.statvfs(base).f_flag & os.ST_RDONLY)
        except OSError:
            ro = False
        raise cannot(f"{str(base)!r} is on a read-only file system" if ro else f"{str(base)!r} is not writable")
    made = []
    try:
        for folder in reversed(missing):
            try:
                folder.mkdir()
            except FileExistsError:  # made at the same moment by another command
                continue
            made.append(folder)
        fd, probe = tempfile.mkstemp(prefix=".probe.", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        from ludolab.analysis.outputs import cause

        raise cannot(cause(exc)) from None
    finally:
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass
    return path


# -------------------------------------------------------------- printing
def _clean(v):
    import numpy as np

    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return None if math.isnan(v) else v
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def emit(fmt: str, record: dict | None = None, table=None, title: str | None = None):
    """Print a result: a record (key -> value) and/or a DataFrame.

    table: text; json: the record, with the table under ``rows`` (or a list of
    rows when there is no record); csv: the table (or the record as one row).
    """
    if fmt == "json":
        rows = None if table is None else [{k: _clean(v) for k, v in r.items()} for r in table.to_dict("records")]
        if record is None:
            payload = rows
        else:
            payload = {k: _clean(v) for k, v in record.items()}
            if rows is not None:
                payload["rows"] = rows
        click.echo(json.dumps(payload, indent=2, default=str))
        return
    if fmt == "csv":
        if table is None:
            import pandas as pd

            df = pd.DataFrame([record])
        else:
            df = table
        click.echo(df.to_csv(index=False), nl=False)
        return
    if title:
        click.echo(title)
    if record:
        width = max(len(k) for k in record)
        for k, v in record.items():
            v = _clean(v)
            if isinstance(v, float):
                v = f"{v:.10g}"
            click.echo(f"  {k:<{width}}  {v}")
    if table is not None:
        if record:
            click.echo("")
        click.echo(table.to_string(index=False, float_format=lambda x: f"{x:.6g}"))


def save_outputs(out_dir, tables: dict, figures: dict, meta: dict, table_format: str, also=()):
    """Write a command's tables (with provenance) and charts into ``--out`` as one write.

    Goes through :class:`ludolab.analysis.outputs.OutputFolder`: the folder's files that
    ludolab did not write are never replaced (refused naming the file, unless ``--force``),
    a concurrent writer waits, and nothing is moved in before every file is complete.

    Args:
        out_dir: the folder (None: nothing is written); tables: name -> DataFrame;
        figures: name -> matplotlib Figure; meta: provenance added to every table;
        table_format: ``csv`` or ``parquet``; also: more writers, each a callable of no
        arguments that writes its files into ``out_dir`` within the same write and returns
        their paths (e.g. a card in two formats): all of them land together or none does.

    Raises:
        InputError: one line naming the file and why it cannot be written.
    """
    if out_dir is None:
        return
    from ludolab.analysis.outputs import OutputError, OutputFolder, forced_on_command_line
    from ludolab.analysis.results import save_figure, save_table

    ctx = click.get_current_context(silent=True)
    force = forced_on_command_line()
    group = ctx.command_path.partition(" ")[2] if ctx else ""
    written = []
    try:
        with OutputFolder(out_dir, group=group, force=force) as w:
            for name, df in tables.items():
                written += save_table(df, out_dir, name, table_format, meta)
            for name, fig in figures.items():
                written.append(save_figure(fig, out_dir, name))
            for write in also:
                written += list(write())
    except OutputError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        from ludolab.analysis.outputs import os_error

        raise InputError(os_error(exc, out_dir)) from None
    done = w.summary()
    click.echo(f"wrote {len(written)} files to {out_dir}" + (f" ({done})" if done else ""), err=True)


def refuse_foreign_out(out_dir, rels) -> None:
    """Before any work: refuse ``--out`` when one of the files ``rels`` (paths inside it) that the
    command will write is there and not ludolab's (:func:`ludolab.analysis.outputs.refuse_foreign`;
    ``--force`` lets it through), so the command does not compute first and refuse at the end.

    Raises:
        InputError: one line naming the file and what to do."""
    if out_dir is None:
        return
    from ludolab.analysis.outputs import OutputError, forced_on_command_line, refuse_foreign

    try:
        refuse_foreign(out_dir, rels, forced_on_command_line())
    except OutputError as exc:
        raise InputError(str(exc)) from None


def _set_force(ctx, param, value):
    if value:
        ctx.find_root().meta["ludolab.force"] = True
    return value


#: ``--force``: replace files in the output folder that ludolab did not write.
force_option = click.option("--force", is_flag=True, expose_value=False, callback=_set_force,
                            help="Replace files in --out that ludolab did not write (refused otherwise).")


def progress_flag(quiet):
    """The ``progress`` argument of a run: off with --quiet, else only on a terminal."""
    return False if quiet else None


