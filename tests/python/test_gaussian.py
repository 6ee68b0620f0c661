"""The reduced Gaussian geometry helper (src/grid/gaussian.h) against an
independent computation: Gaussian latitudes against numpy's Gauss-Legendre
nodes (numpy.polynomial.legendre.leggauss) to 1e-12, octahedral rows and
totals (O96 = 40,320 and O1280 = 6,599,680 points), and the EQ_REGIONS
partition's balance."""
import subprocess

import numpy as np
import pytest

from conftest import BUILD

TOOL = BUILD / "tests/mpi/gaussian_tool"


def tool(*args):
    out = subprocess.run([str(TOOL), *map(str, args)], capture_output=True, text=True, check=True).stdout
    return out.split()


@pytest.mark.parametrize("n", [1, 2, 8, 32, 96, 320, 1280])
def test_latitudes_match_numpy_gauss_legendre_nodes(n):
    lat = np.array(tool("latitudes", n), dtype=np.float64)
    assert lat.shape == (2 * n,)
    nodes, _ = np.polynomial.legendre.leggauss(2 * n)  # ascending: south to north
    np.testing.assert_allclose(np.sin(np.radians(lat)), nodes[::-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(lat, np.degrees(np.arcsin(nodes[::-1])), rtol=0, atol=1e-9)


@pytest.mark.parametrize("n,total", [(96, 40320), (1280, 6599680), (8, 544)])
def test_octahedral_rows_and_totals(n, total):
    out = tool("octahedral", n)
    assert out[-2] == "total" and int(out[-1]) == total
    pl = np.array(out[:-2], dtype=int)
    k = np.arange(1, n + 1)
    np.testing.assert_array_equal(pl[:n], 20 + 4 * (k - 1))  # row k from the north pole
    np.testing.assert_array_equal(pl[n:], pl[:n][::-1])
    assert pl.sum() == total == 4 * n * n + 36 * n


@pytest.mark.parametrize("p", [2, 6, 16, 64, 256])
def test_eq_regions_partition_is_balanced(p):
    count = np.array(tool("partition", 96, p), dtype=int)
    assert count.sum() == 40320 and len(count) == p and count.min() > 0
    # Whole latitude rows per band: within a few percent of the ideal for
    # up to 64 regions, within a quarter at 256 (O96 has only 192 rows).
    ideal = 40320 / p
    assert (count.max() - count.min()) / ideal < (0.05 if p <= 64 else 0.25), count
