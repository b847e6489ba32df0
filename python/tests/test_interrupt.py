"""Ctrl-C during a long gpmp call raises KeyboardInterrupt within 100 ms (gpmp's interrupt handler
runs Python's signal handlers on the calling thread while the work runs without the GIL), and the
next call works."""
import os
import random
import signal
import sys
import threading
import time

import pytest

import gpmp

# Each call below runs for seconds at one thread when not interrupted (1-3 s on a 2-core box).
E = 2**4096 - 1
M = 2**4096 - 2**1024 + 12345


def long_product():
    """One big-integer product (gpmp's multi-modular NTT)."""
    rng = random.Random(1)
    a, b = rng.getrandbits(1 << 27), rng.getrandbits(1 << 27)
    return lambda: gpmp.mul(a, b)


def long_kronecker():
    """A Z[x] product by Kronecker substitution (one big NTT product)."""
    rng = random.Random(2)
    f = [rng.getrandbits(2048) for _ in range(1 << 15)]
    return lambda: gpmp.poly_mul(f, f, alg="kronecker")


def long_poly_mul():
    """A Z[x] product as AUTO runs it on the CPU (the small-prime NTT at 256 bits)."""
    rng = random.Random(3)
    f = [rng.getrandbits(256) - (1 << 255) for _ in range(1 << 18)]
    return lambda: gpmp.poly_mul(f, f)


def interrupt_after(delay, sent):
    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Timer(delay, fire)
    t.start()
    return t


def stop_with_ctrl_c(call, attempts):
    """Latencies (s) from SIGINT to KeyboardInterrupt out of `call`, at one thread; stops at the
    first under 100 ms. Then checks that the next calls work."""
    old = gpmp.get_num_threads()
    gpmp.set_num_threads(1)
    latencies = []
    try:
        for _ in range(attempts):
            sent = []
            timer = interrupt_after(0.2, sent)
            with pytest.raises(KeyboardInterrupt):
                call()
            latencies.append(time.perf_counter() - sent[0])
            timer.join()
            if latencies[-1] < 0.1:
                break
    finally:
        gpmp.set_num_threads(old)
    print(f"KeyboardInterrupt after {', '.join(f'{1e3 * t:.1f}' for t in latencies)} ms", file=sys.stderr)
    assert gpmp.powm_n([3, 5], [E, 2], M) == [pow(3, E, M), 25]
    assert gpmp.poly_mul([1, 2], [3, 4]) == [3, 10, 8]
    return latencies


def main_thread_with_default_handler():
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        return True
    print("skipped: needs the main thread with Python's default SIGINT handler", file=sys.stderr)
    return False


def test_ctrl_c_stops_a_long_product_within_100_ms():
    if main_thread_with_default_handler():
        assert min(stop_with_ctrl_c(long_poly_mul(), 3)) < 0.1


@pytest.mark.parametrize("make", [long_product, long_kronecker], ids=["mul", "kronecker"])
def test_ctrl_c_stops_big_integer_products(make):
    """Big-integer products stop too (their stop latency is gpmp's checkpoint spacing: printed)."""
    if main_thread_with_default_handler():
        stop_with_ctrl_c(make(), 2)
