! The C misuse tests (tests/mpi/misuse_model.cpp) through `use foehn`: each
! misuse must end in a status naming what happened, never in a crash or a
! hang, attached and with servers (issue 18 items 1-3, 5, in Fortran).
!
! usage: misuse_model_f <misuse.xml> after_close|reinit|finalize_open|wrong_size
!   after_close    calls with a closed context, and a second close: FOEHN_ERR_STATE naming the context
!   reinit         foehn_init after foehn_finalize: FOEHN_ERR_STATE
!   finalize_open  foehn_finalize with the context open: FOEHN_ERR_STATE naming it; the file keeps every record
!   wrong_size     rank 0 writes ps with a wrong size at step 2: FOEHN_ERR_ARGUMENT; the record holds fill
!                  values where rank 0's part is, every other value exact
! Three steps of ps are written first; rank 0 reads misuse.nc back.
program misuse_model_f
  use mpi
  use foehn
  use nc_read, only: read_var
  implicit none

  integer, parameter :: dp = kind(1.d0), ni = 4, nj_glo = 2, nsteps = 3, fault_step = 2
  real(dp), parameter :: fill = 9.9692099683868690e+36_dp  ! netCDF's default for doubles
  character(len=256) :: config, mode
  type(foehn_context) :: ctx
  integer :: comm, again, rank, nranks, ierr, status, j0, nj, step
  logical :: ok
  real(dp), allocatable :: ps(:, :)

  ok = .true.
  call mpi_init(ierr)
  call get_command_argument(1, config)
  call get_command_argument(2, mode)
  call foehn_init("misuse", trim(config), MPI_COMM_WORLD, comm)
  call mpi_comm_rank(comm, rank, ierr)
  call mpi_comm_size(comm, nranks, ierr)
  j0 = rank * nj_glo / nranks
  nj = (rank + 1) * nj_glo / nranks - j0
  allocate(ps(ni, nj))

  call foehn_context_open("misuse", comm, ctx)
  call foehn_set_domain_rectilinear(ctx, "dom", ni, nj_glo, 0, j0, [0.0_dp, 90.0_dp, 180.0_dp, 270.0_dp], &
                                    [(-45.0_dp + 90.0_dp * (j0 + step), step = 0, nj - 1)])
  call foehn_close_definition(ctx)
  do step = 1, nsteps
    call foehn_update_calendar(ctx, step)
    call fill_ps(step)
    if (rank == 0 .and. step == fault_step .and. mode == "wrong_size") then
      call foehn_write(ctx, "ps", ps(:, 1:nj - 1), status)
      call expect_error(status, FOEHN_ERR_ARGUMENT, "write of a wrong size", "'ps'")
      cycle
    end if
    call foehn_write(ctx, "ps", ps)
  end do

  select case (trim(mode))
  case ("after_close")
    call foehn_context_close(ctx)
    call foehn_update_calendar(ctx, nsteps + 1, status)
    call expect_error(status, FOEHN_ERR_STATE, "update_calendar after close", "context 'misuse' is closed")
    call foehn_write(ctx, "ps", ps, status)
    call expect_error(status, FOEHN_ERR_STATE, "write after close", "'misuse'")
    call foehn_context_close(ctx, status)
    call expect_error(status, FOEHN_ERR_STATE, "a second close", "context 'misuse' is closed")
    call foehn_finalize()
    if (rank == 0) call check_file(.false.)
  case ("reinit")
    call foehn_context_close(ctx)
    call foehn_finalize()
    call foehn_init("misuse", trim(config), MPI_COMM_WORLD, again, status)
    call expect_error(status, FOEHN_ERR_STATE, "init after finalize", "foehn_finalize was called")
  case ("finalize_open")
    call foehn_finalize(status)
    call expect_error(status, FOEHN_ERR_STATE, "finalize with an open context", "'misuse' were still open")
    call foehn_update_calendar(ctx, nsteps + 1, status)
    call expect_error(status, FOEHN_ERR_STATE, "update_calendar after finalize", "is closed")
    if (rank == 0) call check_file(.false.)
  case ("wrong_size")
    call foehn_context_close(ctx)
    call foehn_finalize()
    if (rank == 0) call check_file(.true.)
  case default
    call expect(.false., "a mode: after_close, reinit, finalize_open or wrong_size")
  end select

  call mpi_comm_free(comm, ierr)
  if (ok) then
    print '(a)', "misuse_model_f " // trim(mode) // ": as expected"
  else
    print '(a)', "misuse_model_f " // trim(mode) // ": FAILED"
  end if
  call mpi_finalize(ierr)
  if (.not. ok) error stop 1

contains

  real(dp) function value(s, i, j)  ! i, j 0-based global
    integer, intent(in) :: s, i, j
    value = 1000.0_dp * s + 10.0_dp * j + i
  end function value

  subroutine fill_ps(s)
    integer, intent(in) :: s
    integer :: i, j
    do j = 1, nj
      do i = 1, ni
        ps(i, j) = value(s, i - 1, j0 + j - 1)
      end do
    end do
  end subroutine fill_ps

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (condition) return
    write (0, '(a)') "misuse_model_f: UNEXPECTED: " // what // " (last error: " // foehn_last_error() // ")"
    ok = .false.
  end subroutine expect

  subroutine expect_error(got, code, call, part)
    integer, intent(in) :: got, code
    character(*), intent(in) :: call, part
    character(:), allocatable :: message
    message = foehn_last_error()
    print '(a, i0, a)', "misuse_model_f: " // call // " -> status ", got, ", message: " // message
    call expect(got == code, call // " returns the expected code")
    call expect(index(message, part) > 0, call // "'s message names '" // part // "'")
  end subroutine expect_error

  ! Every record of misuse.nc read back exactly; with `faulty`, rank 0's
  ! rows (the first nj) hold the fill value at fault_step.
  subroutine check_file(faulty)
    logical, intent(in) :: faulty
    real(dp), allocatable :: got(:)
    integer :: s, i, j, k
    real(dp) :: want
    call read_var("misuse.nc", "ps", got)
    call expect(allocated(got), "misuse.nc and its ps read back")
    if (.not. allocated(got)) return
    call expect(size(got) == nsteps * nj_glo * ni, "misuse.nc holds every record")
    if (size(got) /= nsteps * nj_glo * ni) return
    k = 0
    do s = 1, nsteps
      do j = 0, nj_glo - 1
        do i = 0, ni - 1
          k = k + 1
          want = value(s, i, j)
          if (faulty .and. s == fault_step .and. j < nj) want = fill
          call expect(got(k) == want, "ps value at a step and point")
        end do
      end do
    end do
  end subroutine check_file

end program misuse_model_f
