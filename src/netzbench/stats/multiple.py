r"""Multiple-comparison correction.

Holm–Bonferroni step-down adjustment (Holm 1979).  With the :math:`m`
defined p-values sorted ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`,

.. math::

    \tilde p_{(i)} = \min\Bigl(1,\ \max_{j \le i}\,(m - j + 1)\,p_{(j)}\Bigr).

Rejecting :math:`\tilde p_{(i)} \le \alpha` controls the family-wise error
rate at :math:`\alpha`.  The adjustment itself is
``statsmodels.stats.multitest.multipletests(method="holm")``; this module adds
what the report needs around it: undefined (NaN) p-values are left out of the
family (statsmodels would propagate them), and any array shape is kept.
"""

from __future__ import annotations

import gc

import numpy as np
from statsmodels.stats.multitest import multipletests

__all__ = ["holm"]


def holm(pvalues) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values.

    Parameters
    ----------
    pvalues : array_like
        Raw p-values in [0, 1], any shape.  NaN marks an undefined test.

    Returns
    -------
    numpy.ndarray
        Float array of the input shape.  NaN inputs stay NaN and are excluded
        from the family size ``m`` (they are never significant).  An empty
        input returns an empty array.

    Raises
    ------
    ValueError
        If a non-NaN value lies outside [0, 1].
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    ok = ~np.isnan(flat)
    vals = flat[ok]
    if vals.size and (np.any(vals < 0.0) or np.any(vals > 1.0)):
        raise ValueError("p-values must lie in [0, 1] (NaN allowed)")
    m = vals.size
    if m == 0:
        return out
    out_flat = out.reshape(-1)
    # statsmodels' Holm branch ends with a full gc.collect(): with a report's histories alive that is
    # ~40 ms a call, and a report makes hundreds. Frozen objects are skipped by it (and stay alive: they
    # are referenced), so only what was created since is examined; unfreeze restores the generations.
    gc.freeze()
    try:
        out_flat[ok] = multipletests(vals, method="holm")[1]
    finally:
        gc.unfreeze()
    return out_flat.reshape(p.shape)
