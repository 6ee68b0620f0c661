! What porting a real model through `use xios` asked (issue 21, items 8 and
! 10), on xios_dropin.xml; tests/python/test_xios_dropin.py runs it and
! checks the files with numpy, netCDF4 and the CF checker:
! - a hybrid sigma-pressure axis whose formula and formula_term are set
!   from code (xios_set_axis_attr) and read back (xios_get_axis_attr);
! - a curvilinear domain (rows split among the ranks) whose data are
!   compressed: data_dim=1 + data_i_index name the wet points of the local
!   block, and the arrays sent hold those points only;
! - writes at step 0, before the first xios_update_calendar (the initial
!   state), then xios_update_calendar(0), which is a no-op as in XIOS; the
!   once fields (ap, b, apb, bb) are sent at step 0 only;
! - xios_field_is_active by handle and by id, with at_current_timestep_arg;
! - XIOS's date expressions ("date + duration"): the XML's start_date and
!   time_origin, and xios_date_convert_from_string.
! Values: ps = 1e5 + 100 j + i + step, pt = ps + 0.5, ta = 200 + 10 k + 0.1 i
! + j + step (i, j global 0-based, k the level), at the wet points
! (mod(i + 2 j, 5) /= 0). mpiexec -n N ./xios_dropin_model [: -n 1 foehn-server]
program xios_dropin_model
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  implicit none
  integer, parameter :: ni = 10, nj_glo = 8, nlev = 4, nlevb = 2, nsteps = 4
  integer :: comm, ierr, rank, nranks, jbegin, nj, i, j, k, n, nwet, step
  integer, allocatable :: wet(:), wet_i(:), wet_j(:)
  real(real64), allocatable :: lon(:, :), lat(:, :), ps(:), pt(:), ta(:, :), tb(:, :)
  real(real64), parameter :: ap(nlev) = [1000d0, 4000d0, 3000d0, 500d0], b(nlev) = [0d0, 0.2d0, 0.6d0, 0.9d0]
  type(xios_field) :: pt_hdl
  type(xios_date) :: date
  character(len=64) :: text
  logical :: by_handle, by_id

  call xios_initialize("dropin", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  jbegin = rank * nj_glo / nranks
  nj = (rank + 1) * nj_glo / nranks - jbegin
  allocate(lon(ni, nj), lat(ni, nj), wet(ni * nj), wet_i(ni * nj), wet_j(ni * nj))
  nwet = 0
  do j = 0, nj - 1
    do i = 0, ni - 1
      lon(i + 1, j + 1) = 10d0 * i + 0.5d0 * (jbegin + j)
      lat(i + 1, j + 1) = -60d0 + 15d0 * (jbegin + j) + 0.1d0 * i
      if (mod(i + 2 * (jbegin + j), 5) /= 0) then
        nwet = nwet + 1
        wet(nwet) = i + ni * j  ! 0-based, into the local block
        wet_i(nwet) = i
        wet_j(nwet) = jbegin + j
      end if
    end do
  end do
  allocate(ps(nwet), pt(nwet), ta(nwet, nlev), tb(nwet, nlevb))

  call xios_context_initialize("atm", comm)
  ! XIOS's compressed data on a curvilinear domain: the block, then the
  ! data as a list of its points.
  call xios_set_domain_attr("curv", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                            data_dim=1, data_ibegin=0, data_ni=nwet, data_i_index=wet(1:nwet), &
                            lonvalue_2d=lon, latvalue_2d=lat)
  ! A sigma axis needs formula_terms: set from code, as models do.
  call xios_set_axis_attr("lev", formula="p = ap + b*ps", formula_term="ap: ap b: b ps: ps")
  call xios_get_axis_attr("lev", formula_term=text)
  call check(text == "ap: ap b: b ps: ps", "xios_get_axis_attr formula_term")
  call xios_get_handle("pt", pt_hdl)
  call xios_close_context_definition()
  ! The XML's date expressions read back as the dates they stand for.
  call xios_get_start_date(date)
  call check(date == xios_date(2000, 1, 1, 0, 0, 0), "start_date '1999-12-31 22:00:00 + 2ts'")
  call xios_get_time_origin(date)
  call check(date == xios_date(2000, 1, 1, 0, 0, 0), "time_origin '1999-12-30 18:00:00 + 1d 6h'")
  ! 2000 is a leap year: 28 February 12:00 + 36 h is 1 March 00:00.
  date = xios_date_convert_from_string("2000-02-28 12:00:00 + 1d 12h")
  call check(date == xios_date(2000, 3, 1, 0, 0, 0), "xios_date_convert_from_string of a date expression")

  ! The initial state, before the first update (step 0, the start date).
  call fill(0)
  call send_all(0)
  call xios_update_calendar(0)  ! already at step 0: nothing happens, as in XIOS
  do step = 1, nsteps
    call xios_update_calendar(step)
    by_handle = xios_field_is_active(pt_hdl, at_current_timestep_arg=.true.)
    by_id = xios_field_is_active("pt", at_current_timestep_arg=.true.)
    call check(by_handle .eqv. by_id, "xios_field_is_active by handle and by id")
    call check(by_handle .eqv. (mod(step, 2) == 0), "xios_field_is_active(pt) at the output steps of 2h")
    call check(xios_field_is_active(pt_hdl), "xios_field_is_active(pt_hdl): used by a file")
    call fill(step)
    call send_all(step)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  if (rank == 0) print "(a)", "xios_dropin_model: OK"

contains

  subroutine fill(s)
    integer, intent(in) :: s
    do n = 1, nwet
      ps(n) = 1d5 + 100d0 * wet_j(n) + wet_i(n) + s
      pt(n) = ps(n) + 0.5d0
      do k = 1, nlev
        ta(n, k) = 200d0 + 10d0 * (k - 1) + 0.1d0 * wet_i(n) + wet_j(n) + s
      end do
      do k = 1, nlevb
        tb(n, k) = ta(n, k) + 1000d0
      end do
    end do
  end subroutine fill

  subroutine send_all(s)
    integer, intent(in) :: s
    if (s == 0) then  ! the constants (operation once), at the start only, as models do
      call xios_send_field("ap", ap)
      call xios_send_field("b", b)
      call xios_send_field("apb", ap(1:nlevb))
      call xios_send_field("bb", b(1:nlevb))
    end if
    call xios_send_field("ps", ps)
    call xios_send_field("pt", pt)
    call xios_send_field("ta", ta)
    call xios_send_field("tb", tb)
  end subroutine send_all

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print "(a, i0, a)", "xios_dropin_model: rank ", rank, ": failed: " // what
      error stop 1
    end if
  end subroutine check
end program xios_dropin_model
