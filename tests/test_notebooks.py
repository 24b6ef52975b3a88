"""The notebooks under notebooks/ (jupytext percent scripts) run from top to bottom.

Each notebook is read with jupytext and executed in a fresh Python kernel with
nbclient, with a small Monte Carlo size (``LUDOLAB_NOTEBOOK_GAMES``, inherited
by the kernel from this process's environment).  The test checks that no cell
raised and that the notebook drew at least one chart (an ``image/png`` output).
"""

from __future__ import annotations

from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
GAMES = "20000"


def _kernel_name() -> str:
    """``python3`` if a kernel spec of that name is found (ipykernel installs one
    in the environment's share/jupyter/kernels), otherwise the first spec found."""
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    if "python3" in specs:
        return "python3"
    if not specs:
        pytest.skip("no Jupyter kernel spec is installed (install ipykernel in this environment)")
    return sorted(specs)[0]


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks/*.py found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    monkeypatch.setenv("LUDOLAB_NOTEBOOK_GAMES", GAMES)
    nb = jupytext.read(path)
    client = nbclient.NotebookClient(nb, kernel_name=_kernel_name(), timeout=300,
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()  # raises CellExecutionError on the first failing cell

    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    errors = [out for out in outputs if out.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    assert images, f"{path.name}: no chart (image/png output) was produced"
