! XIOS's named timers (xios_timer_resume/suspend/reset/get_time) and
! xios_oasis_enddef, as models call them. Each timer total is checked
! against MPI_Wtime intervals measured around it: resume and suspend in
! pairs add up, repeated calls change nothing, a running interval is not in
! the total, reset gives zero, timers are independent, and without an id
! the clock is MPI_Wtime's.
! mpiexec -n N ./xios_timers_model [: -n 1 foehn-server]   (FOEHN_IODEF=xios_timers.xml)
program xios_timers_model
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  implicit none
  integer :: comm, ierr, rank
  real(real64) :: t0, t1, t2, t3, first
  real :: total

  call xios_initialize("timers", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call xios_context_initialize("timers", comm)
  call xios_oasis_enddef()  ! no OASIS: nothing to do, the context goes on
  call xios_close_context_definition()

  call check(xios_timer_get_time("never used") == 0, "a new timer's total is 0")
  t0 = MPI_Wtime()
  call xios_timer_resume("a")
  t1 = MPI_Wtime()
  call busy(0.05d0)
  t2 = MPI_Wtime()
  call xios_timer_resume("a")  ! already running: the interval goes on
  call xios_timer_suspend("a")
  t3 = MPI_Wtime()
  total = xios_timer_get_time("a")
  call check(total >= real(t2 - t1) - 1e-6 .and. total <= real(t3 - t0) + 1e-6, "one interval")
  first = total
  call xios_timer_suspend("a")  ! already suspended: nothing changes
  call busy(0.02d0)
  call check(xios_timer_get_time("a") == first, "a suspended timer does not move")

  call xios_timer_resume("a", trace=.false.)
  t0 = MPI_Wtime()
  call busy(0.03d0)
  call xios_timer_resume("b")
  call check(xios_timer_get_time("a") == first, "a running interval is not in the total")
  t1 = MPI_Wtime()
  call xios_timer_suspend("a", trace=.false.)
  total = xios_timer_get_time("a")
  call check(total - first >= real(t1 - t0) - 1e-5 .and. total - first <= real(MPI_Wtime() - t0) + 1e-5, &
             "a second interval adds up")
  call busy(0.01d0)
  call xios_timer_suspend("b")
  call check(xios_timer_get_time("b") >= 0.01 - 1e-5, "timer b counted its own interval")
  call xios_timer_reset("a")
  call check(xios_timer_get_time("a") == 0, "reset")
  call check(xios_timer_get_time("b") > 0, "reset of a leaves b")
  call xios_timer_resume("b")
  call xios_timer_reset("b")  ! reset also suspends: nothing accrues after it
  call busy(0.01d0)
  call check(xios_timer_get_time("b") == 0, "reset suspends")
  t0 = MPI_Wtime()
  total = xios_timer_get_time()
  call check(abs(real(t0, kind(total)) - total) <= max(1e-3, spacing(total)) * 4, "the clock is MPI_Wtime")

  call xios_context_finalize()
  call xios_finalize()
  if (rank == 0) print '(a)', "xios_timers_model: OK"

contains

  subroutine busy(seconds)  ! a short wait measured by the clock under test
    real(real64), intent(in) :: seconds
    real(real64) :: start
    start = MPI_Wtime()
    do while (MPI_Wtime() - start < seconds)
    end do
  end subroutine busy

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a)', "xios_timers_model: FAILED: " // what
      error stop 1
    end if
  end subroutine check
end program xios_timers_model
