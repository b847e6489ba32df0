"""gpmp.distributed under mpiexec with 1, 2 and 4 ranks, and gpmp.dask on a 2-worker LocalCluster,
against Python ints. Each prints "skipped" (pytest's reason) when mpi4py/mpiexec or dask is absent."""
import os
import random
import shutil
import subprocess
import sys

import pytest

import gpmp

HERE = os.path.dirname(os.path.abspath(__file__))


def mpiexec():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    local = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return local if os.access(local, os.X_OK) else shutil.which("mpiexec")


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_mpi_products(ranks):
    exe = mpiexec()
    if exe is None:
        pytest.skip("mpi4py or mpiexec is not installed (pip install mpich mpi4py)")
    env = dict(os.environ, GPMP_NUM_THREADS="1")
    out = subprocess.run([exe, "-n", str(ranks), sys.executable, os.path.join(HERE, "mpi_products.py")],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"ok {ranks}" in out.stdout, out.stdout + out.stderr


def test_dask_batches():
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    import gpmp.dask as gdask

    rng = random.Random(9)
    m = rng.getrandbits(300) | 1
    bases = [rng.getrandbits(400) for _ in range(203)] + [0, 1, m - 1]
    exps = [rng.getrandbits(40) for _ in range(203)] + [0, 3, 2]
    a = [rng.getrandbits(2000) * rng.choice([1, -1]) for _ in range(150)] + [0, -1]
    b = [rng.getrandbits(900) * rng.choice([1, -1]) for _ in range(150)] + [5, -1]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert gdask.powm_n(client, bases, exps, m, chunk=50) == [pow(x, e, m) for x, e in zip(bases, exps)]
            assert gdask.mul_n(client, a, b, chunk=40) == [x * y for x, y in zip(a, b)]
            assert gdask.mul_n(client, [], [], chunk=5) == []
