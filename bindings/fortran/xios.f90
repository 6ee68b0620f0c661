! The Fortran module `xios`: the subset of the XIOS Fortran API that models
! call (docs/xios-compatibility.md), on top of the module `foehn`, so that a
! model written for XIOS compiles and runs against foehn unchanged.
!
! - xios_initialize reads ./iodef.xml (or the file named by the environment
!   variable FOEHN_IODEF) and calls MPI_Init when the model has not.
! - Domain, axis and scalar attributes are collected and handed to foehn at
!   xios_close_context_definition, so they may come in any order and over
!   several calls, as in XIOS. Field and file attributes go to foehn at once.
! - XIOS calls have no status argument: a failure prints
!   "xios: <call>: <message>" and stops the program (error stop), as does
!   any attribute or call foehn does not support.
module xios
  use, intrinsic :: iso_fortran_env, only: real32, real64, error_unit
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_double, c_f_pointer, c_loc
  use mpi
  use foehn
  implicit none
  private

  ! A date of the model's calendar.
  type, public :: xios_date
    integer :: year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0
  end type xios_date

  ! A duration in calendar units; years and months must be whole, timestep
  ! counts model time steps.
  type, public :: xios_duration
    real(real64) :: year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, timestep = 0
  end type xios_duration

  type(xios_duration), parameter, public :: xios_year = xios_duration(year=1), xios_month = xios_duration(month=1), &
    xios_day = xios_duration(day=1), xios_hour = xios_duration(hour=1), xios_minute = xios_duration(minute=1), &
    xios_second = xios_duration(second=1), xios_timestep = xios_duration(timestep=1)

  ! A handle to a context (xios_get_handle, xios_set_current_context).
  type, public :: xios_context
    integer :: index = 0
  end type xios_context

  ! Handles of every kind and group, xios_get_handle, xios_add_child, xios_set/get/is_defined_attr,
  ! generated from the list of kinds in cmake/gen_attributes.py.
  include "xios_handle_types.inc"
  include "xios_handle_public.inc"

  public :: xios_initialize, xios_finalize, xios_context_initialize, xios_context_finalize, xios_get_context_handle, &
            xios_set_current_context, xios_get_current_context, xios_context_is_initialized, xios_init_server, &
            xios_field_get_domain, xios_field_get_axis, xios_field_get_scalar, &
            xios_close_context_definition, xios_define_calendar, xios_set_start_date, &
            xios_set_time_origin, xios_set_timestep, xios_update_calendar, xios_get_current_date, &
            xios_get_start_date, xios_field_is_active, xios_send_field, xios_getvar, xios_setvar, &
            xios_solve_inheritance, xios_date_to_string, xios_duration_to_string, xios_get_calendar_type, &
            xios_get_timestep, xios_get_time_origin, xios_get_year_length_in_seconds, xios_get_day_length_in_seconds, &
            xios_date_convert_to_seconds, xios_date_get_second_of_year, xios_date_get_day_of_year, &
            xios_date_get_fraction_of_year, xios_date_get_second_of_day, xios_date_get_fraction_of_day, &
            xios_date_convert_to_string, xios_date_convert_from_string, xios_duration_convert_to_string, &
            xios_duration_convert_from_string
  ! foehn's extension, not in XIOS: exact restarts (docs/restart.md).
  public :: xios_checkpoint
  public :: xios_timer_resume, xios_timer_suspend, xios_timer_reset, xios_timer_get_time, xios_oasis_enddef

  ! XIOS's named timers (xios_timers.inc): totals of wall-clock intervals.
  type :: named_timer
    character(:), allocatable :: name
    real(real64) :: cumulated = 0, since = 0
    logical :: running = .false.
  end type named_timer
  type(named_timer), allocatable, save :: timers(:)
  ! xios_set/get/is_defined_<kind>_attr, generated from src/config/xios_attributes.tsv.
  include "xios_attr_public.inc"
  public :: operator(+), operator(-), operator(*), operator(==), operator(/=), operator(<), operator(<=), &
            operator(>), operator(>=)

  interface xios_set_current_context
    module procedure set_current_context_handle, set_current_context_id
  end interface xios_set_current_context

  interface xios_field_is_active
    module procedure xios_field_is_active_id, xios_field_is_active_hdl
  end interface xios_field_is_active
  public :: xios_field_is_active_id, xios_field_is_active_hdl

  interface xios_field_get_domain
    module procedure field_get_domain_id, field_get_domain_hdl
  end interface xios_field_get_domain
  interface xios_field_get_axis
    module procedure field_get_axis_id, field_get_axis_hdl
  end interface xios_field_get_axis
  interface xios_field_get_scalar
    module procedure field_get_scalar_id, field_get_scalar_hdl
  end interface xios_field_get_scalar

  interface xios_get_current_context
    module procedure get_current_context_handle, get_current_context_id
  end interface xios_get_current_context

  interface xios_send_field
    module procedure send_r4_0, send_r4_1, send_r4_2, send_r4_3, send_r4_4, send_r4_5, send_r4_6, send_r4_7
    module procedure send_r8_0, send_r8_1, send_r8_2, send_r8_3, send_r8_4, send_r8_5, send_r8_6, send_r8_7
  end interface xios_send_field

  ! xios_getvar(name, value): .true. and the value when the variable exists.
  interface xios_getvar
    module procedure getvar_r8, getvar_r4, getvar_int, getvar_logical, getvar_char
  end interface xios_getvar

  ! xios_setvar(name, value): .true. when the variable exists (its value is then set).
  interface xios_setvar
    module procedure setvar_r8, setvar_r4, setvar_int, setvar_logical, setvar_char
  end interface xios_setvar

  interface operator(+)
    module procedure duration_add, date_add_duration
  end interface
  interface operator(-)
    module procedure duration_sub, duration_neg, date_sub_duration, date_sub
  end interface
  interface operator(*)
    module procedure duration_times_real, real_times_duration, duration_times_int, int_times_duration
    module procedure duration_times_real4, real4_times_duration
  end interface
  interface operator(==)
    module procedure duration_eq, date_eq
  end interface
  interface operator(/=)
    module procedure duration_ne, date_ne
  end interface
  interface operator(<)
    module procedure date_lt
  end interface
  interface operator(<=)
    module procedure date_le
  end interface
  interface operator(>)
    module procedure date_gt
  end interface
  interface operator(>=)
    module procedure date_ge
  end interface

  integer, parameter :: unset = -huge(1)

  ! What the model said about a domain, handed to foehn at close of definition.
  type :: domain_state
    character(:), allocatable :: id, type
    integer :: ni_glo = unset, nj_glo = unset, ibegin = unset, ni = unset, jbegin = unset, nj = unset
    integer :: data_dim = unset, data_ibegin = unset, data_ni = unset, data_jbegin = unset, data_nj = unset
    integer :: nvertex = unset
    integer, allocatable :: i_index(:), j_index(:), data_i_index(:), data_j_index(:)
    real(real64), allocatable :: lon(:), lat(:), bounds_lon(:,:), bounds_lat(:,:)
    logical, allocatable :: mask(:)
  end type domain_state

  type :: axis_state
    character(:), allocatable :: id, unit, positive
    integer :: n_glo = unset, begin = unset, n = unset, data_begin = unset, data_n = unset
    integer, allocatable :: index(:), data_index(:)
    real(real64), allocatable :: value(:), bounds(:,:)
  end type axis_state

  type :: scalar_state
    character(:), allocatable :: id, unit
    real(real64), allocatable :: value  ! allocated once the model gives it
  end type scalar_state

  type :: context_state
    character(:), allocatable :: id
    type(foehn_context) :: ctx
    logical :: open = .false., defined = .false.
    integer :: step = 0
    type(domain_state), allocatable :: domains(:)
    type(axis_state), allocatable :: axes(:)
    type(scalar_state), allocatable :: scalars(:)
  end type context_state

  type(context_state), allocatable, save :: contexts(:)
  integer, save :: current = 0
  logical, save :: mpi_started_here = .false.

contains

  ! ---------------------------------------------------------- set-up and end

  ! Collective over MPI_COMM_WORLD with the servers. return_comm receives the
  ! model's communicator; with local_comm the model already has one (it is
  ! not changed) and foehn still joins the servers over MPI_COMM_WORLD.
  subroutine xios_initialize(client_id, local_comm, return_comm)
    character(*), intent(in) :: client_id
    integer, intent(in), optional :: local_comm
    integer, intent(out), optional :: return_comm
    character(len=4096) :: config
    integer :: ierr, comm, length, status
    logical :: started
    call MPI_Initialized(started, ierr)
    if (.not. started) then
      call MPI_Init(ierr)
      mpi_started_here = .true.
    end if
    call get_environment_variable("FOEHN_IODEF", config, length, status)
    if (status /= 0 .or. length == 0) config = "iodef.xml"
    call foehn_init(client_id, trim(config), MPI_COMM_WORLD, comm, status)
    call check(status, "xios_initialize")
    if (present(return_comm)) then
      return_comm = comm
    else
      call MPI_Comm_free(comm, ierr)
    end if
    ! local_comm, when given, stays the model's communicator: nothing to do
    ! with it, since foehn_init has already told the model ranks from the servers.
    if (present(local_comm)) continue
    allocate(contexts(0))
  end subroutine xios_initialize

  ! Every context must be finalized; calls MPI_Finalize if xios_initialize called MPI_Init.
  subroutine xios_finalize()
    integer :: status, ierr
    call foehn_finalize(status)
    call check(status, "xios_finalize")
    if (allocated(contexts)) deallocate(contexts)
    current = 0
    if (mpi_started_here) call MPI_Finalize(ierr)
  end subroutine xios_finalize

  ! Opens the context of the XML (collective over comm) and makes it current.
  subroutine xios_context_initialize(context_id, comm)
    character(*), intent(in) :: context_id
    integer, intent(in) :: comm
    type(context_state) :: c
    integer :: status
    if (.not. allocated(contexts)) call fail("xios_context_initialize", "xios_initialize has not been called")
    c%id = context_id
    allocate(c%domains(0), c%axes(0), c%scalars(0))
    call foehn_context_open(context_id, comm, c%ctx, status)
    call check(status, "xios_context_initialize")
    c%open = .true.
    contexts = [contexts, c]
    current = size(contexts)
  end subroutine xios_context_initialize

  ! Closes the current context (collective): flushes and closes its files.
  subroutine xios_context_finalize()
    integer :: status
    call current_state("xios_context_finalize")
    call foehn_context_close(contexts(current)%ctx, status)
    contexts(current)%open = .false.
    call check(status, "xios_context_finalize")
  end subroutine xios_context_finalize

  subroutine xios_get_context_handle(context_id, handle)
    character(*), intent(in) :: context_id
    type(xios_context), intent(out) :: handle
    handle%index = find_context(context_id, "xios_get_handle")
  end subroutine xios_get_context_handle

  subroutine set_current_context_handle(handle)
    type(xios_context), intent(in) :: handle
    if (handle%index < 1 .or. handle%index > size(contexts)) &
      call fail("xios_set_current_context", "not a handle from xios_get_handle")
    current = handle%index
  end subroutine set_current_context_handle

  subroutine set_current_context_id(context_id)
    character(*), intent(in) :: context_id
    current = find_context(context_id, "xios_set_current_context")
  end subroutine set_current_context_id

  ! Hands the collected domains, axes and scalars to foehn, then closes the definition
  ! (collective): decompositions, schedules and files are set up.
  subroutine xios_close_context_definition()
    integer :: k, status
    call current_state("xios_close_context_definition")
    associate (c => contexts(current))
      do k = 1, size(c%domains)
        call apply_domain(c%ctx, c%domains(k))
      end do
      do k = 1, size(c%axes)
        call apply_axis(c%ctx, c%axes(k))
      end do
      do k = 1, size(c%scalars)
        call apply_scalar(c%ctx, c%scalars(k))
      end do
      call foehn_close_definition(c%ctx, status)
      call check(status, "xios_close_context_definition")
      c%defined = .true.
    end associate
  end subroutine xios_close_context_definition

  ! ----------------------------------------------------------------- calendar

  ! type: Gregorian, Julian, NoLeap, AllLeap, D360, ProlepticGregorian, None
  ! (or the CF names); user-defined calendars are not supported.
  ! XIOS's arguments; a user_defined calendar takes day_length ... leap_year_drift_offset,
  ! passed to foehn as the calendar's attributes (month_lengths last: the set is then checked whole).
  subroutine xios_define_calendar(type, timestep, start_date, time_origin, day_length, month_lengths, year_length, &
                                  leap_year_month, leap_year_drift, leap_year_drift_offset)
    character(*), intent(in) :: type
    type(xios_duration), intent(in), optional :: timestep
    type(xios_date), intent(in), optional :: start_date, time_origin
    integer, intent(in), optional :: day_length, month_lengths(:), year_length, leap_year_month
    real(real64), intent(in), optional :: leap_year_drift, leap_year_drift_offset
    character(len=32) :: number
    character(:), allocatable :: lengths
    integer :: status, k
    type(foehn_context) :: ctx
    ctx = current_ctx("xios_define_calendar")
    call foehn_set_calendar(ctx, type=type, status=status)
    call check(status, "xios_define_calendar")
    if (present(day_length)) call set_calendar_number("day_length", day_length)
    if (present(year_length)) call set_calendar_number("year_length", year_length)
    if (present(leap_year_month)) call set_calendar_number("leap_year_month", leap_year_month)
    if (present(leap_year_drift)) call set_calendar_real("leap_year_drift", leap_year_drift)
    if (present(leap_year_drift_offset)) call set_calendar_real("leap_year_drift_offset", leap_year_drift_offset)
    if (present(month_lengths)) then
      lengths = ""
      do k = 1, size(month_lengths)
        write(number, '(i0)') month_lengths(k)
        lengths = lengths // " " // trim(number)
      end do
      call foehn_set_attribute(ctx, "calendar", "", "month_lengths", lengths, status)
      call check(status, "xios_define_calendar")
    end if
    if (present(timestep)) call xios_set_timestep(timestep)
    if (present(start_date)) call xios_set_start_date(start_date)
    if (present(time_origin)) call xios_set_time_origin(time_origin)
  contains
    subroutine set_calendar_number(name, value)
      character(*), intent(in) :: name
      integer, intent(in) :: value
      write(number, '(i0)') value
      call foehn_set_attribute(ctx, "calendar", "", name, trim(number), status)
      call check(status, "xios_define_calendar")
    end subroutine set_calendar_number
    subroutine set_calendar_real(name, value)
      character(*), intent(in) :: name
      real(real64), intent(in) :: value
      write(number, '(f12.6)') value  ! foehn reads the drift to the millionth of a day
      call foehn_set_attribute(ctx, "calendar", "", name, trim(adjustl(number)), status)
      call check(status, "xios_define_calendar")
    end subroutine set_calendar_real
  end subroutine xios_define_calendar

  subroutine xios_set_start_date(start_date)
    type(xios_date), intent(in) :: start_date
    integer :: status
    call foehn_set_calendar(current_ctx("xios_set_start_date"), start_date=xios_date_to_string(start_date), status=status)
    call check(status, "xios_set_start_date")
  end subroutine xios_set_start_date

  subroutine xios_set_time_origin(time_origin)
    type(xios_date), intent(in) :: time_origin
    integer :: status
    call foehn_set_calendar(current_ctx("xios_set_time_origin"), time_origin=xios_date_to_string(time_origin), &
                            status=status)
    call check(status, "xios_set_time_origin")
  end subroutine xios_set_time_origin

  subroutine xios_set_timestep(timestep)
    type(xios_duration), intent(in) :: timestep
    integer :: status
    call foehn_set_calendar(current_ctx("xios_set_timestep"), timestep=xios_duration_to_string(timestep), &
                            status=status)
    call check(status, "xios_set_timestep")
  end subroutine xios_set_timestep

  ! The model time is start_date + step * timestep; steps increase.
  subroutine xios_update_calendar(step)
    integer, intent(in) :: step
    integer :: status
    call foehn_update_calendar(current_ctx("xios_update_calendar"), step, status)
    call check(status, "xios_update_calendar")
    contexts(current)%step = step
  end subroutine xios_update_calendar

  ! foehn's extension (XIOS has no such call): the current context's state
  ! after this step into its restart_dir, for an exact restart.
  subroutine xios_checkpoint()
    integer :: status
    call foehn_checkpoint(current_ctx("xios_checkpoint"), status)
    call check(status, "xios_checkpoint")
  end subroutine xios_checkpoint

  subroutine xios_get_start_date(date)
    type(xios_date), intent(out) :: date
    date = calendar_date("start_date", "xios_get_start_date")
  end subroutine xios_get_start_date

  ! start_date + the last step given to xios_update_calendar * timestep.
  subroutine xios_get_current_date(date)
    type(xios_date), intent(out) :: date
    date = calendar_date("start_date", "xios_get_current_date")
    date = date + xios_duration(timestep=contexts(current)%step)
  end subroutine xios_get_current_date

  ! --------------------------------------------------------------- per step

  ! XIOS's generic xios_field_is_active(field_id or field_hdl,
  ! at_current_timestep_arg): .true.: the field is needed at this step;
  ! otherwise (the default): some enabled output uses it at all.
  logical function xios_field_is_active_id(field_id, at_current_timestep_arg) result(active)
    character(*), intent(in) :: field_id
    logical, intent(in), optional :: at_current_timestep_arg
    integer :: status
    logical :: now
    now = .false.
    if (present(at_current_timestep_arg)) now = at_current_timestep_arg
    if (now) then
      active = foehn_field_is_active(current_ctx("xios_field_is_active"), field_id, status)
    else
      active = foehn_field_is_used(current_ctx("xios_field_is_active"), field_id, status)
    end if
    call check(status, "xios_field_is_active")
  end function xios_field_is_active_id

  logical function xios_field_is_active_hdl(field_hdl, at_current_timestep_arg) result(active)
    type(xios_field), intent(in) :: field_hdl
    logical, intent(in), optional :: at_current_timestep_arg
    active = xios_field_is_active_id(field_hdl%id, at_current_timestep_arg)
  end function xios_field_is_active_hdl

  include "xios_send.inc"

  ! ---------------------------------------------------------------- getvar

  logical function getvar_char(name, value) result(found)
    character(*), intent(in) :: name
    character(*), intent(out) :: value
    character(:), allocatable :: text
    found = variable_text(name, text)
    value = text
  end function getvar_char

  logical function getvar_r8(name, value) result(found)
    character(*), intent(in) :: name
    real(real64), intent(out) :: value
    character(:), allocatable :: text
    found = variable_text(name, text)
    if (.not. found) return
    if (.not. read_real(text, value)) call fail("xios_getvar", "variable '" // name // "' = '" // text // "' is not a real")
  end function getvar_r8

  logical function getvar_r4(name, value) result(found)
    character(*), intent(in) :: name
    real(real32), intent(out) :: value
    real(real64) :: v
    found = getvar_r8(name, v)
    if (found) value = real(v, real32)
  end function getvar_r4

  logical function getvar_int(name, value) result(found)
    character(*), intent(in) :: name
    integer, intent(out) :: value
    character(:), allocatable :: text
    found = variable_text(name, text)
    if (.not. found) return
    if (.not. read_int(text, value)) &
      call fail("xios_getvar", "variable '" // name // "' = '" // text // "' is not an integer")
  end function getvar_int

  logical function getvar_logical(name, value) result(found)
    character(*), intent(in) :: name
    logical, intent(out) :: value
    character(:), allocatable :: text
    found = variable_text(name, text)
    if (.not. found) return
    if (.not. read_logical(text, value)) &
      call fail("xios_getvar", "variable '" // name // "' = '" // text // "' is not a logical")
  end function getvar_logical

  ! Text read as a value (of a variable or an attribute); .false. when it
  ! is not one.
  logical function read_int(text, value) result(ok)
    character(*), intent(in) :: text
    integer, intent(out) :: value
    integer :: ios
    read(text, *, iostat=ios) value
    ok = ios == 0 .and. verify(trim(adjustl(text)), "+-0123456789") == 0
  end function read_int

  logical function read_real(text, value) result(ok)
    character(*), intent(in) :: text
    real(real64), intent(out) :: value
    integer :: ios
    read(text, *, iostat=ios) value
    ok = ios == 0
  end function read_real

  logical function read_logical(text, value) result(ok)
    character(*), intent(in) :: text
    logical, intent(out) :: value
    ok = .true.
    select case (lower(trim(adjustl(text))))
    case ("true", ".true.", "1")
      value = .true.
    case ("false", ".false.", "0")
      value = .false.
    case default
      ok = .false.
    end select
  end function read_logical

  logical function variable_text(name, text) result(found)
    character(*), intent(in) :: name
    character(:), allocatable, intent(out) :: text
    integer :: status
    call foehn_get_variable(current_ctx("xios_getvar"), name, text, found, status)
    call check(status, "xios_getvar")
  end function variable_text

  include "xios_attributes.inc"
  include "xios_get.inc"
  include "xios_attr_set.inc"
  include "xios_attr_get.inc"
  include "xios_attr_defined.inc"
  include "xios_dates.inc"
  include "xios_handles.inc"
  include "xios_tree.inc"
  include "xios_calendar.inc"
  include "xios_timers.inc"

  ! ---------------------------------------------------------------- helpers

  integer function find_context(context_id, call) result(k)
    character(*), intent(in) :: context_id, call
    if (allocated(contexts)) then
      do k = size(contexts), 1, -1
        if (contexts(k)%id == context_id .and. contexts(k)%open) return
      end do
    end if
    call fail(call, "no open context '" // context_id // "' (call xios_context_initialize first)")
  end function find_context

  subroutine current_state(call)
    character(*), intent(in) :: call
    if (.not. allocated(contexts) .or. current < 1) call fail(call, "no current context")
    if (.not. contexts(current)%open) call fail(call, "context '" // contexts(current)%id // "' is finalized")
  end subroutine current_state

  function current_ctx(call) result(ctx)
    character(*), intent(in) :: call
    type(foehn_context) :: ctx
    call current_state(call)
    ctx = contexts(current)%ctx
  end function current_ctx

  ! A failed foehn call: the XIOS call's name and foehn's message, then stop.
  subroutine check(status, call)
    integer, intent(in) :: status
    character(*), intent(in) :: call
    if (status /= FOEHN_OK) call fail(call, foehn_last_error())
  end subroutine check

  subroutine fail(call, message)
    character(*), intent(in) :: call, message
    write(error_unit, '(a)') "xios: " // call // ": " // message
    error stop 1
  end subroutine fail

  pure function lower(s) result(t)
    character(*), intent(in) :: s
    character(len(s)) :: t
    integer :: i
    t = s
    do i = 1, len(s)
      if (s(i:i) >= "A" .and. s(i:i) <= "Z") t(i:i) = achar(iachar(s(i:i)) + 32)
    end do
  end function lower

end module xios
