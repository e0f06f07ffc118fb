"""Run by scripts/test.sh against an installed prefix: the package imports
from there (not from the source or build tree) and answers exactly."""
import sys

import numpy as np

import spherecollide as sc

prefix = sys.argv[1]
assert sc.__file__.startswith(prefix), f"imported {sc.__file__}, not from {prefix}"
g = np.random.default_rng(7)
c, r = g.random((2000, 3)) * 20, g.random(2000) * 0.5
d2 = ((c[:, None, :] - c[None, :, :]) ** 2).sum(-1)
s = r[:, None] + r[None, :]
want = int(np.triu(d2 <= s * s, 1).sum())
got = sc.pairs(c, r)
assert len(got) == want and sc.count(c, r)[0] == want, (len(got), want)
print(f"spherecollide {sc.__version__} from {sc.__file__}: {want} pairs, as the oracle")
