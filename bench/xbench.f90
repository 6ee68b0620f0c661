! xbench: the XIOS-API client of issue 19's targets, written as an XIOS user
! writes one (`use xios`, nothing of foehn's own API): a rectilinear 360 x 180
! grid, 50 levels, 12 float64 fields, 24 steps, every field output every 6th
! step, each rank a band of latitudes. A step is `work` sweeps of upwind
! advection along every latitude row, so the model computes between writes.
!
! usage: xbench MODE [WORK [NI NJ NLEV]]   (reads iodef.xml, bench/xbench.xml)
!   MODE none     no foehn call at all (MPI_Init): the reference time
!   MODE instant  the file xb_instant (operation instant) alone
!   MODE average  the file xb_average (operation average) alone
! Prints one line: xbench: mode=... loop_s=... finalize_s=... rss_start_mib=...
! peak_rss_mib=... record_mib=... (loop_s is the time loop; finalize_s the
! context's finalize, where the last records leave the model).
program xbench
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  implicit none

  integer, parameter :: nfields = 12, nsteps = 24
  character(len=16) :: mode
  integer :: work, ni, nj, nlev, comm, rank, nproc, ierr, jbegin, njl, step, f
  real(real64), allocatable :: state(:,:,:,:)
  real(real64) :: t0, t1, t2, rss_start
  character(len=8), parameter :: names(nfields) = [character(len=8) :: "f01", "f02", "f03", "f04", "f05", "f06", &
                                                   "f07", "f08", "f09", "f10", "f11", "f12"]

  call read_arguments()
  if (mode == "none") then
    call MPI_Init(ierr)
    comm = MPI_COMM_WORLD
  else
    call xios_initialize("xbench", return_comm=comm)
  end if
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nproc, ierr)
  ! Bands of latitudes, the first (nj mod nproc) ranks one row more.
  njl = nj / nproc + merge(1, 0, rank < mod(nj, nproc))
  jbegin = rank * (nj / nproc) + min(rank, mod(nj, nproc))
  allocate(state(ni, njl, nlev, nfields))
  call initial_state()
  rss_start = vm_kib("VmRSS:") / 1024.0_real64
  if (mode /= "none") call define_context()

  call MPI_Barrier(comm, ierr)
  t0 = MPI_Wtime()
  do step = 1, nsteps
    if (mode /= "none") call xios_update_calendar(step)
    call advance()
    if (mode /= "none") then
      do f = 1, nfields
        call xios_send_field(trim(names(f)), state(:, :, :, f))
      end do
    end if
  end do
  t1 = MPI_Wtime()
  if (mode /= "none") call xios_context_finalize()
  t2 = MPI_Wtime()

  if (rank == 0) write (*, '(a, a, 5(a, f0.3), a, f0.3)') "xbench: mode=", trim(mode), " loop_s=", t1 - t0, &
      " finalize_s=", t2 - t1, " rss_start_mib=", rss_start, " peak_rss_mib=", vm_kib("VmHWM:") / 1024.0_real64, &
      " record_mib=", 8.0_real64 * ni * njl * nlev * nfields / 1048576.0_real64, " checksum=", sum(state(:, :, 1, 1))
  if (mode == "none") then
    call MPI_Finalize(ierr)
  else
    call xios_finalize()
  end if

contains

  subroutine read_arguments()
    character(len=32) :: arg
    mode = "none"
    work = 3
    ni = 360
    nj = 180
    nlev = 50
    if (command_argument_count() >= 1) call get_command_argument(1, mode)
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read (arg, *) work
    end if
    if (command_argument_count() >= 5) then
      call get_command_argument(3, arg)
      read (arg, *) ni
      call get_command_argument(4, arg)
      read (arg, *) nj
      call get_command_argument(5, arg)
      read (arg, *) nlev
    end if
    if (mode /= "none" .and. mode /= "instant" .and. mode /= "average") stop "xbench: MODE is none, instant or average"
  end subroutine read_arguments

  ! The domain, axis and calendar from code, as models do; the file the
  ! mode does not use is disabled.
  subroutine define_context()
    type(xios_duration) :: dtime
    real(real64), allocatable :: lon(:), lat(:), lev(:)
    integer :: i
    call xios_context_initialize("xbench", comm)
    dtime%second = 600
    call xios_define_calendar(type="Gregorian", timestep=dtime, start_date=xios_date(2000, 1, 1, 0, 0, 0), &
                              time_origin=xios_date(2000, 1, 1, 0, 0, 0))
    lon = [(360.0_real64 * (i - 0.5_real64) / ni, i = 1, ni)]
    lat = [(-90.0_real64 + 180.0_real64 * (jbegin + i - 0.5_real64) / nj, i = 1, njl)]
    lev = [(real(i, real64), i = 1, nlev)]
    call xios_set_domain_attr("xb_domain", type="rectilinear", ni_glo=ni, nj_glo=nj, ibegin=0, ni=ni, jbegin=jbegin, &
                              nj=njl, lonvalue_1d=lon, latvalue_1d=lat)
    call xios_set_axis_attr("xb_levels", n_glo=nlev, value=lev)
    call xios_set_file_attr("xb_instant", enabled=(mode == "instant"))
    call xios_set_file_attr("xb_average", enabled=(mode == "average"))
    call xios_close_context_definition()
  end subroutine define_context

  subroutine initial_state()
    integer :: i, j, k
    do f = 1, nfields
      do k = 1, nlev
        do j = 1, njl
          do i = 1, ni
            state(i, j, k, f) = f + 0.01_real64 * k + sin(0.0174533_real64 * (i + 3 * (jbegin + j)))
          end do
        end do
      end do
    end do
  end subroutine initial_state

  ! `work` sweeps of upwind advection (Courant number 0.3, periodic in longitude).
  subroutine advance()
    integer :: sweep, j, k, i
    real(real64) :: west, here
    real(real64), parameter :: c = 0.3_real64
    do sweep = 1, work
      do f = 1, nfields
        do k = 1, nlev
          do j = 1, njl
            west = state(ni, j, k, f)
            do i = 1, ni
              here = state(i, j, k, f)
              state(i, j, k, f) = here - c * (here - west)
              west = here
            end do
          end do
        end do
      end do
    end do
  end subroutine advance

  ! A line of /proc/self/status in KiB (VmRSS:, VmHWM:).
  real(real64) function vm_kib(key)
    character(len=*), intent(in) :: key
    character(len=128) :: line
    integer :: unit, io
    vm_kib = 0
    open (newunit=unit, file="/proc/self/status", action="read", iostat=io)
    if (io /= 0) return
    do
      read (unit, '(a)', iostat=io) line
      if (io /= 0) exit
      if (line(1:len(key)) == key) then
        read (line(len(key) + 1:), *) vm_kib
        exit
      end if
    end do
    close (unit)
  end function vm_kib
end program xbench
