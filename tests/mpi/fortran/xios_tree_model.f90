! XIOS's API beyond the basics, as real models call it (issue 21): XIOS's
! per-kind modules, handles of every kind, xios_is_valid_*, xios_add_child
! with field_ref and name set through the handle, generic xios_set_attr /
! xios_get_attr / xios_is_defined_attr, field group attributes reaching
! their fields, xios_setvar / xios_getvar, the current context, and the
! calendar queries and date conversions. Every value is checked against one
! computed here; the file written through the added field is read back.
program xios_tree_model
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use mpi
  use icontext
  use idomain
  use idomain_attr
  use ifield
  use ifield_attr
  use ifile
  use ifile_attr
  use igrid
  use idate
  use iduration
  use ixml_tree
  use icalendar
  use ivariable
  use nc_read, only: read_var, read_text_attribute
  implicit none
  integer, parameter :: ni = 8, nj_glo = 4, nsteps = 3, ncells = 10
  integer :: comm, ierr, rank, nranks, nj, jbegin, i, j, step, n, cbegin, nc
  type(xios_context) :: ctx_hdl, current_hdl
  type(xios_fieldgroup) :: definitions
  type(xios_field) :: tb, anonymous
  type(xios_file) :: out
  type(xios_domain) :: dom
  character(len=64) :: text
  character(len=:), allocatable :: c
  type(xios_date) :: start, origin, d
  type(xios_duration) :: dt
  logical :: defined, flag, truth
  real(real64) :: r
  real(real64), allocatable :: ta(:, :), tc(:), v(:)

  call xios_initialize("tree", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  call xios_context_initialize("tree", comm)

  ! The current context, as a handle and as an id.
  call check(xios_context_is_initialized("tree"), "context_is_initialized")
  call check(.not. xios_context_is_initialized("sea"), "context_is_initialized of an unknown context")
  call xios_get_handle("tree", ctx_hdl)
  call xios_get_current_context(current_hdl)
  call check(current_hdl%index == ctx_hdl%index, "get_current_context (handle)")
  call xios_get_current_context(text)
  call check(text == "tree", "get_current_context (id)")
  call xios_set_current_context(ctx_hdl)

  ! Validity of ids per kind; groups know their definition root.
  call check(xios_is_valid_field("ta"), "is_valid_field")
  call check(.not. xios_is_valid_field("tz"), "is_valid_field of an unknown id")
  call check(xios_is_valid_fieldgroup("dyn"), "is_valid_fieldgroup")
  call check(xios_is_valid_fieldgroup("field_definition"), "is_valid_fieldgroup of the root")
  call check(.not. xios_is_valid_fieldgroup("ta"), "is_valid_fieldgroup of a field")
  call check(xios_is_valid_domain("dom"), "is_valid_domain")
  call check(.not. xios_is_valid_axis("dom"), "is_valid_axis of a domain")
  call check(xios_is_valid_grid("grid2d"), "is_valid_grid")
  call check(xios_is_valid_file("out"), "is_valid_file")
  call check(xios_is_valid_filegroup("file_definition"), "is_valid_filegroup of the root")
  call check(xios_is_valid_domaingroup("domain_definition"), "is_valid_domaingroup of the root")

  ! The tree from code: tb in field_definition, an anonymous field in the file.
  call xios_get_handle("field_definition", definitions)
  call xios_add_child(definitions, tb, "tb")
  call xios_set_attr(tb, field_ref="ta", long_name="doubled temperature")
  call xios_get_handle("out", out)
  call xios_add_child(out, anonymous)
  call xios_set_attr(anonymous, field_ref="tb", name="tb_out")
  call check(xios_is_valid_field("tb"), "added field is valid")
  call xios_set_attr(out, description="written by xios_tree_model")

  ! Field group attributes reach the group's fields.
  call xios_set_fieldgroup_attr("dyn", standard_name="air_temperature")

  call xios_solve_inheritance()
  call xios_get_attr(anonymous, name=text)
  call check(text == "tb_out", "name through the handle")
  call xios_get_attr(anonymous, long_name=text)
  call check(text == "doubled temperature", "long_name inherited by field_ref")
  call xios_get_field_attr("tb", unit=text)
  call check(text == "K", "unit inherited from the group through field_ref")
  call xios_get_field_attr("ta", standard_name=text)
  call check(text == "air_temperature", "standard_name from xios_set_fieldgroup_attr")
  call xios_get_fieldgroup_attr("dyn", standard_name=text)
  call check(text == "air_temperature", "xios_get_fieldgroup_attr")
  call xios_is_defined_fieldgroup_attr("dyn", long_name=defined)
  call check(.not. defined, "is_defined_fieldgroup_attr of an unset attribute")
  call xios_is_defined_attr(tb, grid_ref=defined)
  call check(defined, "grid_ref defined through field_ref")
  call xios_get_file_attr("out", description=text)
  call check(text == "written by xios_tree_model", "file description set through the handle")

  ! The domain through its handle: this rank's rows.
  nj = nj_glo / nranks
  jbegin = rank * nj
  if (rank == nranks - 1) nj = nj_glo - jbegin
  call xios_get_handle("dom", dom)
  call xios_set_attr(dom, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, lonvalue_1d=[(45.0_real64 * i, i = 0, ni - 1)], &
                     latvalue_1d=[(-60.0_real64 + 40 * (jbegin + j), j = 0, nj - 1)], comment="set through a handle")
  call xios_get_attr(dom, ni_glo=n)
  call check(n == ni, "domain ni_glo read back through the handle")
  call xios_get_domain_attr("dom", comment=text)
  call check(text == "set through a handle", "a stored domain attribute")

  ! A domain whose XML gives no type becomes what the model says (item 8 of issue 21).
  nc = ncells / nranks
  cbegin = rank * nc
  if (rank == nranks - 1) nc = ncells - cbegin
  call xios_set_domain_attr("cells", type="unstructured", ni_glo=ncells, ibegin=cbegin, ni=nc, &
                            lonvalue_1d=[(36.0_real64 * (cbegin + i), i = 0, nc - 1)], &
                            latvalue_1d=[(-45.0_real64 + 10 * (cbegin + i), i = 0, nc - 1)])
  call xios_get_domain_attr("cells", type=text)
  call check(text == "unstructured", "the model's domain type read back")

  ! The domain of a field's grid, by handle and by id.
  call xios_field_get_domain(tb, dom)
  call check(dom%id == "dom", "xios_field_get_domain (handle, through field_ref)")
  call xios_field_get_domain("tc", dom, 0)
  call check(dom%id == "cells", "xios_field_get_domain (id)")

  ! Variables set from code, each type.
  flag = xios_setvar("nsteps", 6)
  call check(flag, "setvar int")
  flag = xios_getvar("nsteps", n)
  call check(flag, "setvar int: getvar")
  call check(n == 6, "getvar int after setvar")
  flag = xios_setvar("scale", 1.25_real64)
  call check(flag, "setvar real(8)")
  flag = xios_getvar("scale", r)
  call check(flag, "setvar real(8): getvar")
  call check(r == 1.25_real64, "getvar real(8) after setvar")
  flag = xios_setvar("scale", 0.5_real32)
  call check(flag, "setvar real(4)")
  flag = xios_getvar("scale", r)
  call check(flag, "setvar real(4): getvar")
  call check(r == 0.5_real64, "getvar after setvar real(4)")
  flag = xios_setvar("flag", .true.)
  call check(flag, "setvar logical")
  flag = xios_getvar("flag", truth)
  call check(flag, "setvar logical: getvar")
  call check(truth, "getvar logical after setvar")
  flag = xios_setvar("label", "xyz")
  call check(flag, "setvar string")
  flag = xios_getvar("label", text)
  call check(flag, "setvar string: getvar")
  call check(text == "xyz", "getvar string after setvar")
  call check(.not. xios_setvar("missing", 1), "setvar of a missing variable")

  ! Calendar queries, against values computed here (2000 is a leap year).
  call xios_get_calendar_type(text)
  call check(text == "gregorian", "get_calendar_type")
  call xios_get_timestep(dt)
  call check(dt%hour == 1 .and. dt%second == 0, "get_timestep")
  call xios_get_start_date(start)
  call check(start == xios_date(2000, 3, 1, 6, 0, 0), "get_start_date")
  call xios_get_time_origin(origin)
  call check(origin == xios_date(2000, 1, 1, 0, 0, 0), "get_time_origin")
  call check(xios_get_year_length_in_seconds(2000) == 366 * 86400, "year length 2000")
  call check(xios_get_year_length_in_seconds(1900) == 365 * 86400, "year length 1900")
  call check(xios_get_day_length_in_seconds() == 86400, "day length")
  call check(xios_date_convert_to_seconds(start) == int(31 + 29, 8) * 86400 + 6 * 3600, "date_convert_to_seconds")
  call check(xios_date_get_second_of_year(start) == (31 + 29) * 86400 + 6 * 3600, "second_of_year")
  call check(xios_date_get_day_of_year(start) == 60.25_real64, "day_of_year")
  call check(abs(xios_date_get_fraction_of_year(start) - 60.25_real64 / 366) < 1e-15_real64, "fraction_of_year")
  call check(xios_date_get_second_of_day(start) == 6 * 3600, "second_of_day")
  call check(xios_date_get_fraction_of_day(start) == 0.25_real64, "fraction_of_day")

  ! Dates and durations: real(4) and real(8) factors, leap days, differences.
  call check(start + 2 * xios_hour == xios_date(2000, 3, 1, 8, 0, 0), "date + int * duration")
  call check(start + 0.5_real32 * xios_day == xios_date(2000, 3, 1, 18, 0, 0), "date + real(4) * duration")
  call check(start + xios_day * 1.5_real64 == xios_date(2000, 3, 2, 18, 0, 0), "date + duration * real(8)")
  call check(start - xios_day == xios_date(2000, 2, 29, 6, 0, 0), "date - duration over the leap day")
  call check(start + xios_timestep == xios_date(2000, 3, 1, 7, 0, 0), "date + xios_timestep")
  dt = xios_date(2000, 3, 2, 6, 0, 0) - start
  call check(dt%second == 86400, "date - date")
  d = start + xios_second
  call check(start < d, "date < date")
  call check(start >= start, "date >= date")
  call check(start /= origin, "date /= date")
  call xios_date_convert_to_string(start, text)
  call check(text == "2000-03-01 06:00:00", "date_convert_to_string")
  d = xios_date_convert_from_string("2001-02-03 04:05:06")
  call check(d == xios_date(2001, 2, 3, 4, 5, 6), "date_convert_from_string")
  dt = xios_duration_convert_from_string("1d 6h")
  call check(dt%day == 1 .and. dt%hour == 6, "duration_convert_from_string")
  call xios_duration_convert_to_string(dt, text)
  c = trim(text)
  call check(c == "108000s", "duration_convert_to_string")

  call xios_close_context_definition()
  allocate(ta(ni, nj), tc(nc))
  do step = 1, nsteps
    call xios_update_calendar(step)
    do j = 1, nj
      do i = 1, ni
        ta(i, j) = 1000 * step + 10 * (jbegin + j - 1) + (i - 1)
      end do
    end do
    call xios_send_field("ta", ta)
    tc = [(100 * step + cbegin + i, i = 0, nc - 1)]
    call xios_send_field("tc", tc)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()

  ! The added field holds ta's values under its own name, with tb's long_name.
  if (rank == 0) then
    call read_var("tree_out.nc", "tb_out", v)
    call check(allocated(v), "tb_out in tree_out.nc")
    call check(size(v) == ni * nj_glo * nsteps, "size of tb_out")
    n = 0
    do step = 1, nsteps
      do j = 0, nj_glo - 1
        do i = 0, ni - 1
          n = n + 1
          call check(v(n) == 1000 * step + 10 * j + i, "a value of tb_out")
        end do
      end do
    end do
    call check(read_text_attribute("tree_out.nc", "tb_out", "long_name") == "doubled temperature", &
               "long_name of tb_out")
    call check(read_text_attribute("tree_out.nc", "tb_out", "standard_name") == "air_temperature", &
               "standard_name of tb_out (from the group)")
    call read_var("tree_out.nc", "tc", v)
    call check(allocated(v), "tc in tree_out.nc")
    call check(size(v) == ncells * nsteps, "size of tc")
    do step = 1, nsteps
      do i = 0, ncells - 1
        call check(v((step - 1) * ncells + i + 1) == 100 * step + i, "a value of tc")
      end do
    end do
    print "(a)", "xios_tree_model: OK"
  end if

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print "(a)", "xios_tree_model: FAILED: " // what
      error stop 1
    end if
  end subroutine check

end program xios_tree_model
