! The Fortran module `foehn`: the C API (include/foehn/foehn.h) for Fortran
! models, over iso_c_binding. Differences from C, all for Fortran's sake:
! - communicators are default integers (mpi module handles; with mpi_f08
!   pass comm%mpi_val), converted by foehn_init_f / foehn_context_open_f;
! - array sizes come from the arrays (set_axis, set_domain_rectilinear);
! - one generic foehn_write for real32/real64 arrays of rank 1 to 5, by
!   field id or by handle;
! - every routine takes an optional `status`; without it a failure stops
!   the program with foehn's message (error stop).
module foehn
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int64_t, c_size_t, c_float, c_double, c_ptr, &
                                         c_null_ptr, c_null_char, c_loc, c_f_pointer, c_associated
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  integer, parameter, public :: FOEHN_OK = 0, FOEHN_ERR_ARGUMENT = 1, FOEHN_ERR_CONFIG = 2, &
                                FOEHN_ERR_STATE = 3, FOEHN_ERR_MPI = 4, FOEHN_ERR_IO = 5, FOEHN_ERR_INTERNAL = 6

  ! An open context (the C foehn_context); null until foehn_context_open.
  type, public :: foehn_context
    type(c_ptr) :: ptr = c_null_ptr
  end type foehn_context

  public :: foehn_init, foehn_finalize, foehn_last_error, foehn_version, foehn_context_open, foehn_set_calendar, &
            foehn_set_domain_rectilinear, foehn_set_axis, foehn_close_definition, foehn_update_calendar, &
            foehn_set_model_time, foehn_checkpoint, &
            foehn_field_is_active, foehn_field_handle, foehn_write, foehn_read, foehn_context_close
  ! Domains of every kind (foehn_domain.inc, docs/grids.md)
  public :: foehn_set_domain_type, foehn_set_domain_block, foehn_set_domain_index, foehn_set_domain_data, &
            foehn_set_domain_data_index, foehn_set_domain_coordinates, foehn_set_domain_mask, foehn_set_domain_healpix, &
            foehn_set_mask
  ! Attributes, variables and dates at run time (foehn_runtime.inc)
  public :: foehn_get_attribute, foehn_set_attribute, foehn_get_variable, foehn_date_add, foehn_field_is_used
  public :: foehn_has_element, foehn_add_child, foehn_calendar_query, foehn_serve, foehn_field_component
  public :: foehn_context_date_add
  ! Axis parts and scalars (foehn_axis.inc)
  public :: foehn_set_axis_decomposition, foehn_set_axis_index, foehn_set_axis_bounds, foehn_set_scalar

  ! foehn_write(ctx, field_id or handle, array, [status])
  interface foehn_write
    module procedure write_r4_1, write_r4_2, write_r4_3, write_r4_4, write_r4_5
    module procedure write_r8_1, write_r8_2, write_r8_3, write_r8_4, write_r8_5
    module procedure write_r4_1_h, write_r4_2_h, write_r4_3_h, write_r4_4_h, write_r4_5_h
    module procedure write_r8_1_h, write_r8_2_h, write_r8_3_h, write_r8_4_h, write_r8_5_h
  end interface foehn_write

  ! foehn_field_is_active(ctx, field_id or handle, [status])
  interface foehn_field_is_active
    module procedure field_is_active_id, field_is_active_h
  end interface foehn_field_is_active

  ! foehn_read(ctx, field_id, array, [status]): fields of files with mode="read"
  interface foehn_read
    module procedure read_r4_1, read_r4_2, read_r4_3, read_r4_4, read_r4_5
    module procedure read_r8_1, read_r8_2, read_r8_3, read_r8_4, read_r8_5
  end interface foehn_read

  interface  ! the C API; strings are NUL-terminated, optional ones may be c_null_ptr
    integer(c_int) function c_init(code_id, config_path, world, model_comm) bind(C, name="foehn_init_f")
      import :: c_int, c_char
      implicit none
      character(kind=c_char), intent(in) :: code_id(*), config_path(*)
      integer(c_int), value :: world
      integer(c_int), intent(out) :: model_comm
    end function c_init
    integer(c_int) function c_finalize() bind(C, name="foehn_finalize")
      import :: c_int
      implicit none
    end function c_finalize
    type(c_ptr) function c_last_error() bind(C, name="foehn_last_error")
      import :: c_ptr
      implicit none
    end function c_last_error
    type(c_ptr) function c_version() bind(C, name="foehn_version")
      import :: c_ptr
      implicit none
    end function c_version
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      implicit none
      type(c_ptr), value :: s
    end function c_strlen
    integer(c_int) function c_context_open(context_id, comm, ctx) bind(C, name="foehn_context_open_f")
      import :: c_int, c_char, c_ptr
      implicit none
      character(kind=c_char), intent(in) :: context_id(*)
      integer(c_int), value :: comm
      type(c_ptr), intent(out) :: ctx
    end function c_context_open
    integer(c_int) function c_set_calendar(ctx, type, start_date, time_origin, timestep) &
        bind(C, name="foehn_set_calendar")
      import :: c_int, c_ptr
      implicit none
      type(c_ptr), value :: ctx, type, start_date, time_origin, timestep
    end function c_set_calendar
    integer(c_int) function c_set_domain_rectilinear(ctx, domain_id, ni_glo, nj_glo, ibegin, ni, jbegin, nj, &
        lon, lat) bind(C, name="foehn_set_domain_rectilinear")
      import :: c_int, c_char, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: ni_glo, nj_glo, ibegin, ni, jbegin, nj
      real(c_double), intent(in) :: lon(*), lat(*)
    end function c_set_domain_rectilinear
    integer(c_int) function c_set_axis(ctx, axis_id, n, values, units, positive) bind(C, name="foehn_set_axis")
      import :: c_int, c_char, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx, units, positive
      character(kind=c_char), intent(in) :: axis_id(*)
      integer(c_int), value :: n
      real(c_double), intent(in) :: values(*)
    end function c_set_axis
    integer(c_int) function c_close_definition(ctx) bind(C, name="foehn_close_definition")
      import :: c_int, c_ptr
      implicit none
      type(c_ptr), value :: ctx
    end function c_close_definition
    integer(c_int) function c_update_calendar(ctx, step) bind(C, name="foehn_update_calendar")
      import :: c_int, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      integer(c_int), value :: step
    end function c_update_calendar
    integer(c_int) function c_checkpoint(ctx) bind(C, name="foehn_checkpoint")
      import :: c_int, c_ptr
      implicit none
      type(c_ptr), value :: ctx
    end function c_checkpoint
    integer(c_int) function c_set_model_time(ctx, seconds) bind(C, name="foehn_set_model_time")
      import :: c_int, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx
      real(c_double), value :: seconds
    end function c_set_model_time
    integer(c_int) function c_field_is_active(ctx, field_id, active) bind(C, name="foehn_field_is_active")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      integer(c_int), intent(out) :: active
    end function c_field_is_active
    integer(c_int) function c_field_is_active_h(ctx, handle, active) bind(C, name="foehn_field_is_active_h")
      import :: c_int, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      integer(c_int), value :: handle
      integer(c_int), intent(out) :: active
    end function c_field_is_active_h
    integer(c_int) function c_field_handle(ctx, field_id, handle) bind(C, name="foehn_field_handle")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      integer(c_int), intent(out) :: handle
    end function c_field_handle
    integer(c_int) function c_write_float(ctx, field_id, data, n) bind(C, name="foehn_write_float")
      import :: c_int, c_char, c_ptr, c_float, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      real(c_float), intent(in) :: data(*)
      integer(c_size_t), value :: n
    end function c_write_float
    integer(c_int) function c_write_double(ctx, field_id, data, n) bind(C, name="foehn_write_double")
      import :: c_int, c_char, c_ptr, c_double, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      real(c_double), intent(in) :: data(*)
      integer(c_size_t), value :: n
    end function c_write_double
    integer(c_int) function c_write_float_h(ctx, handle, data, n) bind(C, name="foehn_write_float_h")
      import :: c_int, c_ptr, c_float, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      integer(c_int), value :: handle
      real(c_float), intent(in) :: data(*)
      integer(c_size_t), value :: n
    end function c_write_float_h
    integer(c_int) function c_write_double_h(ctx, handle, data, n) bind(C, name="foehn_write_double_h")
      import :: c_int, c_ptr, c_double, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      integer(c_int), value :: handle
      real(c_double), intent(in) :: data(*)
      integer(c_size_t), value :: n
    end function c_write_double_h
    integer(c_int) function c_read_float(ctx, field_id, data, n) bind(C, name="foehn_read_float")
      import :: c_int, c_char, c_ptr, c_float, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      real(c_float), intent(inout) :: data(*)
      integer(c_size_t), value :: n
    end function c_read_float
    integer(c_int) function c_read_double(ctx, field_id, data, n) bind(C, name="foehn_read_double")
      import :: c_int, c_char, c_ptr, c_double, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      real(c_double), intent(inout) :: data(*)
      integer(c_size_t), value :: n
    end function c_read_double
    integer(c_int) function c_context_close(ctx) bind(C, name="foehn_context_close")
      import :: c_int, c_ptr
      implicit none
      type(c_ptr), value :: ctx
    end function c_context_close
    integer(c_int) function c_set_domain_type(ctx, domain_id, type, ni_glo, nj_glo) bind(C, name="foehn_set_domain_type")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx, type
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: ni_glo, nj_glo
    end function c_set_domain_type
    integer(c_int) function c_set_domain_block(ctx, domain_id, ibegin, ni, jbegin, nj) bind(C, name="foehn_set_domain_block")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: ibegin, ni, jbegin, nj
    end function c_set_domain_block
    integer(c_int) function c_set_domain_index(ctx, domain_id, n, i_index, j_index) bind(C, name="foehn_set_domain_index")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx, j_index
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: n
      integer(c_int), intent(in) :: i_index(*)
    end function c_set_domain_index
    integer(c_int) function c_set_domain_data(ctx, domain_id, data_dim, data_ibegin, data_ni, data_jbegin, data_nj) &
        bind(C, name="foehn_set_domain_data")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: data_dim, data_ibegin, data_ni, data_jbegin, data_nj
    end function c_set_domain_data
    integer(c_int) function c_set_domain_data_index(ctx, domain_id, n, data_i_index, data_j_index) &
        bind(C, name="foehn_set_domain_data_index")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx, data_j_index
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: n
      integer(c_int), intent(in) :: data_i_index(*)
    end function c_set_domain_data_index
    integer(c_int) function c_set_domain_coordinates(ctx, domain_id, n_lon, lon, n_lat, lat, nvertex, bounds_lon, &
        bounds_lat) bind(C, name="foehn_set_domain_coordinates")
      import :: c_int, c_char, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx, bounds_lon, bounds_lat
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: n_lon, n_lat, nvertex
      real(c_double), intent(in) :: lon(*), lat(*)
    end function c_set_domain_coordinates
    integer(c_int) function c_set_domain_healpix(ctx, domain_id, refinement_level, indexing_scheme, n, cells) &
        bind(C, name="foehn_set_domain_healpix")
      import :: c_int, c_char, c_ptr, c_int64_t
      implicit none
      type(c_ptr), value :: ctx, indexing_scheme
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: refinement_level, n
      integer(c_int64_t), intent(in) :: cells(*)
    end function c_set_domain_healpix
    integer(c_int) function c_get_attribute(ctx, kind, id, name, value) bind(C, name="foehn_get_attribute")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: kind(*), id(*), name(*)
      type(c_ptr), intent(out) :: value
    end function c_get_attribute
    integer(c_int) function c_set_attribute(ctx, kind, id, name, value) bind(C, name="foehn_set_attribute")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: kind(*), id(*), name(*), value(*)
    end function c_set_attribute
    integer(c_int) function c_has_element(ctx, kind, id, exists) bind(C, name="foehn_has_element")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: kind(*), id(*)
      integer(c_int), intent(out) :: exists
    end function c_has_element
    integer(c_int) function c_add_child(ctx, parent_kind, parent_id, child_kind, child_id, id_out, size) &
        bind(C, name="foehn_add_child")
      import :: c_int, c_char, c_ptr, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: parent_kind(*), parent_id(*), child_kind(*), child_id(*)
      character(kind=c_char), intent(out) :: id_out(*)
      integer(c_size_t), value :: size
    end function c_add_child
    integer(c_int) function c_field_component(ctx, field_id, kind, index, id_out, size) &
        bind(C, name="foehn_field_component")
      import :: c_int, c_char, c_ptr, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*), kind(*)
      integer(c_int), value :: index
      character(kind=c_char), intent(out) :: id_out(*)
      integer(c_size_t), value :: size
    end function c_field_component
    integer(c_int) function c_serve(world) bind(C, name="foehn_serve_f")
      import :: c_int
      implicit none
      integer(c_int), value :: world
    end function c_serve
    integer(c_int) function c_calendar_query(ctx, what, date, value) bind(C, name="foehn_calendar_query")
      import :: c_int, c_char, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: what(*), date(*)
      real(c_double), intent(out) :: value
    end function c_calendar_query
    integer(c_int) function c_get_variable(ctx, id, value) bind(C, name="foehn_get_variable")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: id(*)
      type(c_ptr), intent(out) :: value
    end function c_get_variable
    integer(c_int) function c_field_is_used(ctx, field_id, used) bind(C, name="foehn_field_is_used")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: field_id(*)
      integer(c_int), intent(out) :: used
    end function c_field_is_used
    integer(c_int) function c_context_date_add(ctx, date, duration, result, size) bind(C, name="foehn_context_date_add")
      import :: c_int, c_char, c_ptr, c_size_t
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: date(*), duration(*)
      character(kind=c_char), intent(out) :: result(*)
      integer(c_size_t), value :: size
    end function c_context_date_add
    integer(c_int) function c_date_add(calendar_type, date, duration, timestep, result, size) &
        bind(C, name="foehn_date_add")
      import :: c_int, c_char, c_ptr, c_size_t
      implicit none
      character(kind=c_char), intent(in) :: calendar_type(*), date(*), duration(*)
      type(c_ptr), value :: timestep
      character(kind=c_char), intent(out) :: result(*)
      integer(c_size_t), value :: size
    end function c_date_add
    integer(c_int) function c_set_domain_mask(ctx, domain_id, n, mask) bind(C, name="foehn_set_domain_mask")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: domain_id(*)
      integer(c_int), value :: n
      integer(c_int), intent(in) :: mask(*)
    end function c_set_domain_mask
    integer(c_int) function c_set_mask(ctx, kind, id, n, mask) bind(C, name="foehn_set_mask")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: kind(*), id(*)
      integer(c_int), value :: n
      integer(c_int), intent(in) :: mask(*)
    end function c_set_mask
    integer(c_int) function c_set_axis_decomposition(ctx, axis_id, n_glo, begin, n) &
        bind(C, name="foehn_set_axis_decomposition")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: axis_id(*)
      integer(c_int), value :: n_glo, begin, n
    end function c_set_axis_decomposition
    integer(c_int) function c_set_axis_index(ctx, axis_id, n_glo, n, index) bind(C, name="foehn_set_axis_index")
      import :: c_int, c_char, c_ptr
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: axis_id(*)
      integer(c_int), value :: n_glo, n
      integer(c_int), intent(in) :: index(*)
    end function c_set_axis_index
    integer(c_int) function c_set_axis_bounds(ctx, axis_id, n, bounds) bind(C, name="foehn_set_axis_bounds")
      import :: c_int, c_char, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: axis_id(*)
      integer(c_int), value :: n
      real(c_double), intent(in) :: bounds(*)
    end function c_set_axis_bounds
    integer(c_int) function c_set_scalar(ctx, scalar_id, value, units) bind(C, name="foehn_set_scalar")
      import :: c_int, c_char, c_ptr, c_double
      implicit none
      type(c_ptr), value :: ctx, units
      character(kind=c_char), intent(in) :: scalar_id(*)
      real(c_double), value :: value
    end function c_set_scalar
    ! Not in foehn.h: makes `message` the last error (foehn_last_error) and
    ! returns FOEHN_ERR_ARGUMENT, for sizes this module checks before C.
    integer(c_int) function c_binding_argument_error(message) bind(C, name="foehn_binding_argument_error")
      import :: c_int, c_char
      implicit none
      character(kind=c_char), intent(in) :: message(*)
    end function c_binding_argument_error
  end interface

contains

  ! Collective over `world`: joins the model ranks and the foehn-server ranks,
  ! reads the XML and returns the model's own communicator in model_comm.
  subroutine foehn_init(code_id, config_path, world, model_comm, status)
    character(*), intent(in) :: code_id, config_path
    integer, intent(in) :: world
    integer, intent(out) :: model_comm
    integer, intent(out), optional :: status
    integer(c_int) :: comm
    call finish(c_init(c_string(code_id), c_string(config_path), int(world, c_int), comm), "foehn_init", status)
    model_comm = int(comm)
  end subroutine foehn_init

  ! Every context must be closed; prints the performance report.
  subroutine foehn_finalize(status)
    integer, intent(out), optional :: status
    call finish(c_finalize(), "foehn_finalize", status)
  end subroutine foehn_finalize

  ! The message of the last error on this rank ("" if none).
  function foehn_last_error() result(message)
    character(:), allocatable :: message
    message = c_text(c_last_error())
  end function foehn_last_error

  ! foehn's version, e.g. "0.1.0".
  function foehn_version() result(version)
    character(:), allocatable :: version
    version = c_text(c_version())
  end function foehn_version

  ! A Fortran copy of a NUL-terminated C string ("" for a null pointer).
  function c_text(p) result(message)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: message
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = 0
    if (c_associated(p)) n = int(c_strlen(p))
    allocate(character(n) :: message)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      message(i:i) = chars(i)
    end do
  end function c_text

  ! Collective over comm (the model communicator from foehn_init).
  subroutine foehn_context_open(context_id, comm, ctx, status)
    character(*), intent(in) :: context_id
    integer, intent(in) :: comm
    type(foehn_context), intent(out) :: ctx
    integer, intent(out), optional :: status
    call finish(c_context_open(c_string(context_id), int(comm, c_int), ctx%ptr), "foehn_context_open", status)
  end subroutine foehn_context_open

  ! Overrides the XML calendar; an absent argument keeps the XML's value.
  subroutine foehn_set_calendar(ctx, type, start_date, time_origin, timestep, status)
    type(foehn_context), intent(in) :: ctx
    character(*), intent(in), optional :: type, start_date, time_origin, timestep
    integer, intent(out), optional :: status
    character(kind=c_char, len=:), allocatable, target :: t, s, o, d
    call finish(c_set_calendar(ctx%ptr, optional_string(type, t), optional_string(start_date, s), &
                               optional_string(time_origin, o), optional_string(timestep, d)), &
                "foehn_set_calendar", status)
  end subroutine foehn_set_calendar

  ! This rank holds i in [ibegin, ibegin+size(lon)) and j in [jbegin,
  ! jbegin+size(lat)), 0-based as in C and XIOS.
  subroutine foehn_set_domain_rectilinear(ctx, domain_id, ni_glo, nj_glo, ibegin, jbegin, lon, lat, status)
    type(foehn_context), intent(in) :: ctx
    character(*), intent(in) :: domain_id
    integer, intent(in) :: ni_glo, nj_glo, ibegin, jbegin
    real(c_double), intent(in), contiguous :: lon(:), lat(:)
    integer, intent(out), optional :: status
    call finish(c_set_domain_rectilinear(ctx%ptr, c_string(domain_id), int(ni_glo, c_int), int(nj_glo, c_int), &
                                         int(ibegin, c_int), int(size(lon), c_int), int(jbegin, c_int), &
                                         int(size(lat), c_int), lon, lat), "foehn_set_domain_rectilinear", status)
  end subroutine foehn_set_domain_rectilinear

  ! A whole axis (e.g. model levels); absent units/positive keep the XML's.
  subroutine foehn_set_axis(ctx, axis_id, values, units, positive, status)
    type(foehn_context), intent(in) :: ctx
    character(*), intent(in) :: axis_id
    real(c_double), intent(in), contiguous :: values(:)
    character(*), intent(in), optional :: units, positive
    integer, intent(out), optional :: status
    character(kind=c_char, len=:), allocatable, target :: u, p
    call finish(c_set_axis(ctx%ptr, c_string(axis_id), int(size(values), c_int), values, optional_string(units, u), &
                           optional_string(positive, p)), "foehn_set_axis", status)
  end subroutine foehn_set_axis

  subroutine foehn_close_definition(ctx, status)
    type(foehn_context), intent(in) :: ctx
    integer, intent(out), optional :: status
    call finish(c_close_definition(ctx%ptr), "foehn_close_definition", status)
  end subroutine foehn_close_definition

  ! Model time = start_date + step * timestep; steps increase.
  subroutine foehn_update_calendar(ctx, step, status)
    type(foehn_context), intent(in) :: ctx
    integer, intent(in) :: step
    integer, intent(out), optional :: status
    call finish(c_update_calendar(ctx%ptr, int(step, c_int)), "foehn_update_calendar", status)
  end subroutine foehn_update_calendar

  ! Dynamic time stepping (instead of foehn_update_calendar): the model time
  ! in seconds since start_date; each call is a new step, times increase.
  subroutine foehn_set_model_time(ctx, seconds, status)
    type(foehn_context), intent(in) :: ctx
    real(c_double), intent(in) :: seconds
    integer, intent(out), optional :: status
    call finish(c_set_model_time(ctx%ptr, seconds), "foehn_set_model_time", status)
  end subroutine foehn_set_model_time

  ! Collective: an exact restart's state after the current step (its fields
  ! written) into the context's restart_dir (docs/restart.md).
  subroutine foehn_checkpoint(ctx, status)
    type(foehn_context), intent(in) :: ctx
    integer, intent(out), optional :: status
    call finish(c_checkpoint(ctx%ptr), "foehn_checkpoint", status)
  end subroutine foehn_checkpoint

  ! True if the field is needed at the current step (generic
  ! foehn_field_is_active: by field id or by handle, as foehn_write).
  logical function field_is_active_id(ctx, field_id, status) result(active)
    type(foehn_context), intent(in) :: ctx
    character(*), intent(in) :: field_id
    integer, intent(out), optional :: status
    integer(c_int) :: flag
    flag = 0
    call finish(c_field_is_active(ctx%ptr, c_string(field_id), flag), "foehn_field_is_active", status)
    active = flag /= 0
  end function field_is_active_id

  logical function field_is_active_h(ctx, handle, status) result(active)
    type(foehn_context), intent(in) :: ctx
    integer, intent(in) :: handle
    integer, intent(out), optional :: status
    integer(c_int) :: flag
    flag = 0
    call finish(c_field_is_active_h(ctx%ptr, int(handle, c_int), flag), "foehn_field_is_active", status)
    active = flag /= 0
  end function field_is_active_h

  ! A handle to write a field without a string lookup.
  subroutine foehn_field_handle(ctx, field_id, handle, status)
    type(foehn_context), intent(in) :: ctx
    character(*), intent(in) :: field_id
    integer, intent(out) :: handle
    integer, intent(out), optional :: status
    integer(c_int) :: h
    h = -1
    call finish(c_field_handle(ctx%ptr, c_string(field_id), h), "foehn_field_handle", status)
    handle = int(h)
  end subroutine foehn_field_handle

  ! Collective: flushes, closes the files and frees the context.
  subroutine foehn_context_close(ctx, status)
    type(foehn_context), intent(inout) :: ctx
    integer, intent(out), optional :: status
    ! The handle is kept, as in C: a later call with it is FOEHN_ERR_STATE
    ! naming the closed context (a null handle would only say "null context").
    call finish(c_context_close(ctx%ptr), "foehn_context_close", status)
  end subroutine foehn_context_close

  ! Hands `code` back in status, or stops with the message when status is absent.
  subroutine finish(code, routine, status)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    if (present(status)) then
      status = int(code)
    else if (code /= FOEHN_OK) then
      write(error_unit, '(a)') 'foehn: ' // routine // ' failed: ' // foehn_last_error()
      error stop 1
    end if
  end subroutine finish

  ! Array sizes that do not match, caught before C: FOEHN_ERR_ARGUMENT, and
  ! foehn_last_error() names the routine, the domain (or axis) and both
  ! sizes; without status the program stops with that message.
  subroutine size_error(routine, kind, id, what, expected, given, status)
    character(*), intent(in) :: routine, kind, id, what
    integer, intent(in) :: expected, given
    integer, intent(out), optional :: status
    character(len=24) :: e, g
    write(e, '(i0)') expected
    write(g, '(i0)') given
    call finish(c_binding_argument_error(c_string(routine // ': ' // kind // ' ''' // trim(id) // ''': ' // what // &
                                                  ': expected ' // trim(e) // ' values, given ' // trim(g))), &
                routine, status)
  end subroutine size_error

  ! A Fortran string as a NUL-terminated C string (trailing blanks dropped).
  pure function c_string(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c
    c = trim(s) // c_null_char
  end function c_string

  ! c_null_ptr for an absent string, else a pointer to its C copy in buf.
  function optional_string(s, buf) result(p)
    character(*), intent(in), optional :: s
    character(kind=c_char, len=:), allocatable, target, intent(inout) :: buf
    type(c_ptr) :: p
    p = c_null_ptr
    if (.not. present(s)) return
    buf = c_string(s)
    p = c_loc(buf)
  end function optional_string

  include "foehn_write.inc"
  include "foehn_read.inc"
  include "foehn_domain.inc"
  include "foehn_runtime.inc"
  include "foehn_axis.inc"

end module foehn
