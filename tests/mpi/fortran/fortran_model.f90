! A small Fortran model that writes its output through `use foehn`, the way a
! modeller would: the calendar comes from the model's start date, levels are
! an axis, the lon/lat grid is split over the ranks in 2-D blocks, arrays
! carry a halo, and each step sends the fields foehn says are needed.
! After closing, rank 0 calls check_output (check_output.cpp), which reads
! the files and compares them with the analytic values computed in C++.
!
! usage: fortran_model <config.xml> [stop_on_error]
!   stop_on_error: make a wrong-size write without `status` (must error stop)
program fortran_model
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi
  use foehn
  implicit none

  interface
    integer(c_int) function check_output(nsteps, ni_glo, nj_glo, nlev) bind(C, name="check_output")
      import :: c_int
      implicit none
      integer(c_int), value :: nsteps, ni_glo, nj_glo, nlev
    end function check_output
  end interface

  integer, parameter :: dp = kind(1.d0), sp = kind(1.0)
  integer, parameter :: ni_glo = 13, nj_glo = 7, nlev = 4, nsteps = 8
  integer, parameter :: start_year = 2001, start_month = 3, start_day = 15, start_hour = 6
  integer, parameter :: dt_seconds = 900

  character(len=256) :: config, mode
  character(len=19) :: start_date, time_origin
  character(len=16) :: timestep
  integer :: ierr, comm, rank, nprocs, px, py, ibegin, ni, jbegin, nj, i, j, k, step, h_ps, st, failures
  real(dp), allocatable :: lon(:), lat(:), levels(:), ta(:,:,:), ps(:,:)
  real(sp), allocatable :: tsurf(:,:)
  type(foehn_context) :: ctx

  call MPI_Init(ierr)
  call get_command_argument(1, config)
  call get_command_argument(2, mode)
  call foehn_init("fortran_model", trim(config), MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  failures = 0

  ! 2-D blocks: py rows of px columns, uneven where sizes do not divide.
  py = 1
  do i = 1, nprocs
    if (mod(nprocs, i) == 0 .and. i * i <= nprocs) py = i
  end do
  px = nprocs / py
  ibegin = (mod(rank, px) * ni_glo) / px
  ni = ((mod(rank, px) + 1) * ni_glo) / px - ibegin
  jbegin = ((rank / px) * nj_glo) / py
  nj = ((rank / px + 1) * nj_glo) / py - jbegin

  allocate(lon(ni), lat(nj), levels(nlev), ta(0:ni+1, 0:nj+1, nlev), ps(ni, nj), tsurf(ni, nj))
  lon = [(-180.0_dp + 360.0_dp * (ibegin + i - 0.5_dp) / ni_glo, i = 1, ni)]
  lat = [(-90.0_dp + 180.0_dp * (jbegin + j - 0.5_dp) / nj_glo, j = 1, nj)]
  levels = [(real(k, dp), k = 1, nlev)]

  ! The calendar from the model's own start date.
  write(start_date, '(i4.4,"-",i2.2,"-",i2.2," ",i2.2,":00:00")') start_year, start_month, start_day, start_hour
  write(time_origin, '(i4.4,"-01-01 00:00:00")') start_year
  write(timestep, '(i0,"s")') dt_seconds

  call foehn_context_open("atm", comm, ctx)
  call foehn_set_calendar(ctx, type="gregorian", start_date=start_date, time_origin=time_origin, timestep=timestep)
  call foehn_set_domain_rectilinear(ctx, "grid_t", ni_glo, nj_glo, ibegin, jbegin, lon, lat)
  call foehn_set_axis(ctx, "lev", levels)
  call foehn_close_definition(ctx)
  call foehn_field_handle(ctx, "ps", h_ps)

  do step = 1, nsteps
    call compute_fields(step)
    call foehn_update_calendar(ctx, step)
    call expect(foehn_field_is_active(ctx, "ta") .eqv. mod(step, 2) == 0, "ta active")
    call expect(foehn_field_is_active(ctx, "tsurf") .eqv. mod(step, 3) == 0, "tsurf active")
    ! ta: the interior of a haloed real64 array (not contiguous: foehn_write gets a copy)
    if (foehn_field_is_active(ctx, "ta")) call foehn_write(ctx, "ta", ta(1:ni, 1:nj, :))
    if (foehn_field_is_active(ctx, "ps")) call foehn_write(ctx, h_ps, ps)
    if (foehn_field_is_active(ctx, "tsurf")) then
      if (step == 3) then  ! the same data as a rank-1 array
        call foehn_write(ctx, "tsurf", reshape(tsurf, [ni * nj]))
      else
        call foehn_write(ctx, "tsurf", tsurf)
      end if
    end if
    if (step == 2) call check_errors()
  end do

  call foehn_context_close(ctx)
  call foehn_finalize()
  if (rank == 0) failures = failures + check_output(nsteps, ni_glo, nj_glo, nlev)
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) then
    if (failures == 0) then
      print '(a)', 'fortran_model: OK (foehn ' // foehn_version() // ')'
    else
      print '(a,i0,a)', 'fortran_model: FAILED (', failures, ' failed checks)'
    end if
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
  if (failures /= 0) error stop 1

contains

  ! Exactly representable values (multiples of 1/16), so that narrowing ta
  ! to the file's real32 and the comparison in C++ are exact.
  subroutine compute_fields(step)
    integer, intent(in) :: step
    integer :: ig, jg
    ta = -999.0_dp  ! the halo, which must never reach the file
    do k = 1, nlev
      do j = 1, nj
        do i = 1, ni
          ig = ibegin + i
          jg = jbegin + j
          ta(i, j, k) = 200.0_dp + 10.0_dp * k + 0.5_dp * jg + 0.25_dp * ig + 0.125_dp * step
          ps(i, j) = 100000.0_dp + 3.0_dp * step + 0.5_dp * ig + 0.0625_dp * jg
          tsurf(i, j) = 280.0_sp + 0.5_sp * ig - 0.25_sp * jg + real(step, sp)
        end do
      end do
    end do
  end subroutine compute_fields

  ! Bad input with `status`: an error code and foehn's message, no stop.
  ! Without `status` (mode stop_on_error) the same call stops the program.
  subroutine check_errors()
    character(:), allocatable :: msg
    if (trim(mode) == "stop_on_error") call foehn_write(ctx, "ps", ps(1:ni, 1:nj-1))
    call foehn_write(ctx, "ps", ps(1:ni, 1:nj-1), st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT, "wrong size gives FOEHN_ERR_ARGUMENT")
    call expect(index(msg, "'ps'") > 0 .and. index(msg, "expected") > 0 .and. index(msg, "given") > 0, &
                "wrong-size message names the field and sizes: " // msg)
    call foehn_set_model_time(ctx, 7200.0_dp, st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_STATE .and. index(msg, "foehn_update_calendar") > 0, &
                "model time in a context driven by steps gives FOEHN_ERR_STATE")
    call expect(.not. foehn_field_is_active(ctx, "no_such_field", st), "unknown field is not active")
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "no_such_field") > 0, "unknown field gives FOEHN_ERR_ARGUMENT")
  end subroutine check_errors

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) return
    write(*, '(a,i0,a)') 'CHECK FAILED on rank ', rank, ': ' // what
    failures = failures + 1
  end subroutine expect

end program fortran_model
