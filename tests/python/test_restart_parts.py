"""multiple_file files continued across an exact restart by another number
of writers (issue 22, docs/restart.md "Split and multiple_file files"): the
parts are re-partitioned, each new part holding every record of its own
points, bit for bit the parts of an unbroken run with the new count. The
model and its XML are those of test_restart.py (every file multiple_file:
averages, accumulations, minima, maxima, instant and once fields, @ chains
and a split file; the cuts at 7 and 13 fall inside the 5 h windows)."""
import netCDF4
import numpy as np
import pytest

from test_restart import STEPS, XML_PARTS, raw_variables, run_segment

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


def part_files(work):
    return sorted(p.name for p in work.glob("*.nc"))


def reference(mpmd, work, clients, servers):
    """An unbroken run of every step with these counts: its parts' variables."""
    work.mkdir()
    run = run_segment(mpmd, work, clients, servers, 1, STEPS, xml_text=XML_PARTS)
    assert run.returncode == 0, run.stderr
    return {f: raw_variables(work / f) for f in part_files(work)}


def parts_total(path):
    with netCDF4.Dataset(path) as ds:
        return int(ds.getncattr("DOMAIN_number_total"))


def assert_parts_are(work, by_count, final=None):
    """Every part in `work` is the same part of the unbroken run of its part
    count (by_count[count]), bit for bit, for the records it has so far.
    The split files of periods closed before a re-partition keep the count
    that wrote them; with `final`, the files of every other name are in
    exactly that unbroken run's parts."""
    assert not list(work.glob("*.old")) and not list(work.glob("*.repart")), "old parts left behind"
    have = part_files(work)
    assert have
    if final is not None:
        keep = [f for f in have if not f.startswith("split_")]
        assert keep == sorted(f for f in by_count[final] if not f.startswith("split_"))
        assert {f.rsplit("_", 1)[0] for f in have} == {f.rsplit("_", 1)[0] for f in by_count[final]}
    for f in have:
        want = by_count[parts_total(work / f)]
        assert f in want, (f, sorted(want))
        got = raw_variables(work / f)
        assert sorted(got) == sorted(want[f]), f
        with netCDF4.Dataset(work / f) as ds:
            records = ds.dimensions["time_counter"].size
            timed = {n for n, v in ds.variables.items() if "time_counter" in v.dimensions}
        if final is not None:
            assert records == want[f]["time_counter"].shape[0], f
        for name, ref in want[f].items():
            ref = ref[:records] if name in timed else ref
            assert got[name].dtype == ref.dtype and got[name].shape == ref.shape, (f, name, got[name].shape, ref.shape)
            assert got[name].tobytes() == ref.tobytes(), (f, name, got[name], ref)


def stitched(work, stem):
    """The parts of one file put together by their DOMAIN_dom_* attributes:
    each record variable over the whole domain."""
    out = {}
    for path in sorted(work.glob(f"{stem}_[0-9]*.nc")):
        with netCDF4.Dataset(path) as ds:
            ds.set_auto_maskandscale(False)
            i0, j0 = (int(x) - 1 for x in ds.getncattr("DOMAIN_dom_position_first"))
            i1, j1 = (int(x) for x in ds.getncattr("DOMAIN_dom_position_last"))
            ni, nj = (int(x) for x in ds.getncattr("DOMAIN_dom_size_global"))
            for name, v in ds.variables.items():
                if tuple(v.dimensions[-2:]) != ("lat", "lon"):
                    continue
                if name not in out:
                    out[name] = np.zeros(v.shape[:-2] + (nj, ni), dtype=v.dtype)
                out[name][..., j0:j1, i0:i1] = v[:]
    return out


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    from conftest import BUILD, run_mpmd
    root = tmp_path_factory.mktemp("parts_unbroken")
    with pytest.MonkeyPatch.context() as mp:  # importable_package, for this module-wide run
        mp.setenv("PYTHONPATH", str(BUILD / "python"))
        refs = {1: reference(run_mpmd, root / "s1", 1, 1), 2: reference(run_mpmd, root / "s2", 1, 2)}
        # The same run in one file, for the union of the parts.
        one = root / "one"
        one.mkdir()
        run = run_segment(run_mpmd, one, 1, 1, 1, STEPS)
        assert run.returncode == 0, run.stderr
        refs["one"] = {"stats_5h": raw_variables(one / "stats_5h.nc"), "chains_6h": raw_variables(one / "chains_6h.nc")}
        refs["root"] = root
    return refs


def test_parts_of_two_servers_are_the_one_file(references):
    """The reference parts themselves: stitched by their DOMAIN_* attributes
    they are the one_file output of the same run, every record variable."""
    for stem, whole in references["one"].items():
        parts = stitched(references["root"] / "s2", stem)
        assert parts, stem
        for name, values in parts.items():
            assert values.tobytes() == whole[name].tobytes(), (stem, name)


def test_servers_one_two_one(tmp_path, mpmd, references):
    """1+1 -> 1+2 -> 2+1: after each segment its parts are those of an
    unbroken run of its server count, each holding every record so far."""
    for k, (clients, servers, first, last) in enumerate([(1, 1, 1, 7), (1, 2, 8, 13), (2, 1, 14, STEPS)]):
        run = run_segment(mpmd, tmp_path, clients, servers, first, last, str(last) if last < STEPS else "-",
                          xml_text=XML_PARTS)
        assert run.returncode == 0, f"segment {k + 1}: " + run.stderr
        if k > 0:
            assert f"re-partitioned from {3 - servers} to {servers} parts" in run.stderr
        assert_parts_are(tmp_path, references, servers if last == STEPS else None)


def test_killed_run_resumed_by_another_count(tmp_path, mpmd, references):
    """A run of 2 servers killed after step 12 (checkpoints at 6 and 9)
    leaves parts with records after the checkpoint; resumed from 9 by one
    server, the parts are rewritten from the checkpoint's records only and
    the run ends with the unbroken one-server part."""
    run = run_segment(mpmd, tmp_path, 1, 2, 1, STEPS, "6,9", die_after=12, xml_text=XML_PARTS)
    assert run.returncode != 0
    with netCDF4.Dataset(tmp_path / "stats_5h_1.nc") as ds:
        assert ds.dimensions["time_counter"].size >= 1  # 5 h (10 h only if flushed before the abort)
    run = run_segment(mpmd, tmp_path, 1, 1, 10, STEPS, xml_text=XML_PARTS)
    assert run.returncode == 0, run.stderr
    assert "re-partitioned from 2 to 1 parts" in run.stderr
    assert_parts_are(tmp_path, references, 1)


def test_attached_two_ranks_then_one(tmp_path, mpmd, references):
    """Attached, the writers are the model ranks: 2 then 1."""
    want = {1: reference(mpmd, tmp_path / "a1", 1, 0), 2: reference(mpmd, tmp_path / "a2", 2, 0)}
    work = tmp_path / "cut"
    work.mkdir()
    run = run_segment(mpmd, work, 2, 0, 1, 7, "7", xml_text=XML_PARTS)
    assert run.returncode == 0, run.stderr
    run = run_segment(mpmd, work, 1, 0, 8, STEPS, xml_text=XML_PARTS)
    assert run.returncode == 0, run.stderr
    assert "re-partitioned from 2 to 1 parts" in run.stderr
    assert_parts_are(work, want, 1)
