! A grid that defines its domain, axis and scalar in place (xios_inline.xml;
! run by tests/python/test_xios_inline.py, which checks the file with numpy).
! The domain box is known only by the id its grid gave it: its size and
! coordinates are set here, rows split among the ranks. Values: temp = 100 k
! + 10 j + i + step (i, j global 0-based, k the depth index), profile = 100 k
! + step, tmean = step + 0.5. Also: an all-.true. axis mask is accepted, and
! 0.5 * (3600s + 1ts) is written "1800s 0.5ts". mpiexec -n N ./xios_inline_model [: -n 1 foehn-server]
program xios_inline_model
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  implicit none
  integer, parameter :: ni = 8, nj_glo = 6, nlev = 3, nsteps = 2
  integer :: comm, ierr, rank, nranks, jbegin, nj, i, j, k, step, n_glo
  real(real64), allocatable :: temp(:, :, :)
  real(real64) :: profile(nlev), lon(ni)
  real(real64), allocatable :: lat(:)
  character(len=32) :: unit, text
  type(xios_duration) :: dt

  call xios_initialize("inline", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  jbegin = rank * nj_glo / nranks
  nj = (rank + 1) * nj_glo / nranks - jbegin
  allocate(temp(ni, nj, nlev), lat(nj))
  lon = [(10d0 * i, i = 0, ni - 1)]
  lat = [(-50d0 + 20d0 * (jbegin + j), j = 0, nj - 1)]

  call xios_context_initialize("inline", comm)
  call check(xios_is_valid_domain("box"), "xios_is_valid_domain(box): defined in a grid")
  call check(xios_is_valid_axis("depth"), "xios_is_valid_axis(depth): defined in a grid")
  call xios_set_domain_attr("box", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                            lonvalue_1d=lon, latvalue_1d=lat)
  call xios_get_axis_attr("depth", n_glo=n_glo, unit=unit)
  call check(n_glo == nlev, "xios_get_axis_attr(depth, n_glo) from the grid's <axis>")
  call check(unit == "m", "xios_get_axis_attr(depth, unit) from the grid's <axis>")
  ! An axis mask that hides nothing is accepted (XIOS's test_new_features sends one).
  call xios_set_axis_attr("depth", mask=[(.true., k = 1, nlev)])
  ! Fractional time steps print as XIOS prints them (test_client).
  dt%second = 3600
  dt%timestep = 1
  call xios_duration_convert_to_string(0.5d0 * dt, text)
  call check(text == "1800s 0.5ts", "xios_duration_convert_to_string(0.5 * (3600s + 1ts)): " // trim(text))
  call xios_close_context_definition()

  do step = 1, nsteps
    call xios_update_calendar(step)
    do k = 1, nlev
      do j = 1, nj
        do i = 1, ni
          temp(i, j, k) = 100d0 * (k - 1) + 10d0 * (jbegin + j - 1) + (i - 1) + step
        end do
      end do
      profile(k) = 100d0 * (k - 1) + step
    end do
    call xios_send_field("temp", temp)
    call xios_send_field("profile", profile)
    call xios_send_field("tmean", step + 0.5d0)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  if (rank == 0) print "(a)", "xios_inline_model: OK"

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print "(a, i0, a)", "xios_inline_model: rank ", rank, ": failed: " // what
      error stop 1
    end if
  end subroutine check
end program xios_inline_model
