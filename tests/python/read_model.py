"""The model of test_read.py, run under mpiexec: `python read_model.py
read.xml reference.npz`. Each rank describes its part of every grid of
read.xml in another decomposition than the file's (row bands with a halo,
column bands, an interleaved and a reversed index list), reads every field
of input.nc through foehn at steps 0 to 5 and compares each value with the
reference arrays the test wrote the file from (exact: no value may
change). Rank 0 prints "read_model: OK" or the failures."""
import sys

import numpy as np

SENTINEL = -7.0  # halo values: a read must leave them alone


def main(xml, reference):
    import foehn
    comm = foehn.init("reader", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    ref = np.load(reference)
    R, L, NJ, NI = ref["ta"].shape
    CJ, CI = ref["cv"].shape[1:]
    G, U = ref["gs"].shape[1], ref["us"].shape[2]
    failures = []

    def same(what, got, want):
        if got.shape != want.shape or not np.array_equal(got, want):
            failures.append(f"rank {rank}: {what}: got {got.ravel()[:6]}..., want {want.ravel()[:6]}...")

    with foehn.Context("rd", comm) as ctx:
        # rect: row bands, data with a halo of one point all round
        j0, j1 = rank * NJ // size, (rank + 1) * NJ // size
        nj = j1 - j0
        ctx.set_domain_type("rect", "rectilinear", NI, NJ)
        ctx.set_domain_block("rect", 0, NI, j0, nj)
        ctx.set_domain_data("rect", 2, -1, NI + 2, -1, nj + 2)
        ctx.set_domain_coordinates("rect", -180 + 360 * (np.arange(NI) + 0.5) / NI,
                                   -90 + 180 * (np.arange(j0, j1) + 0.5) / NJ)
        # curv: column bands
        i0, i1 = rank * CI // size, (rank + 1) * CI // size
        ci, cj = np.meshgrid(np.arange(i0, i1), np.arange(CJ))  # i fastest
        ctx.set_domain_type("curv", "curvilinear", CI, CJ)
        ctx.set_domain_block("curv", i0, i1 - i0, 0, CJ)
        ctx.set_domain_coordinates("curv", (10.0 + 20.0 * ci + 3.0 * cj).ravel(),
                                   (-60.0 + 15.0 * cj + 1.5 * ci).ravel())
        # gauss: every size-th point; unstr: a band in reverse order
        gpts = np.arange(rank, G, size)
        ctx.set_domain_type("gauss", "gaussian", G, 1)
        ctx.set_domain_index("gauss", gpts)
        ctx.set_domain_coordinates("gauss", np.fmod(7.5 * gpts, 360.0), 80.0 - 160.0 * gpts / G)
        upts = np.arange(rank * U // size, (rank + 1) * U // size)[::-1].copy()
        ctx.set_domain_type("unstr", "unstructured", U, 1)
        ctx.set_domain_index("unstr", upts)
        ctx.set_domain_coordinates("unstr", np.fmod(137.5 * upts, 360.0),
                                   np.degrees(np.arcsin(2.0 * (upts + 0.5) / U - 1.0)))
        ctx.set_axis("lev", [1.0, 2.0, 3.0])
        ctx.close_definition()

        fields = ["ta_in", "cv_in", "gs_in", "us_in", "ui_in", "prof_in", "glob_in", "orog_in"]
        halo = np.full((L, nj + 2, NI + 2), SENTINEL)
        for step in range(6):
            ctx.update_calendar(step)
            due, k = step % 2 == 0, step // 2
            for f in fields:
                if ctx.is_active(f) != due:
                    failures.append(f"rank {rank}: is_active({f}) at step {step}")
                if not ctx.is_used(f):
                    failures.append(f"rank {rank}: is_used({f})")
            if not due:
                try:
                    ctx.read("cv_in", np.empty((CJ, i1 - i0)))
                    failures.append(f"rank {rank}: a read at step {step} (no record due) was accepted")
                except foehn.Error as e:
                    if "nothing is read at 2000-01-01 0" not in str(e):
                        failures.append(f"rank {rank}: step {step}: {e}")
                continue
            ta = ctx.read("ta_in", halo.copy())  # a float32 variable into float64
            want = halo.copy()
            want[:, 1:-1, 1:-1] = ref["ta"][k, :, j0:j1, :]
            same(f"ta record {k}", ta, want)
            same(f"cv record {k}", ctx.read("cv_in", np.empty((CJ, i1 - i0))), ref["cv"][k][:, i0:i1])
            same(f"gs record {k}", ctx.read("gs_in", np.empty(len(gpts))), ref["gs"][k][gpts])
            same(f"us record {k}", ctx.read("us_in", np.empty((L, len(upts)), np.float32)), ref["us"][k][:, upts])
            same(f"ui record {k}", ctx.read("ui_in", np.empty((len(upts), L), np.float32)), ref["ui"][k][upts, :])
            same(f"prof record {k}", ctx.read("prof_in", np.empty(L)), ref["prof"][k])
            same(f"glob record {k}", ctx.read("glob_in", np.empty(1)), ref["glob"][k:k + 1])
            orog = ctx.read("orog_in", halo[0].copy())
            want = halo[0].copy()
            want[1:-1, 1:-1] = ref["orog"][j0:j1]
            same(f"orog at step {step}", orog, want)
        # The file has 3 records: the fourth is missing.
        ctx.update_calendar(6)
        try:
            ctx.read("ta_in", halo.copy())
            failures.append(f"rank {rank}: record 3 of a file of 3 records was read")
        except foehn.Error as e:
            for part in ("variable 'ta'", "input.nc", "record 3", "has 3 records", "read.xml:"):
                if part not in str(e):
                    failures.append(f"rank {rank}: '{part}' not in the message: {e}")
    foehn.finalize()
    failures = comm.allreduce(failures)
    if rank == 0:
        print("read_model:", "OK" if not failures else f"FAILED {failures}")
    comm.Free()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
