! A user_defined calendar from code, as XIOS models define it:
! xios_define_calendar(type="user_defined", day_length, month_lengths,
! year_length, leap_year_month, leap_year_drift, leap_year_drift_offset),
! on xios_calendar.xml (no <calendar> there). The calendar: 11 months of 20
! days and a 12th of 25, a leap day in month 12 every other year (drift 0.5
! day a year from offset 0: even years), 5-day steps from 2001-11-15.
! Checked here: the calendar's type, year lengths, the day of the year
! (xios_date + xios_duration, and so xios_get_current_date, are not
! available in a user_defined calendar yet: foehn_date_add knows the
! calendar by its type only); tests/python/test_xios_calendar.py checks the
! file (time axis and calendar attributes, values). Each step sends
! days(k) = k * (days from the time origin 2001-01-01 to the model date).
! mpiexec -n N ./xios_calendar_model [: -n 1 foehn-server]
program xios_calendar_model
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  implicit none
  integer, parameter :: nsteps = 12, months(12) = [20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 25]
  integer :: comm, ierr, rank, step, k
  real(real64) :: days(3), elapsed
  character(len=32) :: text

  call xios_initialize("calendar", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call xios_context_initialize("cal", comm)
  call xios_define_calendar(type="user_defined", timestep=5 * xios_day, start_date=xios_date(2001, 11, 15, 0, 0, 0), &
                            time_origin=xios_date(2001, 1, 1, 0, 0, 0), day_length=86400, month_lengths=months, &
                            year_length=245 * 86400, leap_year_month=12, leap_year_drift=0.5d0, &
                            leap_year_drift_offset=0d0)
  call xios_get_calendar_type(text)
  call check(text == "user_defined", "xios_get_calendar_type")
  call check(xios_get_year_length_in_seconds(2001) == 245 * 86400, "year length of 2001 (common)")
  call check(xios_get_year_length_in_seconds(2002) == 246 * 86400, "year length of 2002 (leap)")
  call check(abs(xios_date_get_day_of_year(xios_date(2001, 3, 5, 0, 0, 0)) - 44d0) < 1d-12, "day of year")
  call xios_close_context_definition()

  do step = 1, nsteps
    call xios_update_calendar(step)
    elapsed = 214 + 5 * step  ! 2001-11-15 is day 214 of 2001 (10 months of 20 days, then 14)
    days = [(k * elapsed, k = 1, 3)]
    call xios_send_field("days", days)
  end do
  call xios_context_finalize()
  call xios_finalize()
  if (rank == 0) print '(a)', "xios_calendar_model: OK"

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a)', "xios_calendar_model: FAILED: " // what
      error stop 1
    end if
  end subroutine check
end program xios_calendar_model
