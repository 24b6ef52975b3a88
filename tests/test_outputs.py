"""Output folders: a manifest of what ludolab wrote, never a user's file replaced, never a mix."""

import json
import threading
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from ludolab.analysis import outputs
from ludolab.analysis.cli import cli
from ludolab.analysis.outputs import MANIFEST, OutputError, OutputFolder, publish_tree


def _text(s):
    return lambda tmp: Path(tmp).write_text(s)


def test_files_are_recorded_in_the_manifest_with_their_hash(tmp_path):
    with OutputFolder(tmp_path, group="g") as w:
        w.write("a.txt", _text("one"))
        w.write("sub/b.txt", _text("two"))
    man = json.loads((tmp_path / MANIFEST).read_text())
    assert set(man["files"]) == {"a.txt", "sub/b.txt"}
    assert man["files"]["a.txt"]["sha256"] == outputs.file_sha256(tmp_path / "a.txt")
    assert man["files"]["a.txt"]["run"] == man["files"]["sub/b.txt"]["run"]
    assert man["pending"] == {}
    # a second write replaces them and says so
    with OutputFolder(tmp_path, group="g") as w:
        w.write("a.txt", _text("three"))
    assert (tmp_path / "a.txt").read_text() == "three" and w.replaced == ["a.txt"]
    assert not [p for p in tmp_path.rglob(".ludolab-stage-*")]


def test_a_file_ludolab_did_not_write_is_refused_by_name_unless_forced(tmp_path):
    (tmp_path / "a.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"a\.txt.*not written by ludolab.*--force"):
        with OutputFolder(tmp_path) as w:
            w.write("a.txt", _text("new"))
    assert (tmp_path / "a.txt").read_text() == "mine"
    # a file ludolab wrote and the user edited since is the user's too
    with OutputFolder(tmp_path) as w:
        w.write("b.txt", _text("ours"))
    (tmp_path / "b.txt").write_text("edited")
    with pytest.raises(OutputError, match="b.txt"):
        with OutputFolder(tmp_path) as w:
            w.write("b.txt", _text("new"))
    with OutputFolder(tmp_path, force=True) as w:
        w.write("a.txt", _text("new"))
    assert (tmp_path / "a.txt").read_text() == "new" and w.forced == ["a.txt"]


def test_a_failed_write_replaces_nothing(tmp_path):
    with OutputFolder(tmp_path) as w:
        w.write("a.txt", _text("old a"))
        w.write("b.txt", _text("old b"))

    def fail(tmp):
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match=r"b\.txt.*no space left"):
        with OutputFolder(tmp_path) as w:
            w.write("a.txt", _text("new a"))
            w.write("b.txt", fail)
    assert (tmp_path / "a.txt").read_text() == "old a" and (tmp_path / "b.txt").read_text() == "old b"
    assert not [p for p in tmp_path.rglob(".ludolab-stage-*")]


def test_a_reader_following_the_manifest_is_told_of_an_interrupted_write(tmp_path):
    with OutputFolder(tmp_path) as w:
        w.write("a.csv", _text("x\n1\n"))
    outputs.check_written(tmp_path / "a.csv")  # whole: accepted

    class Crash(Exception):
        pass

    real = outputs.os.replace
    calls = []

    def crash_after_first(src, dst):
        real(src, dst)
        if str(dst).endswith(".csv"):
            calls.append(dst)
            raise Crash()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(outputs.os, "replace", crash_after_first)
        with pytest.raises(Crash):
            with OutputFolder(tmp_path) as w:
                w.write("a.csv", _text("x\n2\n"))
    assert calls
    with pytest.raises(OutputError, match="interrupted"):
        outputs.check_written(tmp_path / "a.csv")
    # the next write completes it (the interrupted file is still recognised as ludolab's)
    with OutputFolder(tmp_path) as w:
        w.write("a.csv", _text("x\n3\n"))
    outputs.check_written(tmp_path / "a.csv")
    (tmp_path / "a.csv").write_text("x\n9\n")
    assert outputs.check_written(tmp_path / "a.csv") is None  # the user's edit: theirs to read
    with OutputFolder(tmp_path) as w:
        w.write("b.csv", _text("x\n4\n"))
    with OutputFolder(tmp_path, force=True) as w:
        w.write("a.csv", _text("x\n5\n"))
    with pytest.raises(OutputError, match="two different writes"):
        outputs.check_together([tmp_path / "a.csv", tmp_path / "b.csv"])


def test_a_concurrent_writer_waits_then_is_refused_in_one_line(tmp_path):
    started, release = threading.Event(), threading.Event()

    def hold():
        with OutputFolder(tmp_path) as w:
            w.write("a.txt", _text("first"))
            started.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    started.wait(10)
    try:
        with pytest.raises(OutputError, match="another ludolab command is writing"):
            with OutputFolder(tmp_path, wait=0.2) as w:
                w.write("a.txt", _text("second"))
    finally:
        release.set()
        t.join()
    assert (tmp_path / "a.txt").read_text() == "first"


def test_publishing_a_report_keeps_the_users_files_and_prunes_only_its_own(tmp_path):
    out = tmp_path / "mine"
    for rel in ("tables/my_table.csv", "tables/notes.txt", "charts/my_chart.png"):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text("the user's " + rel)

    def build(names):
        st = tmp_path / "staging"
        for n in names:
            (st / n).parent.mkdir(parents=True, exist_ok=True)
            (st / n).write_text(n + " of this report")
        return st

    first = publish_tree(build(["report.md", "tables/a.csv", "tables/old.csv"]), out, "report")
    assert first.replaced == []
    second = publish_tree(build(["report.md", "tables/a.csv"]), out, "report")
    assert sorted(second.replaced) == ["report.md", "tables/a.csv", "tables/old.csv"]
    assert not (out / "tables/old.csv").exists()
    for rel in ("tables/my_table.csv", "tables/notes.txt", "charts/my_chart.png"):
        assert (out / rel).read_text() == "the user's " + rel
    assert "replaced 3 files" in second.summary()


def test_report_keeps_the_users_files_and_says_what_it_replaced(tmp_path, monkeypatch):
    from ludolab.analysis import report

    def fake_build(out_dir, quick, seed, log, deep_dir=None):
        (out_dir / "tables").mkdir()
        (out_dir / "tables" / "t.csv").write_text("a\n1\n")
        (out_dir / "report.md").write_text("# r\n")
        return out_dir / "report.md"

    monkeypatch.setattr(report, "_build", fake_build)
    out = tmp_path / "mine"
    (out / "tables").mkdir(parents=True)
    (out / "charts").mkdir()
    (out / "tables" / "my_table.csv").write_text("mine")
    (out / "tables" / "notes.txt").write_text("notes")
    (out / "charts" / "my_chart.png").write_bytes(b"png")
    r = CliRunner().invoke(cli, ["report", "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["report", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "replaced 2 files ludolab wrote there before" in r.output
    assert (out / "tables" / "my_table.csv").read_text() == "mine"
    assert (out / "tables" / "notes.txt").read_text() == "notes"
    assert (out / "charts" / "my_chart.png").read_bytes() == b"png"
    # a user's file where the report writes one: refused by name, kept; --force replaces it
    (out / "report.md").write_text("my own report")
    r = CliRunner().invoke(cli, ["report", "--out", str(out)])
    assert r.exit_code == 2 and "report.md" in r.output and "--force" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert (out / "report.md").read_text() == "my own report"
    r = CliRunner().invoke(cli, ["report", "--out", str(out), "--force"])
    assert r.exit_code == 0 and (out / "report.md").read_text() == "# r\n"


def test_command_out_refuses_a_users_file_and_show_follows_the_manifest(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "simulate_summary.csv").write_text("the user's")
    args = ["box", "simulate", "--games", "200", "--chunks", "2", "--quiet", "--out", str(out)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2 and "simulate_summary.csv" in r.output and "--force" in r.output
    assert (out / "simulate_summary.csv").read_text() == "the user's"
    assert not (out / "simulate_distribution.csv").exists()  # nothing of the refused write moved in
    r = CliRunner().invoke(cli, args + ["--force"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, args)  # its own files now: replaced and said so
    assert r.exit_code == 0 and "replaced" in r.output
    r = CliRunner().invoke(cli, ["show", str(out / "simulate_summary.csv")])
    assert r.exit_code == 0, r.output
    pd.read_csv(out / "simulate_summary.csv")
    side = out / "simulate_summary.meta.json"
    side.write_text(side.read_text().replace('"seed": 0', '"seed": 8'))
    r = CliRunner().invoke(cli, ["show", str(out / "simulate_summary.csv")])
    assert r.exit_code == 0 and "simulate_summary.meta.json was changed since ludolab wrote it" in r.output


def test_a_deck_file_is_recorded_by_content_and_a_rerun_finds_it_by_hash(tmp_path, monkeypatch):
    """show --rerun from another folder, the deck file gone: the deck recorded whole is used; a
    deck too large to record and not at its path with its hash is refused in one line."""
    import shutil
    from importlib import resources

    import ludolab.analysis.scale as S

    deck = tmp_path / "work" / "my-deck.csv"
    deck.parent.mkdir()
    shutil.copy(resources.files("ludolab.stdlib").joinpath("data", "assumed-90.csv"), deck)
    monkeypatch.chdir(deck.parent)
    args = ["shelf", "simulate", "--deck", "my-deck.csv", "--games", "20", "--chunks", "2", "--quiet", "--out", "o"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    meta = json.loads((deck.parent / "o").glob("*.meta.json").__next__().read_text())
    rec = meta["inputs"]["--deck"]
    assert rec["sha256"] == outputs.hashlib.sha256(deck.read_bytes()).hexdigest() and rec["content"]
    table = next(p for p in (deck.parent / "o").glob("*.csv"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = CliRunner().invoke(cli, ["show", str(table), "--rerun"])
    assert r.exit_code == 0 and "match" in r.output, r.output
    # a deck recorded by hash only (too large to keep) is found at its path or refused
    monkeypatch.setattr(S, "INPUT_KEPT_BYTES", 10)
    monkeypatch.chdir(deck.parent)
    r = CliRunner().invoke(cli, args + ["--force"])
    assert r.exit_code == 0, r.output
    monkeypatch.chdir(elsewhere)
    r = CliRunner().invoke(cli, ["show", str(table), "--rerun"])
    assert r.exit_code == 2 and "SHA-256" in r.output and "my-deck.csv" in r.output


def test_the_strategy_card_never_replaces_a_users_file(tmp_path):
    out = tmp_path / "card"
    out.mkdir()
    (out / "strategy_card.png").write_text("mine")
    r = CliRunner().invoke(cli, ["box", "card", "--out", str(out)])
    assert r.exit_code == 2 and "strategy_card.png" in r.output and "--force" in r.output
    assert (out / "strategy_card.png").read_text() == "mine"
    assert sorted(p.name for p in out.iterdir()) == ["strategy_card.png"]  # the card and its table: one write
    r = CliRunner().invoke(cli, ["box", "card", "--out", str(out), "--force"])
    assert r.exit_code == 0, r.output
    assert (out / "strategy_card.png").read_bytes()[:4] == b"\x89PNG"
    man = json.loads((out / MANIFEST).read_text())
    assert {"strategy_card.png", "strategy_card.pdf"} <= set(man["files"])


def test_a_users_file_in_the_way_is_refused_before_any_work(tmp_path, monkeypatch):
    """The strategy card and the report refuse a file of the user's in the way before computing
    anything (the card is never computed, the report never built), and say what to do."""
    from ludolab.analysis import box_card, report

    def must_not_run(*a, **k):
        raise AssertionError("computed before refusing")

    monkeypatch.setattr(box_card, "card_data", must_not_run)
    monkeypatch.setattr(report, "_build", must_not_run)
    out = tmp_path / "card"
    out.mkdir()
    (out / "strategy_card_exceptions.csv").write_text("mine")
    r = CliRunner().invoke(cli, ["box", "card", "--out", str(out)])
    assert r.exit_code == 2 and "strategy_card_exceptions.csv" in r.output and "--force" in r.output
    assert r.output.count("\n") == 1
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "report.md").write_text("# my notes")
    r = CliRunner().invoke(cli, ["report", "--quick", "--quiet", "--out", str(rep)])
    assert r.exit_code == 2 and "report.md" in r.output and "--force" in r.output
    assert (rep / "report.md").read_text() == "# my notes" and sorted(p.name for p in rep.iterdir()) == ["report.md"]
    outputs.refuse_foreign(rep, ["report.md"], force=True)  # --force lets it through
    outputs.refuse_foreign(tmp_path / "missing", ["report.md"])  # a folder not there yet holds nothing
