! Reading a file back through XIOS's xios_recv_field (issue 21, item 4):
! `xios_read_model write` writes t (real(8), lon/lat x levels) and ps
! (real(4)) at steps 1 to 4 in row bands; `xios_read_model read` reads them
! back at steps 0 to 3 (record k at step k, holding step k + 1's values) in
! column bands, on another number of ranks, ps into the interior of an
! array with a halo (a non-contiguous section). Every value read must be
! exactly the one written and the halo left alone; `read missing` then
! reads past the last record, which stops the model with foehn's message.
program xios_read_model
  use, intrinsic :: iso_fortran_env, only: real32, real64
  use mpi
  use xios
  implicit none
  integer, parameter :: ni_glo = 9, nj_glo = 5, nlev = 3, nsteps = 4
  integer :: comm, ierr, rank, nranks, i, j, l, step, ibegin, ni, jbegin, nj, bad
  character(len=16) :: mode, extra
  real(real64), allocatable :: t(:, :, :)
  real(real32), allocatable :: ps(:, :), halo(:, :)

  call get_command_argument(1, mode)
  call get_command_argument(2, extra)
  call xios_initialize("readmodel", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  call xios_context_initialize(trim(mode), comm)
  if (mode == "write") then  ! row bands
    ibegin = 0
    ni = ni_glo
    jbegin = rank * nj_glo / nranks
    nj = (rank + 1) * nj_glo / nranks - jbegin
  else  ! column bands
    ibegin = rank * ni_glo / nranks
    ni = (rank + 1) * ni_glo / nranks - ibegin
    jbegin = 0
    nj = nj_glo
  end if
  call xios_set_domain_attr("dom", ni_glo=ni_glo, nj_glo=nj_glo, ibegin=ibegin, ni=ni, jbegin=jbegin, nj=nj, &
                            lonvalue_1d=[(40.0_real64 * (ibegin + i), i = 0, ni - 1)], &
                            latvalue_1d=[(-60.0_real64 + 30 * (jbegin + j), j = 0, nj - 1)])
  call xios_set_axis_attr("lev", n_glo=nlev, value=[(real(l, real64), l = 1, nlev)])
  call xios_close_context_definition()
  allocate(t(ni, nj, nlev), ps(ni, nj), halo(0:ni + 1, 0:nj + 1))
  bad = 0
  if (mode == "write") then
    do step = 1, nsteps
      call xios_update_calendar(step)
      call values(step)
      call xios_send_field("t", t)
      call xios_send_field("ps", ps)
    end do
  else
    do step = 0, nsteps - 1
      call xios_update_calendar(step)
      if (.not. xios_field_is_active("t_in", .true.) .or. .not. xios_field_is_active("ps_in")) bad = bad + 1
      t = -1
      halo = -7
      call xios_recv_field("t_in", t)
      call xios_recv_field("ps_in", halo(1:ni, 1:nj))
      ps = halo(1:ni, 1:nj)
      if (any(halo(0, :) /= -7) .or. any(halo(ni + 1, :) /= -7) .or. any(halo(:, 0) /= -7) .or. &
          any(halo(:, nj + 1) /= -7)) bad = bad + 1
      call compare(step + 1)
    end do
    if (extra == "missing") then  ! record 4: the file has 4 records (0 to 3); stops the model
      call xios_update_calendar(nsteps)
      call xios_recv_field("t_in", t)
    end if
  end if
  call xios_context_finalize()
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  if (rank == 0) then
    if (bad == 0) then
      print "(a, a)", "xios_read_model: OK ", trim(mode)
    else
      print "(a, i0, a)", "xios_read_model: FAILED (", bad, " differences)"
    end if
  end if

contains

  ! The values of a step at each global point, exact in real(4) and real(8).
  subroutine values(s)
    integer, intent(in) :: s
    do l = 1, nlev
      do j = 1, nj
        do i = 1, ni
          t(i, j, l) = 1000.0_real64 * s + 100 * l + 10 * (jbegin + j - 1) + (ibegin + i - 1) + 0.125_real64
        end do
      end do
    end do
    do j = 1, nj
      do i = 1, ni
        ps(i, j) = real(100 * s + 10 * (jbegin + j - 1) + (ibegin + i - 1), real32) + 0.5_real32
      end do
    end do
  end subroutine values

  subroutine compare(s)
    integer, intent(in) :: s
    real(real64), allocatable :: t_read(:, :, :)
    real(real32), allocatable :: ps_read(:, :)
    t_read = t
    ps_read = ps
    call values(s)
    bad = bad + count(t_read /= t) + count(ps_read /= ps)
  end subroutine compare
end program xios_read_model
