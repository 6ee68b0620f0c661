"""The report's per-file and per-field lines (docs/report.md):
- each <file>'s achieved compression: the raw bytes of its values (records
  x points x element size of prec, computed here from the XML's sizes and
  numpy's dtypes) against its bytes on disk (os.stat of the file, or the sum
  of a multiple_file file's parts), and their ratio, in the JSON report and
  the text one; a deflated and quantized file, and an uncompressed one;
- the non-finite values (NaN, +Inf, -Inf) the model wrote into each field,
  equal to numpy's counts of the arrays it handed over; fields with none are
  not listed ("none" once when no field has any);
- in the same run, an average skips NaN samples and takes infinities as
  data (docs/operations.md, "Missing values"), on the servers and attached.
With 1 model rank and 1 server, 2 and 2, and 2 model ranks attached.

Run as a script under mpiexec, this file is itself the model
(`python test_report_details.py XML`): fields on a lon/lat grid split in
latitude bands; `tw` holds NaN and infinities at known steps and points."""
import json
import sys

import numpy as np

NI, NJ, NLEV, STEPS = 72, 36, 3, 4


def smooth(step, j0, j1):
    lat = np.arange(j0, j1, dtype=np.float64)[:, None]
    lon = np.arange(NI, dtype=np.float64)[None, :]
    return 100.0 * np.sin(lat / 11.0) + 0.3 * np.cos(lon / 7.0) + 0.01 * step


def with_non_finite(step, j0, j1):
    """tw at `step`, rows j0..j1 of the global field: NaN at step 2, +Inf and
    -Inf at step 3, NaN and +Inf at step 4, at points fixed by their global
    index (so the counts do not depend on the decomposition)."""
    values = smooth(step, j0, j1)
    jj, ii = np.meshgrid(np.arange(j0, j1), np.arange(NI), indexing="ij")
    if step in (2, 4):
        values[(ii * 7 + jj) % 29 == 0] = np.nan
    if step in (3, 4):
        values[(ii + 3 * jj) % 31 == 1] = np.inf
        values[(ii + 5 * jj) % 37 == 2] = -np.inf if step == 3 else np.inf  # -Inf then +Inf: a NaN mean
    return values


def model(xml):
    import foehn
    comm = foehn.init("rep", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
    with foehn.Context("rep", comm) as ctx:
        ctx.set_domain_rectilinear("dom", NI, NJ, 0, j0, np.arange(NI, dtype=np.float64) * 5.0,
                                   np.arange(j0, j1, dtype=np.float64) * 5.0 - 87.5)
        ctx.set_axis("lev", np.arange(1.0, NLEV + 1))
        ctx.close_definition()
        for step in range(1, STEPS + 1):
            ctx.update_calendar(step)
            ctx.write("ts", np.ascontiguousarray(smooth(step, j0, j1)))
            ctx.write("ta", np.ascontiguousarray(np.stack([smooth(step + k, j0, j1) for k in range(NLEV)])))
            ctx.write("tw", np.ascontiguousarray(with_non_finite(step, j0, j1)))
    foehn.finalize()


if __name__ == "__main__":
    model(sys.argv[1])
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402

XML = f"""<simulation><context id="rep">
  <variable_definition><variable id="report_file" type="string">report.json</variable></variable_definition>
  <calendar type="noleap" start_date="2000-01-01" time_origin="2000-01-01" timestep="1h"/>
  <axis_definition><axis id="lev"/></axis_definition>
  <domain_definition><domain id="dom" ni_glo="{NI}" nj_glo="{NJ}"/></domain_definition>
  <grid_definition><grid id="g3"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition prec="4" operation="instant">
    <field id="ts" domain_ref="dom"/>
    <field id="ta" grid_ref="g3"/>
    <field id="tw" domain_ref="dom"/>
  </field_definition>
  <file_definition type="one_file">
    <file id="squeezed" output_freq="1ts" quantization="bitround" quantization_nsb="7" compression_level="4">
      <field field_ref="ts"/>
      <field field_ref="ta"/>
      <field field_ref="ta" name="ta8" prec="8" quantization_nsb="12"/>
    </file>
    <file id="plain" output_freq="2ts" type="multiple_file">
      <field field_ref="ts"/>
      <field field_ref="tw"/>
    </file>
    <file id="means" output_freq="2ts">
      <field field_ref="tw" name="tw_mean" operation="average" prec="8"/>
    </file>
  </file_definition>
</context></simulation>
"""

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py

POINTS = NI * NJ
# Records x points x element size of each file's values, from the XML above.
RAW = {
    "squeezed": STEPS * (POINTS * np.dtype(np.float32).itemsize + POINTS * NLEV * np.dtype(np.float32).itemsize +
                         POINTS * NLEV * np.dtype(np.float64).itemsize),
    "plain": (STEPS // 2) * 2 * POINTS * np.dtype(np.float32).itemsize,
    "means": (STEPS // 2) * POINTS * np.dtype(np.float64).itemsize,
}


def expected_non_finite():
    """numpy's counts over every tw the model wrote (every write is taken:
    tw_mean samples each step)."""
    sent = np.stack([with_non_finite(step, 0, NJ) for step in range(1, STEPS + 1)])
    return {"nan": int(np.isnan(sent).sum()), "pos_inf": int(np.isposinf(sent).sum()),
            "neg_inf": int(np.isneginf(sent).sum())}


@pytest.mark.parametrize("clients,servers", [(1, 1), (2, 2), (2, 0)])
def test_compression_ratio_and_non_finite_counts(tmp_path, mpmd, clients, servers):
    (tmp_path / "model.xml").write_text(XML)
    run = mpmd(tmp_path, clients, servers, [sys.executable, __file__, tmp_path / "model.xml"], timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((tmp_path / "report.json").read_text())

    disk = {"squeezed": (tmp_path / "squeezed.nc").stat().st_size,
            "means": (tmp_path / "means.nc").stat().st_size,
            "plain": sum(p.stat().st_size for p in tmp_path.glob("plain*.nc"))}
    parts = sorted(p.name for p in tmp_path.glob("plain*.nc"))
    assert len(parts) == (servers or clients), parts  # one part per writer
    files = {f["file"]: f for f in report["files"]}
    assert sorted(files) == ["means", "plain", "squeezed"]
    for name in RAW:
        f = files[name]
        assert f["context"] == "rep"
        assert f["raw_bytes"] == RAW[name], name
        assert f["disk_bytes"] == disk[name], name
        assert f["compression_ratio"] == RAW[name] / disk[name], name
        # The text report's line, at its printed precision.
        line = [ln.split() for ln in run.stderr.splitlines() if ln.split()[:2] == ["rep", name]]
        assert line, run.stderr
        assert float(line[0][-1]) == pytest.approx(RAW[name] / disk[name], abs=5e-4)
    # Deflate after rounding stores the smooth fields in much less room;
    # the uncompressed file is its values plus coordinates and metadata.
    assert files["squeezed"]["compression_ratio"] > 2
    assert files["plain"]["compression_ratio"] < 1

    # NaN is missing in the average, infinities are data (docs/operations.md).
    sent = np.stack([with_non_finite(step, 0, NJ) for step in range(1, STEPS + 1)]).reshape(STEPS // 2, 2, NJ, NI)
    valid = ~np.isnan(sent)
    with np.errstate(invalid="ignore"):
        mean = np.where(valid, sent, 0.0).sum(axis=1) / valid.sum(axis=1)
    with netCDF4.Dataset(tmp_path / "means.nc") as nc:
        nc.set_auto_mask(False)
        np.testing.assert_allclose(nc["tw_mean"][:], mean, rtol=1e-13)  # equal_nan by default
    assert np.isinf(mean).any() and np.isnan(mean).any()

    want = expected_non_finite()
    assert want["nan"] > 0 and want["pos_inf"] > 0 and want["neg_inf"] > 0
    assert report["non_finite"] == [{"context": "rep", "field": "tw", **want}]
    text = [ln.split() for ln in run.stderr.splitlines() if ln.split()[:2] == ["rep", "tw"]]
    assert text and [int(x) for x in text[0][2:]] == [want["nan"], want["pos_inf"], want["neg_inf"]]
    assert "non-finite values written (NaN" in run.stderr


def test_no_non_finite_says_none(tmp_path, mpmd):
    means = XML[XML.index('    <file id="means"'):XML.index("  </file_definition>")]
    xml = XML.replace('<field field_ref="tw"/>', "").replace(means, "")  # tw written, used by no file
    (tmp_path / "model.xml").write_text(xml)
    run = mpmd(tmp_path, 1, 1, [sys.executable, __file__, tmp_path / "model.xml"], timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["non_finite"] == []
    assert "foehn report: non-finite values written: none" in run.stderr
