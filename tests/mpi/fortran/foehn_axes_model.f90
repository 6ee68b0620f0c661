! The axis-part and scalar calls of `use foehn` on tests/mpi/data/axes_bindings.xml:
! depth decomposed by range with values and bounds from the model (with 3
! ranks the last holds none of it), bin decomposed by index in reversed
! interleaved order (values from the XML), the scalar height2m set to 2 m
! beside an unstructured domain, and gmean, a field of a scalar alone
! (model rank 0's value is kept). It also checks that sizes this module
! refuses before C leave a message in foehn_last_error(). After
! foehn_finalize, rank 0 reads axes_one.nc back (nc_read.f90) and compares
! every value with the formulas.
!
! usage: foehn_axes_model <axes_bindings.xml>
program foehn_axes_model
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use mpi
  use foehn
  use nc_read
  implicit none

  integer, parameter :: ncell = 60, ndepth = 10, nband = 4, nbin = 7, nplev = 3, nsteps = 4
  character(len=256) :: config
  integer :: ierr, comm, rank, nprocs, cell0, ncells, depth0, ndepths, step, k, d, b, failures
  integer(c_int), allocatable :: bins(:)
  real(real64), allocatable :: depth_bounds(:,:), prof(:,:), t2m(:)
  real(real32), allocatable :: hist(:), tp(:,:)
  type(foehn_context) :: ctx

  call MPI_Init(ierr)
  call get_command_argument(1, config)
  call foehn_init("foehn_axes_model", trim(config), MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  failures = 0

  ! Cells in even blocks; depths in parts of 6 from the top (rank 2 of 3 holds none).
  cell0 = rank * ncell / nprocs
  ncells = (rank + 1) * ncell / nprocs - cell0
  depth0 = min(ndepth, 6 * rank)
  ndepths = merge(ndepth, min(ndepth, 6 * (rank + 1)), rank == nprocs - 1) - depth0
  bins = [(k, k = nbin - 1, 0, -1)]
  bins = pack(bins, mod(bins, nprocs) == rank)

  call foehn_context_open("axes", comm, ctx)
  call foehn_set_domain_type(ctx, "dom", "unstructured", ncell)
  call foehn_set_domain_block(ctx, "dom", cell0, ncells)
  call foehn_set_domain_coordinates(ctx, "dom", [(3.0_real64 * k, k = cell0, cell0 + ncells - 1)], &
                                    [(-60.0_real64 + 2.0_real64 * k, k = cell0, cell0 + ncells - 1)])
  allocate(depth_bounds(2, ndepths))
  depth_bounds(1, :) = [(10.0_real64 * d, d = depth0, depth0 + ndepths - 1)]
  depth_bounds(2, :) = depth_bounds(1, :) + 10.0_real64
  call foehn_set_axis(ctx, "depth", depth_bounds(1, :) + 5.0_real64)
  call foehn_set_axis_decomposition(ctx, "depth", ndepth, depth0, ndepths)
  call foehn_set_axis_bounds(ctx, "depth", depth_bounds)
  call foehn_set_axis_index(ctx, "bin", nbin, bins)
  call foehn_set_scalar(ctx, "height2m", 2.0_real64, units="m")
  call check_errors()
  call foehn_close_definition(ctx)

  allocate(prof(nband, ndepths), hist(size(bins)), t2m(ncells), tp(ncells, nplev))
  do step = 1, nsteps
    call foehn_update_calendar(ctx, step)
    prof = reshape([((prof_value(step, d, b), b = 0, nband - 1), d = depth0, depth0 + ndepths - 1)], shape(prof))
    hist = [(real(hist_value(step, bins(k)), real32), k = 1, size(bins))]
    t2m = [(t2m_value(step, k), k = cell0, cell0 + ncells - 1)]
    tp = reshape([((real(tp_value(step, k, d), real32), k = cell0, cell0 + ncells - 1), d = 0, nplev - 1)], shape(tp))
    call foehn_write(ctx, "prof", prof)
    call foehn_write(ctx, "hist", hist)
    call foehn_write(ctx, "t2m", t2m)
    call foehn_write(ctx, "tp", tp)
    call foehn_write(ctx, "gmean", [gmean_value(step) + rank])  ! only rank 0's value is kept
  end do
  call foehn_context_close(ctx)
  call foehn_finalize()
  if (rank == 0) call check_file()
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) then
    if (failures == 0) then
      print '(a)', "foehn_axes_model: OK"
    else
      print '(a,i0,a)', "foehn_axes_model: FAILED (", failures, " failed checks)"
    end if
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
  if (failures /= 0) error stop 1

contains

  ! The values, exact in real32 and real64, from global indices alone.
  real(real64) function prof_value(step, depth, band)
    integer, intent(in) :: step, depth, band
    prof_value = 1000.0_real64 * step + 10.0_real64 * depth + band
  end function prof_value
  real(real64) function hist_value(step, bin)
    integer, intent(in) :: step, bin
    hist_value = 1000.0_real64 * step + bin
  end function hist_value
  real(real64) function t2m_value(step, g)
    integer, intent(in) :: step, g
    t2m_value = 1000.0_real64 * step + 0.5_real64 * g
  end function t2m_value
  real(real64) function tp_value(step, g, k)
    integer, intent(in) :: step, g, k
    tp_value = 1000.0_real64 * step + 10.0_real64 * k + 0.25_real64 * g
  end function tp_value
  real(real64) function gmean_value(step)
    integer, intent(in) :: step
    gmean_value = 1000.0_real64 * step + 0.5_real64
  end function gmean_value

  ! Sizes refused in Fortran: the code, and a message naming the routine,
  ! the domain or axis, and both sizes; nothing reaches C.
  subroutine check_errors()
    integer :: st
    character(:), allocatable :: msg
    integer(c_int) :: some(3)
    some = [0, 1, 2]
    call foehn_set_domain_index(ctx, "dom", some, some(1:2), status=st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "foehn_set_domain_index") > 0 .and. &
                index(msg, "domain 'dom'") > 0 .and. index(msg, "j_index") > 0 .and. &
                index(msg, "expected 3 values, given 2") > 0, "j_index size: " // msg)
    call foehn_set_axis_bounds(ctx, "depth", reshape([1.0_real64, 2.0_real64, 3.0_real64], [3, 1]), status=st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "axis 'depth'") > 0 .and. &
                index(msg, "expected 2 values, given 3") > 0, "axis bounds shape: " // msg)
    ! A part outside the axis is refused by C, naming the axis.
    call foehn_set_axis_decomposition(ctx, "depth", ndepth, ndepth - 1, 2, status=st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "axis 'depth'") > 0, "part outside the axis: " // msg)
  end subroutine check_errors

  subroutine check_file()
    real(real64), allocatable :: v(:)
    integer :: r, g
    character(*), parameter :: f = "axes_one.nc"
    call read_var(f, "prof", v)  ! (time, depth, band)
    call expect(same(v, [(((prof_value(2 * r, d, b), b = 0, nband - 1), d = 0, ndepth - 1), r = 1, 2)]), "prof")
    call read_var(f, "prof_mean", v)
    call expect(same(v, [(((0.5_real64 * (prof_value(2 * r - 1, d, b) + prof_value(2 * r, d, b)), b = 0, nband - 1), &
                           d = 0, ndepth - 1), r = 1, 2)]), "prof_mean")
    call read_var(f, "hist", v)
    call expect(same(v, [((hist_value(2 * r, b), b = 0, nbin - 1), r = 1, 2)]), "hist")
    call read_var(f, "t2m", v)
    call expect(same(v, [((t2m_value(2 * r, g), g = 0, ncell - 1), r = 1, 2)]), "t2m")
    call read_var(f, "tp", v)  ! (time, plev, cell)
    call expect(same(v, [(((tp_value(2 * r, g, d), g = 0, ncell - 1), d = 0, nplev - 1), r = 1, 2)]), "tp")
    call read_var(f, "gmean", v)
    call expect(same(v, [(gmean_value(2 * r), r = 1, 2)]), "gmean: model rank 0's value")
    call read_var(f, "depth", v)
    call expect(same(v, [(10.0_real64 * d + 5.0_real64, d = 0, ndepth - 1)]), "depth values from the ranks' parts")
    call read_var(f, "depth_bounds", v)
    call expect(same(v, [((10.0_real64 * (d + k), k = 0, 1), d = 0, ndepth - 1)]), "depth bounds")
    call read_var(f, "bin", v)
    call expect(same(v, [(200.0_real64 + 10.0_real64 * b, b = 0, nbin - 1)]), "bin values from the XML")
    call read_var(f, "height", v)
    call expect(same(v, [2.0_real64]), "height set by foehn_set_scalar (the XML says 10)")
    call expect(read_text_attribute(f, "height", "units") == "m", "height units")
    call expect(index(read_text_attribute(f, "t2m", "coordinates"), "height") > 0, "t2m coordinates name height")
  end subroutine check_file


  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) return
    write(*, '(a,i0,a)') "CHECK FAILED on rank ", rank, ": " // what
    failures = failures + 1
  end subroutine expect

end program foehn_axes_model
