! Reading back the files the Fortran tests wrote, through netCDF-C (no
! netCDF-Fortran needed): a variable as a flat real64 array (Fortran order,
! so the C file's last dimension runs fastest) and a text attribute.
module nc_read
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_double, c_size_t, c_null_char, c_int64_t, c_funptr, &
                                         c_ptr, c_null_funptr, c_null_ptr
  implicit none
  private
  public :: read_var, read_text_attribute, same

  interface
    ! netCDF silences HDF5's error printing once, at its initialization;
    ! HDF5 forgets that when MPI_Finalize closes it, and then prints every
    ! attribute netCDF looks for and does not find. Silenced again here.
    integer(c_int) function h5eset_auto2(stack, func, client_data) bind(C, name="H5Eset_auto2")
      import :: c_int, c_int64_t, c_funptr, c_ptr
      implicit none
      integer(c_int64_t), value :: stack
      type(c_funptr), value :: func
      type(c_ptr), value :: client_data
    end function h5eset_auto2
    integer(c_int) function nc_open(path, mode, ncid) bind(C, name="nc_open")
      import :: c_int, c_char
      implicit none
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
      integer(c_int), intent(out) :: ncid
    end function nc_open
    integer(c_int) function nc_close(ncid) bind(C, name="nc_close")
      import :: c_int
      implicit none
      integer(c_int), value :: ncid
    end function nc_close
    integer(c_int) function nc_inq_varid(ncid, name, varid) bind(C, name="nc_inq_varid")
      import :: c_int, c_char
      implicit none
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: varid
    end function nc_inq_varid
    integer(c_int) function nc_inq_varndims(ncid, varid, ndims) bind(C, name="nc_inq_varndims")
      import :: c_int
      implicit none
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: ndims
    end function nc_inq_varndims
    integer(c_int) function nc_inq_vardimid(ncid, varid, dimids) bind(C, name="nc_inq_vardimid")
      import :: c_int
      implicit none
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: dimids(*)
    end function nc_inq_vardimid
    integer(c_int) function nc_inq_dimlen(ncid, dimid, length) bind(C, name="nc_inq_dimlen")
      import :: c_int, c_size_t
      implicit none
      integer(c_int), value :: ncid, dimid
      integer(c_size_t), intent(out) :: length
    end function nc_inq_dimlen
    integer(c_int) function nc_get_var_double(ncid, varid, values) bind(C, name="nc_get_var_double")
      import :: c_int, c_double
      implicit none
      integer(c_int), value :: ncid, varid
      real(c_double), intent(out) :: values(*)
    end function nc_get_var_double
    integer(c_int) function nc_inq_attlen(ncid, varid, name, length) bind(C, name="nc_inq_attlen")
      import :: c_int, c_char, c_size_t
      implicit none
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_size_t), intent(out) :: length
    end function nc_inq_attlen
    integer(c_int) function nc_get_att_text(ncid, varid, name, text) bind(C, name="nc_get_att_text")
      import :: c_int, c_char
      implicit none
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      character(kind=c_char), intent(out) :: text(*)
    end function nc_get_att_text
  end interface

contains

  ! The values of `var` in `path` (every dimension, time included); an
  ! unallocated result when the file or the variable is missing.
  subroutine read_var(path, var, values, shape_c)
    character(*), intent(in) :: path, var
    real(c_double), allocatable, intent(out) :: values(:)
    integer, allocatable, intent(out), optional :: shape_c(:)  ! C order, slowest first
    integer(c_int) :: ncid, varid, ndims, dimids(8), k
    integer(c_size_t) :: length
    integer :: n
    if (h5eset_auto2(0_c_int64_t, c_null_funptr, c_null_ptr) /= 0) continue  ! H5E_DEFAULT
    if (nc_open(path // c_null_char, 0_c_int, ncid) /= 0) return
    if (nc_inq_varid(ncid, var // c_null_char, varid) == 0) then
      ! Two tests, not .and.: Fortran may skip an impure call in an .and.
      if (nc_inq_varndims(ncid, varid, ndims) /= 0) ndims = -1
      if (ndims >= 0 .and. ndims <= size(dimids)) then
        if (nc_inq_vardimid(ncid, varid, dimids) /= 0) ndims = -1
      else
        ndims = -1
      end if
      if (ndims >= 0) then
        n = 1
        if (present(shape_c)) allocate(shape_c(ndims))
        do k = 1, ndims
          if (nc_inq_dimlen(ncid, dimids(k), length) /= 0) length = 0
          n = n * int(length)
          if (present(shape_c)) shape_c(k) = int(length)
        end do
        allocate(values(n))
        if (nc_get_var_double(ncid, varid, values) /= 0) deallocate(values)
      end if
    end if
    if (nc_close(ncid) /= 0) continue
  end subroutine read_var

  ! A text attribute of a variable ("" when missing).
  function read_text_attribute(path, var, name) result(text)
    character(*), intent(in) :: path, var, name
    character(:), allocatable :: text
    integer(c_int) :: ncid, varid
    integer(c_size_t) :: length
    character(kind=c_char), allocatable :: buf(:)
    integer :: k
    text = ""
    if (h5eset_auto2(0_c_int64_t, c_null_funptr, c_null_ptr) /= 0) continue
    if (nc_open(path // c_null_char, 0_c_int, ncid) /= 0) return
    if (nc_inq_varid(ncid, var // c_null_char, varid) == 0) then
      if (nc_inq_attlen(ncid, varid, name // c_null_char, length) == 0) then
        allocate(buf(max(1_c_size_t, length)))
        if (nc_get_att_text(ncid, varid, name // c_null_char, buf) == 0) then
          deallocate(text)
          allocate(character(int(length)) :: text)
          do k = 1, int(length)
            text(k:k) = buf(k)
          end do
        end if
      end if
    end if
    if (nc_close(ncid) /= 0) continue
  end function read_text_attribute

  ! Whether a variable read back holds exactly the expected values.
  logical function same(got, expected)
    real(c_double), allocatable, intent(in) :: got(:)
    real(c_double), intent(in) :: expected(:)
    same = .false.
    if (.not. allocated(got)) return
    if (size(got) /= size(expected)) return
    same = all(got == expected)
  end function same

end module nc_read
