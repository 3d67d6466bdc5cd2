# SPDX-License-Identifier: MIT
"""Arithmetic on benchmark figures that measuring (bench/measure.py) and rendering
(bench/render.py) share.

Pure functions of lists of numbers: no I/O, no clock, nothing from the machine, so that
render.py gives the same BENCHMARKS.md for the same results.json on any machine, with no
package beyond the Python standard library (scipy is needed by measure.py only).

    median([3, 1, 2])               -> 2; nan for an empty list
    median_ci(errors)               -> (low, high) or None
    mean_abs([-0.01, 0.03])         -> 2.0 (percent)
"""
import math
import statistics


def median(v):
    """The median of @v, nan when @v is empty."""
    return statistics.median(v) if v else float("nan")


def mean_abs(e):
    """The mean magnitude of the errors @e (fractions), in percent."""
    return 100 * sum(abs(x) for x in e) / len(e)


def binom_half_cdf(k, n):
    """P(Bin(n, 1/2) <= k), exact."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2.0 ** n


def median_ci(v, conf=0.95):
    """A distribution-free interval for the median of @v's population: the order statistics
    v(k) and v(n+1-k), k the largest with P(Bin(n, 1/2) < k) <= (1 - conf) / 2, which covers
    the median with probability >= conf whatever the distribution. None for n < 6."""
    v, n = sorted(v), len(v)
    if n < 6:
        return None
    q = (1 - conf) / 2
    k = 0
    while binom_half_cdf(k, n) <= q:
        k += 1
    return (v[k - 1], v[n - k]) if k >= 1 else None
