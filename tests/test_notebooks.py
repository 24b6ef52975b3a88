"""The notebooks under notebooks/ (jupytext percent scripts) run from top to bottom.

Each notebook is read with jupytext and executed in a fresh Python kernel with
nbclient, with a small Monte Carlo size (``LUDOLAB_NOTEBOOK_GAMES``, inherited
by the kernel from this process's environment).  The test checks that no cell
raised and that the notebook drew at least one chart (an ``image/png`` output).

Every notebook runs twice: on the local backend, and on a Dask LocalCluster
(a worker process on loopback; one, since every worker process loads each
kernel it runs, and the backend tests cover two) named by ``LUDOLAB_SCHEDULER``,
which the runner reads when no execution context is set; the cluster must have
run tasks.
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
CLUSTER_GAMES = "5000"  # on the cluster the many short runs of a notebook cost more than their games


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


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    c = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                 dashboard_address=":0")
    yield c
    c.close()


@pytest.mark.parametrize("backend", ["local", "cluster"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, backend, monkeypatch, request):
    monkeypatch.setenv("LUDOLAB_NOTEBOOK_GAMES", GAMES)
    if backend == "cluster":
        c = request.getfixturevalue("cluster")
        monkeypatch.setenv("LUDOLAB_SCHEDULER", c.scheduler_address)
        monkeypatch.setenv("LUDOLAB_NOTEBOOK_GAMES", CLUSTER_GAMES)
        before = c.scheduler.transition_counter
    else:
        monkeypatch.delenv("LUDOLAB_SCHEDULER", raising=False)
    nb = jupytext.read(path)
    client = nbclient.NotebookClient(nb, kernel_name=_kernel_name(), timeout=300,
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()  # raises CellExecutionError on the first failing cell

    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    errors = [out for out in outputs if out.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    assert images, f"{path.name}: no chart (image/png output) was produced"
    if backend == "cluster":
        assert c.scheduler.transition_counter > before, f"{path.name}: no chunk ran on the cluster"
