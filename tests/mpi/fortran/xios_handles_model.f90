! Transformations from code through their handles, as XIOS has them (run by
! tests/python/test_xios_handles.py, which checks the files with numpy):
! xios_add_child(domain_hdl, zoom_domain_hdl) with its attributes set
! through the handle, xios_add_zoomdomaintodomain's twin for
! extract_domain with an id and xios_set_extract_domain_attr by id, a
! reorder_domain of the XML through xios_get_reorder_domain_handle, an
! expand_domain added with xios_add_expanddomaintodomain, fields
! added to the file from code with domain_ref to the transformed domains.
! The attributes are read back (get, is_defined) before close of definition.
! A grid built in code (xios_add_child(grid_hdl, domain_hdl / axis_hdl)) for
! a field added in code. Dates in the XML's user_defined calendar (date +
! duration, "+ 1d" in a string, the current date) printed for the test to
! count by hand from the month lengths. Variables added from code to the
! file (global attributes) and to a field of the file (attributes of its
! variable), with name and type set through the handle or the id and their
! values through xios_setvar, then read back (xios_get_variable_attr,
! xios_is_defined_variable_attr, by id and through the handle).
! mpiexec -n 2 ./xios_handles_model (the iodef.xml of the test)
program xios_handles_model
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  use izoom_domain
  use iextract_domain_attr
  use ireorder_domain
  use iexpand_domain_attr
  implicit none
  integer, parameter :: ni = 8, nj_glo = 6, nsteps = 2
  integer :: comm, ierr, rank, nranks, jbegin, nj, i, j, step, value
  type(xios_domain) :: box, strip
  type(xios_zoom_domain) :: zoom
  type(xios_extract_domain) :: extract
  type(xios_reorder_domain) :: reorder
  type(xios_expand_domain) :: expand
  type(xios_domain) :: halo
  logical :: flag
  type(xios_file) :: out
  type(xios_field) :: field
  type(xios_fieldgroup) :: definitions
  type(xios_gridgroup) :: grids
  type(xios_grid) :: grid
  type(xios_domain) :: component
  type(xios_axis) :: level
  type(xios_date) :: d
  type(xios_variable) :: var
  real(real64), allocatable :: ta(:, :, :)
  integer :: k
  logical :: defined(2)
  character(len=32) :: text, kind
  real(real64), allocatable :: lon(:), lat(:), tas(:, :)

  call xios_initialize("handles", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  jbegin = rank * nj_glo / nranks
  nj = (rank + 1) * nj_glo / nranks - jbegin
  allocate(lon(ni), lat(nj), tas(ni, nj))
  lon = [(i * 45.0d0, i = 0, ni - 1)]
  lat = [(-75.0d0 + (jbegin + j) * 30.0d0, j = 0, nj - 1)]
  call xios_context_initialize("atm", comm)
  call xios_set_domain_attr("globe", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                            lonvalue_1d=lon, latvalue_1d=lat)

  ! A zoom, anonymous, set through its handle.
  call xios_get_handle("box", box)
  call xios_add_child(box, zoom)
  call check(xios_is_valid_zoom_domain(zoom%id), "is_valid_zoom_domain of the added zoom")
  call xios_set_attr(zoom, ibegin=2, ni=4, jbegin=1, nj=3)
  call xios_get_zoom_domain_attr_hdl(zoom, ni=value)
  call check(value == 4, "get_zoom_domain_attr ni")
  call xios_is_defined_attr(zoom, ibegin=defined(1), ni=defined(2))
  call check(all(defined), "is_defined_zoom_domain_attr")

  ! An extraction with an id, through the legacy name, set by id.
  call xios_get_domain_handle("strip", strip)
  call xios_add_extractdomaintodomain(strip, extract, "strip_rows")
  call check(extract%id == "strip_rows", "the extract_domain's id")
  call xios_set_extract_domain_attr("strip_rows", ibegin=0, ni=ni, jbegin=4, nj=2)
  call xios_get_extract_domain_attr("strip_rows", jbegin=value)
  call check(value == 4, "get_extract_domain_attr jbegin")
  call xios_is_defined_extract_domain_attr("strip_rows", ibegin=defined(1))
  call check(defined(1), "is_defined_extract_domain_attr")
  call check(.not. xios_is_valid_extract_domain("nowhere"), "is_valid_extract_domain of an unknown id")

  ! A reorder_domain of the XML, by its handle; an expand_domain added through the legacy name.
  call xios_get_reorder_domain_handle("flip", reorder)
  call xios_set_attr(reorder, invert_lat=.true.)
  call xios_get_reorder_domain_attr("flip", invert_lat=flag)
  call check(flag, "get_reorder_domain_attr invert_lat")
  call xios_get_handle("halo", halo)
  call xios_add_expanddomaintodomain(halo, expand, "one_more")
  call xios_set_expand_domain_attr("one_more", order=1, type="node")
  call xios_is_defined_attr(expand, order=defined(1), i_periodic=defined(2))
  call check(defined(1) .and. .not. defined(2), "is_defined_expand_domain_attr")

  ! The fields of the transformed domains, added to the file from code.
  call xios_get_handle("out", out)
  call xios_add_child(out, field, "tas_box")
  call xios_set_attr(field, field_ref="tas", domain_ref="box", name="tas_box")
  call xios_add_fieldtofile(out, field)
  call xios_set_attr(field, field_ref="tas", domain_ref="strip", name="tas_strip")
  call xios_add_child(out, field)
  call xios_set_attr(field, field_ref="tas", domain_ref="flipped", name="tas_flip")
  call xios_add_child(out, field)
  call xios_set_attr(field, field_ref="tas", domain_ref="halo", name="tas_halo")

  ! A grid from code: an anonymous domain standing for globe, then the XML's axis lev by its id.
  call xios_get_handle("grid_definition", grids)
  call xios_add_child(grids, grid, "g3")
  call xios_add_child(grid, component)
  call xios_set_attr(component, domain_ref="globe")
  call xios_add_axistogrid(grid, level, "lev")
  call check(xios_is_valid_grid("g3"), "is_valid_grid of the added grid")
  call xios_get_handle("field_definition", definitions)
  call xios_add_child(definitions, field, "ta")
  call xios_set_attr(field, grid_ref="g3", prec=8, operation="instant")
  call xios_add_child(out, field)
  call xios_set_attr(field, field_ref="ta", name="ta")

  ! Variables from code: two global attributes of the file, one of ta.
  call xios_add_child(out, var, "run_note")
  call xios_set_attr(var, name="note_from_code", type="string")
  call check(xios_setvar("run_note", "made in code"), "setvar of the file's variable")
  call xios_add_variabletofile(out, var, "members")
  call xios_set_variable_attr("members", type="int")
  call check(xios_setvar("members", 12), "setvar of an int variable")
  call xios_add_child(field, var)
  call xios_set_attr(var, name="level_weight", type="double")
  call check(xios_setvar(var%id, 2.5d0), "setvar of the field's variable")
  call check(xios_is_valid_variable(var%id), "is_valid_variable of the anonymous variable")
  ! ... read back by id and through the handle.
  call xios_get_variable_attr("run_note", name=text, type=kind)
  call check(text == "note_from_code" .and. kind == "string", "get_variable_attr of run_note")
  call xios_is_defined_variable_attr("members", name=defined(1), type=defined(2))
  call check(.not. defined(1) .and. defined(2), "is_defined_variable_attr of members (type only)")
  call xios_get_variable_attr("members", type=kind)
  call check(kind == "int", "get_variable_attr type of members")
  call xios_get_attr(var, name=text, type=kind)
  call check(text == "level_weight" .and. kind == "double", "get_attr of the anonymous variable")
  call xios_is_defined_attr(var, name=defined(1))
  call check(defined(1), "is_defined_attr name of the anonymous variable")

  ! Dates in the user_defined calendar of the XML.
  d = xios_date(2000, 1, 15, 0, 0, 0) + xios_duration(day=10)
  call show("jan15_plus_10d", d)
  d = xios_date(2000, 2, 30, 6, 0, 0) + 45 * xios_day
  call show("feb30_plus_45d", d)
  call show("string_plus_1d", xios_date_convert_from_string("2000-01-20 00:00:00 + 1d"))
  d = xios_date(2000, 12, 31, 0, 0, 0) - xios_duration(day=400)
  call show("dec31_minus_400d", d)

  call xios_close_context_definition()
  allocate(ta(ni, nj, 3))
  do step = 1, nsteps
    call xios_update_calendar(step)
    tas = reshape([((100.0d0 * step + 10.0d0 * (jbegin + j) + i, i = 0, ni - 1), j = 0, nj - 1)], [ni, nj])
    call xios_send_field("tas", tas)
    ta = reshape([(((1000.0d0 * k + tas(i, j), i = 1, ni), j = 1, nj), k = 1, 3)], [ni, nj, 3])
    call xios_send_field("ta", ta)
    call xios_get_current_date(d)
    call show("current_" // achar(iachar("0") + step), d)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  if (rank == 0) print "(a)", "xios_handles_model: OK"

contains

  subroutine show(label, date)
    character(*), intent(in) :: label
    type(xios_date), intent(in) :: date
    character(len=19) :: text
    call xios_date_convert_to_string(date, text)
    if (rank == 0) print "(a)", "date " // label // " " // text
  end subroutine show

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (.not. condition) then
      print "(a)", "xios_handles_model: FAILED: " // what
      error stop 1
    end if
  end subroutine check

end program xios_handles_model
