! The domain calls of `use foehn` (foehn_set_domain_*), on the `unstr`
! context of tests/mpi/data/grids.xml: an unstructured domain of 30 cells
! whose cells are dealt round the ranks and listed in reverse order, with
! 3-corner bounds; every fifth cell is masked; rank 0's arrays carry a halo
! value at each end (data_ibegin -1) and the last rank sends compressed data
! (every other local cell). After foehn_finalize, rank 0 reads the file
! back (nc_read.f90) and compares it with the formulas; masked cells and
! cells without data must hold the fill value.
!
! usage: foehn_domains_model <grids.xml>
program foehn_domains_model
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use mpi
  use foehn
  use nc_read
  implicit none

  integer, parameter :: ncell = 30, nlev = 3, nsteps = 4
  real(real64), parameter :: fill = 9.9692099683868690e36_real64
  character(len=256) :: config
  integer :: ierr, comm, rank, nprocs, n, ndata, k, step, failures, first
  integer(c_int), allocatable :: cells(:), positions(:)
  real(real64), allocatable :: lon(:), lat(:), blon(:,:), blat(:,:), ps(:)
  real(real32), allocatable :: ta(:,:)
  type(foehn_context) :: ctx

  call MPI_Init(ierr)
  call get_command_argument(1, config)
  call foehn_init("foehn_domains_model", trim(config), MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  failures = 0

  cells = [(k, k = ncell - 1, 0, -1)]
  cells = pack(cells, mod(cells, nprocs) == rank)
  n = size(cells)
  lon = 12.0_real64 * cells
  lat = -45.0_real64 + 3.0_real64 * cells
  allocate(blon(3, n), blat(3, n))
  do k = 1, n
    blon(:, k) = lon(k) + [0.0_real64, 5.0_real64, -5.0_real64]
    blat(:, k) = lat(k) + [-5.0_real64, 5.0_real64, 0.0_real64]
  end do

  call foehn_context_open("unstr", comm, ctx)
  call foehn_set_domain_type(ctx, "dom", "unstructured", ncell)
  call foehn_set_domain_index(ctx, "dom", cells)
  call foehn_set_domain_coordinates(ctx, "dom", lon, lat, blon, blat)
  call foehn_set_domain_mask(ctx, "dom", mod(cells, 5) /= 0)
  ! The data: rank 0 a halo at each end, the last rank every other cell, else the cells.
  first = 1
  ndata = n
  if (rank == 0) then
    call foehn_set_domain_data(ctx, "dom", 1, -1, n + 2)
    ndata = n + 2
    first = 0
  else if (rank == nprocs - 1) then
    positions = [(k, k = 0, n - 1, 2)]
    call foehn_set_domain_data_index(ctx, "dom", positions)
    ndata = size(positions)
  end if
  call foehn_set_axis(ctx, "lev", [1.0_real64, 2.0_real64, 3.0_real64])
  call check_errors()
  call foehn_close_definition(ctx)

  allocate(ps(ndata), ta(ndata, nlev))
  do step = 1, nsteps
    call foehn_update_calendar(ctx, step)
    ps = -999.0_real64  ! the halo, which must never reach the file
    ta = -999.0_real32
    do k = 1, ndata
      if (rank == 0 .and. (k == 1 .or. k == ndata)) cycle
      ps(k) = value_of(data_cell(k), step, 0)
      ta(k, :) = real([value_of(data_cell(k), step, 1), value_of(data_cell(k), step, 2), &
                       value_of(data_cell(k), step, 3)], real32)
    end do
    call foehn_write(ctx, "ps", ps)
    call foehn_write(ctx, "ta", ta)
    call foehn_write(ctx, "ua", transpose(ta))
  end do
  call foehn_context_close(ctx)
  call check_second_opening()
  call foehn_finalize()
  if (rank == 0) call check_file()
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0) then
    if (failures == 0) then
      print '(a)', "foehn_domains_model: OK"
    else
      print '(a,i0,a)', "foehn_domains_model: FAILED (", failures, " failed checks)"
    end if
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
  if (failures /= 0) error stop 1

contains

  ! The cell of data element k (1-based) on this rank.
  integer function data_cell(k)
    integer, intent(in) :: k
    if (rank == 0) then
      data_cell = cells(k - 1 + first)
    else if (rank == nprocs - 1) then
      data_cell = cells(positions(k) + 1)
    else
      data_cell = cells(k)
    end if
  end function data_cell

  ! Exact in real32.
  real(real64) function value_of(g, step, lev)
    integer, intent(in) :: g, step, lev
    value_of = 1000.0_real64 * step + 100.0_real64 * lev + g
  end function value_of

  ! Whether the file has a value at global cell g: not masked, and sent.
  logical function has_value(g)
    integer, intent(in) :: g
    integer :: owner, i
    owner = mod(g, nprocs)
    has_value = mod(g, 5) /= 0
    if (owner == nprocs - 1 .and. owner /= 0) then
      ! the owner's list is reversed; it sends its positions 0, 2, 4, ...
      i = (ncell - 1 - g - owner_offset(owner)) / nprocs
      has_value = has_value .and. mod(i, 2) == 0
    end if
  end function has_value

  ! The first cell (from the top) of an owner's reversed list is the largest
  ! g with mod(g, nprocs) == owner; its distance from ncell - 1.
  integer function owner_offset(owner)
    integer, intent(in) :: owner
    owner_offset = mod(ncell - 1 - owner, nprocs)
  end function owner_offset

  subroutine check_file()
    real(real64), allocatable :: v(:)
    real(real64) :: expected
    real(real64), parameter :: lat_corners(3) = [-5.0_real64, 5.0_real64, 0.0_real64]
    integer :: r, g, lev, k
    logical :: exists
    call read_var("unstr_one.nc", "lon", v)
    call expect(same(v, [(12.0_real64 * g, g = 0, ncell - 1)]), "longitudes")
    call read_var("unstr_one.nc", read_text_attribute("unstr_one.nc", "lat", "bounds"), v)
    call expect(same(v, [((-45.0_real64 + 3.0_real64 * g + lat_corners(k), k = 1, 3), g = 0, ncell - 1)]), &
                "latitude bounds")
    call expect(read_text_attribute("unstr_one.nc", "ta", "long_name") == "air temperature at run time", &
                "ta long_name set at run time")
    inquire(file="unstr_multi_0.nc", exist=exists)
    call expect(.not. exists, "the file multi, disabled at run time, is not written")
    call read_var("unstr_one.nc", "ps", v)  ! (time, cell)
    call expect(allocated(v), "ps in unstr_one.nc")
    if (.not. allocated(v)) return
    call expect(size(v) == 2 * ncell, "ps has 2 records")
    do r = 1, 2
      do g = 0, ncell - 1
        expected = merge(value_of(g, 2 * r, 0), fill, has_value(g))
        call expect(v((r - 1) * ncell + g + 1) == expected, "ps value")
      end do
    end do
    call read_var("unstr_one.nc", "ta", v)  ! (time, lev, cell), real32 on disk
    do r = 1, 2
      do lev = 1, nlev
        do g = 0, ncell - 1
          expected = merge(value_of(g, 2 * r, lev), real(real(fill, real32), real64), has_value(g))
          call expect(v(((r - 1) * nlev + lev - 1) * ncell + g + 1) == expected, "ta value")
        end do
      end do
    end do
  end subroutine check_file

  ! Bad input with status: an error code, foehn's message, no stop.
  subroutine check_errors()
    integer :: st
    character(:), allocatable :: msg, text
    logical :: defined
    call foehn_set_domain_index(ctx, "no_such_domain", cells, status=st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_STATE .and. index(msg, "no_such_domain") > 0 .and. &
                index(msg, "foehn_set_domain_type first") > 0, "undescribed domain: " // msg)
    call foehn_set_domain_coordinates(ctx, "dom", lon, lat, blon, blat(1:2, :), status=st)
    call expect(st == FOEHN_ERR_ARGUMENT, "bounds of different shapes are refused")
    ! Attributes at run time: a refused attribute is refused naming it and why; an acted-on domain attribute is refused.
    call foehn_set_attribute(ctx, "field", "ps", "read_access", "true", st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "'read_access' is refused") > 0, &
                "refused field attribute: " // msg)
    call foehn_set_attribute(ctx, "domain", "dom", "name", "cells", st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "only attributes foehn keeps") > 0, "domain attribute: " // msg)
    call foehn_set_attribute(ctx, "field", "ps", "operation", "mean", st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "'mean'") > 0, "bad operation: " // msg)
    call foehn_get_attribute(ctx, "field", "ta", "unit", text, defined)
    call expect(defined .and. text == "K", "unit of ta from the XML")
    call foehn_get_attribute(ctx, "field", "ta", "comment", text, defined)
    call expect(.not. defined, "comment of ta not defined")
    call expect(.not. foehn_field_is_used(ctx, "ta", st) .and. st == FOEHN_ERR_STATE, "is_used before close")
    ! Dates: calendars differ; a bad calendar or a timestep-counting duration without a timestep is refused.
    call foehn_date_add("noleap", "2004-02-28 12:00:00", "1d", text)
    call expect(text == "2004-03-01 12:00:00", "noleap 2004-02-28 + 1d: " // text)
    call foehn_date_add("gregorian", "2004-02-28 12:00:00", "1d 2ts", text, timestep="1800s")
    call expect(text == "2004-02-29 13:00:00", "gregorian 2004-02-28 12:00 + 1d 2ts of 30 min: " // text)
    call foehn_date_add("martian", "2004-02-28", "1d", text, status=st)
    msg = foehn_last_error()
    call expect(st /= FOEHN_OK .and. index(msg, "martian") > 0, "unknown calendar: " // msg)
    call foehn_date_add("gregorian", "2004-02-28", "3ts", text, status=st)
    msg = foehn_last_error()
    call expect(st == FOEHN_ERR_ARGUMENT .and. index(msg, "no timestep") > 0, "ts without timestep: " // msg)
    ! Set here, seen in the file: ta's long_name reaches the file fields; the file multi is not written.
    call foehn_set_attribute(ctx, "field", "ta", "long_name", "air temperature at run time")
    call foehn_set_attribute(ctx, "file", "multi", "enabled", "false")
  end subroutine check_errors


  ! A second opening starts from the XML (read again: the first opening took
  ! the parsed definition), not from what the model set in the first one.
  subroutine check_second_opening()
    character(:), allocatable :: text
    logical :: defined
    type(foehn_context) :: again
    call foehn_context_open("unstr", comm, again)
    call foehn_get_attribute(again, "field", "ta", "long_name", text, defined)
    call expect(defined .and. text == "air temperature", "long_name of ta at the second opening: " // text)
    call foehn_get_attribute(again, "field", "ta", "unit", text, defined)
    call expect(defined .and. text == "K", "unit of ta at the second opening")
    call foehn_context_close(again)
  end subroutine check_second_opening

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) return
    write(*, '(a,i0,a)') "CHECK FAILED on rank ", rank, ": " // what
    failures = failures + 1
  end subroutine expect

end program foehn_domains_model
