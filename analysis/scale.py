"""Experiments at scale on the command line: execution options for every Monte Carlo
command, the provenance of the command that made a result, and ``ludolab show``.

Every command of a game's group that takes ``--chunks`` (that is, runs Monte
Carlo through :func:`ludolab.sim.runner.run`) gets, from the root group, the
options of :func:`scale_options`::

    --scheduler tcp://HOST:PORT   run the chunks on a running Dask cluster
    --workers N                   start a Dask LocalCluster of N workers for the run
    --run-dir DIR                 keep every finished chunk in DIR
    --resume                      continue the run kept in --run-dir
    --precision E                 run until the main metric's 95% half-width is at most E

and runs inside :func:`ludolab.sim.runner.execution` with them.  A game added
later gets them with no change to its command line.
"""

from __future__ import annotations

import contextvars
import platform
import functools
import subprocess
from pathlib import Path

import click

from .cli_common import FloatRange, InputError, IntRange

SCALE_PARAMS = ("scheduler", "workers", "run_dir", "resume", "precision")

#: The command line that is running (set by the root group), for provenance and --rerun.
_ARGV: contextvars.ContextVar[list | None] = contextvars.ContextVar("ludolab_argv", default=None)


def set_argv(args) -> None:
    _ARGV.set(list(args))


def current_argv() -> list | None:
    return _ARGV.get()


def scale_options(fn):
    """--scheduler, --workers, --run-dir, --resume, --precision (see the module docstring)."""
    opts = [
        click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Run the chunks on this Dask scheduler (same numbers as the local backend)."),
        click.option("--workers", type=IntRange(1, 1024), default=None,
                     help="Start a Dask LocalCluster with this many workers for the run."),
        click.option("--run-dir", type=click.Path(file_okay=False), default=None,
                     help="Keep every finished chunk in this folder (continue later with --resume)."),
        click.option("--resume", is_flag=True, help="Continue the run kept in --run-dir."),
        click.option("--precision", type=FloatRange(min=0.0, min_open=True), default=None, metavar="E",
                     help="Run until the main metric's 95% CI half-width is at most E (the count given, e.g. "
                          "--games, is the first block)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def settings_from(scheduler=None, workers=None, run_dir=None, resume=False, precision=None, backend=None):
    """The :class:`~ludolab.sim.runner.Execution` of these options; bad combinations are InputError."""
    from ludolab.sim.runner import Execution
    from ludolab.stdlib.errors import LudolabError

    if scheduler is not None and workers is not None:
        raise InputError("give --scheduler (a running cluster) or --workers (a local one), not both")
    if scheduler is not None and not str(scheduler).strip():
        raise InputError("--scheduler needs an address, e.g. tcp://127.0.0.1:8786")
    if precision is not None and not precision > 0:
        raise InputError(f"--precision must be a half-width > 0, not {precision}")
    if backend == "local" and (scheduler or workers):
        raise InputError("--scheduler and --workers need --backend dask")
    if scheduler or workers or backend == "dask":
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise InputError("--scheduler, --workers and --backend dask need Dask: pip install 'ludolab[dask]'")
    if resume and run_dir is not None and not Path(run_dir).is_dir():
        raise InputError(f"--resume: there is no run folder {str(run_dir)!r} to continue (check the name, "
                         "or leave out --resume to start a run there)")
    if resume and run_dir is not None and not (Path(run_dir) / "run.json").exists():
        click.echo(f"note: the run folder {str(run_dir)!r} holds no run yet: starting the run there", err=True)
    try:
        return Execution(backend=backend or "local", scheduler=scheduler, workers=workers,
                         run_dir=run_dir, resume=bool(resume), precision=precision)
    except LudolabError as exc:
        raise InputError(str(exc)) from None


def check_scheduler(sess) -> None:
    """Connect to the Dask scheduler named by ``--scheduler`` before any work (within the
    connection timeout, see :meth:`ludolab.sim.runner.Session.client`).

    Raises:
        InputError: the scheduler cannot be reached (one line naming its address).
    """
    from ludolab.stdlib.errors import LudolabError

    if sess.settings.scheduler:
        try:
            sess.client()
        except LudolabError as exc:
            raise InputError(str(exc).splitlines()[0]) from None


def games_used(given):
    """The games the command's runs used: ``given`` unless ``--precision`` chose the number,
    then the games of the sequential run (``"LOW..HIGH per run"`` when its runs differ)."""
    from ludolab.sim.runner import current_session

    seq = [int(o.games) for o in current_session().outcomes if o.precision is not None]
    if not seq:
        return given
    lo, hi = min(seq), max(seq)
    return lo if lo == hi else f"{lo}..{hi} per run"


def report_outcomes(outcomes) -> None:
    """Say on stderr what sequential runs used and reached."""
    for o in outcomes:
        if o.precision is None:
            continue
        if o.reached:
            click.echo(f"precision {o.precision:g} reached with {o.games:,} games "
                       f"(half-width {o.half_width:.3g}, main metric {o.value:.6g})", err=True)
        else:
            click.echo(f"precision {o.precision:g} not reached: stopped at {o.games:,} games "
                       f"(half-width {o.half_width:.3g})", err=True)


def with_execution(callback):
    """Wrap a command callback: take the scale options, run it inside their execution."""

    @functools.wraps(callback)
    def wrapper(*args, **kwargs):
        from ludolab.sim.runner import execution

        opts = {k: kwargs.pop(k) for k in SCALE_PARAMS if k in kwargs}
        settings = settings_from(**opts)
        with execution(settings) as sess:
            check_scheduler(sess)
            rv = callback(*args, **kwargs)
            report_outcomes(sess.outcomes)
        return rv

    return wrapper


def refuse_repeated_options(cmd: click.Command) -> None:
    """Make ``cmd`` refuse a single-valued option given twice (``--rounds 100 --games 200``, two
    names of one option, or one name twice): click would silently keep one of them."""
    if getattr(cmd, "_ludolab_repeats", False):
        return
    parse = cmd.parse_args

    def parse_args(ctx, args):
        for p in cmd.params:
            if not isinstance(p, click.Option) or p.multiple or p.is_flag or p.count:
                continue
            names = [o for o in p.opts + p.secondary_opts if o.startswith("--")]
            given = [a.split("=", 1)[0] for a in args[: args.index("--")] if a.split("=", 1)[0] in names] \
                if "--" in args else [a.split("=", 1)[0] for a in args if a.split("=", 1)[0] in names]
            if len(given) > 1:
                same = "" if len(set(given)) == 1 else f" ({' and '.join(sorted(set(given)))} are one option)"
                raise InputError(f"{given[0]} is given {len(given)} times{same}: give it once")
        return parse(ctx, args)

    cmd.parse_args = parse_args
    cmd._ludolab_repeats = True


def add_scale_options(cmd: click.Command) -> click.Command:
    """Give a Monte Carlo command (one that takes --chunks) the scale options, once; --precision only
    to a command without ``no_precision = True`` (one whose runs have a main metric)."""
    if getattr(cmd, "_ludolab_scale", False):
        return cmd
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            add_scale_options(sub)
        cmd._ludolab_scale = True
        return cmd
    refuse_repeated_options(cmd)
    names = {p.name for p in cmd.params}
    if "chunks" in names and "scheduler" not in names:
        holder = scale_options(lambda: None)
        # a command whose runs have no main metric (``no_precision``) gets no --precision
        cmd.params.extend(p for p in reversed(holder.__click_params__)
                          if not (p.name == "precision" and getattr(cmd, "no_precision", False)))
        cmd.callback = with_execution(cmd.callback)
    cmd._ludolab_scale = True
    return cmd


# ------------------------------------------------------------------ provenance
@functools.lru_cache(maxsize=1)
def versions() -> dict:
    """Versions of ludolab and of the libraries that shape its numbers."""
    from importlib import metadata  # a slow import, wanted only where provenance is written

    out = {"python": platform.python_version()}
    for pkg in ("ludolab", "numpy", "numba", "pandas"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:  # pragma: no cover
            out[pkg] = "unknown"
    return out


def git_commit() -> str | None:
    """The git commit of the source tree ludolab runs from, when it is a git work tree."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and len(sha) == 40 else None


def run_provenance() -> dict:
    """The part of every saved table's provenance that comes from how it was made:
    ludolab and library versions, git commit, command line, execution settings and the
    runs made (games, chunks, seed, fingerprint, backend, precision reached)."""
    from ludolab.sim.runner import current_session

    v = versions()
    sess = current_session()
    rec = {"ludolab": v.get("ludolab"), "numpy": v.get("numpy"), "numba": v.get("numba")}
    sha = git_commit()
    if sha:
        rec["git_commit"] = sha
    argv = current_argv()
    if argv:
        rec["argv"] = list(argv)
        inputs = input_files(argv)
        if inputs:
            rec["inputs"] = inputs
    rec["execution"] = sess.settings.describe()
    if sess.outcomes:
        rec["runs"] = [o.as_dict() for o in sess.outcomes]
    return rec


#: Options whose value is an input file recorded by content with a result (``--deck FILE``).
INPUT_OPTIONS = ("--deck",)
#: An input file at most this large is recorded whole with the result, so a rerun needs no copy of it.
INPUT_KEPT_BYTES = 64 * 1024


def _option_values(argv, names):
    """``(index, option, value)`` of every ``--opt VALUE`` / ``--opt=VALUE`` among ``names``."""
    out, i = [], 0
    while i < len(argv):
        a = str(argv[i])
        name, eq, val = a.partition("=")
        if name in names:
            if eq:
                out.append((i, name, val))
            elif i + 1 < len(argv):
                out.append((i + 1, name, str(argv[i + 1])))
                i += 1
        i += 1
    return out


def input_files(argv) -> dict:
    """The input files a command line names (``--deck FILE``), by content: for each, the path as
    given, its SHA-256, its size and, when at most :data:`INPUT_KEPT_BYTES`, its text."""
    import hashlib

    from ludolab.stdlib.jsonfile import read_input

    rec = {}
    for _, name, val in _option_values(argv, INPUT_OPTIONS):
        p = Path(val)
        if not p.is_file():
            continue  # a built-in name such as assumed-90
        try:
            data = read_input(p, "input file", binary=True)
        except Exception:
            continue
        entry = {"path": val, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        if len(data) <= INPUT_KEPT_BYTES:
            try:
                entry["content"] = data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        rec[name] = entry
    return rec


def rerun_inputs(argv: list, inputs: dict, tmp: str) -> list:
    """The recorded command line with each recorded input file found by its hash: the file at
    the recorded path when its content matches, else the recorded content written into ``tmp``.

    Raises:
        InputError: an input file is not at its path with the recorded content, and its
            content was not recorded (too large): naming the file and its hash.
    """
    import hashlib

    argv = [str(a) for a in argv]
    for i, name, val in _option_values(argv, INPUT_OPTIONS):
        entry = (inputs or {}).get(name)
        if not isinstance(entry, dict) or "sha256" not in entry:
            continue
        p = Path(val)
        try:
            same = p.is_file() and hashlib.sha256(p.read_bytes()).hexdigest() == entry["sha256"]
        except OSError:
            same = False
        if same:
            continue
        if "content" not in entry:
            raise InputError(f"the rerun needs the {name} file {val!r} with SHA-256 {entry['sha256'][:16]}..., "
                             "and it is not there with that content: put it back at that path")
        kept = Path(tmp) / "inputs" / (p.name or "input")
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(entry["content"], encoding="utf-8")
        new = str(kept)
        argv[i] = f"{name}={new}" if argv[i].startswith(f"{name}=") else new
    return argv


# ------------------------------------------------------------------ show
def read_result(path) -> tuple:
    """A saved table and its provenance: ``(DataFrame, dict)``.

    A table in an output folder is checked against the folder's manifest (with its
    sidecar), so a table and a sidecar from two different writes are never shown together.

    Raises:
        LudolabError: not a CSV or Parquet table written by ludolab, unreadable, or not
            what the folder's manifest says ludolab wrote (changed since, or an interrupted write).
    """
    import pandas as pd

    from ludolab.stdlib.errors import LudolabError

    from ludolab.stdlib.jsonfile import MAX_TABLE_BYTES, check_input_size

    from .outputs import check_together

    path = Path(path)
    if not path.exists():
        raise LudolabError(f"no such file {str(path)!r}")
    if path.suffix in (".parquet", ".csv"):
        check_input_size(path, "saved table", LudolabError, MAX_TABLE_BYTES)
    if path.suffix == ".parquet":
        changed = check_together([path])
        try:
            df = pd.read_parquet(path)
        except Exception as exc:
            raise LudolabError(f"cannot read {str(path)!r} as Parquet: {exc}") from None
        _note_changed(changed)
        return df, dict(df.attrs)
    if path.suffix == ".csv" or path.name.endswith(".meta.json"):
        if path.name.endswith(".meta.json"):
            path = path.with_name(path.name[: -len(".meta.json")] + ".csv")
        side = path.with_name(path.stem + ".meta.json")
        changed = check_together([path, side] if side.exists() else [path])
        try:
            df = pd.read_csv(path)
        except Exception as exc:
            raise LudolabError(f"cannot read {str(path)!r} as CSV: {exc}") from None
        from ludolab.stdlib.jsonfile import load_json

        meta = load_json(side, "provenance record") if side.exists() else {}
        if not isinstance(meta, dict):
            raise LudolabError(f"{side.name} holds no provenance record (a JSON object is expected)")
        _note_changed(changed)
        return df, meta
    raise LudolabError(f"{str(path)!r} is not a saved table: give a .csv (with its .meta.json) or a .parquet file")


def _note_changed(paths) -> None:
    for p in paths:
        click.echo(f"note: {p} was changed since ludolab wrote it", err=True)


def _flat(d, prefix=""):
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v and len(v) <= 12:
            yield from _flat(v, key + ".")
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for i, x in enumerate(v):
                yield from _flat(x, f"{key}[{i}].")
        else:
            yield key, v


def provenance_lines(meta: dict) -> list[str]:
    """The provenance as ``key  value`` lines (nested records flattened with dots)."""
    import json

    rows = list(_flat(meta))
    if not rows:
        return ["  (no provenance recorded)"]
    width = min(max(len(k) for k, _ in rows), 40)
    out = []
    for k, v in rows:
        if k == "argv" and isinstance(v, list):
            v = "ludolab " + " ".join(_quote(a) for a in v)
        elif isinstance(v, (dict, list)):
            v = json.dumps(v)
        out.append(f"  {k:<{width}}  {v}")
    return out


def _quote(a: str) -> str:
    import shlex

    return shlex.quote(str(a))


#: Options dropped when a run is repeated: where it ran, never what it computed.
_DROP_FLAGS = {"--scheduler": 1, "--workers": 1, "--run-dir": 1, "--resume": 0, "--out": 1,
               "--quiet": 0, "--backend": 1}


def rerun_args(argv: list, out_dir: str) -> list:
    """The recorded command line, run locally into ``out_dir`` (execution options dropped)."""
    args, i = [], 0
    while i < len(argv):
        a = str(argv[i])
        name = a.split("=", 1)[0]
        if name in _DROP_FLAGS:
            i += 1 + (_DROP_FLAGS[name] if "=" not in a else 0)
            continue
        args.append(a)
        i += 1
    return args + ["--out", out_dir, "--quiet"]


def compare_tables(a, b) -> tuple[bool, str]:
    """Whether two tables hold the same numbers: ``(same, words)``."""
    import numpy as np
    from pandas.api.types import is_numeric_dtype

    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False, (f"the tables differ in shape: {a.shape} saved, {b.shape} now"
                       if a.shape != b.shape else "the tables have other columns")
    worst, bad = 0.0, []
    for c in a.columns:
        x, y = a[c], b[c]
        if is_numeric_dtype(x) and is_numeric_dtype(y) and x.dtype != bool and y.dtype != bool:
            xa, ya = x.to_numpy(dtype=float), y.to_numpy(dtype=float)
            same = np.array_equal(xa, ya, equal_nan=True)
            if not same:
                d = np.nanmax(np.abs(xa - ya)) if np.isfinite(xa - ya).any() else np.inf
                worst = max(worst, float(d))
                bad.append(c)
        elif not x.astype(str).equals(y.astype(str)):
            bad.append(c)
    if not bad:
        return True, f"the numbers match: {len(a)} rows x {len(a.columns)} columns identical"
    return False, f"the numbers differ in {', '.join(bad)} (largest difference {worst:.6g})"
