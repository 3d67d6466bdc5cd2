#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Print the reference tables of tests/unit/test_stats.c (C source on stdout).

Run once by hand when the cases change, and paste the output between the GENERATED markers:

    /usr/bin/python3 tests/unit/gen_stats_ref.py

Needs numpy and scipy (Debian: python3-scipy; written against scipy 1.10). Not a test-time
dependency: the numbers are committed in the C file.

- Mann-Whitney: scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=M,
  use_continuity=True) with M = "exact" for the cases perfgate computes exactly (no ties,
  nx + ny <= 60) and "asymptotic" for the others.
- Benjamini-Hochberg: R's p.adjust(p, "BH") algorithm, written out below (scipy 1.10 has no
  false_discovery_control yet), checked against a vector adjusted by hand.
- Hodges-Lehmann: brute force. The null distribution of U comes from enumerating every way to
  draw the x ranks (itertools.combinations), cross-checked with scipy's exact distribution; the
  interval is [d_(k), d_(N+1-k)] of the sorted pairwise differences y_j - x_i with k the largest
  integer with P(U <= k - 1) <= alpha / 2. Beyond 60 values, the normal approximation with
  continuity correction: P(U <= k - 1) ~ Phi((k - 0.5 - nx*ny/2) / sqrt(nx*ny*(nx+ny+1)/12)).
"""

import itertools
import math

import numpy as np
import scipy
import scipy.stats as st
from scipy.stats._mannwhitneyu import _mwu_state

EXACT_MAX = 60


def has_ties(v):
    return len(set(v)) != len(v)


def sample(rng, n, loc, scale, decimals=3):
    return [round(float(v), decimals) for v in rng.normal(loc, scale, n)]


def no_tie_pair(seed, nx, ny, shift, scale=1.0):
    rng = np.random.RandomState(seed)
    while True:
        x = sample(rng, nx, 10.0, scale)
        y = sample(rng, ny, 10.0 + shift, scale)
        if not has_ties(x + y):
            return x, y


def tie_pair(seed, nx, ny, shift, levels):
    rng = np.random.RandomState(seed)
    x = [float(v) for v in rng.randint(0, levels, nx)]
    y = [float(v + shift) for v in rng.randint(0, levels, ny)]
    assert has_ties(x + y)
    return x, y


def cnum(v):
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def carray(name, v):
    body = ", ".join(cnum(a) for a in v)
    lines = []
    line = "static const double %s[] = {" % name
    for tok in body.split(" "):
        if len(line) + len(tok) + 1 > 96:
            lines.append(line.rstrip())
            line = "\t"
        line += tok + " "
    lines.append(line.rstrip() + "};")
    return "\n".join(lines)


def mwu_cases():
    c = []
    c.append(("e3v3_sep", [4.0, 5.0, 6.0], [1.0, 2.0, 3.0]))
    c.append(("e3v3_mix", [1.0, 5.0, 6.0], [2.0, 3.0, 4.0]))
    c.append(("e1v1", [2.0], [1.0]))
    c.append(("e1v5", [0.5], [1.0, 2.0, 3.0, 4.0, 5.0]))
    c.append(("e5v5",) + no_tie_pair(1, 5, 5, 1.5))
    c.append(("e4v7",) + no_tie_pair(2, 4, 7, -1.0))
    c.append(("e10v10",) + no_tie_pair(3, 10, 10, 0.8))
    c.append(("e10v10_null",) + no_tie_pair(4, 10, 10, 0.0))
    c.append(("e30v30",) + no_tie_pair(5, 30, 30, 0.5))
    c.append(("e30v30_sep",) + no_tie_pair(6, 30, 30, 20.0))
    c.append(("e31v29",) + no_tie_pair(7, 31, 29, -0.6))
    c.append(("a31v30",) + no_tie_pair(8, 31, 30, 0.6))
    c.append(("a40v35",) + no_tie_pair(9, 40, 35, 0.4))
    c.append(("t3v3", [1.0, 2.0, 2.0], [2.0, 3.0, 4.0]))
    c.append(("t8v9",) + tie_pair(10, 8, 9, 1, 5))
    c.append(("t12v15",) + tie_pair(11, 12, 15, 0, 6))
    c.append(("t10v10_within", [1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
              [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 18.0]))
    c.append(("t4v4_equal", [7.0] * 4, [7.0] * 4))
    return c


def u_distribution_brute(nx, ny):
    """P(U = k) for k = 0..nx*ny by enumerating the rank sets of x (no ties)."""
    n = nx + ny
    counts = [0] * (nx * ny + 1)
    for ranks in itertools.combinations(range(1, n + 1), nx):
        counts[sum(ranks) - nx * (nx + 1) // 2] += 1
    total = math.comb(n, nx)
    assert sum(counts) == total
    return [c / total for c in counts]


def hl_brute(x, y, alpha):
    nx, ny = len(x), len(y)
    d = sorted(yj - xi for xi in x for yj in y)
    nn = len(d)
    est = float(np.median(d))
    if nx + ny <= EXACT_MAX:
        pmf = u_distribution_brute(nx, ny)
        cdf = np.cumsum(pmf)
        ref = _mwu_state.cdf(np.arange(nn + 1), nx, ny)
        assert np.allclose(cdf, ref, rtol=1e-12, atol=0)
        k = 0
        while k < nn and cdf[k] <= alpha / 2:
            k += 1
    else:
        mu = nn / 2
        sigma = math.sqrt(nx * ny * (nx + ny + 1) / 12)
        k = 0
        while k < nn and st.norm.cdf((k + 0.5 - mu) / sigma) <= alpha / 2:
            k += 1
    if k == 0:
        return est, -math.inf, math.inf, 0
    return est, d[k - 1], d[nn - k], k


def bh_r(p):
    """R: i <- n:1; o <- order(p, decreasing = TRUE); pmin(1, cummin(n / i * p[o]))[order(o)]"""
    p = np.asarray(p, dtype=float)
    n = len(p)
    o = np.argsort(-p, kind="stable")
    i = np.arange(n, 0, -1)
    q = np.minimum(1, np.minimum.accumulate(n / i * p[o]))
    out = np.empty(n)
    out[o] = q
    return out


def main():
    print("/* GENERATED by tests/unit/gen_stats_ref.py (scipy %s): do not edit */" %
          scipy.__version__)
    print()
    rows = []
    for name, x, y in mwu_cases():
        exact = not has_ties(x + y) and len(x) + len(y) <= EXACT_MAX
        r = st.mannwhitneyu(x, y, alternative="two-sided", use_continuity=True,
                            method="exact" if exact else "asymptotic")
        print(carray("mwu_%s_x" % name, x))
        print(carray("mwu_%s_y" % name, y))
        rows.append('\t{ "%s", mwu_%s_x, %d, mwu_%s_y, %d,\n\t  %s, %s, %d },' %
                    (name, name, len(x), name, len(y), cnum(r.statistic), cnum(r.pvalue),
                     int(exact)))
    print()
    print("static const struct mwu_ref mwu_refs[] = {")
    print("\n".join(rows))
    print("};")
    print()

    # Benjamini-Hochberg
    hand_p = [0.01, 0.04, 0.03, 0.005]
    hand_q = [0.02, 0.04, 0.04, 0.02]
    assert np.allclose(bh_r(hand_p), hand_q, rtol=1e-15)
    rng = np.random.RandomState(12)
    p = list(np.round(rng.uniform(0, 0.2, 10), 4)) + [0.0123, 0.0123, 0.9, 1.0]
    p = [float(v) for v in p]
    rng.shuffle(p)
    print(carray("bh_p", p))
    print(carray("bh_q", bh_r(p)))
    print()

    # Hodges-Lehmann
    hl = []
    x10, y10 = no_tie_pair(20, 10, 10, 1.0)
    cases = [
        ("hl10v10", x10, y10, 0.05),
        ("hl4v7",) + no_tie_pair(21, 4, 7, 2.0) + (0.05,),
        ("hl5v5",) + no_tie_pair(22, 5, 5, -1.0) + (0.10,),
        ("hl3v3", [1.0, 2.0, 3.0], [2.5, 4.0, 5.0], 0.05),
        ("hl3v3_a20", [1.0, 2.0, 3.0], [2.5, 4.0, 5.0], 0.20),
        ("hl35v30",) + no_tie_pair(23, 35, 30, 0.5) + (0.05,),
    ]
    for name, x, y, alpha in cases:
        est, lo, hi, k = hl_brute(x, y, alpha)
        if name == "hl10v10":
            assert k == 24 and len(x) * len(y) + 1 - k == 77
        print(carray("%s_x" % name, x))
        print(carray("%s_y" % name, y))
        hl.append('\t{ "%s", %s_x, %d, %s_y, %d, %s,\n\t  %s, %s, %s, %d },' %
                  (name, name, len(x), name, len(y), cnum(alpha), cnum(est), cnum(lo),
                   cnum(hi), k))
    print()
    print("static const struct hl_ref hl_refs[] = {")
    print("\n".join(hl))
    print("};")
    print("/* END GENERATED */")


if __name__ == "__main__":
    main()
