"""Independent batches over a Dask cluster: the elements are cut into chunks, one task per chunk
(``gpmp.powm_n`` or ``gpmp.mul_n`` on the worker that runs it, with gpmp's thread count set to
that worker's threads), and the results are put back in order.

    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        r = gpmp.dask.powm_n(client, bases, exps, m, chunk=4096)

dask.distributed is imported by the caller: this module only uses the client it is given.
"""
import gpmp

__all__ = ["powm_n", "mul_n"]


def _threads():
    """gpmp's worker threads = the threads of the Dask worker running this task (when known)."""
    try:
        from dask.distributed import get_worker

        n = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return
    if n and gpmp.get_num_threads() != n:
        gpmp.set_num_threads(n)


def _powm_chunk(bases, exps, m):
    _threads()
    return gpmp.powm_n(bases, exps, m)


def _mul_chunk(a, b):
    _threads()
    return gpmp.mul_n(a, b)


def _map(client, fn, columns, chunk, extra=()):
    n = len(columns[0])
    if any(len(c) != n for c in columns):
        raise ValueError("the input lists differ in length")
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    futures = [client.submit(fn, *(c[i:i + chunk] for c in columns), *extra, pure=False) for i in range(0, n, chunk)]
    return [x for part in client.gather(futures) for x in part]


def powm_n(client, bases, exps, m, chunk=4096):
    """[pow(bases[i], exps[i], m)] (m > 1, exps ≥ 0; results in [0, m)), chunk elements a task."""
    return _map(client, _powm_chunk, (list(bases), list(exps)), chunk, (m,))


def mul_n(client, a, b, chunk=4096):
    """[a[i]·b[i]], chunk elements a task."""
    return _map(client, _mul_chunk, (list(a), list(b)), chunk)
